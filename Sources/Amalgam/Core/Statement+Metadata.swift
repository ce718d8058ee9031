import AmalgamSQLite

/// Where a result column's value comes from: the table column that a `SELECT` reads it from.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_database_name.html>
public struct ColumnOrigin: Sendable, Hashable {
  /// The schema of the table: `"main"`, `"temp"` or an attached name.
  public var schema: String
  /// The table's name.
  public var table: String
  /// The column's name in the table (not its alias in the query).
  public var column: String

  /// Creates an origin from its parts.
  public init(schema: String, table: String, column: String) {
    self.schema = schema
    self.table = table
    self.column = column
  }
}

/// How a statement is explained (`sqlite3_stmt_isexplain`, `sqlite3_stmt_explain`).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_isexplain.html>
public enum ExplainMode: Int32, Sendable, Hashable {
  /// The statement runs normally.
  case none = 0
  /// The statement is an `EXPLAIN`: it returns its bytecode program.
  case explain = 1
  /// The statement is an `EXPLAIN QUERY PLAN`: it returns its query plan.
  case queryPlan = 2
}

extension Statement {
  /// The table column that result column `index` reads, or `nil` for an expression, a literal or a
  /// subquery result (`sqlite3_column_database_name`, `_table_name`, `_origin_name`). Needs the
  /// `ENABLE_COLUMN_METADATA` trait (on by default).
  ///
  /// ```swift
  /// let statement = try db.prepare(sql: "SELECT name AS who, 1 FROM person")
  /// // statement.columnOrigin(at: 0) == ColumnOrigin(schema: "main", table: "person", column: "name")
  /// // statement.columnOrigin(at: 1) == nil
  /// ```
  ///
  /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_database_name.html>
  public func columnOrigin(at index: Int) throws -> ColumnOrigin? {
    guard index >= 0 && index < columnCount else {
      throw DatabaseError.columnIndexOutOfRange(index: index, count: columnCount)
    }
    #if ENABLE_COLUMN_METADATA
      let column = Int32(index)
      guard let schema = sqlite3_column_database_name(sqliteHandle, column),
        let table = sqlite3_column_table_name(sqliteHandle, column),
        let origin = sqlite3_column_origin_name(sqliteHandle, column)
      else { return nil }
      return ColumnOrigin(
        schema: String(cString: schema), table: String(cString: table), column: String(cString: origin))
    #else
      throw SQLiteError(code: .misuse, message: "Column origins need the ENABLE_COLUMN_METADATA trait")
    #endif
  }

  /// Whether the statement is an `EXPLAIN` or `EXPLAIN QUERY PLAN` (`sqlite3_stmt_isexplain`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_isexplain.html>
  public var explainMode: ExplainMode {
    ExplainMode(rawValue: sqlite3_stmt_isexplain(sqliteHandle)) ?? .none
  }

  /// Turns the statement into an `EXPLAIN` or `EXPLAIN QUERY PLAN` of itself, or back
  /// (`sqlite3_stmt_explain`), without preparing it again. The statement is reset.
  ///
  /// ```swift
  /// let statement = try db.prepare(sql: "SELECT * FROM person WHERE id = ?")
  /// try statement.setExplainMode(.queryPlan)   // its rows are now the query plan
  /// ```
  ///
  /// - Throws: ``SQLiteError`` (`SQLITE_ERROR` when SQLite cannot change the mode, for example while the
  ///   statement runs).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_explain.html>
  public func setExplainMode(_ mode: ExplainMode) throws {
    try whileOpen {
      sqlite3_reset(sqliteHandle)
      try check(sqlite3_stmt_explain(sqliteHandle, mode.rawValue))
    }
  }
}

/// What SQLite knows about a table column (`sqlite3_table_column_metadata`).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/table_column_metadata.html>
public struct TableColumnMetadata: Sendable, Hashable {
  /// The declared type, or `nil` when none is declared.
  public var declaredType: String?
  /// The name of the column's default collation sequence.
  public var collation: String?
  /// True for a `NOT NULL` column.
  public var isNotNull: Bool
  /// True when the column is part of the primary key.
  public var isPrimaryKey: Bool
  /// True for an `AUTOINCREMENT` column.
  public var isAutoincrement: Bool
}

extension Database {
  /// The declared type, collation, NOT NULL, primary-key and AUTOINCREMENT facts of `column` in `table`
  /// (`sqlite3_table_column_metadata`). Needs the `ENABLE_COLUMN_METADATA` trait (on by default).
  ///
  /// - Parameters:
  ///   - table: the table's name.
  ///   - column: the column's name, or `rowid` (and its aliases) for the rowid.
  ///   - schema: `"main"`, `"temp"`, an attached name, or `nil` to search all of them.
  /// - Throws: ``SQLiteError`` when the table or the column does not exist.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/table_column_metadata.html>
  public func columnMetadata(table: String, column: String, schema: String? = nil) throws -> TableColumnMetadata {
    #if ENABLE_COLUMN_METADATA
      var type: UnsafePointer<CChar>?
      var collation: UnsafePointer<CChar>?
      var notNull: Int32 = 0
      var primaryKey: Int32 = 0
      var autoincrement: Int32 = 0
      let rc = try connection.withHandle { handle in
        sqlite3_table_column_metadata(
          handle, schema, table, column, &type, &collation, &notNull, &primaryKey, &autoincrement)
      }
      try check(rc)
      return TableColumnMetadata(
        declaredType: type.map { String(cString: $0) }, collation: collation.map { String(cString: $0) },
        isNotNull: notNull != 0, isPrimaryKey: primaryKey != 0, isAutoincrement: autoincrement != 0)
    #else
      throw SQLiteError(code: .misuse, message: "Column metadata needs the ENABLE_COLUMN_METADATA trait")
    #endif
  }
}
