/// A `CREATE INDEX` statement built from Swift values, every identifier quoted.
///
/// ```swift
/// let index = IndexDefinition("player_by_score", on: "player", columns: [.init("score", descending: true), "name"],
///                             condition: "score > 0")
/// try db.apply(.createIndex(index))
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/lang_createindex.html>
public struct IndexDefinition: Sendable, Hashable {
  /// One key column: its name, order and collation. A string literal is an ascending column.
  public struct Column: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The column's name.
    public var name: String
    /// `DESC` rather than ascending.
    public var isDescending: Bool
    /// The collation to order by, or nil for the column's own.
    public var collation: String?

    /// Creates a key column.
    public init(_ name: String, descending: Bool = false, collation: String? = nil) {
      self.name = name
      self.isDescending = descending
      self.collation = collation
    }

    /// An ascending key column named by a string literal.
    public init(stringLiteral name: String) { self.init(name) }

    var sql: String {
      var sql = quoteIdentifier(name)
      if let collation { sql += " COLLATE " + quoteIdentifier(collation) }
      if isDescending { sql += " DESC" }
      return sql
    }
  }

  /// The index's name.
  public var name: String
  /// The indexed table (in the index's schema).
  public var table: String
  /// The schema of the index and its table (`main` when nil).
  public var schema: String?
  /// The key columns, in order.
  public var columns: [Column]
  /// `UNIQUE`.
  public var isUnique: Bool
  /// `IF NOT EXISTS`.
  public var ifNotExists: Bool
  /// The `WHERE` expression of a partial index.
  public var condition: String?

  /// Creates an index definition.
  public init(
    _ name: String, on table: String, schema: String? = nil, columns: [Column], unique: Bool = false,
    ifNotExists: Bool = false, condition: String? = nil
  ) {
    self.name = name
    self.table = table
    self.schema = schema
    self.columns = columns
    self.isUnique = unique
    self.ifNotExists = ifNotExists
    self.condition = condition
  }

  /// The `CREATE INDEX` statement.
  ///
  /// - Throws: ``SchemaError/invalidDefinition(_:)`` for an index without columns.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createindex.html>
  public var sql: String {
    get throws {
      guard !columns.isEmpty else { throw SchemaError.invalidDefinition("Index \"\(name)\" needs at least one column") }
      var sql = "CREATE " + (isUnique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "")
      sql += qualifiedName(name, schema: schema) + " ON " + quoteIdentifier(table)
      sql += "(" + columns.map(\.sql).joined(separator: ", ") + ")"
      if let condition { sql += " WHERE \(condition)" }
      return sql
    }
  }
}
