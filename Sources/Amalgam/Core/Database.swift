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
/// - ``openUntrusted(path:profile:prepareDatabase:)``
/// - ``applyUntrustedProfile(_:prepareDatabase:)``
/// - ``OpenOptions``
/// - ``valueStorage``
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
/// ### File controls
///
/// - ``isWALPersistent(schema:)``
/// - ``setWALPersistent(_:schema:)``
/// - ``setChunkSize(_:schema:)``
/// - ``setSizeHint(_:schema:)``
/// - ``dataVersion(schema:)``
/// - ``isPowersafeOverwrite(schema:)``
/// - ``setPowersafeOverwrite(_:schema:)``
/// - ``reservedBytesPerPage(schema:)``
/// - ``setReservedBytesPerPage(_:schema:)``
/// - ``vfsName(schema:)``
/// - ``fileHasMoved(schema:)``
/// - ``unsafeFileControl(_:schema:argument:)``
///
/// ### Extensions, client data and overloads
///
/// - ``registerExtension(_:)``
/// - ``setClientData(_:forKey:)``
/// - ``clientData(forKey:as:)``
/// - ``overloadFunction(name:argumentCount:)``
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
    /// How dates, `Codable` values and the other types without a storage class of their own are
    /// stored and read (``Database/valueStorage``): Amalgam's storage by default, or
    /// ``ValueStorage/feistyDB`` for a database that FeistyDB wrote.
    public var valueStorage: ValueStorage
    #if ENCRYPTION
      /// The key of an encrypted database, set before anything reads the file; opening throws
      /// ``EncryptionError/wrongKey(path:)`` when it does not decrypt the file. A new file is created
      /// encrypted. `nil`, the default, opens a plain database. Needs the `ENCRYPTION` trait.
      ///
      /// Related SQLite3 Multiple Ciphers documentation:
      /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
      public var key: EncryptionKey?
      /// The cipher of ``key``; `nil`, the default, is SQLite3 Multiple Ciphers' default, ChaCha20-Poly1305.
      /// Needs the `ENCRYPTION` trait.
      ///
      /// Related SQLite3 Multiple Ciphers documentation:
      /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/>
      public var cipher: Cipher?
      /// How long the key check at open waits for locks (``Configuration/busyTimeout``), or nil for not at all.
      var keyCheckBusyTimeout: Double?
    #endif

    /// Creates options; the defaults open read-write, create the file, report extended codes, and
    /// store values Amalgam's way (``ValueStorage/amalgam``).
    public init(
      readOnly: Bool = false, create: Bool = true, uri: Bool = false, noFollow: Bool = false,
      extendedResultCodes: Bool = true, vfs: String? = nil, valueStorage: ValueStorage = .amalgam
    ) {
      self.readOnly = readOnly
      self.create = create
      self.uri = uri
      self.noFollow = noFollow
      self.extendedResultCodes = extendedResultCodes
      self.vfs = vfs
      self.valueStorage = valueStorage
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
  private(set) var connection: Connection

  /// The `sqlite3*` handle, or `nil` once the database is closed.
  var openHandle: OpaquePointer? { connection.handle }

  /// Prepared statements kept for ``cachedStatement(sql:)``. A `Database` is used by one thread at a
  /// time and the cache calls out to nothing while it is accessed, so the runtime exclusivity check
  /// (a cost on every cached fetch) is not needed.
  @exclusivity(unchecked) var statementCache = StatementCache()

  /// The record SQL this connection used last (see `RecordMemo`).
  @exclusivity(unchecked) var recordMemo = RecordMemo()

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
  /// - Throws: ``SQLiteError`` if SQLite cannot open the file (`SQLITE_CANTOPEN`, `SQLITE_NOTADB`, ...),
  ///   or with `SQLITE_CANTOPEN` when the path contains a NUL character.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public init(path: String, options: OpenOptions = .default) throws {
    self.path = path
    // SQLite reads the path as a C string: a NUL would silently open the file named by the text before it.
    if path.utf8.contains(0) || options.vfs?.utf8.contains(0) == true {
      let what = path.utf8.contains(0) ? "path" : "VFS name"
      throw SQLiteError(code: .cannotOpen, message: "The \(what) contains a NUL character: \(path.debugDescription)")
    }
    var handle: OpaquePointer?
    let rc = sqlite3_open_v2(path, &handle, options.flags, options.vfs)
    guard rc == SQLITE_OK, let handle else {
      let error = SQLiteError(resultCode: rc, connection: handle)
      sqlite3_close_v2(handle)
      throw error
    }
    connection = Connection(
      handle: handle, extendedResultCodes: options.extendedResultCodes, valueStorage: options.valueStorage)
    connection.installTransactionHooks(handle)
    if options.extendedResultCodes { sqlite3_extended_result_codes(handle, 1) }
    #if ENCRYPTION
      if options.key != nil || options.cipher != nil {
        do {
          try applyEncryption(key: options.key, cipher: options.cipher, busyTimeout: options.keyCheckBusyTimeout)
        } catch {
          sqlite3_close_v2(handle)
          connection.handle = nil
          throw error
        }
      }
    #endif
    var message: UnsafeMutablePointer<CChar>?
    let registered = amalgam_register_extensions(handle, &message)
    if registered != SQLITE_OK {
      let text = takeSQLiteString(message)
      sqlite3_close_v2(handle)
      connection.handle = nil
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
    // Another thread inside SQLite on this connection (through a statement it holds, which only code that
    // escapes Swift's Sendable checking can share) keeps it open: the connection closes when it goes.
    let claim = amalgam_claim(connection.owner)
    guard claim >= 0 else { return }
    statementCache.removeAll()
    if let openHandle { _ = connection.close(openHandle) }
    connection.handle = nil
    if claim > 0 { amalgam_release(connection.owner) }
  }

  /// Closes the connection. Safe to call more than once; later calls do nothing.
  ///
  /// Refused with `SQLITE_MISUSE` from inside a callback of an operation that goes on using the
  /// connection after the callback returns (the conflict handler or table filter of a changeset apply),
  /// since closing would free what that operation uses.
  ///
  /// An open transaction is rolled back, as SQLite does on close. Statements still alive become
  /// unusable: their calls throw ``DatabaseError/databaseClosed``, and SQLite frees the connection once
  /// the last of them is released (`sqlite3_close_v2`).
  ///
  /// Closing releases the closures registered on the database (functions, collations, hooks and
  /// handlers), also while statements are alive, so that a closure that captures a statement of its own
  /// database does not keep both alive; once `close()` returns, none of them is called again (the
  /// rollback hook is called for the rollback of an open transaction during `close()`, not for one
  /// that SQLite makes when the last statement goes). While a statement is running (stepped but neither
  /// finished nor reset), SQLite refuses to delete functions and collations: those closures stay with
  /// SQLite, never called, until the last statement is released.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/close.html>
  public func close() throws {
    // All of it holding the connection: a close racing another thread's call must not free what that
    // call uses, nor two closes run at once.
    try connection.holding {
      guard let openHandle else { return }
      if let restrictedCallback = connection.restrictedCallback {
        try restrictedCallback.checkUse()
        try restrictedCallback.checkClose()
      }
      statementCache.removeAll()
      let rc = connection.close(openHandle)
      guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: openHandle) }
    }
  }

  /// True until ``close()`` is called.
  public var isOpen: Bool { openHandle != nil }

  /// How this connection stores dates, `Codable` values and the other types that SQLite has no storage
  /// class for, when binding them to its statements and reading them from its rows. Set when opening
  /// (``OpenOptions/valueStorage``); a change applies to every later bind and read, cached statements
  /// included.
  ///
  /// ```swift
  /// db.valueStorage = .feistyDB
  /// db.valueStorage.dates = .unixTime
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/datatype3.html>
  public var valueStorage: ValueStorage {
    get { connection.valueStorage }
    set { connection.valueStorage = newValue }
  }

  /// The open `sqlite3*` handle, for calling SQLite's C API directly.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` after ``close()``.
  public var sqliteHandle: OpaquePointer {
    get throws {
      guard let openHandle else { throw DatabaseError.databaseClosed }
      return openHandle
    }
  }

  /// Throws the connection's current error for result code `rc`.
  func error(_ rc: Int32, sql: String? = nil) -> SQLiteError {
    connection.error(rc, sql: sql)
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

  /// Runs one SQL statement that takes no parameters to completion, discarding any rows.
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` when the statement has
  ///   parameters (`?`, `:name`): give their values with ``execute(sql:arguments:)`` rather than running
  ///   it with NULLs.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func execute(sql: String) throws {
    let statement = try prepare(sql: sql)
    guard statement.parameterCount == 0 else { throw statement.parameterCountMismatch(0) }
    try statement.execute()
  }

  /// Runs one SQL statement with its arguments to completion, discarding any rows.
  ///
  /// ```swift
  /// try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", arguments: ["Ada", 10])
  /// try db.execute(sql: "UPDATE player SET score = :score WHERE name = :name",
  ///                arguments: ["score": 11, "name": "Ada"])
  /// ```
  ///
  /// Every API that runs SQL text takes its arguments this way, as a ``StatementArguments`` after the
  /// `sql:` label: an array literal for positional parameters, a dictionary literal for named ones.
  /// FeistyDB's spellings, ``execute(sql:parameterValues:)`` and `execute(sql:parameters:)`, do the same.
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` when the count of
  ///   positional values differs from the statement's, the errors of ``Statement/bind(arguments:)`` for
  ///   named ones, and ``SQLiteError`` when the statement fails.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func execute(sql: String, arguments: StatementArguments) throws {
    try prepare(sql: sql).bind(arguments: arguments).execute()
  }

  /// Runs one SQL statement with positional parameters (`?`, `?NNN`) to completion (FeistyDB's spelling
  /// of ``execute(sql:arguments:)``).
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

  /// Runs one SQL statement with named parameters (`:name`, `@name`, `$name`) to completion (FeistyDB's
  /// spelling of ``execute(sql:arguments:)``).
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

  /// Runs several SQL statements separated by semicolons, such as a schema script, one after the other.
  /// Rows that statements return are discarded. Stops at the first error; the statements before it
  /// have run.
  ///
  /// A batch takes no parameters: a statement with one (`?`, `:name`) throws
  /// ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` instead of running with NULL.
  ///
  /// - Throws: ``SQLiteError`` for invalid SQL (with SQLite's message, and the error's offset in the
  ///   whole batch) or a failing statement; ``DatabaseError/nulCharacterInSQL(sql:offset:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/exec.html>
  public func batch(sql: String) throws {
    if let nul = sql.utf8.firstIndex(of: 0) {
      throw DatabaseError.nulCharacterInSQL(sql: sql, offset: sql.utf8.distance(from: sql.utf8.startIndex, to: nul))
    }
    let box = connection
    try box.withHandle(running: nil) { handle in
      try sql.withCString { text in
        var next = text
        while next.pointee != 0 {
          var statement: OpaquePointer?
          var tail: UnsafePointer<CChar>?
          let rc = sqlite3_prepare_v3(handle, next, -1, 0, &statement, &tail)
          let start = text.distance(to: next)
          guard rc == SQLITE_OK else {
            let error = box.error(rc, sql: sql)
            throw SQLiteError(
              code: error.extendedCode, message: error.message, sql: sql, offset: error.offset.map { $0 + start })
          }
          // SQLite always sets the tail on success; stop if it did not move, rather than loop.
          guard let tail, tail != next else { break }
          next = tail
          guard let statement else { continue }  // whitespace, a comment or an empty statement
          defer { sqlite3_finalize(statement) }
          if let restrictedCallback = box.restrictedCallback { try restrictedCallback.check(statement) }
          let parameters = Int(sqlite3_bind_parameter_count(statement))
          if parameters > 0 {
            // SQLite's text of the statement runs from after the previous semicolon to its own.
            let text = String(cString: sqlite3_sql(statement))
            let trimmed = text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace || $0 == ";" }.reversed()
            throw DatabaseError.parameterCountMismatch(expected: parameters, provided: 0, sql: String(trimmed))
          }
          var stepped: Int32
          repeat { stepped = sqlite3_step(statement) } while stepped == SQLITE_ROW
          if stepped != SQLITE_DONE { throw box.error(stepped, sql: sql) }
          box.finishCommitIfNeeded()
        }
      }
    }
  }
}

