/// A bounded cache of prepared statements keyed by SQL, evicting the least recently used.
///
/// A few most recently used entries are checked first by comparing strings: callers that run the same
/// SQL string again (a record type's INSERT, a fetch by primary key) usually pass the very same string
/// storage, which compares equal at once, where a dictionary lookup would hash the whole SQL text.
struct StatementCache {
  /// The most statements kept.
  var capacity = 64 {
    didSet { evict(toFit: 0) }
  }

  private var entries: [String: Statement] = [:]
  /// The most recently used entries, most recent first, with their SQL's length in bytes (compared
  /// before the text, to reject another statement's SQL at once); each is also in `entries`.
  private var recent: [(sql: String, length: Int, statement: Statement)] = []
  private var clock: UInt64 = 0
  private static let recentCount = 4

  var count: Int { entries.count }

  /// The cached statement for `sql`, if any, marked as just used.
  mutating func statement(for sql: String) -> Statement? {
    clock &+= 1
    let length = sql.utf8.count
    for index in recent.indices where recent[index].length == length && recent[index].sql == sql {
      let statement = recent[index].statement
      statement.cacheLastUse = clock
      return statement
    }
    guard let statement = entries[sql] else { return nil }
    statement.cacheLastUse = clock
    remember(sql, statement)
    return statement
  }

  mutating func insert(_ statement: Statement, for sql: String) {
    guard capacity > 0 else { return }
    evict(toFit: 1)
    clock &+= 1
    statement.cacheLastUse = clock
    entries[sql] = statement
    remember(sql, statement)
  }

  mutating func removeAll() {
    entries.removeAll()
    recent.removeAll()
  }

  /// Puts an entry first among the recent ones.
  private mutating func remember(_ sql: String, _ statement: Statement) {
    if recent.count == Self.recentCount { recent.removeLast() }
    recent.insert((sql, sql.utf8.count, statement), at: 0)
  }

  /// Drops least recently used entries until `room` more fit.
  private mutating func evict(toFit room: Int) {
    while !entries.isEmpty && entries.count + room > capacity {
      guard let oldest = entries.min(by: { $0.value.cacheLastUse < $1.value.cacheLastUse }) else { return }
      entries[oldest.key] = nil
      recent.removeAll { $0.statement === oldest.value }
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
    let statement = try cachedStatementKeepingBindings(sql: sql)
    try statement.clearBindings()
    return statement
  }

  /// ``cachedStatement(sql:)`` without clearing the bindings, for a caller that binds every parameter
  /// and clears the bindings when it is done (the everyday fetches and the records).
  @usableFromInline
  func cachedStatementKeepingBindings(sql: String) throws -> Statement {
    // Holding the connection: the cache is the connection's, and another thread must not change it now.
    try connection.holding {
      if let statement = statementCache.statement(for: sql) {
        if !statement.isBusy { return statement }
        return try Statement(database: self, sql: sql)
      }
      let statement = try Statement(database: self, sql: sql, persistent: true, keepsDatabaseOpen: false)
      statementCache.insert(statement, for: sql)
      return statement
    }
  }

  /// The most statements ``cachedStatement(sql:)`` keeps (default 64); the least recently used is
  /// finalized first. Zero turns caching off.
  ///
  /// Setting it while another thread uses the connection (which only code that escapes Swift's
  /// `Sendable` checking can do) changes nothing.
  public var statementCacheCapacity: Int {
    get { statementCache.capacity }
    set { _ = try? connection.holding { statementCache.capacity = max(0, newValue) } }
  }

  /// The number of statements in the cache now.
  public var cachedStatementCount: Int { statementCache.count }

  /// Finalizes every cached statement (statements in use elsewhere stay valid until released).
  ///
  /// While another thread uses the connection (which only code that escapes Swift's `Sendable`
  /// checking can do), this does nothing: the cache is the connection's.
  public func clearStatementCache() {
    _ = try? connection.holding { statementCache.removeAll() }
  }
}
