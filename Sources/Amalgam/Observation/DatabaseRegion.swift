/// A set of tables, each whole or restricted to some of its columns and rows: what a query reads, or
/// what a commit changed.
///
/// Observations record the region of their query while it runs (SQLite's authorizer reports every
/// table and column a statement reads, through views, triggers and subqueries, in the schema SQLite
/// resolved it to), and refetch only after a commit whose changed region intersects it. A region can
/// also be declared:
///
/// ```swift
/// let region = DatabaseRegion(tables: ["note", "tag"])
/// let titles = DatabaseRegion(table: "note", columns: ["title"])
/// ```
///
/// A table of a region is either whole, or restricted to a set of columns (possibly empty: `SELECT
/// count(*) FROM t` depends on the set of rows only) and to a set of rowids. A commit's region says
/// which columns an `UPDATE` changed; an `INSERT` or `DELETE`, or an `UPDATE` that changes a rowid,
/// changes every column of its rows. Two regions intersect on a table when their columns meet (or one
/// of them is whole) and their rowids meet (or one of them has every row). Where SQLite does not say
/// which columns changed (`WITHOUT ROWID` and virtual tables, tables with generated columns, a
/// connection whose pre-update hook a session holds), a commit's table is whole.
///
/// Table and column names compare without regard to ASCII case, table names within their schema
/// (`"main"`, `"temp"`, or an attached database's name). A region that reads a virtual table also
/// covers the tables whose names start with the virtual table's name and an underscore, where FTS5 and
/// R*Tree keep their data (the shadow tables), so writes to an FTS5 table are seen. ``fullDatabase``
/// stands for every table: a query whose region cannot be known (a `PRAGMA`), or a commit whose changes
/// are unknown (one made by another connection or another process).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/set_authorizer.html>,
/// <https://sqlite.org/c3ref/preupdate_blobwrite.html>
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

  /// What a region holds of one table: some of its columns and some of its rows. `nil` stands for
  /// every column, or every row.
  struct TableRegion: Hashable, Sendable {
    /// The lowercased names of the columns; `nil` for every column. Empty: only which rows exist
    /// matters (a read), or no column changed (a change).
    var columns: Set<String>?
    /// The rowids of the rows; `nil` for every row.
    var rowids: Set<Int64>?

    /// Every column of every row.
    static let whole = TableRegion(columns: nil, rowids: nil)

    var isWhole: Bool { columns == nil && rowids == nil }

    /// The columns and rows of both: a set where both are sets, else every one.
    func union(_ other: TableRegion) -> TableRegion {
      TableRegion(
        columns: columns.flatMap { mine in other.columns.map { mine.union($0) } },
        rowids: rowids.flatMap { mine in other.rowids.map { mine.union($0) } })
    }

    /// Whether a change to `other` can change what this reads: their columns meet (or one is every
    /// column), and their rows meet (or one is every row).
    func intersects(_ other: TableRegion) -> Bool {
      if let columns, let otherColumns = other.columns, columns.isDisjoint(with: otherColumns) { return false }
      if let rowids, let otherRowids = other.rowids, rowids.isDisjoint(with: otherRowids) { return false }
      return true
    }
  }

  /// The tables of the region.
  private(set) var tables: Set<Table> = []
  /// The tables of ``tables`` restricted to some columns or rows; a table absent here is whole.
  private(set) var restrictions: [Table: TableRegion] = [:]
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

  /// The region made of the columns `columns` of `table` in `schema`: a query that reads only them
  /// is not fetched again after an `UPDATE` of other columns of the table. An `INSERT` or a `DELETE`
  /// of the table intersects it whatever its columns; an empty `columns` stands for the set of the
  /// table's rows, as `SELECT count(*) FROM table` reads.
  ///
  /// ```swift
  /// let titles = DatabaseRegion(table: "note", columns: ["title"])
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
  public init(table: String, columns: [String], schema: String = "main") {
    insert(Table(schema: schema, name: table), TableRegion(columns: Set(columns.map { $0.lowercased() })))
  }

  init(tables: Set<Table>, virtualTables: Set<Table> = []) {
    self.tables = tables
    self.virtualTables = virtualTables
  }

  init(tables: Set<Table>, virtualTables: Set<Table> = [], restrictions: [Table: TableRegion]) {
    self.tables = tables
    self.virtualTables = virtualTables
    self.restrictions = restrictions.filter { tables.contains($0.key) && !$0.value.isWhole }
  }

  /// Whether some table of the region is restricted to columns or rows.
  var hasRestrictions: Bool { !restrictions.isEmpty }

  /// What the region holds of `table`: `nil` when it does not hold it.
  func region(of table: Table) -> TableRegion? {
    if isFullDatabase { return .whole }
    guard tables.contains(table) else { return nil }
    return restrictions[table] ?? .whole
  }

  /// The columns that the region reads of `table`: `nil` for every column (or a table it does not
  /// hold), else the lowercased names.
  func columns(of table: Table) -> Set<String>? {
    isFullDatabase ? nil : restrictions[table]?.columns
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
      restrictions = [:]
      return
    }
    if !restrictions.isEmpty || !other.restrictions.isEmpty {
      for table in other.tables {
        insert(table, other.restrictions[table] ?? .whole)
      }
    } else {
      tables.formUnion(other.tables)
    }
    virtualTables.formUnion(other.virtualTables)
  }

  mutating func insert(_ table: Table) {
    insert(table, .whole)
  }

  /// Adds `part` of `table`: the union with what the region held of it.
  mutating func insert(_ table: Table, _ part: TableRegion) {
    guard !isFullDatabase else { return }
    if tables.insert(table).inserted {
      if !part.isWhole { restrictions[table] = part }
    } else if let held = restrictions[table] {
      let union = held.union(part)
      restrictions[table] = union.isWhole ? nil : union
    }
  }

  /// Whether a change to `other` can change what this region reads: they share a table whose columns
  /// and rows meet (see ``DatabaseRegion``), one of them is ``fullDatabase`` (and the other is not
  /// empty), or `other` holds a shadow table of one of this region's virtual tables.
  public func intersects(_ other: DatabaseRegion) -> Bool {
    if isEmpty || other.isEmpty { return false }
    if isFullDatabase || other.isFullDatabase { return true }
    if restrictions.isEmpty && other.restrictions.isEmpty {
      if !tables.isDisjoint(with: other.tables) { return true }
    } else {
      let (few, many) = tables.count <= other.tables.count ? (self, other) : (other, self)
      for table in few.tables where many.tables.contains(table) {
        let mine = few.restrictions[table] ?? .whole
        if mine.intersects(many.restrictions[table] ?? .whole) { return true }
      }
    }
    return covers(shadowOf: other) || other.covers(shadowOf: self)
  }

  private func covers(shadowOf other: DatabaseRegion) -> Bool {
    guard !virtualTables.isEmpty else { return false }
    return other.tables.contains { table in
      virtualTables.contains { table.schema == $0.schema && table.name.hasPrefix($0.name + "_") }
    }
  }

  /// The region's tables, as `DatabaseRegion(note, tag)`, or `DatabaseRegion(full database)`; a table
  /// restricted to columns or rows lists them: `note(body, title)`, `note()` for no column,
  /// `note(title)[1, 2]` for rows.
  public var description: String {
    guard !isFullDatabase else { return "DatabaseRegion(full database)" }
    let names = tables.sorted().map { table in
      var name = table.schema == "main" ? table.name : "\(table.schema).\(table.name)"
      if let restriction = restrictions[table] {
        if let columns = restriction.columns { name += "(\(columns.sorted().joined(separator: ", ")))" }
        if let rowids = restriction.rowids { name += "\(rowids.sorted())" }
      }
      return name
    }
    return "DatabaseRegion(\(names.joined(separator: ", ")))"
  }
}
