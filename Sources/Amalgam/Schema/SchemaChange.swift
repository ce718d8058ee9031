/// A change to a database's schema, as one SQL statement with every identifier quoted.
///
/// ```swift
/// let change = SchemaChange.renameColumn("name", table: "order", to: "full name")
/// print(try change.sql)      // ALTER TABLE "order" RENAME COLUMN "name" TO "full name"
/// try db.apply(change)
/// ```
///
/// The `Database` helpers (``Database/create(table:schema:options:_:)``, ``Database/drop(table:schema:ifExists:)``,
/// ...) apply these.
///
/// Related SQLite documentation: <https://sqlite.org/lang_altertable.html>
public enum SchemaChange: Sendable, Hashable {
  /// `CREATE TABLE`.
  case createTable(TableDefinition)
  /// `DROP TABLE [IF EXISTS]`.
  case dropTable(String, schema: String? = nil, ifExists: Bool = false)
  /// `ALTER TABLE ... RENAME TO`.
  case renameTable(String, schema: String? = nil, to: String)
  /// `ALTER TABLE ... ADD COLUMN`.
  case addColumn(ColumnDefinition, table: String, schema: String? = nil)
  /// `ALTER TABLE ... RENAME COLUMN ... TO`.
  case renameColumn(String, table: String, schema: String? = nil, to: String)
  /// `ALTER TABLE ... DROP COLUMN`.
  case dropColumn(String, table: String, schema: String? = nil)
  /// `CREATE INDEX`.
  case createIndex(IndexDefinition)
  /// `DROP INDEX [IF EXISTS]`.
  case dropIndex(String, schema: String? = nil, ifExists: Bool = false)

  /// The change's SQL statement.
  ///
  /// - Throws: ``SchemaError/invalidDefinition(_:)`` for a definition that cannot be written in SQL.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html>
  public var sql: String {
    get throws {
      switch self {
      case .createTable(let table):
        return try table.sql
      case let .dropTable(name, schema, ifExists):
        return "DROP TABLE " + (ifExists ? "IF EXISTS " : "") + qualifiedName(name, schema: schema)
      case let .renameTable(name, schema, newName):
        return "ALTER TABLE \(qualifiedName(name, schema: schema)) RENAME TO \(quoteIdentifier(newName))"
      case let .addColumn(column, table, schema):
        return "ALTER TABLE \(qualifiedName(table, schema: schema)) ADD COLUMN \(try column.sql)"
      case let .renameColumn(name, table, schema, newName):
        return
          "ALTER TABLE \(qualifiedName(table, schema: schema)) RENAME COLUMN \(quoteIdentifier(name)) TO \(quoteIdentifier(newName))"
      case let .dropColumn(name, table, schema):
        return "ALTER TABLE \(qualifiedName(table, schema: schema)) DROP COLUMN \(quoteIdentifier(name))"
      case .createIndex(let index):
        return try index.sql
      case let .dropIndex(name, schema, ifExists):
        return "DROP INDEX " + (ifExists ? "IF EXISTS " : "") + qualifiedName(name, schema: schema)
      }
    }
  }
}

extension Database {
  /// Runs a schema change's SQL statement.
  ///
  /// - Throws: ``SchemaError/invalidDefinition(_:)`` for a definition that cannot be written in SQL,
  ///   and ``SQLiteError`` when SQLite refuses the statement.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html>
  public func apply(_ change: SchemaChange) throws {
    try execute(sql: try change.sql)
  }

  /// Creates a table; `body` adds its columns and constraints (see ``TableDefinition``).
  ///
  /// ```swift
  /// try db.create(table: "order", options: .strict) { t in
  ///   t.column("id", .integer, primaryKey: .autoincrement)
  ///   t.column("total", .real, notNull: true, check: "total >= 0", defaultValue: 0)
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createtable.html>
  public func create(
    table name: String, schema: String? = nil, options: TableDefinition.Options = [],
    _ body: (inout TableDefinition) throws -> Void
  ) throws {
    try apply(.createTable(TableDefinition(name, schema: schema, options: options, body)))
  }

  /// Creates the table `definition` describes.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createtable.html>
  public func create(_ definition: TableDefinition) throws {
    try apply(.createTable(definition))
  }

  /// Drops a table (`DROP TABLE`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_droptable.html>
  public func drop(table name: String, schema: String? = nil, ifExists: Bool = false) throws {
    try apply(.dropTable(name, schema: schema, ifExists: ifExists))
  }

  /// Renames a table (`ALTER TABLE ... RENAME TO`); it stays in its schema.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html#alter_table_rename>
  public func rename(table name: String, schema: String? = nil, to newName: String) throws {
    try apply(.renameTable(name, schema: schema, to: newName))
  }

  /// Adds a column to a table (`ALTER TABLE ... ADD COLUMN`).
  ///
  /// ```swift
  /// try db.add(column: ColumnDefinition("email", .text, collation: "NOCASE"), to: "author")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html#alter_table_add_column>
  public func add(column: ColumnDefinition, to table: String, schema: String? = nil) throws {
    try apply(.addColumn(column, table: table, schema: schema))
  }

  /// Renames a column (`ALTER TABLE ... RENAME COLUMN`); SQLite updates the indexes, triggers and
  /// views that use it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html#alter_table_rename_column>
  public func rename(column name: String, in table: String, schema: String? = nil, to newName: String) throws {
    try apply(.renameColumn(name, table: table, schema: schema, to: newName))
  }

  /// Drops a column (`ALTER TABLE ... DROP COLUMN`); SQLite refuses when an index, a constraint, a
  /// view or a trigger uses it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html#alter_table_drop_column>
  public func drop(column name: String, from table: String, schema: String? = nil) throws {
    try apply(.dropColumn(name, table: table, schema: schema))
  }

  /// Creates an index (`CREATE INDEX`).
  ///
  /// ```swift
  /// try db.create(index: "book_by_author", on: "book", columns: ["authorID", "title"], unique: true)
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createindex.html>
  public func create(
    index name: String, on table: String, schema: String? = nil, columns: [IndexDefinition.Column],
    unique: Bool = false, ifNotExists: Bool = false, condition: String? = nil
  ) throws {
    try apply(
      .createIndex(
        IndexDefinition(
          name, on: table, schema: schema, columns: columns, unique: unique, ifNotExists: ifNotExists,
          condition: condition)))
  }

  /// Drops an index (`DROP INDEX`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_dropindex.html>
  public func drop(index name: String, schema: String? = nil, ifExists: Bool = false) throws {
    try apply(.dropIndex(name, schema: schema, ifExists: ifExists))
  }
}
