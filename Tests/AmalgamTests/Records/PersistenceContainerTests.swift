import Amalgam
import Foundation
import Testing

/// A record whose `Codable` form names its columns differently (`full_name`, `points`) from the table
/// (`name`, `score`): writing through `Encodable` or reading through `Decodable` would fail, so every
/// success below shows that the record's own `encode(to:)` and `init(row:)` were used.
private struct Member: TableRecord, RowConvertible, Equatable {
  static let tableName = "member"
  var id: Int64
  var fullName: String
  var points: Int

  enum CodingKeys: String, CodingKey {
    case id
    case fullName = "full_name"
    case points
  }

  init(id: Int64, fullName: String, points: Int) {
    self.id = id
    self.fullName = fullName
    self.points = points
  }

  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(fullName, forKey: "name")
    try container.encode(points, forKey: "score")
  }

  init(row: borrowing Row) throws {
    id = try row.value(named: "id")
    fullName = try row.value(named: "name")
    points = try row.value(named: "score")
  }
}

/// `RowConvertible` declared in an extension apart from `TableRecord`: its fetches still use `init(row:)`.
private struct Tag: TableRecord, Equatable {
  static let tableName = "tag"
  var id: Int64
  var label: String
  enum CodingKeys: String, CodingKey {
    case id
    case label = "not_a_column"
  }
  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(label, forKey: "label")
  }
}

extension Tag: RowConvertible {
  init(row: borrowing Row) throws {
    id = try row.value(at: 0)
    label = try row.value(at: 1)
  }
}

private enum Mood: String, Codable { case calm, busy }

/// Writes its properties through `Encodable`, plus a computed column; and a date, an optional date, an
/// enum and an array through the container's typed and `Encodable` overloads.
private struct Event: TableRecord, Equatable {
  static let tableName = "event"
  var id: Int64
  var at: Date
  var ends: Date?
  var mood: Mood
  var tags: [String]

  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(at, forKey: "at")
    try container.encode(ends, forKey: "ends")
    try container.encode(mood, forKey: "mood")
    try container.encode(tags, forKey: "tags")
  }
}

/// The default mechanism, extended: every property through `Encodable`, then one more column.
private struct Scored: TableRecord, Equatable {
  static let tableName = "scored"
  var id: Int64
  var score: Int
  func encode(to container: inout PersistenceContainer) throws {
    try container.encodeProperties(of: self)
    try container.encode(score * 2, forKey: "double")
  }
}

private struct Twice: TableRecord {
  static let tableName = "member"
  var id: Int64
  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(id, forKey: "id")
  }
}

private struct Failing: TableRecord {
  static let tableName = "member"
  var id: Int64
  struct Refused: Error, CustomStringConvertible { var description: String { "refused by the record" } }
  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    throw Refused()
  }
}

/// Writes its nickname only when it has one: the first value written decides the type's SQL, so a
/// value without a nickname misses a parameter.
private struct Nicknamed: TableRecord, RowConvertible, Equatable {
  static let tableName = "tag"
  var id: Int64
  var nickname: String?
  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    if let nickname { try container.encode(nickname, forKey: "label") }
  }
  init(id: Int64, nickname: String?) {
    self.id = id
    self.nickname = nickname
  }
  init(row: borrowing Row) throws {
    id = try row.value(named: "id")
    nickname = try row.value(named: "label")
  }
}

