import Amalgam
import Foundation
import Testing

private struct Player: TableRecord, Equatable {
  static let tableName = "player"
  var id: Int64?
  var name: String
  var score: Int
  var teamID: Int64?
}

/// Column names follow CodingKeys, not property names.
private struct Team: TableRecord, Equatable {
  static let tableName = "team"
  var id: Int64
  var title: String
  enum CodingKeys: String, CodingKey {
    case id
    case title = "name"
  }
}

/// A composite primary key.
private struct Membership: TableRecord, Equatable {
  static let tableName = "membership"
  static let primaryKey = ["teamID", "playerID"]
  var teamID: Int64
  var playerID: Int64
  var role: String
}

private func makeSchema() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, teamID INTEGER);
      CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
      CREATE TABLE membership(teamID INTEGER, playerID INTEGER, role TEXT, PRIMARY KEY(teamID, playerID));
      """)
  return db
}

@Suite struct TableRecordTests {
  @Test func insertReturnsTheRowidAndFetchByIDReadsItBack() throws {
    let db = try makeSchema()
    let id = try db.insert(Player(id: nil, name: "Ada", score: 10, teamID: nil))
    let second = try db.insert(Player(id: nil, name: "Grace", score: 20, teamID: nil))
    #expect(id == 1)
    #expect(second == 2)
    #expect(try db.fetch(Player.self, id: id) == Player(id: 1, name: "Ada", score: 10, teamID: nil))
    #expect(try db.fetch(Player.self, id: 99) == nil)
    #expect(try db.exists(Player.self, id: 2))
    #expect(try !db.exists(Player.self, id: 3))
    #expect(try db.count(Player.self) == 2)
  }

  @Test func updateOfARowThatIsGoneThrowsRecordNotFound() throws {
    let db = try makeSchema()
    var ada = try db.insertAndFetch(Player(id: nil, name: "Ada", score: 10, teamID: nil))
    ada.score = 11
    try db.update(ada)
    #expect(try db.fetch(Player.self, id: 1)?.score == 11)
    try db.delete(ada)
    let gone = DatabaseError.recordNotFound(table: "player", key: ["id": 1])
    #expect(throws: gone) { try db.update(ada) }
    #expect(throws: gone) { try db.update(ada, columns: ["score"]) }
    #expect(throws: gone) { try db.updateChanges(from: ada, to: Player(id: 1, name: "Ada", score: 12, teamID: nil)) }
    // Nothing differs: nothing to write, so nothing to find.
    #expect(try !db.updateChanges(from: ada, to: ada))
    #expect(try !db.updateIfExists(ada))
    #expect(try db.count(Player.self) == 0)
    #expect(gone.description == "No row of table \"player\" has the primary key id = 1")
    let composite = DatabaseError.recordNotFound(table: "membership", key: ["teamID": 1, "playerID": 2])
    #expect(throws: composite) { try db.update(Membership(teamID: 1, playerID: 2, role: "coach")) }
  }

  @Test func insertAndFetchReturnsTheRecordWithItsKeyAndDefaults() throws {
    let db = try Database()
    try db.execute(
      sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 7, teamID)")
    try db.insert(Player(id: nil, name: "First", score: 1, teamID: nil))
    // The key SQLite chose.
    let ada = try db.insertAndFetch(Player(id: nil, name: "Ada", score: 10, teamID: 3))
    #expect(ada == Player(id: 2, name: "Ada", score: 10, teamID: 3))
    // A key given by the record, in a table without rowid: read back by the key.
    try db.execute(sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID")
    #expect(try db.insertAndFetch(Team(id: 40, title: "Blue")) == Team(id: 40, title: "Blue"))
    // A column the record leaves out gets its default, which the returned record shows.
    struct Partial: TableRecord, Equatable {
      static let tableName = "player"
      var id: Int64?
      var name: String
      var score: Int?
      func encode(to container: inout PersistenceContainer) throws {
        try container.encode(id, forKey: "id")
        try container.encode(name, forKey: "name")
      }
    }
    #expect(
      try db.insertAndFetch(Partial(id: nil, name: "Grace", score: nil)) == Partial(id: 3, name: "Grace", score: 7))
  }

  @Test func insertingAnExistingKeyFailsWithAConstraintError() throws {
    let db = try makeSchema()
    try db.insert(Player(id: 1, name: "Ada", score: 10, teamID: nil))
    do {
      try db.insert(Player(id: 1, name: "Other", score: 0, teamID: nil))
      Issue.record("duplicate key inserted")
    } catch let error as SQLiteError {
      #expect(error.extendedCode == .constraintPrimaryKey)
    }
  }

  @Test func upsertInsertsThenUpdates() throws {
    let db = try makeSchema()
    try db.upsert(Player(id: 7, name: "Ada", score: 10, teamID: nil))
    try db.upsert(Player(id: 7, name: "Ada L.", score: 11, teamID: nil))
    #expect(try db.count(Player.self) == 1)
    #expect(try db.fetch(Player.self, id: 7) == Player(id: 7, name: "Ada L.", score: 11, teamID: nil))
    // A composite key is the conflict target.
    try db.upsert(Membership(teamID: 1, playerID: 2, role: "captain"))
    try db.upsert(Membership(teamID: 1, playerID: 2, role: "coach"))
    #expect(try db.fetch(Membership.self, key: [1, 2])?.role == "coach")
  }

  @Test func updateWritesAllColumnsOrOnlyTheChangedOnes() throws {
    let db = try makeSchema()
    let id = try db.insert(Player(id: nil, name: "Ada", score: 10, teamID: nil))
    guard var player = try db.fetch(Player.self, id: id) else {
      Issue.record("not inserted")
      return
    }
    player.score = 15
    #expect(try db.updateIfExists(player))
    #expect(try db.fetch(Player.self, id: id)?.score == 15)
    #expect(try !db.updateIfExists(Player(id: 99, name: "Nobody", score: 0, teamID: nil)))

    // Only the changed column is written: a concurrent change to another column survives.
    let old = player
    player.name = "Ada Lovelace"
    try db.execute(sql: "UPDATE player SET score = 99 WHERE id = ?", parameterValues: [id])
    var statements: [String] = []
    try db.setTraceHandler(for: .statement) { event in
      if case .statement(let sql, _) = event { statements.append(sql) }
    }
    #expect(try db.updateChanges(from: old, to: player))
    #expect(try !db.updateChanges(from: player, to: player))  // nothing differs: no SQL at all
    try db.removeTraceHandler()
    #expect(statements == [#"UPDATE "player" SET "name" = ? WHERE "id" = ?"#])
    #expect(try db.fetch(Player.self, id: id) == Player(id: id, name: "Ada Lovelace", score: 99, teamID: nil))

    #expect(try db.updateIfExists(player, columns: ["score"]))
    #expect(try db.fetch(Player.self, id: id)?.score == 15)
    #expect(throws: DatabaseError.self) { try db.update(player, columns: ["nope"]) }
  }

  @Test func deleteRemovesByRecordByIDAndByCondition() throws {
    let db = try makeSchema()
    for name in ["a", "b", "c", "d"] { try db.insert(Player(id: nil, name: name, score: name.count, teamID: nil)) }
    guard let first = try db.fetch(Player.self, id: 1) else {
      Issue.record("missing")
      return
    }
    #expect(try db.delete(first))
    #expect(try !db.delete(first))
    #expect(try db.delete(Player.self, id: 2))
    #expect(try db.deleteAll(Player.self, where: "name = \("c")") == 1)
    #expect(try db.fetchAll(Player.self).map(\.name) == ["d"])
  }

  @Test func columnNamesFollowCodingKeys() throws {
    let db = try makeSchema()
    try db.insert(Team(id: 1, title: "Red"))
    #expect(try db.fetchValue(String.self, sql: "SELECT name FROM team") == "Red")
    #expect(try db.fetch(Team.self, id: 1)?.title == "Red")
    #expect(try db.updateChanges(from: Team(id: 1, title: "Red"), to: Team(id: 1, title: "Blue")))
    #expect(try db.fetchValue(String.self, sql: "SELECT name FROM team") == "Blue")
  }

  @Test func compositeKeysFetchUpdateAndDelete() throws {
    let db = try makeSchema()
    try db.insert(Membership(teamID: 1, playerID: 1, role: "captain"))
    try db.insert(Membership(teamID: 1, playerID: 2, role: "player"))
    #expect(try db.fetch(Membership.self, key: [1, 2])?.role == "player")
    #expect(try db.exists(Membership.self, key: [1, 1]))
    #expect(try !db.exists(Membership.self, key: [2, 1]))
    #expect(try db.updateIfExists(Membership(teamID: 1, playerID: 2, role: "coach")))
    #expect(try db.fetch(Membership.self, key: [1, 2])?.role == "coach")
    #expect(try db.delete(Membership.self, key: [1, 1]))
    #expect(try db.count(Membership.self) == 1)
    // The wrong number of key values is an error, not a silent miss.
    #expect(throws: DatabaseError.self) { try db.fetch(Membership.self, key: [1]) }
    #expect(throws: DatabaseError.self) { try db.fetch(Membership.self, id: 1) }
  }

  @Test func whereFragmentsTakeInterpolatedOrExplicitArguments() throws {
    let db = try makeSchema()
    for (name, score) in [("a", 5), ("b", 50), ("c", 500)] {
      try db.insert(Player(id: nil, name: name, score: score, teamID: nil))
    }
    let minimum = 10
    #expect(try db.fetchAll(Player.self, where: "score >= \(minimum) ORDER BY score DESC").map(\.name) == ["c", "b"])
    #expect(try db.fetchAll(Player.self, where: "score < ?", arguments: [minimum]).map(\.name) == ["a"])
    #expect(try db.fetchOne(Player.self, where: "name = \("b")")?.score == 50)
    #expect(try db.fetchOne(Player.self, where: "name = :name", arguments: ["name": "c"])?.score == 500)
    #expect(try db.count(Player.self, where: "score > \(1)") == 3)
    #expect(try db.count(Player.self, where: "score > ?", arguments: [100]) == 1)
  }

  @Test func joinsDecodeSeveralRecordsFromOneRow() throws {
    let db = try makeSchema()
    try db.insert(Team(id: 1, title: "Red"))
    try db.insert(Player(id: nil, name: "Ada", score: 10, teamID: 1))
    try db.insert(Player(id: nil, name: "Grace", score: 20, teamID: 1))
    // By column ranges: both tables have `id` and `name`.
    let pairs = try db.fetchAll(
      sql: "SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamID ORDER BY player.id"
    ) { row in
      (try row.decode(Player.self, columns: 0..<4), try row.decode(Team.self, columns: 4..<6))
    }
    #expect(pairs.map(\.0.name) == ["Ada", "Grace"])
    #expect(pairs.map(\.1) == [Team(id: 1, title: "Red"), Team(id: 1, title: "Red")])
    // By prefixes.
    let prefixed = try db.fetchAll(
      sql: """
        SELECT p.id AS "p.id", p.name AS "p.name", p.score AS "p.score", p.teamID AS "p.teamID",
               t.id AS "t.id", t.name AS "t.name"
        FROM player p JOIN team t ON t.id = p.teamID WHERE p.name = ?
        """, arguments: ["Grace"]
    ) { row in
      (try row.decode(Player.self, prefix: "p."), try row.decode(Team.self, prefix: "t."))
    }
    #expect(prefixed.first?.0 == Player(id: 2, name: "Grace", score: 20, teamID: 1))
    #expect(prefixed.first?.1.title == "Red")
    // A range outside the row, or a column the scope lacks, throws.
    #expect(throws: DatabaseError.self) {
      try db.fetchAll(sql: "SELECT 1 AS id") { row in try row.decode(Team.self, columns: 0..<3) }
    }
    #expect(throws: DatabaseError.self) {
      try db.fetchAll(sql: "SELECT 1 AS id, 'x' AS name") { row in try row.decode(Team.self, columns: 0..<1) }
    }
  }

  @Test func recordsWorkOnDisk() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("records.sqlite").path
      do {
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.transaction { db in
          for id in 1...100 { try db.insert(Team(id: Int64(id), title: "team \(id)")) }
        }
      }
      let db = try Database(path: path)
      #expect(try db.count(Team.self) == 100)
      #expect(try db.fetch(Team.self, id: 42)?.title == "team 42")
    }
  }
}

/// A record whose encoding leaves out a property when it is nil.
private struct Sparse: TableRecord {
  static let tableName = "sparse"
  var id: Int64
  var nickname: String?
  enum CodingKeys: String, CodingKey { case id, nickname }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    if let nickname { try container.encode(nickname, forKey: .nickname) }
  }
}

extension TableRecordTests {
  @Test func aValueEncodingFewerPropertiesThanTheFirstGetsItsOwnSQL() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE sparse(id INTEGER PRIMARY KEY, nickname TEXT DEFAULT 'none')")
    try db.insert(Sparse(id: 1, nickname: "A"))
    try db.insert(Sparse(id: 2, nickname: nil))
    #expect(try db.fetchAll(String.self, sql: "SELECT nickname FROM sparse ORDER BY id") == ["A", "none"])
  }
}

/// Tags that give ``LeavesOutNilNickname`` one type (and so one cached layout) per test.
private enum NilFirst {}
private enum ValueFirst {}

/// A record that writes its nickname only when it has one, as code written with `if let` (or a
/// container's `encodeIfPresent`) does.
private struct LeavesOutNilNickname<Order>: TableRecord, Equatable {
  static var tableName: String { "nicknamed" }
  var id: Int64
  var nickname: String?
  enum CodingKeys: String, CodingKey { case id, nickname }
  init(_ id: Int64, _ nickname: String?) {
    self.id = id
    self.nickname = nickname
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    if let nickname { try container.encode(nickname, forKey: .nickname) }
  }
}

/// A record type without a primary key.
private struct LogLine: TableRecord, Equatable {
  static let tableName = "log"
  static let primaryKey: [String] = []
  var message: String
}

extension TableRecordTests {
  private func makeNicknamed() throws -> Database {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE nicknamed(id INTEGER PRIMARY KEY, nickname TEXT DEFAULT 'none')")
    return db
  }

  private func nicknames(_ db: Database) throws -> [String?] {
    try db.fetchAll(String?.self, sql: "SELECT nickname FROM nicknamed ORDER BY id")
  }

  @Test func aValueWithAColumnTheFirstValueLeftOutWritesIt() throws {
    typealias Record = LeavesOutNilNickname<NilFirst>
    let db = try makeNicknamed()
    // The first value of the type leaves the nickname out: it gets its column's default.
    try db.insert(Record(1, nil))
    // Later values that have one write it, whether inserted, upserted or updated.
    try db.insert(Record(2, "Bo"))
    try db.upsert(Record(3, "Cy"))
    #expect(try db.updateIfExists(Record(1, "Al")))
    try db.insert(Record(4, "Di"))
    try db.upsert(Record(4, "Dee"))
    #expect(try nicknames(db) == ["Al", "Bo", "Cy", "Dee"])
    // A value without one still writes only its id: the insert takes the default, the update has
    // nothing to set and leaves the row as it is.
    try db.insert(Record(5, nil))
    #expect(try db.updateIfExists(Record(2, nil)))
    #expect(try nicknames(db) == ["Al", "Bo", "Cy", "Dee", "none"])
    // Another connection, which has not used the type yet, writes every column too.
    let other = try makeNicknamed()
    try other.insert(Record(1, "Ed"))
    try other.insert(Record(2, nil))
    try other.insert(Record(3, "Flo"))
    #expect(try nicknames(other) == ["Ed", "none", "Flo"])
    #expect(try other.fetch(Record.self, id: 3) == Record(3, "Flo"))
  }

  @Test func aValueThatLeavesOutAColumnTheFirstValueWroteWritesTheOthers() throws {
    typealias Record = LeavesOutNilNickname<ValueFirst>
    let db = try makeNicknamed()
    try db.insert(Record(1, "Al"))
    try db.insert(Record(2, nil))
    try db.upsert(Record(3, nil))
    try db.upsert(Record(1, nil))  // nothing but the key to write: the row stays
    #expect(try db.updateIfExists(Record(2, "Bo")))
    try db.insert(Record(4, "Di"))
    #expect(try nicknames(db) == ["Al", "Bo", "none", "Di"])
    #expect(try db.fetch(Record.self, id: 4) == Record(4, "Di"))
  }

  @Test func aRecordWithoutAPrimaryKeyIsInsertedButNotWrittenOrReadByKey() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE log(message TEXT)")
    try db.insert(LogLine(message: "started"))
    #expect(try db.fetchAll(LogLine.self) == [LogLine(message: "started")])
    let expected = DatabaseError.recordWithoutPrimaryKey(type: "LogLine", table: "log")
    #expect(expected.description.contains("LogLine (table \"log\") has no primary key"))
    #expect(throws: expected) { try db.upsert(LogLine(message: "again")) }
    #expect(throws: expected) { try db.update(LogLine(message: "again")) }
    #expect(throws: expected) { try db.update(LogLine(message: "again"), columns: ["message"]) }
    #expect(throws: expected) {
      try db.updateChanges(from: LogLine(message: "started"), to: LogLine(message: "again"))
    }
    #expect(throws: expected) { try db.delete(LogLine(message: "started")) }
    #expect(throws: expected) { _ = try db.fetch(LogLine.self, id: 1) }
    #expect(throws: expected) { _ = try db.fetch(LogLine.self, key: []) }
    #expect(throws: expected) { _ = try db.exists(LogLine.self, key: []) }
    #expect(throws: expected) { try db.delete(LogLine.self, key: []) }
    #expect(try db.fetchAll(LogLine.self) == [LogLine(message: "started")])
  }
}

/// A record with an unsigned 64-bit column, for ``ValueStorage/feistyDB``'s bit-pattern storage.
private struct Counter: TableRecord, Equatable {
  static let tableName = "counter"
  var id: Int64
  var total: UInt64
}

@Suite struct TableRecordKeyAndStorageTests {
  @Test func updateChangesBetweenRecordsWithDifferentPrimaryKeysIsRefusedAndWritesNothing() throws {
    let db = try makeSchema()
    try db.insert(Player(id: 1, name: "Ada", score: 10, teamID: nil))
    try db.insert(Player(id: 2, name: "Grace", score: 20, teamID: nil))
    let refused = DatabaseError.primaryKeyChanged(table: "player", old: ["id": 1], new: ["id": 2])
    #expect(throws: refused) {
      try db.updateChanges(
        from: Player(id: 1, name: "Ada", score: 10, teamID: nil), to: Player(id: 2, name: "Ada", score: 11, teamID: nil)
      )
    }
    #expect(
      refused.description
        == "updateChanges(from:to:) was given two records of table \"player\" with different primary keys (id = 1 "
        + "and id = 2): nothing was written, since the changes of one row cannot be written to another")
    // Neither row changed.
    #expect(try db.fetch(Player.self, id: 1) == Player(id: 1, name: "Ada", score: 10, teamID: nil))
    #expect(try db.fetch(Player.self, id: 2) == Player(id: 2, name: "Grace", score: 20, teamID: nil))
    // A composite key that differs in one column is refused too.
    try db.insert(Membership(teamID: 1, playerID: 1, role: "coach"))
    #expect(throws: DatabaseError.self) {
      try db.updateChanges(
        from: Membership(teamID: 1, playerID: 1, role: "coach"), to: Membership(teamID: 1, playerID: 2, role: "player"))
    }
    #expect(try db.fetch(Membership.self, key: [1, 1]) == Membership(teamID: 1, playerID: 1, role: "coach"))
  }

  @Test func aFeistyDBConnectionStoresARecordsUInt64ByBitPatternInEveryWrite() throws {
    let db = try Database(path: ":memory:", options: Database.OpenOptions(valueStorage: .feistyDB))
    try db.execute(sql: "CREATE TABLE counter(id INTEGER PRIMARY KEY, total INTEGER)")
    let big = Counter(id: 1, total: .max)
    try db.insert(big)
    #expect(try db.prepare(sql: "SELECT total FROM counter").front(Int64.self) == -1)
    #expect(try db.fetch(Counter.self, id: 1) == big)
    try db.update(Counter(id: 1, total: .max - 1))
    #expect(try db.fetch(Counter.self, id: 1)?.total == .max - 1)
    #expect(try db.updateChanges(from: Counter(id: 1, total: .max - 1), to: big))
    #expect(try db.fetch(Counter.self, id: 1) == big)
    try db.upsert(Counter(id: 2, total: .max))
    #expect(try db.fetchAll(Counter.self) == [big, Counter(id: 2, total: .max)])
    #expect(try db.delete(Counter(id: 2, total: .max)))
    // Amalgam's own storage still refuses the value.
    db.valueStorage = .amalgam
    #expect(throws: DatabaseError.self) { try db.insert(Counter(id: 3, total: .max)) }
    #expect(throws: DatabaseError.self) { try db.updateChanges(from: Counter(id: 1, total: 0), to: big) }
  }
}
