#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The declared type of a column: `INTEGER`, `TEXT`, `REAL`, `BLOB`, `NUMERIC`, `ANY`, or any type
/// name SQLite accepts, such as `VARCHAR(40)`.
///
/// A `STRICT` table accepts only `INT`, `INTEGER`, `REAL`, `TEXT`, `BLOB` and `ANY`.
///
/// Related SQLite documentation: <https://sqlite.org/datatype3.html#affinity_name_examples>
public struct ColumnType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
  /// The type as written in SQL.
  public var rawValue: String

  /// Creates a type from its SQL spelling: words, optionally followed by one or two numbers in
  /// parentheses (`DECIMAL(10, 2)`). Anything else makes the SQL that uses it throw.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Creates a type from a string literal: `"VARCHAR(40)"`.
  public init(stringLiteral value: String) { self.rawValue = value }

  /// `INTEGER`: integer affinity; with `PRIMARY KEY`, an alias for the rowid.
  public static let integer = ColumnType(rawValue: "INTEGER")
  /// `TEXT`: text affinity.
  public static let text = ColumnType(rawValue: "TEXT")
  /// `REAL`: real affinity.
  public static let real = ColumnType(rawValue: "REAL")
  /// `BLOB`: no affinity.
  public static let blob = ColumnType(rawValue: "BLOB")
  /// `NUMERIC`: numeric affinity (not allowed in `STRICT` tables).
  public static let numeric = ColumnType(rawValue: "NUMERIC")
  /// `ANY`: any value, kept as given (in `STRICT` tables).
  public static let any = ColumnType(rawValue: "ANY")

  /// The type, checked to be only words and an optional parenthesised size, so it cannot change
  /// the meaning of the statement it is written into.
  var checkedSQL: String {
    get throws {
      var rest = Substring(rawValue).drop { $0 == " " }
      var size = Substring("")
      if let open = rest.firstIndex(of: "(") {
        size = rest[open...]
        rest = rest[..<open]
      }
      let words = rest.split(separator: " ", omittingEmptySubsequences: true)
      let isWord: (Substring) -> Bool = { word in
        guard let first = word.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return word.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
      }
      let sizeIsValid =
        size.isEmpty
        || (size.hasSuffix(")")
          && size.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false).count <= 2
          && size.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false).allSatisfy { part in
            let number = part.filter { $0 != " " }
            let digits = number.hasPrefix("+") || number.hasPrefix("-") ? number.dropFirst() : Substring(number)
            return !digits.isEmpty && digits.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
          })
      guard !words.isEmpty, words.allSatisfy(isWord), sizeIsValid else {
        throw SchemaError.invalidDefinition("\"\(rawValue)\" is not a column type SQLite accepts")
      }
      return words.joined(separator: " ") + size
    }
  }
}

/// A `REFERENCES` clause: the parent table and columns of a foreign key, and its actions.
///
/// ```swift
/// ForeignKeyReference("team", onDelete: .cascade)
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/foreignkeys.html>
public struct ForeignKeyReference: Sendable, Hashable {
  /// The parent table.
  public var table: String
  /// The parent's columns; empty to refer to its primary key.
  public var columns: [String]
  /// What happens to the child when the parent row is deleted; SQLite's default (`NO ACTION`) when nil.
  public var onDelete: ForeignKeyAction?
  /// What happens to the child when the parent key is updated; SQLite's default when nil.
  public var onUpdate: ForeignKeyAction?
  /// Checked at commit rather than at each statement (`DEFERRABLE INITIALLY DEFERRED`).
  public var isDeferred: Bool

  /// Creates a reference to `table`'s `columns` (its primary key when empty).
  public init(
    _ table: String, columns: [String] = [], onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil,
    isDeferred: Bool = false
  ) {
    self.table = table
    self.columns = columns
    self.onDelete = onDelete
    self.onUpdate = onUpdate
    self.isDeferred = isDeferred
  }

