// GRDB's spellings of the queue and pool APIs that Amalgam names differently, so that code moved over
// from GRDB compiles, and the compiler's deprecation warning says what to write instead. See
// <doc:MovingFromFeistyDBSQiftOrGRDB>.

extension DatabaseQueue {
  /// GRDB's blocking `write`: runs `body` in a transaction, blocking. Amalgam's name for it is
  /// ``DatabaseWriter/transaction(_:_:)-7ymhz``; its `write` is the async form, which opens no transaction of
  /// its own.
  ///
  /// ```swift
  /// try queue.transaction { db in
  ///   try db.execute(sql: "INSERT INTO player(name) VALUES ('Ada')")
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  @available(*, deprecated, renamed: "transaction")
  @discardableResult
  public func write<T>(_ body: (Database) throws -> T) throws -> T {
    try transaction(.deferred, body)
  }
}

extension DatabasePool {
  /// GRDB's blocking `write`: runs `body` in a transaction on the writer, blocking. Amalgam's name for
  /// it is ``DatabaseWriter/transaction(_:_:)-7ymhz``; its `write` is the async form, which opens no
  /// transaction of its own.
  ///
  /// ```swift
  /// try pool.transaction { db in
  ///   try db.execute(sql: "INSERT INTO player(name) VALUES ('Ada')")
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  @available(*, deprecated, renamed: "transaction")
  @discardableResult
  public func write<T>(_ body: (Database) throws -> T) throws -> T {
    try transaction(.deferred, body)
  }
}
