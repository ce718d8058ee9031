/// A set of tables: what a query reads, or what a commit changed.
///
/// Observations record the region of their query while it runs (SQLite's authorizer reports every
/// table a statement reads, through views, triggers and subqueries, in the schema SQLite resolved it
/// to), and refetch only after a commit whose changed region intersects it. A region can also be
/// declared:
///
/// ```swift
/// let region = DatabaseRegion(tables: ["note", "tag"])
/// ```
///
/// Table names compare without regard to ASCII case, within their schema (`"main"`, `"temp"`, or an
/// attached database's name). A region that reads a virtual table also covers the tables whose names
/// start with the virtual table's name and an underscore, where FTS5 and R*Tree keep their data (the
/// shadow tables), so writes to an FTS5 table are seen. ``fullDatabase`` stands for every table: a
/// query whose region cannot be known (a `PRAGMA`), or a commit whose changes are unknown (one made by
/// another connection or another process).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/set_authorizer.html>
public struct DatabaseRegion: Sendable, Hashable, CustomStringConvertible {
  /// A table in a schema, both names lowercased.
  struct Table: Hashable, Sendable, Comparable {
    var schema: String
    var name: String

    init(schema: String, name: String) {
      self.schema = schema.lowercased()
      self.name = name.lowercased()
    }

    static func < (lhs: Table, rhs: Table) -> Bool {
      (lhs.schema, lhs.name) < (rhs.schema, rhs.name)
    }
  }

  /// The tables of the region.
  private(set) var tables: Set<Table> = []
  /// The virtual tables among ``tables``: a change to one of their shadow tables is a change to them.
  private(set) var virtualTables: Set<Table> = []
  /// Whether the region is every table.
  public private(set) var isFullDatabase = false

  /// An empty region.
  public init() {}

  /// The region made of `tables` in `schema`.
  public init(tables: [String], schema: String = "main") {
    self.tables = Set(tables.map { Table(schema: schema, name: $0) })
  }

  init(tables: Set<Table>, virtualTables: Set<Table> = []) {
    self.tables = tables
    self.virtualTables = virtualTables
  }

  /// Every table of the database.
  public static let fullDatabase: DatabaseRegion = {
    var region = DatabaseRegion()
    region.isFullDatabase = true
    return region
  }()

  /// True for the empty region.
  public var isEmpty: Bool { !isFullDatabase && tables.isEmpty }

  /// The names of the region's tables, sorted; `schema.table` for a schema other than `main`. Empty
  /// for ``fullDatabase``.
  public var tableNames: [String] {
    tables.sorted().map { $0.schema == "main" ? $0.name : "\($0.schema).\($0.name)" }
  }

  /// Whether the region holds `table` of `schema` (always true for ``fullDatabase``).
  public func contains(table: String, schema: String = "main") -> Bool {
    isFullDatabase || tables.contains(Table(schema: schema, name: table))
  }

  /// The region holding the tables of both.
  public func union(_ other: DatabaseRegion) -> DatabaseRegion {
    var region = self
    region.formUnion(other)
    return region
  }

  /// Adds the tables of `other` to this region.
  public mutating func formUnion(_ other: DatabaseRegion) {
    if other.isFullDatabase { isFullDatabase = true }
    guard !isFullDatabase else {
      tables = []
      virtualTables = []
      return
    }
    tables.formUnion(other.tables)
    virtualTables.formUnion(other.virtualTables)
  }

  mutating func insert(_ table: Table) {
    guard !isFullDatabase else { return }
    tables.insert(table)
  }

  /// Whether a change to `other` can change what this region reads: they share a table, one of them
  /// is ``fullDatabase`` (and the other is not empty), or `other` holds a shadow table of one of this
  /// region's virtual tables.
  public func intersects(_ other: DatabaseRegion) -> Bool {
    if isEmpty || other.isEmpty { return false }
    if isFullDatabase || other.isFullDatabase { return true }
    if !tables.isDisjoint(with: other.tables) { return true }
    return covers(shadowOf: other) || other.covers(shadowOf: self)
  }

  private func covers(shadowOf other: DatabaseRegion) -> Bool {
    guard !virtualTables.isEmpty else { return false }
    return other.tables.contains { table in
      virtualTables.contains { table.schema == $0.schema && table.name.hasPrefix($0.name + "_") }
    }
  }

  /// The region's tables, as `DatabaseRegion(note, tag)`, or `DatabaseRegion(full database)`.
  public var description: String {
    isFullDatabase ? "DatabaseRegion(full database)" : "DatabaseRegion(\(tableNames.joined(separator: ", ")))"
  }
}
