// GRDB's spelling of the configuration's connection setup, so that code moved over from GRDB compiles,
// and the compiler's deprecation warning says what to write instead. See <doc:MovingFromFeistyDBSQiftOrGRDB>.

extension Configuration {
  /// GRDB's way to add connection setup: `body` runs on every new connection after what
  /// ``prepareDatabase`` already holds. Amalgam's ``prepareDatabase`` is a property: assign the closure.
  ///
  /// ```swift
  /// configuration.prepareDatabase = { db in
  ///   try db.execute(sql: "PRAGMA cache_size = -20000")
  /// }
  /// ```
  ///
  /// Not a plain rename (a call becomes an assignment), so the compiler cannot rewrite the call: the
  /// warning says what to write.
  @available(*, deprecated, message: "assign the closure: configuration.prepareDatabase = { db in ... }")
  public mutating func prepareDatabase(_ body: @escaping @Sendable (Database) throws -> Void) {
    let previous = prepareDatabase
    prepareDatabase = { db in
      try previous?(db)
      try body(db)
    }
  }
}
