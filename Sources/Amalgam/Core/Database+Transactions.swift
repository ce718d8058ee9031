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

  /// Commits the open transaction (`COMMIT`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func commit() throws {
    try execute(sql: "COMMIT TRANSACTION")
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
  /// - Throws: ``DatabaseError/transactionState(_:)`` if a transaction is already open (use
  ///   ``savepoint(_:_:)`` to nest), and whatever `body` or the commit throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  @discardableResult
  public func transaction<T>(_ type: TransactionType = .deferred, _ body: (Database) throws -> T) throws -> T {
    guard isInAutocommitMode else {
      throw DatabaseError.transactionState(
        "A transaction is already open; use savepoint {} to nest one inside it")
    }
    try begin(type)
    let result: T
    do {
      result = try body(self)
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
  /// - Parameters:
  ///   - name: the savepoint's name; by default a unique one is generated.
  ///   - body: the work to do inside the savepoint; receives this database.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_savepoint.html>
  @discardableResult
  public func savepoint<T>(_ name: String? = nil, _ body: (Database) throws -> T) throws -> T {
    savepointCounter += 1
    let name = quoteIdentifier(name ?? "amalgam_savepoint_\(savepointCounter)")
    try execute(sql: "SAVEPOINT \(name)")
    let result: T
    do {
      result = try body(self)
      try execute(sql: "RELEASE SAVEPOINT \(name)")
    } catch {
      if !isInAutocommitMode {
        try? execute(sql: "ROLLBACK TO SAVEPOINT \(name)")
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
