import Amalgam
import Foundation
import Testing

@Suite struct SchemaIntrospectionTests {
  /// A database with a parent, a child with every kind of column, indexes, a view and a trigger.
  func makeDatabase() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE player(
          id INTEGER PRIMARY KEY,
          name VARCHAR(40) NOT NULL DEFAULT 'anonymous',
          teamID INTEGER REFERENCES team(id) ON DELETE CASCADE ON UPDATE SET NULL,
          score REAL DEFAULT 0,
          doubled REAL GENERATED ALWAYS AS (score * 2) VIRTUAL,
          tripled REAL GENERATED ALWAYS AS (score * 3) STORED
        );
        CREATE TABLE strictly(x INTEGER, y ANY) STRICT;
        CREATE INDEX player_score ON player(score DESC, name COLLATE NOCASE) WHERE score > 0;
        CREATE UNIQUE INDEX player_lower ON player(lower(name));
        CREATE TABLE pair(a TEXT, b TEXT, PRIMARY KEY (b, a), FOREIGN KEY (a, b) REFERENCES pair2(x, y)) WITHOUT ROWID;
        CREATE TABLE plain(x);
        CREATE VIEW good AS SELECT name FROM player WHERE score > 10;
        CREATE TRIGGER player_touch AFTER UPDATE ON player BEGIN SELECT 1; END;
        """)
    return db
  }

  @Test func listsTablesWithTheirStrictAndWithoutRowidFlags() throws {
    let db = try makeDatabase()
    let tables = try db.tables()
    #expect(tables.map(\.name) == ["pair", "plain", "player", "strictly", "team"])
    let player = try #require(tables.first { $0.name == "player" })
    #expect(!player.isStrict && !player.isWithoutRowID && player.kind == .table && player.columnCount == 6)
    #expect(tables.first { $0.name == "strictly" }?.isStrict == true)
    let pair = try #require(tables.first { $0.name == "pair" })
    #expect(pair.isWithoutRowID && !pair.isStrict)
    #expect(try db.views().map(\.name) == ["good"])
    #expect(try db.views().first?.kind == .view)
    #expect(try db.triggers().map(\.name) == ["player_touch"])
    #expect(try db.triggers().first?.tableName == "player")
    #expect(try db.tableExists("PLAYER"))
    #expect(try db.tableExists("good") == false)
    #expect(try db.tableExists("missing") == false)
    #expect(try db.tableInfo("good")?.kind == .view)
  }

  @Test func describesColumns() throws {
    let db = try makeDatabase()
    let columns = try db.columns(in: "player")
    #expect(columns.map(\.name) == ["id", "name", "teamID", "score", "doubled", "tripled"])
    #expect(columns.map(\.position) == [0, 1, 2, 3, 4, 5])
    #expect(columns[1].declaredType == "VARCHAR(40)")
    #expect(columns[1].isNotNull && !columns[2].isNotNull)
    #expect(columns[1].defaultValueSQL == "'anonymous'")
    #expect(columns[3].defaultValueSQL == "0")
    #expect(columns[2].defaultValueSQL == nil)
    #expect(columns.map(\.primaryKeyPosition) == [1, 0, 0, 0, 0, 0])
    #expect(columns.map(\.kind) == [.ordinary, .ordinary, .ordinary, .ordinary, .generatedVirtual, .generatedStored])
    #expect(columns[4].isGenerated && !columns[0].isGenerated)
    #expect(try db.columnExists("TEAMID", in: "player"))
    #expect(try db.columnExists("doubled", in: "player"))
    #expect(try db.columnExists("nope", in: "player") == false)
    #expect(try db.columns(in: "good").map(\.name) == ["name"])
    #expect(throws: SchemaError.noSuchTable(name: "missing", schema: "main")) { try db.columns(in: "missing") }
  }

  @Test func describesIndexes() throws {
    let db = try makeDatabase()
    let indexes = try db.indexes(on: "player")
    #expect(indexes.map(\.name) == ["player_lower", "player_score"])
    let score = indexes[1]
    #expect(score.isPartial && !score.isUnique && score.origin == .createIndex && score.table == "player")
    #expect(score.columns.map(\.name) == ["score", "name"])
    #expect(score.columns.map(\.isDescending) == [true, false])
    #expect(score.columns.map(\.collation) == ["BINARY", "NOCASE"])
    #expect(indexes[0].isUnique && indexes[0].columnNames == [nil])
    let team = try db.indexes(on: "team")
    #expect(team.map(\.origin) == [.uniqueConstraint])
    #expect(team.map(\.columnNames) == [["name"]])
    #expect(try db.indexes(on: "pair").map(\.origin) == [.primaryKey])
    #expect(throws: SchemaError.self) { try db.indexes(on: "missing") }
  }

  @Test func describesForeignKeysWithTheirActions() throws {
    let db = try makeDatabase()
    let keys = try db.foreignKeys(in: "player")
    #expect(keys.count == 1)
    #expect(keys[0].parentTable == "team" && keys[0].columns == ["teamID"] && keys[0].parentColumns == ["id"])
    #expect(keys[0].onDelete == .cascade && keys[0].onUpdate == .setNull)
    let pair = try db.foreignKeys(in: "pair")
    #expect(pair.map(\.columns) == [["a", "b"]])
    #expect(pair.map(\.parentColumns) == [["x", "y"]])
    #expect(pair.map(\.onDelete) == [.noAction])
    #expect(try db.foreignKeys(in: "plain") == [])
  }

  @Test func findsThePrimaryKeyOfEveryKindOfTable() throws {
    let db = try makeDatabase()
    try db.batch(
      sql: """
        CREATE TABLE descending(id INTEGER PRIMARY KEY DESC);
        CREATE TABLE textual(code TEXT PRIMARY KEY);
        CREATE TABLE shadowed(rowid TEXT, x);
        """)
    #expect(try db.primaryKey(of: "player") == PrimaryKeyInfo(columns: ["id"], isRowID: true, rowIDColumn: "id"))
    #expect(try db.primaryKey(of: "plain") == PrimaryKeyInfo(columns: ["rowid"], isRowID: true, rowIDColumn: nil))
    #expect(try db.primaryKey(of: "pair") == PrimaryKeyInfo(columns: ["b", "a"], isRowID: false, rowIDColumn: nil))
    #expect(try db.primaryKey(of: "textual") == PrimaryKeyInfo(columns: ["code"], isRowID: false, rowIDColumn: nil))
    // INTEGER PRIMARY KEY DESC is not a rowid alias (a quirk SQLite keeps for compatibility).
    #expect(try db.primaryKey(of: "descending").isRowID == false)
    #expect(try db.primaryKey(of: "shadowed").columns == ["_rowid_"])
    #expect(throws: SchemaError.self) { try db.primaryKey(of: "good") }
  }

  @Test func readsAnyAttachedSchema() throws {
    let db = try makeDatabase()
    try db.execute(sql: "ATTACH ':memory:' AS archive")
    try db.execute(sql: "CREATE TABLE archive.player(id INTEGER PRIMARY KEY, archivedAt TEXT)")
    try db.execute(sql: "CREATE TEMP TABLE scratch(x)")
    #expect(try db.tables(schema: "archive").map(\.name) == ["player"])
    #expect(try db.tables(schema: "archive").map(\.schema) == ["archive"])
    #expect(try db.columns(in: "player", schema: "archive").map(\.name) == ["id", "archivedAt"])
    #expect(try db.columnExists("archivedAt", in: "player") == false)
    #expect(try db.tables(schema: "temp").map(\.name) == ["scratch"])
    #expect(try db.tableExists("scratch") == false)
    #expect(try db.tableExists("scratch", schema: "temp"))
    #expect(try db.schemaObjects(schema: "archive").map(\.name) == ["player"])
  }

  @Test func userVersionAndApplicationIDAreHeaderNumbers() throws {
    let db = try Database()
    #expect(try db.userVersion == 0)
    #expect(try db.applicationID == 0)
    try db.setUserVersion(-7)
    try db.setApplicationID(0x4142_4344)
    #expect(try db.userVersion == -7)
    #expect(try db.applicationID == 0x4142_4344)
    try db.execute(sql: "ATTACH ':memory:' AS other")
    try db.setUserVersion(9, schema: "other")
    #expect(try db.prepare(sql: "PRAGMA other.user_version").front(Int.self) == 9)
    #expect(try db.userVersion == -7)
  }

  @Test func foreignKeyViolationsAreListedWhetherOrNotEnforced() throws {
    let db = try makeDatabase()
    // Not enforced (the DEFAULT_FOREIGN_KEYS trait turns enforcement on by default).
    try db.execute(sql: "PRAGMA foreign_keys = OFF")
    try db.execute(sql: "INSERT INTO player(id, name, teamID) VALUES (5, 'x', 42)")
    #expect(
      try db.foreignKeyViolations(schema: "main")
        == [ForeignKeyViolation(table: "player", rowid: 5, parentTable: "team", foreignKeyID: 0)])
  }
}
