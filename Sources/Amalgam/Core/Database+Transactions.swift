import AmalgamSQLite

/// How a transaction takes its locks.
///
/// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
public enum TransactionType: String, Sendable {
  /// Locks are taken when first needed (the default).
  case deferred = "DEFERRED"
  /// The write lock is taken at once: later statements cannot fail with `SQLITE_BUSY` for it.
  case immediate = "IMMEDIATE"
  /// Like immediate; in rollback-journal mode readers are excluded too.
  case exclusive = "EXCLUSIVE"
}

extension Database {
  /// Begins a transaction (`BEGIN DEFERRED|IMMEDIATE|EXCLUSIVE`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func begin(_ type: TransactionType = .deferred) throws {
    try execute(sql: "BEGIN \(type.rawValue) TRANSACTION")
  }

  /// Commits the open transaction (`COMMIT`), after its commit checks (``setCommitCheck(_:on:_:)``):
  /// when one throws, the transaction is rolled back and its error thrown.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func commit() throws {
    try committingWithChecks { try execute(sql: "COMMIT TRANSACTION") }
  }

  /// Rolls back the open transaction (`ROLLBACK`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func rollback() throws {
    try execute(sql: "ROLLBACK TRANSACTION")
  }

  /// Runs `body` in a transaction: commits when it returns, rolls back when it throws (and rethrows).
  ///
  /// ```swift
  /// try db.transaction { db in
  ///   try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
  ///   try db.execute(sql: "UPDATE account SET balance = balance + 10 WHERE id = 2")
  /// }
  /// ```
  ///
  /// The body must not end the transaction itself. If it runs `COMMIT`, `END`, `ROLLBACK` (or a
  /// statement fails in a way that makes SQLite roll back), `transaction` throws
  /// ``DatabaseError/transactionEndedInBody(_:)`` whose ``TransactionEndedInBody/outcome`` says whether
  /// the body's work was committed or rolled back; a transaction the body began after ending its own
  /// is rolled back. When the body throws, its error is rethrown, after rolling back whatever is open.
  ///
  /// - Throws: ``DatabaseError/transactionState(_:)`` if a transaction is already open (use
  ///   ``savepoint(_:_:)`` to nest), ``DatabaseError/transactionEndedInBody(_:)``, and whatever `body`
  ///   or the commit throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  @discardableResult
  public func transaction<T>(_ type: TransactionType = .deferred, _ body: (Database) throws -> T) throws -> T {
    guard isInAutocommitMode else {
      throw DatabaseError.transactionState(
        "A transaction is already open; use savepoint {} to nest one inside it")
    }
    try begin(type)
    let mark = TransactionMark(connection)
    let result: T
    do {
      result = try body(self)
      if let outcome = mark.outcomeIfEnded(autocommit: isInAutocommitMode) {
        throw DatabaseError.transactionEndedInBody(TransactionEndedInBody(scope: "transaction", outcome: outcome))
      }
      try commit()
    } catch {
      // SQLite may already have rolled back (after SQLITE_FULL, for example); only roll back what is open.
      if !isInAutocommitMode { try? rollback() }
      throw error
    }
    return result
  }

  /// Runs `body` inside a savepoint: released when it returns, rolled back to and released when it
  /// throws. Savepoints nest, and work with or without an enclosing transaction.
  ///
  /// ```swift
  /// try db.transaction { db in
  ///   try db.execute(sql: "INSERT INTO log(message) VALUES ('kept')")
  ///   try? db.savepoint { db in
  ///     try db.execute(sql: "INSERT INTO log(message) VALUES ('undone')")
  ///     throw CancellationError()
  ///   }
  /// }
  /// ```
  ///
  /// The body must not end the savepoint itself (`RELEASE`, or `COMMIT` / `ROLLBACK` of the transaction
  /// that holds it). If it does, `savepoint` throws ``DatabaseError/transactionEndedInBody(_:)``, whose
  /// outcome says what became of the work: committed or rolled back with the transaction, or kept in
  /// the enclosing transaction when the body released a nested savepoint.
  ///
  /// - Parameters:
  ///   - name: the savepoint's name; by default a unique one is generated.
  ///   - body: the work to do inside the savepoint; receives this database.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
  @discardableResult
  public func savepoint<T>(_ name: String? = nil, _ body: (Database) throws -> T) throws -> T {
    savepointCounter += 1
    let name = quoteIdentifier(name ?? "amalgam_savepoint_\(savepointCounter)")
    let enclosed = !isInAutocommitMode
    try execute(sql: "SAVEPOINT \(name)")
    connection.savepointDidBegin()
    let mark = TransactionMark(connection)
    let scope = "savepoint \(name)"
    let result: T
    do {
      result = try body(self)
      if let outcome = mark.outcomeIfEnded(autocommit: isInAutocommitMode) {
        throw DatabaseError.transactionEndedInBody(TransactionEndedInBody(scope: scope, outcome: outcome))
      }
      do {
        if enclosed {
          try execute(sql: "RELEASE SAVEPOINT \(name)")
        } else {
          // Releasing the outermost savepoint commits.
          try committingWithChecks { try execute(sql: "RELEASE SAVEPOINT \(name)") }
        }
        connection.savepointDidEnd(rolledBack: false)
      } catch let error as SQLiteError where enclosed && error.message.hasPrefix("no such savepoint") {
        throw DatabaseError.transactionEndedInBody(
          TransactionEndedInBody(scope: scope, outcome: .releasedIntoEnclosingTransaction))
      }
    } catch DatabaseError.transactionEndedInBody(let ended) where ended.scope == scope {
      // The savepoint is gone. Roll back only a transaction that the body began after ending the one
      // that held the savepoint; an enclosing transaction is its owner's to end.
      if !enclosed && ended.outcome != .releasedIntoEnclosingTransaction && !isInAutocommitMode { try? rollback() }
      throw DatabaseError.transactionEndedInBody(ended)
    } catch {
      if !isInAutocommitMode {
        if (try? execute(sql: "ROLLBACK TO SAVEPOINT \(name)")) != nil {
          connection.savepointDidEnd(rolledBack: true)
        }
        try? execute(sql: "RELEASE SAVEPOINT \(name)")
      }
      throw error
    }
    return result
  }
}

/// Quotes an SQL identifier: `my "table"` becomes `"my ""table"""`.
func quoteIdentifier(_ name: String) -> String {
  "\"" + name.replacing("\"", with: "\"\"") + "\""
}

/// The commit and rollback counts of a connection when a transaction or savepoint began, to tell
/// whether, and how, its body ended it.
struct TransactionMark {
  let connection: Connection
  let commits: Int
  let rollbacks: Int

  init(_ connection: Connection) {
    self.connection = connection
    commits = connection.commitCount
    rollbacks = connection.rollbackCount
  }

  /// `nil` while the transaction that began at the mark is still open; otherwise what became of its
  /// work. A commit or rollback since the mark means it ended, even if another transaction began.
  func outcomeIfEnded(autocommit: Bool) -> TransactionEndedInBody.Outcome? {
    if connection.commitCount != commits { return .committed }
    if connection.rollbackCount != rollbacks { return .rolledBack }
    return autocommit ? .endedWithoutWrites : nil
  }
}
