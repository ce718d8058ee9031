import Amalgam
import Foundation
import Testing

/// A player read by column index, the fast way.
private struct IndexedPlayer: RowConvertible, Equatable {
  var id: Int64
  var name: String
  var score: Int?
  init(id: Int64, name: String, score: Int?) {
    self.id = id
    self.name = name
    self.score = score
  }
  init(row: borrowing Row) throws {
    id = try row.value(at: 0)
    name = try row.value(at: 1)
    score = try row.value(at: 2)
  }
}

/// A player decoded by column name.
private struct DecodedPlayer: Decodable, Equatable {
  var id: Int64
  var name: String
  var score: Int?
}

/// A type that is both: fetches must use `init(row:)`, the fast path.
private struct BothPlayer: RowConvertible, Decodable {
  var source: String
  init(row: borrowing Row) throws { source = "row" }
  init(from decoder: any Decoder) throws { source = "decoder" }
}

private func makePlayers() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
      INSERT INTO player VALUES (1, 'Ada', 30), (2, 'Grace', NULL), (3, 'Linus', 10);
      """)
  return db
}

@Suite struct FetchTests {
  @Test func fetchOneReturnsTheFirstValueOrNil() throws {
    let db = try makePlayers()
    #expect(try db.fetchOne(Int.self, sql: "SELECT score FROM player WHERE id = ?", arguments: [1]) == 30)
    // NULL and no row both read as nil.
    #expect(try db.fetchOne(Int.self, sql: "SELECT score FROM player WHERE id = ?", arguments: [2]) == nil)
    #expect(try db.fetchOne(Int.self, sql: "SELECT score FROM player WHERE id = ?", arguments: [9]) == nil)
    let name: String? = try db.fetchOne(sql: "SELECT name FROM player WHERE id = :id", arguments: ["id": 3])
    #expect(name == "Linus")
  }

  @Test func fetchValueThrowsWhenThereIsNoRow() throws {
    let db = try makePlayers()
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 3)
    #expect(throws: DatabaseError.noRow(sql: "SELECT id FROM player WHERE id = ?")) {
      try db.fetchValue(Int64.self, sql: "SELECT id FROM player WHERE id = ?", arguments: [42])
    }
    // NULL in a non-optional type is a conversion error naming the column.
    do {
      _ = try db.fetchValue(Int.self, sql: "SELECT score FROM player WHERE id = 2")
      Issue.record("NULL read as Int")
    } catch let DatabaseError.conversionFailed(column, type, _, _) {
      #expect(column == "\"score\" (column 0)")
      #expect(type == "Int")
    }
    #expect(try db.fetchValue(Int?.self, sql: "SELECT score FROM player WHERE id = 2") == nil)
  }

  @Test func fetchAllReadsTheFirstColumnOfEveryRow() throws {
    let db = try makePlayers()
    #expect(try db.fetchAll(String.self, sql: "SELECT name FROM player ORDER BY id") == ["Ada", "Grace", "Linus"])
    #expect(try db.fetchAll(Int?.self, sql: "SELECT score FROM player ORDER BY id") == [30, nil, 10])
    #expect(try db.fetchAll(Int.self, sql: "SELECT id FROM player WHERE score > ?", arguments: [100]) == [])
  }

  @Test func rowsAreCopiedOut() throws {
    let db = try makePlayers()
    let rows = try db.fetchRows(sql: "SELECT id, name, score FROM player ORDER BY id")
    #expect(rows.count == 3)
    #expect(rows[1].columnNames == ["id", "name", "score"])
    #expect(rows[1].values == [.integer(2), .text("Grace"), .null])
    #expect(try rows[0].value(named: "NAME") as String == "Ada")
    #expect(rows[2]["score"] == .integer(10))
    #expect(rows[2]["nope"] == nil)
    #expect(throws: DatabaseError.noSuchColumn(name: "nope", available: ["id", "name", "score"])) {
      try rows[0].value(named: "nope") as Int
    }
    let first = try db.fetchRow(sql: "SELECT name FROM player WHERE id = ?", arguments: [3])
    #expect(first?.dictionary == ["name": .text("Linus")])
    #expect(try db.fetchRow(sql: "SELECT name FROM player WHERE id = ?", arguments: [9]) == nil)
  }

  @Test func rowConvertibleValuesAreBuiltWithInitRow() throws {
    let db = try makePlayers()
    let players = try db.fetchAll(IndexedPlayer.self, sql: "SELECT id, name, score FROM player ORDER BY id")
    #expect(
      players == [
        IndexedPlayer(id: 1, name: "Ada", score: 30), IndexedPlayer(id: 2, name: "Grace", score: nil),
        IndexedPlayer(id: 3, name: "Linus", score: 10),
      ])
    let one = try db.fetchOne(
      IndexedPlayer.self, sql: "SELECT id, name, score FROM player WHERE id = ?", arguments: [2])
    #expect(one?.name == "Grace")
    // The statement variants too.
    let statement = try db.prepare(sql: "SELECT id, name, score FROM player ORDER BY id DESC")
    #expect(try statement.fetchAll(IndexedPlayer.self).map(\.id) == [3, 2, 1])
    #expect(try statement.fetchOne(IndexedPlayer.self)?.id == 3)
  }

  @Test func decodableValuesAreDecodedByName() throws {
    let db = try makePlayers()
    let players = try db.fetchAll(DecodedPlayer.self, sql: "SELECT score, name, id FROM player ORDER BY id")
    #expect(players.map(\.name) == ["Ada", "Grace", "Linus"])
    #expect(players.map(\.score) == [30, nil, 10])
    let one: DecodedPlayer? = try db.fetchOne(sql: "SELECT * FROM player WHERE name = ?", arguments: ["Ada"])
    #expect(one == DecodedPlayer(id: 1, name: "Ada", score: 30))
  }

  @Test func aTypeThatIsBothRowConvertibleAndDecodableUsesInitRow() throws {
    let db = try makePlayers()
    #expect(try db.fetchAll(BothPlayer.self, sql: "SELECT * FROM player").map(\.source) == ["row", "row", "row"])
    #expect(try db.fetchOne(BothPlayer.self, sql: "SELECT * FROM player")?.source == "row")
  }

  @Test func dictionariesAreKeyedByAColumn() throws {
    let db = try makePlayers()
    let names = try db.fetchDictionary(Int64.self, String.self, sql: "SELECT id, name FROM player")
    #expect(names == [1: "Ada", 2: "Grace", 3: "Linus"])
    let byName = try db.fetchDictionary(
      keyColumn: "name", String.self, IndexedPlayer.self, sql: "SELECT id, name, score FROM player")
    #expect(byName["Linus"]?.id == 3)
    let decoded = try db.fetchDictionary(
      keyColumn: "id", Int64.self, DecodedPlayer.self, sql: "SELECT * FROM player WHERE score IS NOT NULL")
    #expect(decoded.keys.sorted() == [1, 3])
    #expect(throws: DatabaseError.self) {
      try db.fetchDictionary(keyColumn: "missing", Int64.self, DecodedPlayer.self, sql: "SELECT * FROM player")
    }
  }

  @Test func fetchesUseTheStatementCacheAndLeaveItReset() throws {
    let db = try makePlayers()
    let sql = "SELECT name FROM player WHERE id = ?"
    #expect(try db.fetchOne(String.self, sql: sql, arguments: [1]) == "Ada")
    #expect(db.cachedStatementCount == 1)
    let cached = try db.cachedStatement(sql: sql)
    // Reset, with its bindings cleared: nothing is left running or bound.
    #expect(!cached.isBusy)
    #expect(cached.expandedSQL == "SELECT name FROM player WHERE id = NULL")
    // A fetch that stops after the first row leaves it reset too, so a write can follow at once.
    _ = try db.fetchOne(String.self, sql: "SELECT name FROM player ORDER BY id")
    let second = try db.cachedStatement(sql: "SELECT name FROM player ORDER BY id")
    #expect(!second.isBusy)
    // An error in binding leaves it reset as well.
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 1, provided: 2, sql: sql)) {
      try db.fetchOne(String.self, sql: sql, arguments: [1, 2])
    }
    #expect(try db.fetchOne(String.self, sql: sql, arguments: [2]) == "Grace")
  }

  @Test func badSQLAndClosedDatabasesThrow() throws {
    let db = try makePlayers()
    #expect(throws: SQLiteError.self) { try db.fetchAll(Int.self, sql: "SELECT nope FROM player") }
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.fetchAll(Int.self, sql: "SELECT 1") }
  }

  @Test func fetchesRunThroughQueuesAndPools() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("fetch.sqlite").path
      let queue = try DatabaseQueue(path: path)
      try queue.sync { db in
        try db.batch(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);")
        try db.execute(literal: "INSERT INTO player VALUES (\(1), \("Ada"), \(30))")
      }
      #expect(try queue.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 1)
      #expect(try queue.fetchAll(IndexedPlayer.self, sql: "SELECT * FROM player").map(\.name) == ["Ada"])
      #expect(try queue.fetchOne(DecodedPlayer.self, sql: "SELECT * FROM player")?.score == 30)
      try queue.close()

      let pool = try DatabasePool(path: path)
      #expect(try pool.fetchAll(String.self, literal: "SELECT name FROM player WHERE score = \(30)") == ["Ada"])
      #expect(try pool.fetchRows(sql: "SELECT id FROM player").map(\.values) == [[.integer(1)]])
      try pool.close()
    }
  }
}
