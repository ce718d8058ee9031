extension Database {
  // MARK: - Header values

  /// The `user_version` number in the main database's header: free for the application's use,
  /// typically a schema version. 0 in a new database (`PRAGMA user_version`).
  ///
  /// ```swift
  /// if try db.userVersion < 2 { ... }
  /// try db.setUserVersion(2)
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public var userVersion: Int32 {
    get throws { try prepare(sql: "PRAGMA main.user_version").front(Int32.self) ?? 0 }
  }

  /// Sets the `user_version` number of the database `schema` (`PRAGMA user_version = N`). Inside a
  /// transaction, it is rolled back with it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func setUserVersion(_ version: Int32, schema: String = "main") throws {
    try execute(sql: "PRAGMA \(quoteIdentifier(schema)).user_version = \(version)")
  }

  /// The `application_id` number in the main database's header, which identifies the file format of
  /// an application that uses SQLite as its file format. 0 in a new database (`PRAGMA application_id`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_application_id>
  public var applicationID: Int32 {
    get throws { try prepare(sql: "PRAGMA main.application_id").front(Int32.self) ?? 0 }
  }

  /// Sets the `application_id` number of the database `schema` (`PRAGMA application_id = N`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_application_id>
  public func setApplicationID(_ id: Int32, schema: String = "main") throws {
    try execute(sql: "PRAGMA \(quoteIdentifier(schema)).application_id = \(id)")
  }

  // MARK: - Tables, views, triggers

  /// The tables of `schema` (ordinary, virtual and shadow tables; not views, nor SQLite's own
  /// `sqlite_` tables), sorted by name (`pragma_table_list`).
  ///
  /// ```swift
  /// let names = try db.tables().map(\.name)
  /// let strict = try db.tables(schema: "archive").filter(\.isStrict)
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_list>
  public func tables(schema: String = "main") throws -> [TableInfo] {
    try tableList(schema: schema, name: nil).filter { $0.kind != .view }
  }

  /// The views of `schema`, sorted by name (`pragma_table_list`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_list>
  public func views(schema: String = "main") throws -> [TableInfo] {
    try tableList(schema: schema, name: nil).filter { $0.kind == .view }
  }

  /// The table or view named `name` in `schema`, or `nil` when there is none (`pragma_table_list`).
  /// Names compare as SQLite compares them, ignoring ASCII case.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_list>
  public func tableInfo(_ name: String, schema: String = "main") throws -> TableInfo? {
    try tableList(schema: schema, name: name).first
  }

  /// True when `schema` has a table (not a view) named `name`, ignoring ASCII case as SQLite does.
  ///
  /// ```swift
  /// if try !db.tableExists("order") { ... }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_list>
  public func tableExists(_ name: String, schema: String = "main") throws -> Bool {
    guard let table = try tableInfo(name, schema: schema) else { return false }
    return table.kind != .view
  }

  /// The triggers of `schema`, with their SQL, sorted by name (`sqlite_schema`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/schematab.html>
  public func triggers(schema: String = "main") throws -> [SchemaObject] {
    try schemaObjects(schema: schema).filter { $0.type == "trigger" }
  }

  /// Every table, index, view and trigger of `schema` with the SQL that created it, SQLite's own
  /// objects excepted, sorted by type and name (`sqlite_schema`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/schematab.html>
  public func schemaObjects(schema: String = "main") throws -> [SchemaObject] {
    // The temp schema's table is sqlite_temp_schema, which `temp.sqlite_schema` also names.
    let sql = """
      SELECT type, name, tbl_name, sql FROM \(quoteIdentifier(schema)).sqlite_schema
      WHERE name NOT GLOB 'sqlite_*' ORDER BY type, name
      """
    var objects: [SchemaObject] = []
    try prepare(sql: sql).results { row in
      objects.append(
        SchemaObject(
          type: try row.value(at: 0), name: try row.value(at: 1), tableName: try row.value(at: 2),
          sql: try row.value(at: 3)))
    }
    return objects
  }

  // MARK: - Columns

  /// The columns of a table or view, in order, hidden and generated ones included
  /// (`pragma_table_xinfo`).
  ///
  /// ```swift
  /// for column in try db.columns(in: "player") {
  ///   print(column.name, column.declaredType, column.isNotNull, column.defaultValueSQL ?? "")
  /// }
  /// ```
  ///
  /// - Throws: ``SchemaError/noSuchTable(name:schema:)`` when there is no such table or view.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_xinfo>
  public func columns(in table: String, schema: String = "main") throws -> [ColumnInfo] {
    var columns: [ColumnInfo] = []
    let sql = """
      SELECT cid, name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?, ?) ORDER BY cid
      """
    try prepare(sql: sql).bind(parameterValues: [table, schema]).results { row in
      columns.append(
        ColumnInfo(
          position: try row.value(at: 0), name: try row.value(at: 1), declaredType: try row.value(at: 2),
          isNotNull: try row.value(at: 3), defaultValueSQL: try row.value(at: 4),
          primaryKeyPosition: try row.value(at: 5),
          kind: ColumnInfo.Kind(rawValue: try row.value(at: 6)) ?? .ordinary))
    }
    if columns.isEmpty { try requireTable(table, schema: schema) }
    return columns
  }

  /// True when the table or view `table` has a column named `column` (hidden and generated ones
  /// included), ignoring ASCII case as SQLite does.
  ///
  /// - Throws: ``SchemaError/noSuchTable(name:schema:)`` when there is no such table or view.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_table_xinfo>
  public func columnExists(_ column: String, in table: String, schema: String = "main") throws -> Bool {
    try columns(in: table, schema: schema).contains { $0.name.lowercased() == column.lowercased() }
  }

  /// The primary key of a table: its declared key columns, or the rowid for a table that declares
  /// none. Says whether the key is the rowid (an `INTEGER PRIMARY KEY` column or the hidden rowid).
  ///
  /// ```swift
  /// let key = try db.primaryKey(of: "player")   // ["id"], isRowID: true, rowIDColumn: "id"
  /// ```
  ///
  /// - Throws: ``SchemaError/noSuchTable(name:schema:)`` when there is no such table.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_createtable.html#rowid>
  public func primaryKey(of table: String, schema: String = "main") throws -> PrimaryKeyInfo {
    guard let info = try tableInfo(table, schema: schema), info.kind != .view else {
      throw SchemaError.noSuchTable(name: table, schema: schema)
    }
    let columns = try columns(in: table, schema: schema)
    let keyColumns = columns.filter { $0.primaryKeyPosition > 0 }.sorted {
      $0.primaryKeyPosition < $1.primaryKeyPosition
    }
    if keyColumns.isEmpty {
      // The hidden rowid, under the first of its three names that no column takes.
      let taken = Set(columns.map { $0.name.lowercased() })
      let name = ["rowid", "_rowid_", "oid"].first { !taken.contains($0) } ?? "rowid"
      return PrimaryKeyInfo(columns: info.isWithoutRowID ? [] : [name], isRowID: !info.isWithoutRowID, rowIDColumn: nil)
    }
    let names = keyColumns.map(\.name)
    // An INTEGER PRIMARY KEY aliases the rowid, unless declared DESC, in which case SQLite makes an
    // ordinary key with an index of origin "pk" (a documented quirk).
    if !info.isWithoutRowID, keyColumns.count == 1, keyColumns[0].declaredType.uppercased() == "INTEGER",
      try !indexes(on: table, schema: schema).contains(where: { $0.origin == .primaryKey })
    {
      return PrimaryKeyInfo(columns: names, isRowID: true, rowIDColumn: names[0])
    }
    return PrimaryKeyInfo(columns: names, isRowID: false, rowIDColumn: nil)
  }

  // MARK: - Indexes and foreign keys

  /// The indexes of a table, sorted by name, with their key columns (`pragma_index_list`,
  /// `pragma_index_xinfo`).
  ///
  /// ```swift
  /// let unique = try db.indexes(on: "player").filter(\.isUnique).map(\.columnNames)
  /// ```
  ///
  /// - Throws: ``SchemaError/noSuchTable(name:schema:)`` when there is no such table or view.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_index_list>
  public func indexes(on table: String, schema: String = "main") throws -> [IndexInfo] {
    try requireTable(table, schema: schema)
    var indexes: [IndexInfo] = []
    let listSQL = #"SELECT name, "unique", origin, partial FROM pragma_index_list(?, ?) ORDER BY name"#
    try prepare(sql: listSQL).bind(parameterValues: [table, schema]).results { row in
      indexes.append(
        IndexInfo(
          name: try row.value(at: 0), table: table, isUnique: try row.value(at: 1), isPartial: try row.value(at: 3),
          origin: IndexInfo.Origin(rawValue: try row.value(at: 2)) ?? .createIndex, columns: []))
    }
    let columnsSQL = #"SELECT name, "desc", coll FROM pragma_index_xinfo(?, ?) WHERE key = 1 ORDER BY seqno"#
    let statement = try prepare(sql: columnsSQL)
    for position in indexes.indices {
      var columns: [IndexInfo.Column] = []
      try statement.bind(parameterValues: [indexes[position].name, schema]).results { row in
        columns.append(
          IndexInfo.Column(
            name: try row.value(at: 0), isDescending: try row.value(at: 1), collation: try row.value(at: 2))
        )
      }
      indexes[position].columns = columns
    }
    return indexes
  }

  /// The foreign keys of a table, in the order `PRAGMA foreign_key_list` numbers them, with their
  /// columns and actions.
  ///
  /// ```swift
  /// for key in try db.foreignKeys(in: "book") {
  ///   print(key.columns, "->", key.parentTable, key.parentColumns, key.onDelete)
  /// }
  /// ```
  ///
  /// - Throws: ``SchemaError/noSuchTable(name:schema:)`` when there is no such table or view.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_list>
  public func foreignKeys(in table: String, schema: String = "main") throws -> [ForeignKeyInfo] {
    try requireTable(table, schema: schema)
    var keys: [ForeignKeyInfo] = []
    let sql = """
      SELECT id, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?, ?) ORDER BY id, seq
      """
    try prepare(sql: sql).bind(parameterValues: [table, schema]).results { row in
      let id: Int = try row.value(at: 0)
      let from: String = try row.value(at: 2)
      let to: String? = try row.value(at: 3)
      if let last = keys.indices.last, keys[last].id == id {
        keys[last].columns.append(from)
        keys[last].parentColumns.append(to)
      } else {
        keys.append(
          ForeignKeyInfo(
            id: id, parentTable: try row.value(at: 1), columns: [from], parentColumns: [to],
            onUpdate: ForeignKeyAction(rawValue: try row.value(at: 4)) ?? .noAction,
            onDelete: ForeignKeyAction(rawValue: try row.value(at: 5)) ?? .noAction))
      }
    }
    return keys
  }

  // MARK: - Implementation

  /// The rows of `pragma_table_list` for `schema` (all, or the one named `name`), SQLite's own
  /// tables excepted, sorted by name.
  private func tableList(schema: String, name: String?) throws -> [TableInfo] {
    var tables: [TableInfo] = []
    // pragma_table_list takes the table's name as its only argument; the schema is a column.
    let sql = """
      SELECT schema, name, type, ncol, wr, strict FROM pragma_table_list\(name == nil ? "" : "(?)")
      WHERE schema = ? COLLATE NOCASE AND name NOT GLOB 'sqlite_*' ORDER BY name
      """
    let values: [(any ParameterBindable)?] = name.map { [$0, schema] } ?? [schema]
    try prepare(sql: sql).bind(parameterValues: values).results { row in
      tables.append(
        TableInfo(
          schema: try row.value(at: 0), name: try row.value(at: 1),
          kind: TableInfo.Kind(rawValue: try row.value(at: 2)) ?? .table, columnCount: try row.value(at: 3),
          isWithoutRowID: try row.value(at: 4), isStrict: try row.value(at: 5)))
    }
    return tables
  }

  /// Throws ``SchemaError/noSuchTable(name:schema:)`` unless `schema` has a table or view `name`.
  private func requireTable(_ name: String, schema: String) throws {
    if try tableInfo(name, schema: schema) == nil { throw SchemaError.noSuchTable(name: name, schema: schema) }
  }
}
