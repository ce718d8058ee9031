import Amalgam
import Foundation
import Testing

@Suite struct SchemaHelperTests {
  @Test func createTableWritesEveryOptionInSQL() throws {
    let table = TableDefinition("player", options: [.ifNotExists, .strict]) { t in
      t.column("id", .integer, primaryKey: .autoincrement)
      t.column("name", .text, notNull: true, unique: true, defaultValue: "it's", collation: "NOCASE")
      t.column("score", .real, check: "score >= 0", defaultValue: 1.5)
      t.column("teamID", .integer, references: ForeignKeyReference("team", onDelete: .cascade, onUpdate: .setNull))
      t.column("createdAt", .text, defaultExpression: "CURRENT_TIMESTAMP")
      t.column("double", .real, generated: .virtual("score * 2"))
      t.check("length(name) > 0")
    }
    #expect(
      try table.sql
        == """
        CREATE TABLE IF NOT EXISTS "player"("id" INTEGER PRIMARY KEY AUTOINCREMENT, \
        "name" TEXT NOT NULL UNIQUE DEFAULT 'it''s' COLLATE "NOCASE", \
        "score" REAL CHECK (score >= 0) DEFAULT 1.5, \
        "teamID" INTEGER REFERENCES "team" ON DELETE CASCADE ON UPDATE SET NULL, \
        "createdAt" TEXT DEFAULT (CURRENT_TIMESTAMP), \
        "double" REAL GENERATED ALWAYS AS (score * 2) VIRTUAL, \
        CHECK (length(name) > 0)) STRICT
        """)
    let db = try Database()
    try db.execute(sql: "CREATE TABLE team(id INTEGER PRIMARY KEY)")
    try db.create(table)
    try db.create(table)  // IF NOT EXISTS
    try db.execute(sql: "INSERT INTO player(teamID) VALUES (NULL)")
    let row = try #require(
      try db.prepare(sql: "SELECT name, score, createdAt IS NOT NULL, double FROM player").firstRow())
    #expect(row == [.text("it's"), .real(1.5), .integer(1), .real(3)])
    #expect(try db.tableInfo("player")?.isStrict == true)
    #expect(try db.foreignKeys(in: "player").first?.onDelete == .cascade)
    #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO player(score) VALUES (-1)") }
  }

  @Test func tableConstraintsAndWithoutRowID() throws {
    let table = TableDefinition("pair", schema: "main", options: .withoutRowID) { t in
      t.column("a", .text, notNull: true)
      t.column("b", .integer)
      t.primaryKey(["a", "b"])
      t.unique(["b", "a"])
      t.foreignKey(["a"], references: ForeignKeyReference("other", columns: ["x"], isDeferred: true))
    }
    #expect(
      try table.sql
        == """
        CREATE TABLE "main"."pair"("a" TEXT NOT NULL, "b" INTEGER, PRIMARY KEY ("a", "b"), UNIQUE ("b", "a"), \
        FOREIGN KEY ("a") REFERENCES "other"("x") DEFERRABLE INITIALLY DEFERRED) WITHOUT ROWID
        """)
    let db = try Database()
    try db.create(table)
    #expect(try db.primaryKey(of: "pair").columns == ["a", "b"])
    #expect(try db.tableInfo("pair")?.isWithoutRowID == true)
    #expect(try db.foreignKeys(in: "pair").first?.parentColumns == ["x"])
  }

  @Test func defaultValuesAreWrittenAsLiteralsThatReadBackExactly() throws {
    let values: [DatabaseValue] = [
      .null, .integer(Int64.min), .integer(42), .real(0.1), .real(-1e-300), .real(1e300), .real(.infinity),
      .real(-.infinity), .text(""), .text("a'b\"c; DROP TABLE x; --"), .text("nul\0inside"), .text("日本"),
      .blob(Data([0x00, 0xFF, 0x10])),
    ]
    let db = try Database()
    try db.create(table: "defaults") { t in
      t.column("id", .integer, primaryKey: .ascending)
      for (index, value) in values.enumerated() { t.column("c\(index)", defaultValue: value) }
    }
    try db.execute(sql: "INSERT INTO defaults(id) VALUES (1)")
    let row = try #require(try db.prepare(sql: "SELECT * FROM defaults").firstRow())
    #expect(Array(row.dropFirst()) == values)
    #expect(try db.tables().map(\.name) == ["defaults"])
  }

  @Test func unsafeColumnTypesAndEmptyDefinitionsAreRefused() throws {
    for type: ColumnType in ["TEXT); DROP TABLE t; --", "", "INT(", "1INT", "VARCHAR(1,2,3)"] {
      #expect(throws: SchemaError.self) { try ColumnDefinition("c", type).sql }
    }
    for type: ColumnType in ["VARCHAR(40)", "DECIMAL(10, 2)", "UNSIGNED BIG INT", "double precision", "INT(-1)"] {
      #expect(try ColumnDefinition("c", type).sql.hasPrefix("\"c\" "))
    }
    #expect(throws: SchemaError.invalidDefinition("Table \"t\" needs at least one column")) {
      try TableDefinition("t").sql
    }
    #expect(throws: SchemaError.self) { try IndexDefinition("i", on: "t", columns: []).sql }
  }

  @Test func alterStatementsQuoteEveryIdentifier() throws {
    #expect(try SchemaChange.dropTable("order", ifExists: true).sql == #"DROP TABLE IF EXISTS "order""#)
    #expect(
      try SchemaChange.renameTable("a\"b", schema: "aux", to: "c").sql == #"ALTER TABLE "aux"."a""b" RENAME TO "c""#)
    #expect(
      try SchemaChange.addColumn(ColumnDefinition("group", .text, notNull: true, defaultValue: ""), table: "order").sql
        == #"ALTER TABLE "order" ADD COLUMN "group" TEXT NOT NULL DEFAULT ''"#)
    #expect(
      try SchemaChange.renameColumn("select", table: "order", to: "from").sql
        == #"ALTER TABLE "order" RENAME COLUMN "select" TO "from""#)
    #expect(
      try SchemaChange.dropColumn("x", table: "t", schema: "main").sql == #"ALTER TABLE "main"."t" DROP COLUMN "x""#)
    #expect(try SchemaChange.dropIndex("i", ifExists: true).sql == #"DROP INDEX IF EXISTS "i""#)
    let index = IndexDefinition(
      "by score", on: "order",
      columns: [IndexDefinition.Column("score", descending: true, collation: "BINARY"), "name"],
      unique: true, ifNotExists: true, condition: "score > 0")
    #expect(
      try index.sql
        == #"CREATE UNIQUE INDEX IF NOT EXISTS "by score" ON "order"("score" COLLATE "BINARY" DESC, "name") WHERE score > 0"#
    )
  }

  /// Names that are keywords, hold quotes, spaces, dots or non-ASCII letters work through every helper
  /// and read back the same through introspection.
  @Test(arguments: ["order", #"a"b"#, "with space", "dot.ted", "select", "日本", #"""#, "[x]", "`y`"])
  func identifiersThatNeedQuotingRoundTrip(name: String) throws {
    let db = try Database()
    try db.create(table: name) { t in
      t.column(name, .integer, primaryKey: .ascending)
      t.column(name + "2", .text, collation: "NOCASE")
    }
    try db.create(table: name + "child") { t in
      t.column("ref", .integer, references: ForeignKeyReference(name, columns: [name], onDelete: .setNull))
    }
    #expect(try db.tableExists(name))
    #expect(try db.columns(in: name).map(\.name) == [name, name + "2"])
    #expect(try db.primaryKey(of: name) == PrimaryKeyInfo(columns: [name], isRowID: true, rowIDColumn: name))
    #expect(try db.foreignKeys(in: name + "child").first?.parentTable == name)
    #expect(try db.foreignKeys(in: name + "child").first?.parentColumns == [name])

    try db.create(
      index: name + "index", on: name, columns: [IndexDefinition.Column(name + "2", descending: true)], unique: true)
    #expect(try db.indexes(on: name).map(\.name) == [name + "index"])
    #expect(try db.indexes(on: name).first?.columnNames == [name + "2"])

    try db.add(column: ColumnDefinition(name + "3", defaultValue: .text(name)), to: name)
    try db.execute(sql: "INSERT INTO \(quote(name)) DEFAULT VALUES")
    #expect(try db.prepare(sql: "SELECT \(quote(name + "3")) FROM \(quote(name))").front(String.self) == name)
    #expect(try db.columnExists(name + "3", in: name))

    try db.rename(column: name + "3", in: name, to: name + "4")
    #expect(try db.columns(in: name).map(\.name) == [name, name + "2", name + "4"])
    try db.drop(column: name + "4", from: name)
    #expect(try db.columnExists(name + "4", in: name) == false)

    try db.rename(table: name, to: name + "renamed")
    #expect(try db.tableExists(name) == false)
    #expect(try db.tableExists(name + "renamed"))
    #expect(try db.indexes(on: name + "renamed").map(\.name) == [name + "index"])

    try db.drop(index: name + "index")
    #expect(try db.indexes(on: name + "renamed") == [])
    try db.drop(index: name + "index", ifExists: true)
    try db.drop(table: name + "child")
    try db.drop(table: name + "renamed")
    try db.drop(table: name + "renamed", ifExists: true)
    #expect(try db.tables() == [])
  }

  @Test func helpersWorkOnAnAttachedSchema() throws {
    let db = try Database()
    try db.execute(sql: "ATTACH ':memory:' AS \"aux db\"")
    try db.create(table: "t", schema: "aux db") { t in t.column("x", .integer) }
    try db.create(index: "t_x", on: "t", schema: "aux db", columns: ["x"])
    try db.add(column: ColumnDefinition("y"), to: "t", schema: "aux db")
    #expect(try db.columns(in: "t", schema: "aux db").map(\.name) == ["x", "y"])
    #expect(try db.indexes(on: "t", schema: "aux db").map(\.name) == ["t_x"])
    try db.rename(table: "t", schema: "aux db", to: "u")
    #expect(try db.tables(schema: "aux db").map(\.name) == ["u"])
    try db.drop(table: "u", schema: "aux db")
    #expect(try db.tables(schema: "aux db") == [])
    try db.create(table: "scratch", options: .temporary) { t in t.column("x") }
    #expect(try db.tables(schema: "temp").map(\.name) == ["scratch"])
  }

  @Test func sqliteErrorsFromHelpersSaySo() throws {
    let db = try Database()
    #expect {
      try db.drop(table: "missing")
    } throws: { error in
      (error as? SQLiteError)?.message == "no such table: missing"
    }
  }
}

private func quote(_ name: String) -> String {
  "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
