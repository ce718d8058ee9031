import AmalgamSQLite

/// A check that runs queries before a transaction commits (``Database/setCommitCheck(_:on:_:)``).
struct CommitCheck {
  let name: String
  let region: DatabaseRegion
  let body: (Database) throws -> Void
}

extension Database {
  /// Runs `check` before each commit of a transaction that changed a table of `region`, on this
  /// connection, with the transaction still open: the check may run any query, and throwing refuses
  /// the commit. The transaction is then rolled back and the check's own error is thrown by the call
  /// that was committing.
  ///
  /// ```swift
  /// try db.setCommitCheck("balances", on: DatabaseRegion(tables: ["account"])) { db in
  ///   if try db.prepare(sql: "SELECT count(*) FROM account WHERE balance < 0").front(Int.self) != 0 {
  ///     throw InsufficientFunds()
  ///   }
  /// }
  /// ```
  ///
  /// Checks run before the commits that Amalgam makes: ``transaction(_:_:)`` (and the `transaction`
  /// methods of a queue or pool), ``commit()``, and ``savepoint(_:_:)`` outside a transaction. A commit
  /// that SQLite makes on its own cannot be checked (SQLite forbids queries in its commit hook): when it
  /// changes a table of `region` (a write statement outside a transaction, `COMMIT` run as SQL or
  /// through the C handle), it is refused with ``ResultCode/constraintCommitHook`` and a message that
  /// names the check. A transaction that changed no table of `region` commits without the check.
  ///
  /// A check should only read: its writes join the transaction it checks. Setting a check under a name
  /// already set replaces it. Checks belong to this connection: set them on the writer of a queue or
  /// pool (in `sync { }`), where every write runs.
  ///
  /// - Throws: ``DatabaseError/databaseClosed``, ``DatabaseError/transactionState(_:)`` inside a
  ///   transaction (set checks before it begins), or ``DatabaseError/reentrantCall(callback:)`` from a
  ///   callback that must not use the connection.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func setCommitCheck(
    _ name: String, on region: DatabaseRegion, _ check: @escaping (Database) throws -> Void
  ) throws {
    try connection.withHandle { handle in
      guard sqlite3_get_autocommit(handle) != 0 else {
        throw DatabaseError.transactionState(
          "A commit check must be set outside a transaction, so that it sees all of the next one's changes")
      }
      let tracker = ChangeTracker.installed(on: connection, handle)
      tracker.setCommitCheck(CommitCheck(name: name, region: region, body: check))
    }
  }

  /// Removes the commit check set under `name`; does nothing if there is none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func removeCommitCheck(_ name: String) throws {
    try connection.withHandle { handle in
      guard let tracker = connection.existingState(ChangeTracker.self) else { return }
      tracker.removeCommitCheck(named: name)
      tracker.uninstallIfUnused(connection, handle)
    }
  }

  /// Runs the commit checks of the open transaction, then `commit`, which commits it. When a check
  /// throws, the transaction is rolled back and the check's error thrown.
  func committingWithChecks(_ commit: () throws -> Void) throws {
    guard let tracker = connection.existingState(ChangeTracker.self), !tracker.commitChecks.isEmpty else {
      return try commit()
    }
    do {
      try tracker.runCommitChecks(self)
    } catch {
      tracker.commitChecksRan = false
      if !isInAutocommitMode { try? rollback() }
      throw error
    }
    defer { tracker.commitChecksRan = false }
    try commit()
  }
}