  var sql: String {
    var sql = "REFERENCES " + quoteIdentifier(table)
    if !columns.isEmpty { sql += "(" + columns.map(quoteIdentifier).joined(separator: ", ") + ")" }
    if let onDelete { sql += " ON DELETE " + onDelete.rawValue }
    if let onUpdate { sql += " ON UPDATE " + onUpdate.rawValue }
    if isDeferred { sql += " DEFERRABLE INITIALLY DEFERRED" }
    return sql
  }
}

/// A column of a `CREATE TABLE` or `ALTER TABLE ... ADD COLUMN` statement.
///
/// ```swift
/// ColumnDefinition("name", .text, notNull: true, defaultValue: "anonymous", collation: "NOCASE")
/// ```
///
/// The name and collation are quoted as identifiers; `check`, `defaultExpression` and `generated` are
/// SQL expressions written as given; `defaultValue` is written as an SQL literal, the only way a value
/// can appear in a schema (SQLite does not bind parameters in `CREATE` and `ALTER` statements).
///
/// Related SQLite documentation: <https://sqlite.org/syntax/column-def.html>
public struct ColumnDefinition: Sendable, Hashable {
  /// How a column is its table's primary key.
  public enum PrimaryKey: Sendable, Hashable {
    /// `PRIMARY KEY` (ascending).
    case ascending
    /// `PRIMARY KEY DESC`.
    case descending
    /// `PRIMARY KEY AUTOINCREMENT`: for an `INTEGER` column, rowids are never reused.
    case autoincrement
  }

  /// A generated column's expression and whether it is stored.
  public enum Generated: Sendable, Hashable {
    /// Computed when read: `GENERATED ALWAYS AS (expression) VIRTUAL`.
    case virtual(String)
    /// Computed when written: `GENERATED ALWAYS AS (expression) STORED`.
    case stored(String)
  }

  /// The column's name.
  public var name: String
  /// The declared type, or nil for none.
  public var type: ColumnType?
  /// Whether the column is the primary key, and how.
  public var primaryKey: PrimaryKey?
  /// `NOT NULL`.
  public var isNotNull: Bool
  /// `UNIQUE`.
  public var isUnique: Bool
  /// A `CHECK` expression.
  public var check: String?
  /// A default value, written as an SQL literal.
  public var defaultValue: DatabaseValue?
  /// A default expression (`CURRENT_TIMESTAMP`, `random()`), used when ``defaultValue`` is nil.
  public var defaultExpression: String?
  /// The collation's name (`NOCASE`, `RTRIM`, or a custom one).
  public var collation: String?
  /// The foreign key the column holds.
  public var references: ForeignKeyReference?
  /// The expression of a generated column.
  public var generated: Generated?

  /// Creates a column definition.
  public init(
    _ name: String, _ type: ColumnType? = nil, primaryKey: PrimaryKey? = nil, notNull: Bool = false,
    unique: Bool = false, check: String? = nil, defaultValue: DatabaseValue? = nil, defaultExpression: String? = nil,
    collation: String? = nil, references: ForeignKeyReference? = nil, generated: Generated? = nil
  ) {
    self.name = name
    self.type = type
    self.primaryKey = primaryKey
    self.isNotNull = notNull
    self.isUnique = unique
    self.check = check
    self.defaultValue = defaultValue
    self.defaultExpression = defaultExpression
    self.collation = collation
    self.references = references
    self.generated = generated
  }