private func makeDatabase() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE member(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL);
      CREATE TABLE tag(id INTEGER PRIMARY KEY, label TEXT);
      CREATE TABLE event(id INTEGER PRIMARY KEY, at, ends, mood TEXT, tags TEXT);
      CREATE TABLE scored(id INTEGER PRIMARY KEY, score INTEGER, double INTEGER);
      """)
  return db
}

@Suite struct PersistenceContainerTests {
  @Test func aRecordsOwnEncodeAndInitRowServeEveryWriteAndFetch() throws {
    let db = try makeDatabase()
    let ada = Member(id: 1, fullName: "Ada", points: 10)
    #expect(try db.insert(ada) == 1)
    try db.insert(Member(id: 2, fullName: "Grace", points: 20))
    #expect(
      try db.fetchAll(String.self, sql: "SELECT name || ':' || score FROM member ORDER BY id") == [
        "Ada:10", "Grace:20",
      ])
    #expect(try db.fetch(Member.self, id: 1) == ada)
    #expect(try db.fetch(Member.self, key: [2])?.fullName == "Grace")
    #expect(try db.fetchAll(Member.self).map(\.id) == [1, 2])
    #expect(try db.fetchAll(Member.self, where: "score > \(15)").map(\.fullName) == ["Grace"])
    #expect(try db.fetchAll(Member.self, where: "score < ?", arguments: [15]).map(\.fullName) == ["Ada"])
    #expect(try db.fetchOne(Member.self, where: "name = \("Grace")")?.points == 20)
    #expect(try db.fetchOne(Member.self, where: "name = ?", arguments: ["Nobody"]) == nil)
    // The everyday fetches pick init(row:) over Decodable too.
    #expect(try db.fetchAll(Member.self, sql: "SELECT * FROM member ORDER BY id DESC").map(\.id) == [2, 1])

    var changed = ada
    changed.points = 11
    #expect(try db.updateIfExists(changed))
    #expect(try db.fetch(Member.self, id: 1)?.points == 11)
    changed.fullName = "Ada L."
    #expect(try db.updateIfExists(changed, columns: ["name"]))
    #expect(try db.updateChanges(from: changed, to: Member(id: 1, fullName: "Ada L.", points: 12)))
    #expect(try db.fetch(Member.self, id: 1) == Member(id: 1, fullName: "Ada L.", points: 12))
    try db.upsert(Member(id: 2, fullName: "Grace H.", points: 21))
    try db.upsert(Member(id: 3, fullName: "Edsger", points: 5))
    #expect(
      try db.fetchAll(String.self, sql: "SELECT name FROM member ORDER BY id") == ["Ada L.", "Grace H.", "Edsger"])
    #expect(try db.delete(Member(id: 3, fullName: "", points: 0)))
    #expect(try !db.exists(Member.self, id: 3))
    #expect(try db.count(Member.self) == 2)
  }

  @Test func rowConvertibleDeclaredInAnExtensionIsUsedByRecordFetches() throws {
    let db = try makeDatabase()
    try db.insert(Tag(id: 7, label: "swift"))
    #expect(try db.fetch(Tag.self, id: 7) == Tag(id: 7, label: "swift"))
    #expect(try db.fetchAll(Tag.self) == [Tag(id: 7, label: "swift")])
  }

  @Test func typedAndEncodableOverloadsFollowTheEncodersFormats() throws {
    let db = try makeDatabase()
    let at = Date(timeIntervalSince1970: 1_000_000)
    try db.insert(Event(id: 1, at: at, ends: nil, mood: .busy, tags: ["a", "b"]))
    try db.insert(
      Event(id: 2, at: at, ends: at, mood: .calm, tags: []), encoder: StatementEncoder(dateFormat: .unixTime))
    let rows = try db.fetchAll(
      String.self,
      sql: "SELECT quote(at) || '|' || quote(ends) || '|' || mood || '|' || tags FROM event ORDER BY id")
    #expect(rows == ["'1970-01-12 13:46:40.000'|NULL|busy|[\"a\",\"b\"]", "1000000.0|1000000.0|calm|[]"])
    // Read back through Decodable (Event is not RowConvertible), in the format it was written.
    #expect(try db.fetch(Event.self, id: 1) == Event(id: 1, at: at, ends: nil, mood: .busy, tags: ["a", "b"]))
  }

  @Test func encodePropertiesWritesTheCodableColumnsAndMoreMayFollow() throws {
    let db = try makeDatabase()
    try db.insert(Scored(id: 1, score: 21))
    #expect(try db.fetchValue(Int.self, sql: "SELECT double FROM scored") == 42)
    #expect(try db.fetch(Scored.self, id: 1) == Scored(id: 1, score: 21))
  }

  @Test func aColumnWrittenTwiceOrAnErrorFromEncodeFailsTheWriteAndLeavesNothingBehind() throws {
    let db = try makeDatabase()
    #expect(throws: DatabaseError.self) { try db.insert(Twice(id: 1)) }
    do {
      try db.insert(Failing(id: 1))
      Issue.record("expected the record's error")
    } catch {
      #expect("\(error)".contains("refused by the record"))
    }
    #expect(try db.count(Member.self) == 0)
    // The cached statements are usable afterwards.
    try db.insert(Member(id: 1, fullName: "Ada", points: 1))
    #expect(try db.fetch(Member.self, id: 1)?.fullName == "Ada")
  }

  @Test func aWriteNeverReusesTheValuesBoundByTheWriteBefore() throws {
    // Record writes and fetches by id leave their values bound in the cached statement until the next
    // use; a value that does not give every column its value must not inherit the previous one's.
    let db = try makeDatabase()
    try db.insert(Nicknamed(id: 1, nickname: "first"))
    try db.insert(Nicknamed(id: 2, nickname: nil))
    // A value without a nickname gets SQL without the column (and its upsert has nothing to update).
    try db.upsert(Nicknamed(id: 1, nickname: nil))
    try db.insert(Nicknamed(id: 3, nickname: "third"))
    try db.insert(Nicknamed(id: 4, nickname: nil))
    #expect(
      try db.fetchAll(String?.self, sql: "SELECT label FROM tag ORDER BY id") == ["first", nil, "third", nil])
    // A lookup that finds a row, then one that finds none, then another.
    #expect(try db.fetch(Nicknamed.self, id: 2) == Nicknamed(id: 2, nickname: nil))
    #expect(try db.fetch(Nicknamed.self, id: 5) == nil)
    #expect(try db.fetch(Nicknamed.self, id: 3) == Nicknamed(id: 3, nickname: "third"))
    // The statement the cache hands out for the same SQL comes with no value bound.
    let statement = try db.cachedStatement(sql: #"SELECT * FROM "tag" WHERE "id" = ?"#)
    #expect(try statement.step() == nil)
    try statement.reset()
  }

  @Test func aFailedWriteLeavesTheCachedStatementReadyForTheNext() throws {
    let db = try makeDatabase()
    try db.insert(Member(id: 1, fullName: "Ada", points: 1))
    // The primary key exists: the step fails after every column was bound.
    #expect(throws: SQLiteError.self) { try db.insert(Member(id: 1, fullName: "Bob", points: 2)) }
    try db.insert(Member(id: 2, fullName: "Cy", points: 3))
    #expect(try db.fetchAll(Member.self).map(\.fullName) == ["Ada", "Cy"])
    #expect(try db.fetch(Member.self, id: 2) == Member(id: 2, fullName: "Cy", points: 3))
  }
}
