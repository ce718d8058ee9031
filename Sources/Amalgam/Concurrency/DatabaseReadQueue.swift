/// A read-only connection to a database file, for reading it concurrently with a writer.
///
/// In WAL mode, a `DatabaseReadQueue` reads while a ``DatabaseQueue`` (or another process) writes, and
/// several read queues read in parallel with each other. Each queue runs its closures one at a time on
/// its own read-only connection. (Without WAL, a reader blocks the writer's commits and the writer
/// blocks readers; see <https://sqlite.org/wal.html>.)
///
/// ```swift
/// let writer = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .wal))
/// let reader = try DatabaseReadQueue(path: path)
/// let count = try await reader.read { db in
///   try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
/// }
/// ```
///
/// **Consistency.** Every `read` runs in its own read transaction, so all its statements see the
/// database as one committed state. To see one state across several reads, open a long read
/// transaction: until you move it forward or end it, every read sees the database as it was when it
/// began, whatever the writer commits meanwhile.
///
/// ```swift
/// try reader.beginReadTransaction()       // pins the current state
/// let before = try reader.read { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
/// // ... the writer inserts notes; reads here still see `before` ...
/// try reader.updateReadTransaction()      // moves to the latest committed state
/// try reader.endReadTransaction()         // back to one transaction per read
/// ```
///
/// A long read transaction stops checkpoints from getting past it, so the WAL file grows until it ends.
///
/// Related SQLite documentation: <https://sqlite.org/isolation.html>
///
/// ## Topics
///
/// ### Opening and closing
///
/// - ``init(path:configuration:)``
/// - ``close()``
/// - ``path``
/// - ``configuration``
///
/// ### Reading
///
/// - ``read(_:)-9uazq``
/// - ``read(_:)-2lm2``
/// - ``asyncRead(_:completion:)``
/// - ``read(at:_:)-2w8r9``
/// - ``read(at:_:)-296ia``
///
/// ### Long read transactions
///
/// - ``beginReadTransaction()``
/// - ``beginReadTransaction(at:)``
/// - ``updateReadTransaction()``
/// - ``endReadTransaction()``
public final class DatabaseReadQueue: DatabaseReader {
  private let connection: SerializedDatabase

  /// The configuration the connection was opened with.
  public let configuration: Configuration

  /// The path the database was opened with.
  public var path: String { connection.path }

  /// Opens the existing database at `path` read-only, and sets it up as `configuration` says (the
  /// journal mode is left alone: it belongs to the file).
  ///
  /// - Throws: ``SQLiteError`` when the file cannot be opened (`SQLITE_CANTOPEN` if it does not exist),
  ///   and whatever ``Configuration/prepareDatabase`` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public init(path: String, configuration: Configuration = Configuration()) throws {
    self.configuration = configuration
    let database = try configuration.openDatabase(path: path, role: .reader)
    connection = try SerializedDatabase(database: database, label: "\(configuration.label).readqueue")
  }

  /// Runs `body` in a read transaction (or in the long read transaction, if one is open), blocking.
  ///
  /// - Throws: ``ConcurrencyError/reentrantAccess`` when called from inside one of this queue's
  ///   closures, and whatever `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/isolation.html>
  public func read<T>(_ body: (Database) throws -> T) throws -> T {
    try connection.sync { db in try db.readInTransaction(body) }
  }

  /// Runs `body` in a read transaction (or in the long read transaction, if one is open) without
  /// blocking the calling task. Cancelling the task interrupts the running statement and throws
  /// `CancellationError`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await connection.perform { db in try db.readInTransaction(body) }
  }

  /// Schedules `body` to run in a read transaction (or in the long read transaction, if one is open)
  /// and returns at once; `completion` receives its result.
  ///
  /// Related SQLite documentation: <https://sqlite.org/isolation.html>
  public func asyncRead<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    connection.async({ db in try db.readInTransaction(body) }, completion: completion)
  }

  #if ENABLE_SNAPSHOT
    /// Runs `body` in a read transaction on `snapshot`, blocking.
    ///
    /// - Throws: ``DatabaseError/transactionState(_:)`` during a long read transaction; end it first.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func read<T>(at snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T {
      try connection.sync { db in try db.read(at: snapshot, body) }
    }

    /// Runs `body` in a read transaction on `snapshot`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func read<T: Sendable>(
      at snapshot: DatabaseSnapshot, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
      try await connection.perform { db in try db.read(at: snapshot, body) }
    }

    /// Begins a long read transaction on `snapshot`: reads see the database as it was then, until
    /// ``updateReadTransaction()`` or ``endReadTransaction()``.
    ///
    /// - Throws: ``DatabaseError/transactionState(_:)`` when a long read transaction is already open;
    ///   ``SQLiteError`` (``ResultCode/errorSnapshot``) when a checkpoint has overwritten the snapshot.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func beginReadTransaction(at snapshot: DatabaseSnapshot) throws {
      try connection.sync { db in
        try db.requireNoReadTransaction()
        try db.execute(sql: "PRAGMA application_id")  // so that the connection knows the file is in WAL mode
        try db.begin(.deferred)
        do {
          try db.openSnapshot(snapshot)
        } catch {
          try? db.rollback()
          throw error
        }
      }
    }
  #endif

  /// Begins a long read transaction and pins the current state of the database: every read until
  /// ``updateReadTransaction()`` or ``endReadTransaction()`` sees that state.
  ///
  /// - Throws: ``DatabaseError/transactionState(_:)`` when one is already open.
  ///
  /// Related SQLite documentation: <https://sqlite.org/isolation.html>
  public func beginReadTransaction() throws {
    try connection.sync { db in
      try db.requireNoReadTransaction()
      try db.beginPinnedReadTransaction()
    }
  }

  /// Moves the long read transaction forward to the latest committed state (ending it and beginning a
  /// new one); begins one when none is open.
  ///
  /// Related SQLite documentation: <https://sqlite.org/isolation.html>
  public func updateReadTransaction() throws {
    try connection.sync { db in
      if !db.isInAutocommitMode { try db.rollback() }
      try db.beginPinnedReadTransaction()
    }
  }

  /// Ends the long read transaction, if one is open; reads then run in a transaction each again.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func endReadTransaction() throws {
    try connection.sync { db in
      if !db.isInAutocommitMode { try db.rollback() }
    }
  }

  /// Closes the connection (ending a long read transaction). Later calls throw
  /// ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/close.html>
  public func close() throws {
    try connection.close()
  }
}

extension Database {
  /// Throws unless the connection is in autocommit mode.
  fileprivate func requireNoReadTransaction() throws {
    guard isInAutocommitMode else {
      throw DatabaseError.transactionState(
        "A long read transaction is already open; use updateReadTransaction() to move it forward")
    }
  }

  /// Begins a deferred transaction and reads, so that it holds the current snapshot from now on
  /// (a deferred transaction would otherwise take its snapshot at its first read).
  fileprivate func beginPinnedReadTransaction() throws {
    try begin(.deferred)
    do {
      try connection.runningOwnStatements { try execute(sql: "PRAGMA schema_version") }
    } catch {
      try? rollback()
      throw error
    }
  }
}