  /// The column's definition in SQL: `"name" TEXT NOT NULL DEFAULT 'anonymous' COLLATE "NOCASE"`.
  ///
  /// - Throws: ``SchemaError/invalidDefinition(_:)`` for a type that is not a type name.
  ///
  /// Related SQLite documentation: <https://sqlite.org/syntax/column-def.html>
  public var sql: String {
    get throws {
      var parts = [quoteIdentifier(name)]
      if let type { parts.append(try type.checkedSQL) }
      switch primaryKey {
      case .ascending: parts.append("PRIMARY KEY")
      case .descending: parts.append("PRIMARY KEY DESC")
      case .autoincrement: parts.append("PRIMARY KEY AUTOINCREMENT")
      case nil: break
      }
      if isNotNull { parts.append("NOT NULL") }
      if isUnique { parts.append("UNIQUE") }
      if let check { parts.append("CHECK (\(check))") }
      if let defaultValue {
        parts.append("DEFAULT " + sqlLiteral(defaultValue))
      } else if let defaultExpression {
        parts.append("DEFAULT (\(defaultExpression))")
      }
      if let collation { parts.append("COLLATE " + quoteIdentifier(collation)) }
      if let references { parts.append(references.sql) }
      switch generated {
      case .virtual(let expression): parts.append("GENERATED ALWAYS AS (\(expression)) VIRTUAL")
      case .stored(let expression): parts.append("GENERATED ALWAYS AS (\(expression)) STORED")
      case nil: break
      }
      return parts.joined(separator: " ")
    }
  }
}

/// A `CREATE TABLE` statement built from Swift values, every identifier quoted.
///
/// ```swift
/// let player = TableDefinition("player", options: [.ifNotExists, .strict]) { t in
///   t.column("id", .integer, primaryKey: .autoincrement)
///   t.column("name", .text, notNull: true, collation: "NOCASE")
///   t.column("teamID", .integer, references: ForeignKeyReference("team", onDelete: .cascade))
///   t.check("length(name) > 0")
/// }
/// try db.create(player)     // or try db.create(table: "player", options: ...) { t in ... }
/// print(try player.sql)
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/lang_createtable.html>
public struct TableDefinition: Sendable, Hashable {
  /// Options of `CREATE TABLE`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createtable.html>
  public struct Options: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public let rawValue: Int
    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `IF NOT EXISTS`: do nothing when the table exists.
    public static let ifNotExists = Options(rawValue: 1 << 0)
    /// `TEMP`: a table in the temp schema, dropped when the connection closes.
    public static let temporary = Options(rawValue: 1 << 1)
    /// `STRICT`: values must match the declared types.
    public static let strict = Options(rawValue: 1 << 2)
    /// `WITHOUT ROWID`: the primary key is the storage key.
    public static let withoutRowID = Options(rawValue: 1 << 3)
  }

  /// A constraint on the whole table.
  ///
  /// Related SQLite documentation: <https://sqlite.org/syntax/table-constraint.html>
  public enum Constraint: Sendable, Hashable {
    /// `PRIMARY KEY (columns)`.
    case primaryKey([String])
    /// `UNIQUE (columns)`.
    case unique([String])
    /// `CHECK (expression)`.
    case check(String)
    /// `FOREIGN KEY (columns) REFERENCES ...`.
    case foreignKey([String], ForeignKeyReference)
  }

  /// The table's name.
  public var name: String
  /// The schema to create it in (`main` when nil, or `temp` with ``Options/temporary``).
  public var schema: String?
  /// `IF NOT EXISTS`, `TEMP`, `STRICT`, `WITHOUT ROWID`.
  public var options: Options
  /// The columns, in order.
  public var columns: [ColumnDefinition] = []
  /// The table constraints, in order.
  public var constraints: [Constraint] = []

  /// Creates a table definition; `body` adds its columns and constraints.
  public init(
    _ name: String, schema: String? = nil, options: Options = [],
    _ body: (inout TableDefinition) throws -> Void = { _ in }
  ) rethrows {
    self.name = name
    self.schema = schema
    self.options = options
    try body(&self)
  }

  /// Adds a column. See ``ColumnDefinition``.
  public mutating func column(
    _ name: String, _ type: ColumnType? = nil, primaryKey: ColumnDefinition.PrimaryKey? = nil, notNull: Bool = false,
    unique: Bool = false, check: String? = nil, defaultValue: DatabaseValue? = nil, defaultExpression: String? = nil,
    collation: String? = nil, references: ForeignKeyReference? = nil, generated: ColumnDefinition.Generated? = nil
  ) {
    columns.append(
      ColumnDefinition(
        name, type, primaryKey: primaryKey, notNull: notNull, unique: unique, check: check, defaultValue: defaultValue,
        defaultExpression: defaultExpression, collation: collation, references: references, generated: generated))
  }

  /// Adds a column.
  public mutating func column(_ column: ColumnDefinition) {
    columns.append(column)
  }

  /// Adds a primary key over several columns.
  public mutating func primaryKey(_ columns: [String]) {
    constraints.append(.primaryKey(columns))
  }

  /// Adds a unique constraint over several columns.
  public mutating func unique(_ columns: [String]) {
    constraints.append(.unique(columns))
  }

  /// Adds a check constraint.
  public mutating func check(_ expression: String) {
    constraints.append(.check(expression))
  }

  /// Adds a foreign key over several columns.
  public mutating func foreignKey(_ columns: [String], references: ForeignKeyReference) {
    constraints.append(.foreignKey(columns, references))
  }

  /// The `CREATE TABLE` statement.
  ///
  /// - Throws: ``SchemaError/invalidDefinition(_:)`` for a table without columns or a column type
  ///   that is not a type name.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createtable.html>
  public var sql: String {
    get throws {
      guard !columns.isEmpty else {
        throw SchemaError.invalidDefinition("Table \"\(name)\" needs at least one column")
      }
      var sql = "CREATE "
      if options.contains(.temporary) { sql += "TEMP " }
      sql += "TABLE "
      if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
      sql += qualifiedName(name, schema: schema) + "("
      var parts = try columns.map { try $0.sql }
      for constraint in constraints {
        switch constraint {
        case .primaryKey(let columns): parts.append("PRIMARY KEY (" + quotedList(columns) + ")")
        case .unique(let columns): parts.append("UNIQUE (" + quotedList(columns) + ")")
        case .check(let expression): parts.append("CHECK (\(expression))")
        case .foreignKey(let columns, let reference):
          parts.append("FOREIGN KEY (" + quotedList(columns) + ") " + reference.sql)
        }
      }
      sql += parts.joined(separator: ", ") + ")"
      var tableOptions: [String] = []
      if options.contains(.withoutRowID) { tableOptions.append("WITHOUT ROWID") }
      if options.contains(.strict) { tableOptions.append("STRICT") }
      if !tableOptions.isEmpty { sql += " " + tableOptions.joined(separator: ", ") }
      return sql
    }
  }
}

