import Amalgam
import Testing

/// `arguments:` is the one way every API that runs SQL takes its parameters' values.
@Suite struct StatementArgumentsTests {
  func players() throws -> Database {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE player(name TEXT, score INTEGER)")
    return db
  }

  @Test func executeTakesPositionalArguments() throws {
    let db = try players()
    try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", arguments: ["Ada", 10])
    try db.execute(sql: "INSERT INTO player(name, score) VALUES (?2, ?1)", arguments: [11, "Grace"])
    let rows = try db.fetchAll(String.self, sql: "SELECT name || ':' || score FROM player ORDER BY score")
    #expect(rows == ["Ada:10", "Grace:11"])
  }

  @Test func executeTakesNamedArgumentsWithOrWithoutTheirPrefix() throws {
    let db = try players()
    try db.execute(
      sql: "INSERT INTO player(name, score) VALUES (:name, @score)", arguments: ["name": "Ada", "@score": 3])
    try db.execute(
      sql: "UPDATE player SET score = $score + 1 WHERE name = :name", arguments: ["score": 3, "name": "Ada"])
    #expect(try db.fetchValue(Int.self, sql: "SELECT score FROM player WHERE name = ?", arguments: ["Ada"]) == 4)
  }

  @Test func executeRefusesTheWrongNumberOfPositionalArguments() throws {
    let db = try players()
    let error = #expect(throws: DatabaseError.self) {
      try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", arguments: ["Ada"])
    }
    guard case .parameterCountMismatch(let expected, let provided, _) = error else {
      Issue.record("expected parameterCountMismatch, got \(String(describing: error))")
      return
    }
    #expect(expected == 2 && provided == 1)
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 0)
  }

  @Test func executeRefusesANamedParameterLeftWithoutAValue() throws {
    let db = try players()
    let error = #expect(throws: DatabaseError.self) {
      try db.execute(sql: "INSERT INTO player(name, score) VALUES (:name, :score)", arguments: ["name": "Ada"])
    }
    guard case .missingParameter(let name, _) = error else {
      Issue.record("expected missingParameter, got \(String(describing: error))")
      return
    }
    #expect(name == ":score")
  }

  @Test func aStatementBindsArgumentsAndRebindsThemOnReuse() throws {
    let db = try players()
    try db.batch(sql: "INSERT INTO player VALUES ('Ada', 10), ('Grace', 20), ('Linus', 30)")
    let statement = try db.prepare(sql: "SELECT name FROM player WHERE score > :score ORDER BY name")
    #expect(try statement.bind(arguments: ["score": 15]).column(0, as: String.self) == ["Grace", "Linus"])
    try statement.reset()
    #expect(try statement.bind(arguments: ["score": 25]).column(0, as: String.self) == ["Linus"])
  }

  @Test func feistyDBSpellingsDoTheSameAsArguments() throws {
    let db = try players()
    try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", parameterValues: ["Ada", 1])
    try db.execute(
      sql: "INSERT INTO player(name, score) VALUES (:name, :score)", parameters: ["name": "Grace", "score": 2])
    try db.execute(sql: "INSERT INTO player(name, score) VALUES (?, ?)", arguments: ["Linus", 3])
    #expect(try db.fetchAll(Int.self, sql: "SELECT score FROM player ORDER BY score") == [1, 2, 3])
  }
}
