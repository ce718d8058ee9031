#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
/// A table or view as `PRAGMA table_list` describes it.
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_list>
public struct TableInfo: Sendable, Hashable {
  /// What kind of table this is.
  public enum Kind: String, Sendable, Hashable {
    /// An ordinary table.
    case table
    /// A view.
    case view
    /// A virtual table (`CREATE VIRTUAL TABLE`).
    case virtual
    /// A table that a virtual table keeps its data in (FTS5's `_content`, for example).
    case shadow
  }

  /// The schema it belongs to: `main`, `temp`, or an attached database's name.
  public var schema: String
  /// The table's name.
  public var name: String
  /// Table, view, virtual table or shadow table.
  public var kind: Kind
  /// The number of columns, hidden and generated ones included.
  public var columnCount: Int
  /// True for a `WITHOUT ROWID` table.
  public var isWithoutRowID: Bool
  /// True for a `STRICT` table.
  public var isStrict: Bool
}

/// A column of a table or view as `PRAGMA table_xinfo` describes it.
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_xinfo>
public struct ColumnInfo: Sendable, Hashable {
  /// Whether a column is an ordinary one, hidden, or generated.
  public enum Kind: Int, Sendable, Hashable {
    /// An ordinary column.
    case ordinary = 0
    /// A hidden column of a virtual table.
    case hidden = 1
    /// A generated column computed when read (`GENERATED ALWAYS AS (...) VIRTUAL`).
    case generatedVirtual = 2
    /// A generated column computed when written and stored (`... STORED`).
    case generatedStored = 3
  }

  /// The column's position in the table, from 0.
  public var position: Int
  /// The column's name.
  public var name: String
  /// The declared type as written (`VARCHAR(20)`, `INTEGER`), or `""` when none was declared.
  public var declaredType: String
  /// True when the column is `NOT NULL`.
  public var isNotNull: Bool
  /// The default value's SQL text as written (`'none'`, `0`, `CURRENT_TIMESTAMP`), or `nil` for none.
  public var defaultValueSQL: String?
  /// The column's position in the primary key, from 1, or 0 when it is not part of it.
  public var primaryKeyPosition: Int
  /// Ordinary, hidden or generated.
  public var kind: Kind

  /// True for a generated column (virtual or stored).
  public var isGenerated: Bool { kind == .generatedVirtual || kind == .generatedStored }
}

/// An index as `PRAGMA index_list` and `PRAGMA index_xinfo` describe it.
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_index_list>
public struct IndexInfo: Sendable, Hashable {
  /// How the index came to exist.
  public enum Origin: String, Sendable, Hashable {
    /// `CREATE INDEX`.
    case createIndex = "c"
    /// A `UNIQUE` constraint.
    case uniqueConstraint = "u"
    /// A `PRIMARY KEY` constraint (not for the rowid).
    case primaryKey = "pk"
  }

  /// One key column of an index.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_index_xinfo>
  public struct Column: Sendable, Hashable {
    /// The column's name; `nil` when the key is an expression.
    public var name: String?
    /// True for a descending key (`DESC`).
    public var isDescending: Bool
    /// The collation's name (`BINARY`, `NOCASE`, ...).
    public var collation: String
  }

  /// The index's name (`sqlite_autoindex_...` for the ones constraints create).
  public var name: String
  /// The table it indexes.
  public var table: String
  /// True for a unique index.
  public var isUnique: Bool
  /// True for a partial index (one with a `WHERE` clause).
  public var isPartial: Bool
  /// `CREATE INDEX`, `UNIQUE` or `PRIMARY KEY`.
  public var origin: Origin
  /// The key columns, in order.
  public var columns: [Column]

  /// The key columns' names, in order (`nil` for an expression).
  public var columnNames: [String?] { columns.map(\.name) }
}

/// What a foreign key does when its parent row is deleted or its key updated.
///
/// Related SQLite documentation: <https://sqlite.org/foreignkeys.html#fk_actions>
public enum ForeignKeyAction: String, Sendable, Hashable, CaseIterable {
  /// Nothing happens; the constraint is checked (the default).
  case noAction = "NO ACTION"
  /// The change of the parent fails at once, even when checks are deferred.
  case restrict = "RESTRICT"
  /// The child's key becomes NULL.
  case setNull = "SET NULL"
  /// The child's key takes its column's default value.
  case setDefault = "SET DEFAULT"
  /// The child row is deleted, or its key updated, with the parent.
  case cascade = "CASCADE"
}

/// A foreign key of a table as `PRAGMA foreign_key_list` describes it (its rows grouped by `id`).
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_list>
public struct ForeignKeyInfo: Sendable, Hashable {
  /// The foreign key's number in its table (`PRAGMA foreign_key_list`'s `id`).
  public var id: Int
  /// The referenced (parent) table.
  public var parentTable: String
  /// The child table's columns, in order.
  public var columns: [String]
  /// The parent's columns, in order; `nil` entries when the key refers to the parent's primary key
  /// without naming its columns.
  public var parentColumns: [String?]
  /// What happens on `UPDATE` of the parent key.
  public var onUpdate: ForeignKeyAction
  /// What happens on `DELETE` of the parent row.
  public var onDelete: ForeignKeyAction
}

/// The primary key of a table.
///
/// Related SQLite documentation: <https://sqlite.org/lang_createtable.html#rowid>
public struct PrimaryKeyInfo: Sendable, Hashable {
  /// The key's columns, in order. For a table with no declared primary key, `["rowid"]` (or `_rowid_`
  /// or `oid` if a column takes the name `rowid`).
  public var columns: [String]
  /// True when the key is the rowid: an `INTEGER PRIMARY KEY` column, or the hidden rowid of a table
  /// with no declared primary key.
  public var isRowID: Bool
  /// The column that is an alias for the rowid (`INTEGER PRIMARY KEY`), if any.
  public var rowIDColumn: String?

  /// Creates a primary key description from its parts.
  public init(columns: [String], isRowID: Bool, rowIDColumn: String?) {
    self.columns = columns
    self.isRowID = isRowID
    self.rowIDColumn = rowIDColumn
  }
}

/// An entry of `sqlite_schema`: a table, index, view or trigger with the SQL that created it.
///
/// Related SQLite documentation: <https://sqlite.org/schematab.html>
public struct SchemaObject: Sendable, Hashable {
  /// `table`, `index`, `view` or `trigger`.
  public var type: String
  /// The object's name.
  public var name: String
  /// The table (or view) it belongs to; a table's or view's own name for a table or view.
  public var tableName: String
  /// The `CREATE` statement, or `nil` for indexes that constraints create.
  public var sql: String?
}

/// A failure of a schema helper or a schema query: a table that does not exist, a definition that
/// cannot be written in SQL.
public enum SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
  /// No table or view of this name in this schema.
  case noSuchTable(name: String, schema: String)
  /// A definition that cannot become valid SQL (no columns, an unsafe type name, ...).
  case invalidDefinition(String)

  /// What went wrong.
  public var description: String {
    switch self {
    case let .noSuchTable(name, schema): "No table or view named \"\(name)\" in schema \"\(schema)\""
    case let .invalidDefinition(message): message
    }
  }
}

extension SchemaError: LocalizedError {
  /// The same text as ``description``, so that `localizedDescription` says what failed.
  public var errorDescription: String? { description }
}
