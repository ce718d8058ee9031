#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// A connection to an SQLite database (`sqlite3*`).
///
/// A `Database` is not `Sendable`: it is used by one thread or task at a time, which the Swift 6
/// compiler checks. To share a database between threads, use a queue type that owns the connection.
///
/// ```swift
/// let db = try Database()                          // in memory
/// try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
/// try db.execute(sql: "INSERT INTO t(name) VALUES (?)", parameterValues: ["Ada"])
/// let name: String? = try db.prepare(sql: "SELECT name FROM t").front()
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/sqlite3.html>
///
/// ## Topics
///
/// ### Opening and closing
///
/// - ``init()``
/// - ``init(path:options:)``
/// - ``init(url:options:)``
/// - ``temporary()``
/// - ``OpenOptions``
/// - ``close()``
/// - ``isOpen``
/// - ``path``
/// - ``filename(schema:)``
/// - ``isReadOnly``
/// - ``isReadOnly(schema:)``
///
/// ### Running SQL
///
/// - ``execute(sql:)``
/// - ``execute(sql:parameterValues:)``
/// - ``execute(sql:parameters:)-(_,KeyValuePairs<String,(ParameterBindable)?>)``
/// - ``execute(sql:parameters:)-(_,Pairs)``
/// - ``batch(sql:)``
/// - ``prepare(sql:)``
/// - ``lastInsertRowid``
/// - ``changes``
/// - ``totalChanges``
/// - ``interrupt()``
/// - ``isInterrupted``
/// - ``setBusyTimeout(_:)``
///
/// ### Caching statements
///
/// - ``cachedStatement(sql:)``
/// - ``statementCacheCapacity``
/// - ``cachedStatementCount``
/// - ``clearStatementCache()``
///
/// ### Transactions and savepoints
///
/// - ``transaction(_:_:)``
/// - ``savepoint(_:_:)``
/// - ``begin(_:)``
/// - ``commit()``
/// - ``rollback()``
/// - ``isInAutocommitMode``
///
/// ### SQL functions and collations
///
/// - ``addFunction(_:flags:_:)``
/// - ``addFunction(_:arity:flags:_:)-(_,_,_,([DatabaseValue])->DatabaseValue)``
/// - ``addFunction(_:arity:flags:_:)-(_,_,_,(FunctionArguments,FunctionContext)->Void)``
/// - ``addAggregateFunction(_:arity:flags:_:)-(_,_,_,A.Type)``
/// - ``addAggregateFunction(_:arity:flags:_:)-(_,_,_,()->A)``
/// - ``addWindowFunction(_:arity:flags:_:)-(_,_,_,W.Type)``
/// - ``addWindowFunction(_:arity:flags:_:)-(_,_,_,()->W)``
/// - ``removeFunction(_:arity:)``
/// - ``addCollation(_:)``
/// - ``addCollation(_:_:)``
/// - ``removeCollation(_:)``
///
/// ### Hooks
///
/// - ``setCommitHook(_:)``
/// - ``removeCommitHook()``
/// - ``setRollbackHook(_:)``
/// - ``removeRollbackHook()``
/// - ``setUpdateHook(_:)``
/// - ``removeUpdateHook()``
/// - ``setPreUpdateHook(_:)``
/// - ``removePreUpdateHook()``
/// - ``setAuthorizer(_:)``
/// - ``removeAuthorizer()``
/// - ``setTraceHandler(for:_:)``
/// - ``removeTraceHandler()``
/// - ``setProgressHandler(every:_:)``
/// - ``removeProgressHandler()``
/// - ``setBusyHandler(_:)``
/// - ``removeBusyHandler()``
/// - ``setWALHook(_:)``
/// - ``removeWALHook()``
///
/// ### Limits, settings and counters
///
/// - ``limit(_:)``
/// - ``setLimit(_:to:)``
/// - ``isEnabled(_:)``
/// - ``setEnabled(_:to:)``
/// - ``floatingPointDigits()``
/// - ``setFloatingPointDigits(_:)``
/// - ``status(_:reset:)``
///
/// ### Loading extensions
///
/// - ``enableExtensionLoading(_:)``
/// - ``loadExtension(path:entryPoint:)``
///
/// ### WAL checkpoints and snapshots
///
/// - ``checkpoint(_:schema:)``
/// - ``takeSnapshot(schema:)``
/// - ``openSnapshot(_:schema:)``
///
/// ### Backup, blobs and serialization
///
/// - ``backup(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:progress:)``
/// - ``backupSteps(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:)``
/// - ``openBlob(schema:table:column:rowid:writable:)``
/// - ``serialize(schema:)``
/// - ``withSerializedBytes(schema:_:)``
/// - ``deserialize(_:schema:readOnly:resizable:maximumSize:)``
/// - ``vacuum(into:schema:)``
///
/// ### C API
///
/// - ``sqliteHandle``
public final class Database {
  /// How to open a database file.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public struct OpenOptions: Sendable, Hashable {
    /// Open read-only (`SQLITE_OPEN_READONLY`); otherwise read-write.
    public var readOnly: Bool
    /// Create the file if it does not exist (`SQLITE_OPEN_CREATE`). Ignored when ``readOnly-property``.
    public var create: Bool
    /// Interpret the path as a URI such as `file:data.db?mode=ro` (`SQLITE_OPEN_URI`).
    public var uri: Bool
    /// Refuse to open a path that is a symbolic link (`SQLITE_OPEN_NOFOLLOW`).
    public var noFollow: Bool
    /// Report extended result codes such as `SQLITE_CONSTRAINT_UNIQUE` (`SQLITE_OPEN_EXRESCODE`).
    public var extendedResultCodes: Bool
    /// The name of the VFS to use, or `nil` for the default.
    public var vfs: String?

