import Amalgam
import Foundation
import Testing

// Records article, skipping Codable (the types, at file scope for the extension): begin
private struct Member: TableRecord, RowConvertible {
  static let tableName = "member"
  var id: Int64
  var name: String

  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(name, forKey: "name")
  }
}

extension Member {  // in an extension, so that the memberwise initializer stays
  init(row: borrowing Row) throws {
    id = try row.value(named: "id")
    name = try row.value(named: "name")
  }
}
// Records article, skipping Codable (the types): end

/// The examples of RecordsAndFetches.md, verbatim between the markers.
@Suite struct RecordsArticleTests {
  @Test func recordsAndFetchesExample() throws {
    // Records article: begin
    struct Player: TableRecord, Equatable {
      static let tableName = "player"
      var id: Int64?
      var name: String
      var score: Int
    }

    let db = try Database()
    try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")

    // Records: insert returns the rowid; fetch, update and delete go by primary key.
    let id = try db.insert(Player(id: nil, name: "Ada", score: 10))
    try db.insert(Player(id: nil, name: "Grace", score: 30))
    if var ada = try db.fetch(Player.self, id: id) {
      ada.score += 5
      try db.update(ada)
    }
    try db.upsert(Player(id: 3, name: "Linus", score: 20))

    // Everyday fetches: one call each.
    let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player")
    let best = try db.fetchOne(String.self, sql: "SELECT name FROM player ORDER BY score DESC")
    let names = try db.fetchAll(String.self, sql: "SELECT name FROM player WHERE score > ?", arguments: [12])
    let players = try db.fetchAll(Player.self, sql: "SELECT * FROM player ORDER BY id")
    let scores = try db.fetchDictionary(String.self, Int.self, sql: "SELECT name, score FROM player")

    // SQL interpolation: values become bound parameters, never SQL text.
    let minimum = 15
    let strong = try db.fetchAll(Player.self, where: "score >= \(minimum) ORDER BY score")
    try db.execute(literal: "UPDATE player SET name = \("'); DROP TABLE player; --") WHERE id = \(3)")
    // Records article: end

    #expect(count == 3)
    #expect(best == "Grace")
    #expect(names == ["Ada", "Grace", "Linus"])
    #expect(
      players == [
        Player(id: 1, name: "Ada", score: 15), Player(id: 2, name: "Grace", score: 30),
        Player(id: 3, name: "Linus", score: 20),
      ])
    #expect(scores == ["Ada": 15, "Grace": 30, "Linus": 20])
    #expect(strong.map(\.name) == ["Ada", "Linus", "Grace"])
    #expect(try db.fetchValue(String.self, sql: "SELECT name FROM player WHERE id = 3") == "'); DROP TABLE player; --")

    // Records article, RowConvertible: begin
    struct Score: RowConvertible {
      var name: String
      var points: Int
      init(row: borrowing Row) throws {
        name = try row.value(at: 0)
        points = try row.value(at: 1)
      }
    }
    let table = try db.fetchAll(Score.self, sql: "SELECT name, score FROM player ORDER BY score DESC")
    // Records article, RowConvertible: end
    #expect(table.map(\.points) == [30, 20, 15])

    // Records article, skipping Codable: begin
    try db.execute(sql: "CREATE TABLE member(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    try db.insert(Member(id: 1, name: "Ada"))
    let member = try db.fetch(Member.self, id: 1)
    // Records article, skipping Codable: end
    #expect(member?.name == "Ada")

    // Records article, joins: begin
    let pairs = try db.fetchAll(sql: "SELECT a.*, b.* FROM player a JOIN player b ON b.score > a.score") { row in
      (try row.decode(Player.self, columns: 0..<3), try row.decode(Player.self, columns: 3..<6))
    }
    // Records article, joins: end
    #expect(pairs.count == 3)
    #expect(pairs.allSatisfy { $0.1.score > $0.0.score })

    #if !OMIT_JSON
      // Records article, JSON: begin
      try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, tags)")
      try db.execute(sql: "INSERT INTO note(tags) VALUES (?)", parameterValues: [JSONColumn(["red", "blue"])])
      let tagCount = try db.fetchValue(Int.self, sql: "SELECT json_array_length(tags) FROM note")
      let tags = try db.fetchValue(JSONColumn<[String]>.self, sql: "SELECT tags FROM note").value
      // Records article, JSON: end
      #expect(tagCount == 2)
      #expect(tags == ["red", "blue"])
    #endif
  }
}
