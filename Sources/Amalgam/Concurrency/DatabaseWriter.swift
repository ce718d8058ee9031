/// A type that runs reads and writes on one database connection from any thread or task, one closure at
/// a time: ``DatabaseQueue`` and ``DatabasePool`` (whose writes go to its single writer).
///
/// | | blocking | callback | async/await |
/// | --- | --- | --- | --- |
/// | any statements | `sync { }` | `async { } completion: { }` | `try await write { }` |
/// | in a transaction | `transaction { }` | `asyncTransaction { } completion: { }` | `try await transaction { }` |
/// | in a savepoint | `savepoint { }` | `asyncSavepoint { } completion: { }` | `try await savepoint { }` |
/// | read-only | `read { }` | `asyncRead { } completion: { }` | `try await read { }` |
///
/// ```swift
/// try queue.transaction { db in
///   try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
///   try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
/// }
/// let total = try await queue.write { db in
///   try db.prepare(sql: "SELECT sum(balance) FROM account").front(Int.self)
/// }
/// ```
///
/// ``sync(_:)``, ``async(_:completion:)`` and ``write(_:)`` open no transaction of their own, so they
/// can run statements that refuse one (`VACUUM`, some PRAGMAs); use the transaction variants to make
/// several statements atomic.
///
/// The `Database` a closure receives is only valid inside that closure: never store it, or a
/// `Statement` or `Row` made from it, outside.
///
/// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
public protocol DatabaseWriter: DatabaseReader {
  /// Runs `body` on the connection and returns its value, blocking the calling thread until done.
  ///
  /// ```swift
  /// let count = try queue.sync { db in
  ///   try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
  /// }
  /// ```
  ///
  /// - Throws: ``ConcurrencyError/reentrantAccess`` when called from inside a closure already running
  ///   on this connection (it would wait for itself forever), and whatever `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/threadsafe.html>
  @discardableResult
  func sync<T>(_ body: (Database) throws -> T) throws -> T

  /// Schedules `body` on the connection and returns at once; `completion` receives its result.
  ///
  /// ```swift
  /// queue.async { db in
  ///   try db.execute(sql: "INSERT INTO log(message) VALUES ('hello')")
  /// } completion: { result in
  ///   if case .failure(let error) = result { print(error) }
  /// }
  /// ```
  ///
  /// `completion` runs on the connection's serial queue right after `body`: keep it short. A blocking
  /// call to this queue from `completion` throws ``ConcurrencyError/reentrantAccess``.
  func async<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void)

  /// Runs `body` on the connection without blocking the calling task.
  ///
  /// When the connection is idle, `body` runs at once, on the thread that runs the calling task (one
  /// of Swift's concurrency threads, never the main actor's), without handing the work to the
  /// connection's queue and back; when other closures are queued or running, the task suspends until
  /// they are done.
  ///
  /// ```swift
  /// try await queue.write { db in
  ///   try db.execute(sql: "INSERT INTO log(message) VALUES (?)", parameterValues: ["hello"])
  /// }
  /// ```
  ///
  /// Cancelling the task interrupts the running statement (`sqlite3_interrupt`), and every statement
  /// `body` starts after it, until `body` returns. If `body` throws, a transaction it opened is rolled
  /// back and this throws `CancellationError`. If the task is cancelled before `body` starts, `body`
  /// does not run.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  @discardableResult
  func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
}

extension DatabaseWriter {
  /// Runs `body` in a transaction, blocking: commits when it returns, rolls back when it throws.
  ///
  /// ```swift
  /// try queue.transaction { db in
  ///   try db.execute(sql: "INSERT INTO t(x) VALUES (1)")
  /// }
  /// ```
  ///
  /// - Throws: ``DatabaseError/transactionState(_:)`` when a transaction is already open, and whatever
  ///   `body` or the commit throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  @discardableResult
  public func transaction<T>(_ type: TransactionType = .deferred, _ body: (Database) throws -> T) throws -> T {
    try sync { db in try db.transaction(type, body) }
  }

  /// Runs `body` in a transaction without blocking the calling task: commits when it returns, rolls
  /// back when it throws or the task is cancelled.
  ///
  /// ```swift
  /// try await queue.transaction { db in
  ///   try db.execute(sql: "INSERT INTO t(x) VALUES (1)")
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  @discardableResult
  public func transaction<T: Sendable>(
    _ type: TransactionType = .deferred, _ body: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    try await write { db in try db.transaction(type, body) }
  }

  /// Schedules `body` to run in a transaction and returns at once; `completion` receives its result
  /// on the connection's queue.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func asyncTransaction<T: Sendable>(
    _ type: TransactionType = .deferred, _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    async({ db in try db.transaction(type, body) }, completion: completion)
  }

  /// Runs `body` in a savepoint, blocking: released when it returns, rolled back to when it throws.
  /// Works inside or outside a transaction.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
  @discardableResult
  public func savepoint<T>(_ name: String? = nil, _ body: (Database) throws -> T) throws -> T {
    try sync { db in try db.savepoint(name, body) }
  }

  /// Runs `body` in a savepoint without blocking the calling task: released when it returns, rolled
  /// back to when it throws or the task is cancelled.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
  @discardableResult
  public func savepoint<T: Sendable>(
    _ name: String? = nil, _ body: @escaping @Sendable (Database) throws -> T
  ) async throws -> T {
    try await write { db in try db.savepoint(name, body) }
  }

  /// Schedules `body` to run in a savepoint and returns at once; `completion` receives its result on
  /// the connection's queue.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
  public func asyncSavepoint<T: Sendable>(
    _ name: String? = nil, _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    async({ db in try db.savepoint(name, body) }, completion: completion)
  }

  /// Runs a WAL checkpoint on the writer connection and returns the log's frame counts. See
  /// `Database.checkpoint(_:schema:)`.
  ///
  /// ```swift
  /// let result = try pool.checkpoint(.truncate)
  /// ```
  ///
  /// - Throws: ``ConcurrencyError/invalidConfiguration(_:)`` for ``CheckpointMode/restart`` and
  ///   ``CheckpointMode/truncate`` when ``Configuration/walCheckpointing`` leaves them to a replication
  ///   tool; otherwise what `Database.checkpoint(_:schema:)` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
  @discardableResult
  public func checkpoint(_ mode: CheckpointMode = .passive, schema: String = "main") throws -> CheckpointResult {
    try checkCheckpointingAllows(mode)
    return try sync { db in try db.checkpoint(mode, schema: schema) }
  }
}
