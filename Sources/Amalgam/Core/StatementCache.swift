/// A bounded cache of prepared statements keyed by SQL, evicting the least recently used.
struct StatementCache {
  /// The most statements kept.
  var capacity = 64 {
    didSet { evict(toFit: 0) }
  }

  private var entries: [String: (statement: Statement, lastUse: UInt64)] = [:]
  private var clock: UInt64 = 0

  var count: Int { entries.count }

  /// The cached statement for `sql`, if any, marked as just used.
  mutating func statement(for sql: String) -> Statement? {
    // One hash of the SQL: find the entry's index, then update it in place.
    guard let index = entries.index(forKey: sql) else { return nil }
    clock &+= 1
    entries.values[index].lastUse = clock
    return entries.values[index].statement
  }

  mutating func insert(_ statement: Statement, for sql: String) {
    guard capacity > 0 else { return }
    evict(toFit: 1)
    clock &+= 1
    entries[sql] = (statement, clock)
  }

  mutating func removeAll() {
    entries.removeAll()
  }

  /// Drops least recently used entries until `room` more fit.
  private mutating func evict(toFit room: Int) {
    while !entries.isEmpty && entries.count + room > capacity {
      guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
      entries[oldest.key] = nil
    }
  }
}

extension Database {
  /// A prepared statement for `sql` from this connection's statement cache, prepared with
  /// `SQLITE_PREPARE_PERSISTENT` the first time. The statement comes reset, with its bindings cleared.
  ///
  /// Use it for SQL that runs many times; it saves SQLite's parse and plan on each use.
  /// If the cached statement is still running (a nested use of the same SQL), a fresh uncached statement
  /// is returned instead, so two users never share one statement.
  ///
  /// ```swift
  /// for name in names {
  ///   try db.cachedStatement(sql: "INSERT INTO person(name) VALUES (?)").bind(parameterValues: [name]).execute()
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_prepare_normalize.html>
  public func cachedStatement(sql: String) throws -> Statement {
    if let statement = statementCache.statement(for: sql) {
      if !statement.isBusy {
        try statement.clearBindings()
        return statement
      }
      return try Statement(database: self, sql: sql)
    }
    let statement = try Statement(database: self, sql: sql, persistent: true, keepsDatabaseOpen: false)
    statementCache.insert(statement, for: sql)
    return statement
  }

  /// The most statements ``cachedStatement(sql:)`` keeps (default 64); the least recently used is
  /// finalized first. Zero turns caching off.
  public var statementCacheCapacity: Int {
    get { statementCache.capacity }
    set { statementCache.capacity = max(0, newValue) }
  }

  /// The number of statements in the cache now.
  public var cachedStatementCount: Int { statementCache.count }

  /// Finalizes every cached statement (statements in use elsewhere stay valid until released).
  public func clearStatementCache() {
    statementCache.removeAll()
  }
}