// MARK: - Connection state

extension Database {
  /// The rowid of the most recent successful INSERT on this connection (`sqlite3_last_insert_rowid`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/last_insert_rowid.html>
  public var lastInsertRowid: Int64 {
    guard let openHandle else { return 0 }
    return sqlite3_last_insert_rowid(openHandle)
  }

  /// Rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/changes.html>
  public var changes: Int {
    guard let openHandle else { return 0 }
    return Int(sqlite3_changes64(openHandle))
  }

  /// Rows changed since the connection opened (`sqlite3_total_changes64`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/total_changes.html>
  public var totalChanges: Int {
    guard let openHandle else { return 0 }
    return Int(sqlite3_total_changes64(openHandle))
  }

  /// Makes the running statement stop at its next opportunity with `SQLITE_INTERRUPT`
  /// (`sqlite3_interrupt`). Safe to call from another thread.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public func interrupt() {
    if let openHandle { sqlite3_interrupt(openHandle) }
  }

  /// True while an interrupt is pending (`sqlite3_is_interrupted`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public var isInterrupted: Bool {
    guard let openHandle else { return false }
    return sqlite3_is_interrupted(openHandle) != 0
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
    guard let openHandle else { return false }
    return sqlite3_db_readonly(openHandle, schema) == 1
  }

  /// The file name of the attached database `schema` (`sqlite3_db_filename`); `nil` for in-memory
  /// and temporary databases.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_filename.html>
  public func filename(schema: String = "main") -> String? {
    guard let openHandle, let name = sqlite3_db_filename(openHandle, schema) else { return nil }
    let text = String(cString: name)
    return text.isEmpty ? nil : text
  }

  /// True when no transaction is open (`sqlite3_get_autocommit`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/get_autocommit.html>
  public var isInAutocommitMode: Bool {
    guard let openHandle else { return true }
    return sqlite3_get_autocommit(openHandle) != 0
  }
}
