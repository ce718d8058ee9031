import Amalgam
import Foundation
import Testing

private struct PlayerRow: RowConvertible {
  var id: Int64
  var name: String
  init(row: borrowing Row) throws {
    id = try row.value(at: 0)
    name = try row.value(at: 1)
  }
}

private struct PlayerRecord: TableRecord, Equatable {
  static let tableName = "player"
  var id: Int64?
  var name: String
  var score: Int
}

/// GRDB's `encode(to: inout PersistenceContainer)`, in Amalgam's spelling.
private struct WrittenPlayer: TableRecord {
  static let tableName = "player"
  var id: Int64?
  var name: String
  var score: Int
  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(name, forKey: "name")
    try container.encode(score, forKey: "score")
  }
}

private struct Running: SQLAggregateWindowFunction {
  var sum: Int64 = 0
  mutating func step(_ arguments: FunctionArguments) throws { sum += arguments.int64(at: 0) }
  mutating func inverse(_ arguments: FunctionArguments) throws { sum -= arguments.int64(at: 0) }
  func value() throws -> DatabaseValue { .integer(sum) }
}

/// The Amalgam column of the table in MovingFromFeistyDBSQiftOrGRDB.md, each cell verbatim, run against a
/// real database; `everyAmalgamCellIsInThisFile` keeps the copy honest.
@Suite struct MovingFromArticleTests {
  private func makeDatabase() throws -> Database {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, tags)")
    return db
  }

  @Test func amalgamColumnCompilesAndRuns() throws {
    do {
      let db = try Database()
      #expect(db.isOpen)
    }
    let db = try makeDatabase()
    try db.execute(sql: "DELETE FROM player")
    try db.execute(sql: "DELETE FROM player WHERE id = ?", parameterValues: [1])
    do {
      let rowid = try db.insert(PlayerRecord(id: nil, name: "Ada", score: 1))
      #expect(rowid == 1)
    }
    try db.upsert(WrittenPlayer(id: 1, name: "Ada", score: 9))
    #expect(try db.fetchValue(Int.self, sql: "SELECT score FROM player WHERE id = 1") == 9)
    try db.upsert(PlayerRecord(id: 1, name: "Ada", score: 2))
    try db.insert(PlayerRecord(id: 2, name: "Grace", score: 5))
    do {
      let n = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player")
      #expect(n == 2)
    }
    do {
      let best = try db.fetchOne(Int.self, sql: "SELECT max(score) FROM player")
      #expect(best == 5)
    }
    do {
      let scores = try db.fetchAll(Int.self, sql: "SELECT score FROM player")
      #expect(scores.sorted() == [2, 5])
    }
    do {
      let columns: [[Int]] = try db.prepare(sql: "SELECT id, score FROM player").columns([0, 1])
      #expect(columns == [[1, 2], [2, 5]])
    }
    do {
      var names: [String] = []
      try db.prepare(sql: "SELECT name FROM player").results { row in names.append(try row.value(at: 0)) }
      #expect(names == ["Ada", "Grace"])
    }
    do {
      let statement = try db.prepare(sql: "SELECT id FROM player ORDER BY id")
      guard let row = try statement.step() else {
        Issue.record("no row")
        return
      }
      let first: Int = try row.value(at: 0)
      #expect(first == 1)
      try statement.reset()
    }
    do {
      let players = try db.fetchAll(PlayerRow.self, sql: "SELECT id, name FROM player")
      #expect(players.map(\.name) == ["Ada", "Grace"])
    }
    do {
      let decoded = try db.fetchAll(PlayerRecord.self, sql: "SELECT * FROM player")
      #expect(decoded.first == PlayerRecord(id: 1, name: "Ada", score: 2))
    }
    do {
      let names = try db.fetchDictionary(Int64.self, String.self, sql: "SELECT id, name FROM player")
      #expect(names == [1: "Ada", 2: "Grace"])
    }
    do {
      let ada = try db.fetch(PlayerRecord.self, id: 1)
      #expect(ada?.score == 2)
    }
    do {
      let before = PlayerRecord(id: 2, name: "Grace", score: 5)
      var after = before
      after.score = 6
      try db.updateChanges(from: before, to: after)
      #expect(try db.fetch(PlayerRecord.self, id: 2)?.score == 6)
    }
    try db.execute(literal: "UPDATE player SET score = \(3) WHERE id = \(1)")
    #expect(try db.fetchValue(Int.self, sql: "SELECT score FROM player WHERE id = 1") == 3)
    do {
      let strong = try db.count(PlayerRecord.self, where: "score > \(0)")
      #expect(strong == 2)
    }
    #if !OMIT_JSON
      try db.execute(sql: "UPDATE player SET tags = ?", parameterValues: [JSONColumn(["a", "b"])])
      #expect(try db.fetchValue(Int.self, sql: "SELECT json_array_length(tags) FROM player WHERE id = 1") == 2)
    #endif
    try db.addWindowFunction("running", arity: 1, Running.self)
    #expect(try db.fetchValue(Int.self, sql: "SELECT running(score) FROM player") == 9)
    #if ENABLE_PREUPDATE_HOOK
      #expect("\(PreUpdateEvent.self)" == "PreUpdateEvent")
    #endif
    do {
      throw DatabaseError.message("something failed")
    } catch {
      #expect("\(error)" == "something failed")
    }
    try db.delete(PlayerRecord.self, id: 1)
    #expect(try !db.exists(PlayerRecord.self, id: 1))
  }

  @Test func amalgamColumnRunsThroughAQueue() throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
      try db.insert(PlayerRecord(id: nil, name: "Ada", score: 1))
    }
    let total = try queue.fetchValue(Int.self, sql: "SELECT count(*) FROM player")
    #expect(total == 1)
  }

  @Test func everyAmalgamCellIsInThisFile() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let article = try String(
      contentsOf: root.appendingPathComponent("Sources/Amalgam/Amalgam.docc/MovingFromFeistyDBSQiftOrGRDB.md"),
      encoding: .utf8)
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let rows = article.split(separator: "\n").filter { $0.hasPrefix("| `") || $0.hasPrefix("| –") }
    #expect(rows.count >= 20)
    for row in rows {
      let cells = row.split(separator: "|", omittingEmptySubsequences: true).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard let amalgam = cells.last, amalgam.hasPrefix("`"), amalgam.hasSuffix("`") else {
        Issue.record("row without Amalgam code: \(row)")
        continue
      }
      let code = String(amalgam.dropFirst().dropLast())
      #expect(test.contains(code), "not compiled by this test: \(code)")
    }
  }
}
