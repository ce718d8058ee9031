import AmalgamSQLite

/// Serialised access to one database connection from any thread or task.
///
/// A ``Database`` is not `Sendable`: one thread uses it at a time. A `DatabaseQueue` owns one and runs
/// the closures it is given on it one at a time, in order, on a serial dispatch queue. The queue itself
/// is `Sendable`: share it freely between threads, tasks and actors.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "/path/to/data.db")
/// try queue.sync { db in
///   try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, text TEXT)")
/// }
/// try await queue.transaction { db in
///   try db.execute(sql: "INSERT INTO note(text) VALUES (?)", parameterValues: ["hello"])
/// }
/// let count = try await queue.read { db in
///   try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
/// }
/// ```
///
/// Reads and writes wait for each other. For reads that run in parallel with each other and with
/// writes, use a ``DatabasePool`` (or a ``DatabaseReadQueue`` next to this queue) on a WAL database.
///
/// **Re-entrancy.** A blocking call (`sync`, `read`, `transaction`, `savepoint`, `checkpoint`) made from
/// inside one of this queue's own closures would wait for itself forever; it throws
/// ``ConcurrencyError/reentrantAccess`` instead. Inside a closure, use the `db` it receives.
///
/// **Cancellation.** Cancelling the task awaiting `write`, `read`, `transaction` or `savepoint`
/// interrupts the running statement; the call throws `CancellationError` and a transaction opened by
/// the closure is rolled back, so the queue is ready for the next closure.
///
/// Related SQLite documentation: <https://sqlite.org/threadsafe.html>
///
/// ## Topics
///
/// ### Opening and closing
///
/// - ``init(path:configuration:)``
/// - ``init(configuration:)``
/// - ``close()``
/// - ``path``
/// - ``configuration``
///
/// ### Writing
///
/// - ``sync(_:)``
/// - ``async(_:completion:)``
/// - ``write(_:)-5g3ri``
/// - ``transaction(_:_:)-8tuba``
/// - ``transaction(_:_:)-2hxye``
/// - ``asyncTransaction(_:_:completion:)``
/// - ``savepoint(_:_:)-8a6zq``
/// - ``savepoint(_:_:)-7o1tz``
/// - ``asyncSavepoint(_:_:completion:)``
/// - ``checkpoint(_:schema:)``
///
/// ### Reading
///
/// - ``read(_:)-5a2zt``
/// - ``read(_:)-9gpgz``
/// - ``asyncRead(_:completion:)``
/// - ``read(at:_:)-4h52o``
/// - ``read(at:_:)-8kvdp``
public final class DatabaseQueue: DatabaseWriter {
  private let connection: SerializedDatabase
  /// The observations of this queue (see <doc:ObservingTheDatabase>).
  let observationCenter: ObservationCenter

  /// The configuration the connection was opened with.
  public let configuration: Configuration

  /// The path the database was opened with (`":memory:"` for an in-memory database).
  public var path: String { connection.path }

  /// Opens the database at `path` (created if missing, unless ``Configuration/readOnly``) and sets it
  /// up as `configuration` says, running ``Configuration/prepareDatabase``.
  ///
  /// - Throws: ``SQLiteError`` when SQLite cannot open the file, ``ConcurrencyError`` when the journal
  ///   mode cannot be set, and whatever `prepareDatabase` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public init(path: String, configuration: Configuration = Configuration()) throws {
    self.configuration = configuration
    let database = try configuration.openDatabase(path: path, role: .writer)
    connection = try SerializedDatabase(database: database, label: "\(configuration.label).queue")
    observationCenter = ObservationCenter(writer: connection, configuration: configuration)
  }

  /// Opens a new, empty in-memory database, private to this queue.
  ///
  /// Related SQLite documentation: <https://sqlite.org/inmemorydb.html>
  public convenience init(configuration: Configuration = Configuration()) throws {
    try self.init(path: ":memory:", configuration: configuration)
  }

  /// Runs `body` on the connection, after the closures scheduled before it, blocking until done.
  /// Opens no transaction; see ``DatabaseWriter/sync(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/threadsafe.html>
  @discardableResult
  public func sync<T>(_ body: (Database) throws -> T) throws -> T {
    try connection.sync(body)
  }

  /// Schedules `body` on the connection, after the closures scheduled before it, and returns at once;
  /// `completion` receives its result. See ``DatabaseWriter/async(_:completion:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/threadsafe.html>
  public func async<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    connection.async(body, completion: completion)
  }

  /// Runs `body` on the connection without blocking the calling task; cancelling the task interrupts
  /// it. Opens no transaction; see ``DatabaseWriter/write(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  @discardableResult
  public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await connection.perform(body)
  }

  /// Runs `body` in a read transaction, blocking. The connection refuses writes meanwhile, as under
  /// `PRAGMA query_only`: they fail with `SQLITE_READONLY` ("attempt to write a readonly database").
  /// Unlike the pragma, this makes SQLite prepare no statement again.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_query_only>
  public func read<T>(_ body: (Database) throws -> T) throws -> T {
    try connection.sync { db in try queryOnly(db) { try db.readInTransaction(body) } }
  }

  /// Runs `body` in a read transaction without blocking the calling task. The connection refuses writes
  /// meanwhile, as under `PRAGMA query_only`. Cancelling the task interrupts the running statement and throws
  /// `CancellationError`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_query_only>
  public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await connection.perform { db in try queryOnly(db) { try db.readInTransaction(body) } }
  }

  /// Schedules `body` to run in a read transaction and returns at once; `completion` receives its
  /// result. The connection refuses writes meanwhile, as under `PRAGMA query_only`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_query_only>
  public func asyncRead<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    connection.async({ db in try queryOnly(db) { try db.readInTransaction(body) } }, completion: completion)
  }

  #if ENABLE_SNAPSHOT
    /// Runs `body` in a read transaction on `snapshot`, blocking. The database must be in WAL mode.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func read<T>(at snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T {
      try connection.sync { db in try queryOnly(db) { try db.read(at: snapshot, body) } }
    }

    /// Runs `body` in a read transaction on `snapshot`. The database must be in WAL mode.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func read<T: Sendable>(
      at snapshot: DatabaseSnapshot, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
      try await connection.perform { db in try queryOnly(db) { try db.read(at: snapshot, body) } }
    }
  #endif

  /// Closes the connection, waiting for closures already scheduled. Later calls throw
  /// ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/close.html>
  public func close() throws {
    try connection.close()
  }
}

/// Runs `body` with the connection refusing writes, then lets it write again unless it refused them
/// before (the user's own `PRAGMA query_only`), also when `body` fails or is cancelled.
///
/// The flag is `PRAGMA query_only`'s, set without running the pragma: a flag pragma makes SQLite prepare
/// every statement of the connection again before its next run (OP_Expire), which would cost every read a
/// new preparation of each cached statement. SQLite reads the flag when a statement starts to write,
/// whatever path it runs through (a statement, a batch, a writable blob, a changeset apply, the C handle).
private func queryOnly<T>(_ db: Database, _ body: () throws -> T) throws -> T {
  let connection = db.connection
  let wasQueryOnly = try connection.withHandle { amalgam_query_only($0, 1) } != 0
  defer {
    if !wasQueryOnly { _ = try? connection.withHandle { amalgam_query_only($0, 0) } }
  }
  return try body()
}
