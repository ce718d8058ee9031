/// An object told about the changes each transaction makes to the tables it observes, then about the
/// transaction's end: the building block under value observation, for work that must happen on the
/// writer, in the transaction's order (invalidating a cache, writing an audit log, vetoing a commit).
///
/// ```swift
/// final class CacheInvalidator: TransactionObserver {
///   let observedRegion = DatabaseRegion(tables: ["product"])
///   var dirty = false
///   func databaseDidChange(_ event: DatabaseEvent) { dirty = true }
///   func databaseDidCommit(changes: DatabaseRegion) { if dirty { print("product changed") }; dirty = false }
///   func databaseDidRollback() { dirty = false }
/// }
/// let invalidator = CacheInvalidator()
/// try db.add(transactionObserver: invalidator)
/// ```
///
/// What is reported:
/// - every row changed in an observed rowid table, by any statement of the connection (SQL, records,
///   `apply(_:)` of a changeset, the raw `sqlite3*` handle, triggers, foreign-key actions, a virtual
///   table's writes to real tables), to ``databaseDidChange(_:)``, before the transaction ends;
/// - at the commit, ``databaseWillCommit()``, which may refuse the commit by throwing;
/// - once the commit is done, ``databaseDidCommit(changes:)`` with every observed table the transaction
///   changed, including `WITHOUT ROWID` tables and schema changes, which have no row events;
/// - after a rollback, ``databaseDidRollback()``: nothing of the transaction is reported as committed.
///
/// Row events made inside a savepoint of ``Database/savepoint(_:_:)`` are held until it is released,
/// and forgotten when it is rolled back. Statements that cannot be attributed to their rows report
/// their tables at the commit: a `WITHOUT ROWID` table that a statement of the connection writes is
/// reported with every commit that changes rows, since SQLite gives no row events for those tables.
///
/// The observer's methods must not use the connection, except ``databaseDidCommit(changes:)``, which
/// runs once the commit is done. The database holds the observer weakly: it is removed when released,
/// or with ``Database/remove(transactionObserver:)``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>,
/// <https://sqlite.org/c3ref/update_hook.html>
public protocol TransactionObserver: AnyObject {
  /// The tables whose changes the observer is told about; ``DatabaseRegion/fullDatabase`` for all.
  var observedRegion: DatabaseRegion { get }

  /// A row of an observed rowid table was inserted, updated or deleted (not yet committed).
  func databaseDidChange(_ event: DatabaseEvent)

  /// The transaction is about to commit; throwing refuses the commit: the transaction is rolled back
  /// and the statement that was committing fails with ``ResultCode/constraintCommitHook`` and this
  /// error's description.
  func databaseWillCommit() throws

  /// The transaction committed; `changes` holds the observed tables it changed (never empty).
  func databaseDidCommit(changes: DatabaseRegion)

  /// The transaction was rolled back.
  func databaseDidRollback()
}

extension TransactionObserver {
  /// Does nothing.
  public func databaseDidChange(_ event: DatabaseEvent) {}
  /// Lets the commit proceed.
  public func databaseWillCommit() throws {}
  /// Does nothing.
  public func databaseDidRollback() {}
}

extension Database {
  /// Starts telling `observer` about the transactions of this connection (see ``TransactionObserver``).
  /// Adding an observer twice adds it once. The database holds it weakly.
  ///
  /// - Throws: ``DatabaseError/databaseClosed``, or ``DatabaseError/reentrantCall(callback:)`` from a
  ///   callback that must not use the connection.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func add(transactionObserver observer: any TransactionObserver) throws {
    try connection.withHandle { handle in
      let tracker = ChangeTracker.installed(on: connection, handle)
      tracker.addObserver(observer)
    }
  }

  /// Stops telling `observer` about transactions. Does nothing if it was not added.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func remove(transactionObserver observer: any TransactionObserver) throws {
    try connection.withHandle { handle in
      guard let tracker = connection.existingState(ChangeTracker.self) else { return }
      tracker.removeObserver(observer)
      tracker.uninstallIfUnused(connection, handle)
    }
  }
}