    /// Creates options; the defaults open read-write, create the file, and report extended codes.
    public init(
      readOnly: Bool = false, create: Bool = true, uri: Bool = false, noFollow: Bool = false,
      extendedResultCodes: Bool = true, vfs: String? = nil
    ) {
      self.readOnly = readOnly
      self.create = create
      self.uri = uri
      self.noFollow = noFollow
      self.extendedResultCodes = extendedResultCodes
      self.vfs = vfs
    }

    /// Read-write, created if missing, extended result codes on.
    public static let `default` = OpenOptions()
    /// Read-only; the file must exist.
    public static let readOnly = OpenOptions(readOnly: true, create: false)

    var flags: Int32 {
      var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
      if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
      if uri { flags |= SQLITE_OPEN_URI }
      if noFollow { flags |= SQLITE_OPEN_NOFOLLOW }
      if extendedResultCodes { flags |= SQLITE_OPEN_EXRESCODE }
      return flags
    }
  }

  /// The `sqlite3*` handle, shared with this database's statements so that they see it close.
  private(set) var connectionBox: Connection

  /// The `sqlite3*` handle, or `nil` once the database is closed.
  var connection: OpaquePointer? { connectionBox.handle }

  /// Prepared statements kept for ``cachedStatement(sql:)``.
  var statementCache = StatementCache()

  /// Numbers the generated savepoint names.
  var savepointCounter = 0

  /// The path given when opening (`":memory:"` for an in-memory database, `""` for a temporary one).
  public let path: String

  /// Opens a database file.
  ///
  /// - Parameters:
  ///   - path: a file path, `":memory:"` for an in-memory database, `""` for a temporary on-disk
  ///     database deleted on close, or a `file:` URI (with ``OpenOptions/uri`` or the `USE_URI` trait).
  ///   - options: read-only, create, URI, no-follow, extended result codes, VFS.
  /// - Throws: ``SQLiteError`` if SQLite cannot open the file (`SQLITE_CANTOPEN`, `SQLITE_NOTADB`, ...).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public init(path: String, options: OpenOptions = .default) throws {
    self.path = path
    var handle: OpaquePointer?
    let rc = sqlite3_open_v2(path, &handle, options.flags, options.vfs)
    guard rc == SQLITE_OK, let handle else {
      let error = SQLiteError(resultCode: rc, connection: handle)
      sqlite3_close_v2(handle)
      throw error
    }
    connectionBox = Connection(handle: handle, extendedResultCodes: options.extendedResultCodes)
    if options.extendedResultCodes { sqlite3_extended_result_codes(handle, 1) }
    var message: UnsafeMutablePointer<CChar>?
    let registered = amalgam_register_extensions(handle, &message)
    if registered != SQLITE_OK {
      let text = message.map { String(cString: $0) }
      sqlite3_free(message)
      sqlite3_close_v2(handle)
      connectionBox.handle = nil
      throw SQLiteError(code: ResultCode(rawValue: registered), message: text)
    }
  }

  /// Opens the database file at a file URL. See ``init(path:options:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public convenience init(url: URL, options: OpenOptions = .default) throws {
    guard url.isFileURL else {
      throw SQLiteError(code: .cannotOpen, message: "Not a file URL: \(url)")
    }
    try self.init(path: url.path, options: options)
  }

  /// Opens a new, empty in-memory database, private to this connection.
  ///
  /// Related SQLite documentation: <https://sqlite.org/inmemorydb.html>
  public convenience init() throws {
    try self.init(path: ":memory:")
  }

  /// Opens a temporary on-disk database that SQLite deletes when it is closed. Unlike an in-memory one,
  /// it can grow beyond memory: pages spill to a temporary file.
  ///
  /// Related SQLite documentation: <https://sqlite.org/inmemorydb.html#temp_db>
  public static func temporary() throws -> Database {
    try Database(path: "")
  }

  deinit {
    statementCache.removeAll()
    if let connection { sqlite3_close_v2(connection) }
    connectionBox.handle = nil
  }

  /// Closes the connection. Safe to call more than once; later calls do nothing.
  ///
  /// An open transaction is rolled back, as SQLite does on close. Statements still alive become
  /// unusable: their calls throw ``DatabaseError/databaseClosed``, and SQLite frees the connection once
  /// the last of them is released (`sqlite3_close_v2`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/close.html>
  public func close() throws {
    guard let connection else { return }
    statementCache.removeAll()
    let rc = try connectionBox.withHandle { sqlite3_close_v2($0) }
    guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: connection) }
    connectionBox.handle = nil
    // With no statement left, SQLite has really closed the connection and will call no callback again.
    if isKnownUniquelyReferenced(&connectionBox) { connectionBox.retainedCallbacks.removeAll() }
  }

  /// True until ``close()`` is called.
  public var isOpen: Bool { connection != nil }

  /// The open `sqlite3*` handle, for calling SQLite's C API directly.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` after ``close()``.
  public var sqliteHandle: OpaquePointer {
    get throws {
      guard let connection else { throw DatabaseError.databaseClosed }
      return connection
    }
  }

  /// Throws the connection's current error for result code `rc`.
  func error(_ rc: Int32, sql: String? = nil) -> SQLiteError {
    connectionBox.error(rc, sql: sql)
  }

  /// Checks a result code: anything but `SQLITE_OK` becomes an ``SQLiteError``.
  func check(_ rc: Int32, sql: String? = nil) throws {
    if rc != SQLITE_OK { throw error(rc, sql: sql) }
  }
}

