/// A type that runs reads on a database from any thread or task: ``DatabaseQueue``,
/// ``DatabaseReadQueue`` and ``DatabasePool``.
///
/// Every read runs in a read transaction, so all its statements see one consistent state of the
/// database, and the `Database` it receives refuses writes with `SQLITE_READONLY`.
///
/// Each read comes in three styles:
///
/// ```swift
/// let count = try reader.read { db in                         // blocking
///   try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
/// }
/// let count = try await reader.read { db in                   // async/await, cancellable
///   try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
/// }
/// reader.asyncRead({ db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) },
///                  completion: { result in print(result) })     // callback
/// ```
///
/// The `Database` a closure receives is only valid inside that closure: never store it, or a
/// `Statement` or `Row` made from it, outside. The async styles enforce this with `@Sendable`
/// closures and `Sendable` results, which a `Database` is not.
///
/// Related SQLite documentation: <https://sqlite.org/isolation.html>
///
/// ## Topics
///
/// ### Reading
///
/// - ``read(_:)-7psog``
/// - ``read(_:)-6z8g8``
/// - ``asyncRead(_:completion:)``
///
/// ### Reading a snapshot
///
/// - ``read(at:_:)-8ikgw``
/// - ``read(at:_:)-91i3q``
///
/// ### Closing
///
/// - ``path``
/// - ``close()``
public protocol DatabaseReader: AnyObject, Sendable {
  /// The path the database was opened with.
  var path: String { get }

  /// Runs `body` in a read transaction and returns its value, blocking the calling thread until done.
  ///
  /// - Throws: ``ConcurrencyError/reentrantAccess`` when called from inside another closure of this
  ///   reader (it would wait for itself), and whatever `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  func read<T>(_ body: (Database) throws -> T) throws -> T

  /// Runs `body` in a read transaction without blocking the calling task.
  ///
  /// Cancelling the task interrupts the running statement (`sqlite3_interrupt`) and this throws
  /// `CancellationError`; a cancellation before `body` starts skips it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T

  /// Schedules `body` to run in a read transaction and returns at once; `completion` receives its result.
  ///
  /// `completion` runs on the connection's serial queue right after `body`: keep it short, and
  /// dispatch longer work elsewhere. A blocking call to this reader from `completion` throws
  /// ``ConcurrencyError/reentrantAccess``.
  func asyncRead<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void)

  #if ENABLE_SNAPSHOT
    /// Runs `body` in a read transaction that sees the database as it was at `snapshot`, blocking.
    ///
    /// - Throws: ``SQLiteError`` with extended code ``ResultCode/errorSnapshot`` when a checkpoint
    ///   has since overwritten the snapshot.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    func read<T>(at snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T

    /// Runs `body` in a read transaction that sees the database as it was at `snapshot`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    func read<T: Sendable>(
      at snapshot: DatabaseSnapshot, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T
  #endif

  /// Closes the connections. Later calls throw ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/close.html>
  func close() throws
}

extension Database {
  /// Runs `body` in a new deferred transaction, or inside the transaction already open (a long read
  /// transaction of a ``DatabaseReadQueue``).
  func readInTransaction<T>(_ body: (Database) throws -> T) throws -> T {
    if isInAutocommitMode { return try transaction(.deferred, body) }
    return try body(self)
  }

  #if ENABLE_SNAPSHOT
    /// Runs `body` in a new read transaction opened on `snapshot`.
    func read<T>(at snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T {
      guard isInAutocommitMode else {
        throw DatabaseError.transactionState(
          "read(at:) needs a connection outside any transaction; end the long read transaction first")
      }
      // SQLite opens a snapshot only once the connection has read the file and seen it is in WAL mode.
      try connection.runningOwnStatements { try execute(sql: "PRAGMA application_id") }
      return try transaction(.deferred) { db in
        try db.openSnapshot(snapshot)
        return try body(db)
      }
    }
  #endif
}
