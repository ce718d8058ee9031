import Amalgam
import AmalgamSQLite
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

private struct Player: Decodable, Equatable {
  var id: Int64
  var name: String
}

private struct Team: Decodable, Equatable {
  var id: Int64
  var name: String
}

/// A typed virtual table that sets one field through SQLite's own struct.
private final class RawFieldModule: EponymousVirtualTableModule {
  final class Cursor: VirtualTableCursor {
    var row: Int64 = 0
    var last: Int64 = 0
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) {
      row = 1
      last = Int64(indexNumber)
    }
    func next() { row += 1 }
    var eof: Bool { row > last }
    func rowid() -> Int64 { row }
    func column(_ index: Int32) -> DatabaseValue { .integer(row) }
  }
  required init(database: Database, arguments: [String]) {}
  var declaration: String { "CREATE TABLE x(n)" }
  func bestIndex(_ info: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
    try info.withUnsafeRawIndexInfo { raw in raw.pointee.idxNum = 1 }
    return .ok
  }
  func openCursor() -> any VirtualTableCursor { Cursor() }
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

  @Test func amalgamColumnOfTheRowsForFeistyDBsHooksTablesAndTokenizers() throws {
    let db = try makeDatabase()
    #if ENABLE_PREUPDATE_HOOK
      var seen: [String] = []
      db.setPreUpdateHook { event in
        if case .update(let old, let new) = event.changeType { print(old, new) }
        if case .update(let old, let new) = event.changeType { seen.append("\(old) \(new)") }
      }
      try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (1, 'Ada', 1)")
      try db.execute(sql: "UPDATE player SET id = 5 WHERE id = 1")
      #expect(seen == ["1 5"])
    #endif
    try db.addModule("raw_field", type: RawFieldModule.self)
    #expect(try db.fetchAll(Int.self, sql: "SELECT n FROM raw_field") == [1])
    #if ENABLE_FTS5
      try db.addTokenizer("spaces", type: SpaceTokenizer.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'spaces')")
      try db.execute(sql: "INSERT INTO notes VALUES ('Oat milk')")
      #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM notes WHERE notes MATCH 'OAT'") == 1)
    #endif
  }

  @Test func amalgamColumnOfTheRowsAGRDBUserGuesses() throws {
    let db = try makeDatabase()
    try db.insert(PlayerRecord(id: 2, name: "Grace", score: 5))
    do {
      let stored = try db.insertAndFetch(PlayerRecord(id: nil, name: "Lin", score: 4))
      #expect(stored == PlayerRecord(id: 3, name: "Lin", score: 4))
    }
    try db.update(PlayerRecord(id: 2, name: "Grace", score: 7))
    #expect(throws: DatabaseError.recordNotFound(table: "player", key: ["id": 9])) {
      try db.update(PlayerRecord(id: 9, name: "Nobody", score: 0))
    }
    try db.execute(sql: "CREATE UNIQUE INDEX one_name ON player(name)")
    do {
      try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Grace', 1)")
      Issue.record("a second Grace was inserted")
    } catch {
      let text = error.localizedDescription
      #expect(text.hasPrefix("SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE, constraint failed): "))
    }
  }

  @Test func theJoinExamplesOfTheArticle() throws {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT, teamID INTEGER);
        INSERT INTO team VALUES (10, 'Red');
        INSERT INTO player VALUES (1, 'Ada', 10);
        """)
    #if ENABLE_COLUMN_METADATA
      let sql = "SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamID"
      // SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamID
      let pairs = try db.fetchAll(sql: sql) { row in
        (try row.decode(Player.self, table: "player"), try row.decode(Team.self, table: "team"))
      }
      #expect(pairs.map(\.0) == [Player(id: 1, name: "Ada")])
      #expect(pairs.map(\.1) == [Team(id: 10, name: "Red")])
      let teams = try db.fetchAll(sql: sql) { row in
        let team = try row.decode(Team.self, table: "team")
        return team
      }
      #expect(teams == [Team(id: 10, name: "Red")])
    #endif
    let prefixed = """
      SELECT p.id, p.name, t.id AS "team.id", t.name AS "team.name" FROM player p JOIN team t ON t.id = p.teamID
      """
    let statement = try db.prepare(sql: prefixed)
    guard let row = try statement.step() else {
      Issue.record("no row")
      return
    }
    // SELECT p.id, p.name, t.id AS "team.id", t.name AS "team.name" FROM player p JOIN team t ...
    let team = try row.decode(Team.self, prefix: "team.")
    #expect(team == Team(id: 10, name: "Red"))
  }

  @Test func amalgamColumnRunsThroughAQueue() throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
      try db.insert(PlayerRecord(id: nil, name: "Ada", score: 1))
    }
    let total = try queue.fetchValue(Int.self, sql: "SELECT count(*) FROM player")
    #expect(total == 1)
    try queue.transaction { db in try db.execute(sql: "DELETE FROM player WHERE score < 0") }
    #expect(try queue.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 1)
    var configuration = Configuration()
    configuration.prepareDatabase = { db in try db.execute(sql: "PRAGMA cache_size = -20000") }
    let configured = try DatabaseQueue(configuration: configuration)
    #expect(try configured.fetchValue(Int.self, sql: "PRAGMA cache_size") == -20000)
  }

  @Test func observationRowsRunThroughAQueue() async throws {
    final class Observer: TransactionObserver {
      let observedRegion = DatabaseRegion(tables: ["player"])
      var committed = 0
      func databaseDidCommit(changes: DatabaseRegion) { committed += 1 }
    }
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
    }
    let counts = queue.observe { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
    let changes = queue.changes(in: DatabaseRegion(tables: ["player"]))
    var values = counts.makeAsyncIterator()
    var changeNotifications = changes.makeAsyncIterator()
    #expect(try await values.next() == 0)
    let observer = Observer()
    try queue.sync { db in
      try db.add(transactionObserver: observer)
      try db.insert(PlayerRecord(id: nil, name: "Ada", score: 1))
    }
    #expect(try await values.next() == 1)
    #expect(await changeNotifications.next()?.tableNames == ["player"])
    #expect(observer.committed == 1)
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