// MARK: - Running SQL

extension Database {
  /// Prepares one SQL statement.
  ///
  /// - Throws: ``SQLiteError`` for invalid SQL (with SQLite's message and the error offset),
  ///   ``DatabaseError/emptyStatement(sql:)`` when there is no statement, and
  ///   ``DatabaseError/multipleStatements(sql:)`` when there is more than one.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/prepare.html>
  public func prepare(sql: String) throws -> Statement {
    try Statement(database: self, sql: sql)
  }

  /// Runs one SQL statement to completion, discarding any rows.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func execute(sql: String) throws {
    try prepare(sql: sql).execute()
  }

  /// Runs one SQL statement with positional parameters (`?`, `?NNN`) to completion.
  ///
  /// ```swift
  /// try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", parameterValues: [1, "two"])
  /// ```
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` when the count differs.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func execute(sql: String, parameterValues: [(any ParameterBindable)?]) throws {
    try prepare(sql: sql).bind(parameterValues: parameterValues).execute()
  }

  /// Runs one SQL statement with named parameters (`:name`, `@name`, `$name`) to completion.
  ///
  /// ```swift
  /// try db.execute(sql: "INSERT INTO t(a) VALUES (:a)", parameters: ["a": 1])
  /// ```
  ///
  /// Keys may be written with or without the prefix. Every named parameter must be given a value.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  public func execute(sql: String, parameters: KeyValuePairs<String, (any ParameterBindable)?>) throws {
    try prepare(sql: sql).bind(parameters: parameters).execute()
  }

  /// Runs one SQL statement with named parameters from any sequence of name/value pairs, such as a
  /// dictionary. See ``execute(sql:parameters:)-(_,KeyValuePairs<String,(ParameterBindable)?>)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @_disfavoredOverload
  public func execute<Pairs: Sequence>(sql: String, parameters: Pairs) throws
  where Pairs.Element == (key: String, value: (any ParameterBindable)?) {
    try prepare(sql: sql).bind(parameters: parameters).execute()
  }

  /// Runs several SQL statements separated by semicolons, such as a schema script (`sqlite3_exec`).
  /// Rows that statements return are discarded. Stops at the first error.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/exec.html>
  public func batch(sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    let rc = try connectionBox.withHandle { sqlite3_exec($0, sql, nil, nil, &message) }
    if rc != SQLITE_OK {
      let text = message.map { String(cString: $0) }
      sqlite3_free(message)
      var error = connectionBox.error(rc, sql: sql)
      if let text, text != error.message {
        error = SQLiteError(code: error.extendedCode, message: text, sql: sql, offset: error.offset)
      }
      throw error
    }
  }
}

// MARK: - Connection state

extension Database {
  /// The rowid of the most recent successful INSERT on this connection (`sqlite3_last_insert_rowid`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/last_insert_rowid.html>
  public var lastInsertRowid: Int64 {
    guard let connection else { return 0 }
    return sqlite3_last_insert_rowid(connection)
  }

  /// Rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/changes.html>
  public var changes: Int {
    guard let connection else { return 0 }
    return Int(sqlite3_changes64(connection))
  }

