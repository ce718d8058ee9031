import AmalgamSQLite

/// A run-time limit of a connection: the longest string, the longest SQL statement, the deepest
/// expression, and so on (`SQLITE_LIMIT_*`).
///
/// Lower limits when running SQL from an untrusted source, so that a hostile statement fails early
/// rather than using up memory or time.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_limit_attached.html>
public enum DatabaseLimit: Int32, CaseIterable, Sendable, Hashable {
  /// The longest string or BLOB, or row, in bytes (`SQLITE_LIMIT_LENGTH`).
  case length = 0
  /// The longest SQL statement, in bytes (`SQLITE_LIMIT_SQL_LENGTH`).
  case sqlLength = 1
  /// The most columns in a table, index or view, result set, `GROUP BY` or `ORDER BY`
  /// (`SQLITE_LIMIT_COLUMN`).
  case columns = 2
  /// The deepest parse tree of an expression (`SQLITE_LIMIT_EXPR_DEPTH`).
  case expressionDepth = 3
  /// The most terms in a compound `SELECT` (`SQLITE_LIMIT_COMPOUND_SELECT`).
  case compoundSelectTerms = 4
  /// The most virtual-machine instructions in one statement (`SQLITE_LIMIT_VDBE_OP`).
  case vdbeOperations = 5
  /// The most arguments to a function (`SQLITE_LIMIT_FUNCTION_ARG`).
  case functionArguments = 6
  /// The most attached databases (`SQLITE_LIMIT_ATTACHED`).
  case attachedDatabases = 7
  /// The longest pattern of `LIKE` or `GLOB` (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`).
  case likePatternLength = 8
  /// The highest parameter index (`?NNN`) in a statement (`SQLITE_LIMIT_VARIABLE_NUMBER`).
  case variableNumber = 9
  /// The deepest recursion of triggers (`SQLITE_LIMIT_TRIGGER_DEPTH`).
  case triggerDepth = 10
  /// The most auxiliary worker threads one statement may start (`SQLITE_LIMIT_WORKER_THREADS`).
  case workerThreads = 11
  /// The deepest nesting of the SQL parser's stack (`SQLITE_LIMIT_PARSER_DEPTH`).
  case parserDepth = 12
}

extension Database {
  /// The current value of a run-time limit (`sqlite3_limit`).
  ///
  /// ```swift
  /// let longest = try db.limit(.sqlLength)   // 1_000_000_000 by default
  /// ```
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/limit.html>
  public func limit(_ limit: DatabaseLimit) throws -> Int {
    try connection.withHandle { Int(sqlite3_limit($0, limit.rawValue, -1)) }
  }

  /// Changes a run-time limit and returns its previous value (`sqlite3_limit`).
  ///
  /// ```swift
  /// try db.setLimit(.sqlLength, to: 10_000)
  /// try db.prepare(sql: hugeStatement)   // throws SQLITE_TOOBIG, "string or blob too big"
  /// ```
  ///
  /// A value above the maximum SQLite was compiled with is lowered to that maximum: read the limit
  /// back with ``limit(_:)`` to see the value in effect.
  ///
  /// SQLite applies the limits to reading the database schema too: a limit below what the schema
  /// needs (fewer than the 5 columns of `sqlite_schema` itself, or an SQL length shorter than a
  /// `CREATE` statement in the schema) makes every later statement fail with `SQLITE_CORRUPT`,
  /// "malformed database schema".
  ///
  /// - Throws: ``SQLiteError`` with `SQLITE_RANGE` for a negative value;
  ///   ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/limit.html>
  @discardableResult
  public func setLimit(_ limit: DatabaseLimit, to value: Int) throws -> Int {
    guard value >= 0 else {
      throw SQLiteError(code: .range, message: "A limit cannot be negative (\(limit) set to \(value))")
    }
    return try connection.withHandle { Int(sqlite3_limit($0, limit.rawValue, Int32(clamping: value))) }
  }
}