/// `"schema"."name"`, or `"name"` without a schema.
func qualifiedName(_ name: String, schema: String?) -> String {
  (schema.map { quoteIdentifier($0) + "." } ?? "") + quoteIdentifier(name)
}

/// Quoted identifiers separated by commas.
func quotedList(_ names: [String]) -> String {
  names.map(quoteIdentifier).joined(separator: ", ")
}

/// A value as an SQL literal, for the places where SQLite takes no parameters (a column's
/// `DEFAULT`). Text holding NUL characters, which a quoted literal cannot hold, becomes a cast blob.
func sqlLiteral(_ value: DatabaseValue) -> String {
  switch value {
  case .null:
    return "NULL"
  case .integer(let integer):
    return String(integer)
  case .real(let real):
    if real.isNaN { return "NULL" }  // SQLite stores NaN as NULL
    if real.isInfinite { return real < 0 ? "-9e999" : "9e999" }
    // Swift's description is the shortest text that reads back as the same Double.
    return "\(real)"
  case .text(let text):
    if text.utf8.contains(0) { return "(CAST(" + hexLiteral(Array(text.utf8)) + " AS TEXT))" }
    return "'" + text.replacing("'", with: "''") + "'"
  case .blob(let data):
    return hexLiteral(Array(data))
  }
}

private func hexLiteral(_ bytes: [UInt8]) -> String {
  let digits = Array("0123456789ABCDEF".utf8)
  var text: [UInt8] = Array("x'".utf8)
  text.reserveCapacity(bytes.count * 2 + 3)
  for byte in bytes {
    text.append(digits[Int(byte >> 4)])
    text.append(digits[Int(byte & 0xF)])
  }
  text.append(UInt8(ascii: "'"))
  return String(decoding: text, as: UTF8.self)
}