  /// Rows changed since the connection opened (`sqlite3_total_changes64`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/total_changes.html>
  public var totalChanges: Int {
    guard let connection else { return 0 }
    return Int(sqlite3_total_changes64(connection))
  }

  /// Makes the running statement stop at its next opportunity with `SQLITE_INTERRUPT`
  /// (`sqlite3_interrupt`). Safe to call from another thread.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public func interrupt() {
    if let connection { sqlite3_interrupt(connection) }
  }

  /// True while an interrupt is pending (`sqlite3_is_interrupted`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public var isInterrupted: Bool {
    guard let connection else { return false }
    return sqlite3_is_interrupted(connection) != 0
  }

  /// True when the main database is read-only (`sqlite3_db_readonly`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_readonly.html>
  public var isReadOnly: Bool {
    isReadOnly(schema: "main")
  }

  /// True when the attached database `schema` is read-only (`sqlite3_db_readonly`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_readonly.html>
  public func isReadOnly(schema: String) -> Bool {
    guard let connection else { return false }
    return sqlite3_db_readonly(connection, schema) == 1
  }

  /// The file name of the attached database `schema` (`sqlite3_db_filename`); `nil` for in-memory
  /// and temporary databases.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_filename.html>
  public func filename(schema: String = "main") -> String? {
    guard let connection, let name = sqlite3_db_filename(connection, schema) else { return nil }
    let text = String(cString: name)
    return text.isEmpty ? nil : text
  }

  /// True when no transaction is open (`sqlite3_get_autocommit`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/get_autocommit.html>
  public var isInAutocommitMode: Bool {
    guard let connection else { return true }
    return sqlite3_get_autocommit(connection) != 0
  }

  /// How long SQLite retries a locked database before failing with `SQLITE_BUSY`, in seconds
  /// (`sqlite3_busy_timeout`). Zero, the default, fails at once.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_timeout.html>
  public func setBusyTimeout(_ seconds: Double) throws {
    let connection = try sqliteHandle
    let milliseconds: Int32
    if seconds.isNaN || seconds <= 0 {
      milliseconds = 0
    } else if seconds * 1000 >= Double(Int32.max) {
      milliseconds = Int32.max
    } else {
      milliseconds = Int32((seconds * 1000).rounded(.up))
    }
    try check(sqlite3_busy_timeout(connection, milliseconds))
    // The timeout replaces any busy handler in SQLite: release that handler's closure too.
    connectionBox.retainedCallbacks["busyHandler"] = nil
  }
}

/// The connection handle that a database and its statements share. Statements hold this box rather
/// than the `Database`, so that the database's statement cache does not keep the database alive.
@usableFromInline
final class Connection {
  /// The `sqlite3*` handle; `nil` once closed.
  // Unchecked: only the thread using the connection reads or writes it (see `owner`), and the dynamic
  // exclusivity check would otherwise run on every step.
  @exclusivity(unchecked) @usableFromInline var handle: OpaquePointer?

  /// Objects that SQLite holds raw pointers to (hook and handler closures registered without a
  /// destructor), by registration slot such as `"commitHook"`. Replacing an entry releases the old
  /// object. They live as long as this box: statements keep it alive, so a callback that SQLite makes
  /// while finalizing the last statement of a closed connection (a rollback hook) still finds its object.
  var retainedCallbacks: [String: AnyObject] = [:]

  /// The id of the thread inside SQLite on this connection, or 0. Detects a connection used by two
  /// threads at once (possible only by escaping Swift's `Sendable` checking), which in SQLite's
  /// multi-thread mode would corrupt memory; the second thread gets ``DatabaseError/concurrentUse``.
  @usableFromInline let owner: UnsafeMutablePointer<UInt>

  /// Whether errors report extended result codes (``Database/OpenOptions/extendedResultCodes``).
  let extendedResultCodes: Bool

  /// The error SQLite reports for `rc` on this connection.
  func error(_ rc: Int32, sql: String? = nil) -> SQLiteError {
    SQLiteError(resultCode: rc, connection: handle, sql: sql, extendedCodes: extendedResultCodes)
  }

  init(handle: OpaquePointer, extendedResultCodes: Bool) {
    self.handle = handle
    self.extendedResultCodes = extendedResultCodes
    owner = .allocate(capacity: 1)
    owner.initialize(to: 0)
  }

  deinit {
    owner.deallocate()
  }

  /// Runs `body` with the open handle, holding the connection for the calling thread.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` or ``DatabaseError/concurrentUse``.
  @inlinable
  func withHandle<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
    guard let handle else { throw DatabaseError.databaseClosed }
    let claim = amalgam_claim(owner)
    if claim < 0 { throw DatabaseError.concurrentUse }
    defer { if claim > 0 { amalgam_release(owner) } }
    return try body(handle)
  }
}
