import Amalgam
import Foundation
import Testing

private struct Person: Decodable, Equatable {
  var id: Int64
  var name: String
  var nickname: String?
}

private struct Team: Decodable, Equatable {
  var id: Int64
  var name: String
  var founded: Date?
  var colors: [String]?
}

/// A player and team table whose `id` and `name` columns share names, joined in one row.
private func makeJoin() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL, founded TEXT, colors TEXT);
      CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, nickname TEXT, teamID INTEGER);
      INSERT INTO team VALUES (10, 'Red', '1970-01-02 00:00:00', '["red","white"]'), (20, 'Blue', NULL, NULL);
      INSERT INTO person VALUES (1, 'Ada', NULL, 10), (2, 'Grace', 'Amazing', 20);
      """)
  return db
}

private let joinSQL = """
  SELECT person.id, person.name, person.nickname, team.id, team.name, team.founded, team.colors
  FROM person JOIN team ON team.id = person.teamID ORDER BY person.id
  """

private let prefixedSQL = """
  SELECT p.id AS "p.id", p.name AS "p.name", p.nickname AS "p.nickname",
         t.id AS "t.id", t.name AS "t.name", t.founded AS "t.founded", t.colors AS "t.colors"
  FROM person p JOIN team t ON t.id = p.teamID ORDER BY p.id
  """

private let red = Team(id: 10, name: "Red", founded: Date(timeIntervalSince1970: 86_400), colors: ["red", "white"])
private let blue = Team(id: 20, name: "Blue", founded: nil, colors: nil)
private let ada = Person(id: 1, name: "Ada", nickname: nil)
private let grace = Person(id: 2, name: "Grace", nickname: "Amazing")

@Suite struct RowJoinsTests {
  @Test func columnRangesDecodeEachTableOfAJoinWithItsOwnNames() throws {
    let db = try makeJoin()
    let pairs = try db.fetchAll(sql: joinSQL) { row in
      (try row.decode(Person.self, columns: 0..<3), try row.decode(Team.self, columns: 3..<7))
    }
    #expect(pairs.map(\.0) == [ada, grace])
    #expect(pairs.map(\.1) == [red, blue])
  }

  @Test func prefixesDecodeEachTableOfAJoin() throws {
    let db = try makeJoin()
    let pairs = try db.fetchAll(sql: prefixedSQL) { row in
      (try row.decode(Person.self, prefix: "p."), try row.decode(Team.self, prefix: "t."))
    }
    #expect(pairs.map(\.0) == [ada, grace])
    #expect(pairs.map(\.1) == [red, blue])
  }

  @Test func literalsAndArgumentsSelectTheRowsOfATransform() throws {
    let db = try makeJoin()
    let name = "Grace"
    let byLiteral = try db.fetchAll(literal: "SELECT id, name, nickname FROM person WHERE name = \(name)") { row in
      try row.decode(Person.self, columns: 0..<3)
    }
    #expect(byLiteral == [grace])
    let byArgument = try db.fetchAll(sql: "SELECT id, name, nickname FROM person WHERE id = ?", arguments: [1]) {
      row in try row.decode(Person.self, columns: 0..<3)
    }
    #expect(byArgument == [ada])
    // An error thrown by the transform reaches the caller as is.
    struct Stop: Error, Equatable {}
    #expect(throws: Stop()) { try db.fetchAll(sql: joinSQL) { _ -> Int in throw Stop() } }
  }

  @Test func namesMatchIgnoringASCIICaseWhenNoExactNameMatches() throws {
    let db = try Database()
    let people = try db.fetchAll(sql: "SELECT 1 AS ID, 'Ada' AS Name, 2 AS \"P.ID\", 'Bob' AS \"P.NAME\"") { row in
      (try row.decode(Person.self, columns: 0..<2), try row.decode(Person.self, prefix: "p."))
    }
    #expect(people.first?.0 == Person(id: 1, name: "Ada", nickname: nil))
    #expect(people.first?.1 == Person(id: 2, name: "Bob", nickname: nil))
    // An exact match wins over a case-insensitive one that comes first.
    let exact = try db.fetchAll(sql: "SELECT 'upper' AS NAME, 'lower' AS name, 2 AS id") { row in
      (try row.decode(Person.self, columns: 0..<3), try row.decode(Person.self, prefix: ""))
    }
    #expect(exact.first?.0.name == "lower")
    #expect(exact.first?.1.name == "lower")
  }

  @Test func dictionariesListTheColumnsOfTheScope() throws {
    let db = try Database()
    let rows = try db.fetchAll(sql: "SELECT 1 AS a, 2 AS \"t.b\", 3 AS \"t.c\", 4 AS d") { row in
      (try row.decode([String: Int].self, columns: 0..<2), try row.decode([String: Int].self, prefix: "t."))
    }
    #expect(rows.first?.0 == ["a": 1, "t.b": 2])
    #expect(rows.first?.1 == ["b": 2, "c": 3])
  }

  @Test func aRangeOutsideTheRowThrowsNamingTheFirstMissingColumn() throws {
    let db = try makeJoin()
    func decode(_ columns: Range<Int>) throws {
      _ = try db.fetchAll(sql: joinSQL) { row in try row.decode(Person.self, columns: columns) }
    }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 7, count: 7)) { try decode(4..<9) }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 8, count: 7)) { try decode(8..<9) }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: -1, count: 7)) { try decode(-1..<3) }
    // The whole row is a valid range; an empty one has none of the properties.
    #expect(throws: DatabaseError.noSuchColumn(name: "id", available: [])) { try decode(7..<7) }
  }

  @Test func aColumnTheScopeLacksThrowsListingTheScopesColumns() throws {
    let db = try makeJoin()
    #expect(throws: DatabaseError.noSuchColumn(name: "name", available: ["id"])) {
      try db.fetchAll(sql: joinSQL) { row in try row.decode(Person.self, columns: 3..<4) }
    }
    #expect(throws: DatabaseError.noSuchColumn(name: "name", available: ["id", "nickname"])) {
      try db.fetchAll(sql: "SELECT 1 AS \"x.id\", NULL AS \"x.nickname\", 'a' AS name") { row in
        try row.decode(Person.self, prefix: "x.")
      }
    }
  }

  @Test func valuesOfTheWrongTypeThrowNamingTheColumnOfTheRow() throws {
    let db = try Database()
    do {
      _ = try db.fetchAll(sql: "SELECT 'x' AS a, 'many' AS id, 'n' AS name") { row in
        try row.decode(Person.self, columns: 1..<3)
      }
      Issue.record("expected a conversion error")
    } catch let DatabaseError.conversionFailed(column, type, found, _) {
      #expect(column == "\"id\" (column 1)")
      #expect(type == "Int64")
      #expect(found == "TEXT \"many\"")
    }
    #expect {
      _ = try db.fetchAll(sql: "SELECT 1 AS id, 'n' AS name, 'not json' AS colors") { row in
        try row.decode(Team.self, prefix: "")
      }
    } throws: { error in
      guard case DatabaseError.codingFailed(let message) = error else { return false }
      return message.hasPrefix("Cannot decode Array<String> from column \"colors\" (column 2)")
    }
  }

  @Test func partsOfARowDecodeOnlyKeyedTypes() throws {
    let db = try makeJoin()
    let message = "Decoding part of a row needs a keyed type (a struct or class)"
    #expect(throws: DatabaseError.codingFailed(message)) {
      try db.fetchAll(sql: joinSQL) { row in try row.decode([Int].self, columns: 0..<1) }
    }
    #expect(throws: DatabaseError.codingFailed(message)) {
      try db.fetchAll(sql: joinSQL) { row in try row.decode(Int.self, prefix: "") }
    }
  }

  @Test func nestedContainersThrowAndSuperDecodersReadTheSameScope() throws {
    struct Nested: Decodable {
      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        _ = try container.nestedContainer(keyedBy: Key.self, forKey: .id)
      }
    }
    struct NestedUnkeyed: Decodable {
      init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: Key.self).nestedUnkeyedContainer(forKey: .name)
      }
    }
    struct ViaSuper: Decodable, Equatable {
      var id: Int
      var name: String
      var hasNickname: Bool
      init(id: Int, name: String, hasNickname: Bool) {
        (self.id, self.name, self.hasNickname) = (id, name, hasNickname)
      }
      init(from decoder: any Decoder) throws {
        #expect(decoder.codingPath.isEmpty)
        #expect(decoder.userInfo.isEmpty)
        let container = try decoder.container(keyedBy: Key.self)
        #expect(container.codingPath.isEmpty)
        id = try container.superDecoder().container(keyedBy: Key.self).decode(Int.self, forKey: .id)
        name = try container.superDecoder(forKey: .name).container(keyedBy: Key.self).decode(String.self, forKey: .name)
        hasNickname = try !container.decodeNil(forKey: .nickname)
      }
    }
    let db = try makeJoin()
    #expect(throws: DatabaseError.codingFailed("Column \"id\": nested containers are not supported")) {
      try db.fetchAll(sql: joinSQL) { row in try row.decode(Nested.self, columns: 0..<3) }
    }
    #expect(throws: DatabaseError.codingFailed("Column \"name\": nested containers are not supported")) {
      try db.fetchAll(sql: prefixedSQL) { row in try row.decode(NestedUnkeyed.self, prefix: "t.") }
    }
    let decoded = try db.fetchAll(sql: prefixedSQL) { row in try row.decode(ViaSuper.self, prefix: "p.") }
    #expect(
      decoded == [ViaSuper(id: 1, name: "Ada", hasNickname: false), ViaSuper(id: 2, name: "Grace", hasNickname: true)])
    // A missing column is an error for decodeNil too.
    #expect(throws: DatabaseError.noSuchColumn(name: "nickname", available: ["id", "name"])) {
      try db.fetchAll(sql: joinSQL) { row in try row.decode(ViaSuper.self, columns: 3..<5) }
    }
  }

  @Test func theDecodersDateFormatAppliesToTheScope() throws {
    let db = try Database()
    let teams = try db.fetchAll(sql: "SELECT 0 AS x, 3 AS id, 'T' AS name, 2440588.5 AS founded") { row in
      try row.decode(Team.self, columns: 1..<4, using: RowDecoder(dateFormat: .julianDay))
    }
    #expect(teams == [Team(id: 3, name: "T", founded: Date(timeIntervalSince1970: 86_400), colors: nil)])
    let prefixed = try db.fetchAll(sql: "SELECT 3 AS \"t.id\", 'T' AS \"t.name\", 60 AS \"t.founded\"") { row in
      try row.decode(Team.self, prefix: "t.", using: RowDecoder(dateFormat: .unixTime))
    }
    #expect(prefixed.first?.founded == Date(timeIntervalSince1970: 60))
  }

  private enum Key: String, CodingKey { case id, name, nickname }
}

#if ENABLE_COLUMN_METADATA
  @Suite struct RowJoinsByTableTests {
    @Test func aJoinOfStarsSplitsByTableAndSurvivesAnAddedColumn() throws {
      let db = try makeJoin()
      let sql = "SELECT person.*, team.* FROM person JOIN team ON team.id = person.teamID ORDER BY person.id"
      let before = try db.fetchAll(sql: sql) { row in
        (try row.decode(Person.self, table: "person"), try row.decode(Team.self, table: "TEAM"))
      }
      #expect(
        before.map(\.0) == [
          Person(id: 1, name: "Ada", nickname: nil), Person(id: 2, name: "Grace", nickname: "Amazing"),
        ])
      #expect(before.map(\.1.name) == ["Red", "Blue"])
      #expect(before[0].1.colors == ["red", "white"])
      // A migration adds a column to the first table: counted ranges would now be off by one.
      try db.execute(sql: "ALTER TABLE person ADD COLUMN rating REAL")
      let after = try db.fetchAll(sql: sql) { row in
        (
          try row.columnRange(ofTable: "person"), try row.columnRange(ofTable: "team"),
          try row.decode(Team.self, table: "team")
        )
      }
      #expect(after[0].0 == 0..<5)
      #expect(after[0].1 == 5..<9)
      #expect(after.map(\.2.id) == [10, 20])
    }

    @Test func aTableJoinedToItselfIsSplitByOccurrenceAndExpressionsEndARun() throws {
      let db = try makeJoin()
      try db.execute(sql: "UPDATE person SET teamID = 1 WHERE id = 2")  // Grace's "team" is Ada
      let sql = """
        SELECT a.id, a.name, a.nickname, 42 AS answer, b.id, b.name, b.nickname
        FROM person a JOIN person b ON b.id = a.teamID
        """
      let pairs = try db.fetchAll(sql: sql) { row in
        (try row.decode(Person.self, table: "person"), try row.decode(Person.self, table: "person", occurrence: 1))
      }
      #expect(pairs.count == 1)
      #expect(pairs.first?.0.name == "Grace")
      #expect(pairs.first?.1.name == "Ada")
      let missing = DatabaseError.noSuchColumn(name: "team.*", available: ["person.*", "person.*"])
      let third = DatabaseError.noSuchColumn(name: "person.*", available: ["person.*", "person.*"])
      let statement = try db.prepare(sql: sql)
      let row = try #require(try statement.step())
      #expect(throws: missing) { _ = try row.decode(Team.self, table: "team") }
      #expect(throws: third) { _ = try row.columnRange(ofTable: "person", occurrence: 2) }
    }
  }
#endif
