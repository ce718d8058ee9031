import Amalgam
import Foundation
import Testing

@Suite struct CodableTests {
  struct Address: Codable, Equatable { var city: String; var zip: String }
  enum Status: String, Codable { case active, retired }
  enum Level: Int, Codable { case low = 1, high = 2 }

  struct Person: Codable, Equatable {
    var id: Int64
    var name: String
    var email: String?
    var score: Double
    var flags: UInt8
    var joined: Date
    var token: UUID
    var avatar: Data
    var status: Status
    var level: Level
    var address: Address
    var tags: [String]
  }

  func makeDatabase() throws -> Database {
    let db = try Database()
    try db.execute(
      sql: """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, email TEXT, score REAL, flags INTEGER,
          joined TEXT, token TEXT, avatar BLOB, status TEXT, level INTEGER, address TEXT, tags TEXT)
        """)
    return db
  }

  let insertSQL = """
    INSERT INTO person VALUES (:id, :name, :email, :score, :flags, :joined, :token, :avatar, :status, :level,
      :address, :tags)
    """

  let sample = Person(
    id: 7, name: "Ada", email: nil, score: 9.5, flags: 3,
    joined: Date(timeIntervalSince1970: 1_700_000_000.25),
    token: UUID(uuid: (0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8)),
    avatar: Data([0, 1, 2, 255]), status: .retired, level: .high,
    address: Address(city: "London", zip: "N1"), tags: ["math", "engines"])

  @Test func encodedStructRoundTripsThroughTheDatabase() throws {
    let db = try makeDatabase()
    try db.prepare(sql: insertSQL).bind(sample).execute()
    let decoded = try db.prepare(sql: "SELECT * FROM person").decodeFirst(Person.self)
    #expect(decoded == sample)
  }

  #if !OMIT_JSON
    @Test func storageFormatIsSQLFriendly() throws {
      let db = try makeDatabase()
      try db.prepare(sql: insertSQL).bind(sample).execute()
      let row = try #require(
        try db.prepare(
          sql: """
            SELECT typeof(email), joined, token, status, level, json_extract(address, '$.city'), json_array_length(tags),
              typeof(avatar)
            FROM person
            """
        ).firstRow())
      #expect(row[0] == .text("null"))
      #expect(row[1] == .text("2023-11-14 22:13:20.250"))
      #expect(row[2] == .text("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
      #expect(row[3] == .text("retired"))
      #expect(row[4] == .integer(2))
      #expect(row[5] == .text("London"))
      #expect(row[6] == .integer(2))
      #expect(row[7] == .text("blob"))
    }
  #endif

  @Test func encoderReportsAParameterNoPropertyMatches() throws {
    let db = try makeDatabase()
    let statement = try db.prepare(sql: "INSERT INTO person(id, name) VALUES (:id, :nickname)")
    #expect(throws: DatabaseError.missingParameter(name: ":nickname", sql: statement.sql)) {
      try statement.bind(sample)
    }
  }

  @Test func encoderBindsOnlyThePropertiesTheStatementNamesAndKeepsWorkingAcrossRows() throws {
    let db = try makeDatabase()
    // Parameters in another order than the properties, with mixed prefixes; other properties ignored.
    let statement = try db.prepare(sql: "INSERT INTO person(name, id, email) VALUES (@name, :id, $email)")
    for id in 1...3 {
      var person = sample
      person.id = Int64(id)
      person.name = "P\(id)"
      person.email = id == 2 ? "two@example.com" : nil
      try statement.bind(person).execute()
    }
    #expect(
      try db.prepare(sql: "SELECT id, name, email FROM person ORDER BY id").allRows() == [
        [1, "P1", nil], [2, "P2", "two@example.com"], [3, "P3", nil],
      ])
  }

  @Test func encoderRejectsTwoPropertiesForOneParameter() throws {
    struct Clash: Encodable {
      var a: Int
      var other: Int
      enum CodingKeys: String, CodingKey { case a, other = ":a" }
    }
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :a")
    #expect(throws: DatabaseError.duplicateParameter(name: ":a", sql: statement.sql)) {
      try statement.bind(Clash(a: 1, other: 2))
    }
  }

  @Test func encoderAppliesItsDateFormatWhenBindingAStatement() throws {
    struct Event: Codable { var at: Date; var until: Date? }
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :at, :until")
    try statement.bind(
      Event(at: Date(timeIntervalSince1970: 86_400), until: nil), using: StatementEncoder(dateFormat: .unixTime))
    #expect(try statement.firstRow() == [.real(86_400), .null])
    try statement.bind(Event(at: Date(timeIntervalSince1970: 0), until: Date(timeIntervalSince1970: 0)))
    #expect(try statement.firstRow() == [.text("1970-01-01 00:00:00.000"), .text("1970-01-01 00:00:00.000")])
  }

  @Test func decoderFindsColumnsInAnyOrderAndFollowsASchemaChange() throws {
    struct Pair: Decodable, Equatable { var b: Int; var a: String; var c: Int? }
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(a TEXT, b INTEGER); INSERT INTO t VALUES ('x', 1), ('y', 2);")
    let statement = try db.prepare(sql: "SELECT * FROM t")
    #expect(try statement.decodeAll(Pair.self) == [Pair(b: 1, a: "x", c: nil), Pair(b: 2, a: "y", c: nil)])
    // SELECT * is re-prepared with the new column list: the decoder must not reuse stale positions.
    try db.batch(sql: "ALTER TABLE t ADD COLUMN c INTEGER; UPDATE t SET c = b * 10;")
    #expect(try statement.decodeAll(Pair.self) == [Pair(b: 1, a: "x", c: 10), Pair(b: 2, a: "y", c: 20)])
  }

  @Test func encoderRejectsPositionalParameters() throws {
    let db = try makeDatabase()
    let statement = try db.prepare(sql: "INSERT INTO person(id, name) VALUES (?, ?)")
    #expect(throws: DatabaseError.unnamedParameter(index: 1, sql: statement.sql)) {
      try statement.bind(sample)
    }
  }

  @Test func encoderDateFormatIsConfigurable() throws {
    struct Event: Codable { var at: Date }
    let values = try StatementEncoder(dateFormat: .unixTime).encode(Event(at: Date(timeIntervalSince1970: 86_400)))
    #expect(values == ["at": .real(86_400)])
    let julian = try StatementEncoder(dateFormat: .julianDay).encode(Event(at: Date(timeIntervalSince1970: 0)))
    #expect(julian == ["at": .real(2_440_587.5)])
  }

  @Test func decoderReadsNumbersAsDatesInTheChosenFormat() throws {
    struct Event: Codable { var at: Date }
    let db = try Database()
    let event = try #require(
      try db.prepare(sql: "SELECT 2440588.5 AS at").decodeFirst(Event.self, using: RowDecoder(dateFormat: .julianDay)))
    #expect(event.at == Date(timeIntervalSince1970: 86_400))
    let unix = try #require(try db.prepare(sql: "SELECT 60 AS at").decodeFirst(Event.self))
    #expect(unix.at == Date(timeIntervalSince1970: 60))
  }

  @Test func missingOptionalColumnDecodesAsNilButMissingRequiredColumnThrows() throws {
    struct Partial: Decodable { var id: Int; var nickname: String? }
    struct Strict: Decodable { var id: Int; var nickname: String }
    let db = try Database()
    let partial = try #require(try db.prepare(sql: "SELECT 1 AS id").decodeFirst(Partial.self))
    #expect(partial.id == 1)
    #expect(partial.nickname == nil)
    #expect(throws: DatabaseError.noSuchColumn(name: "nickname", available: ["id"])) {
      _ = try db.prepare(sql: "SELECT 1 AS id").decodeFirst(Strict.self)
    }
  }

  @Test func typeMismatchInARowNamesTheColumn() throws {
    struct Numbers: Decodable { var count: Int }
    let db = try Database()
    do {
      _ = try db.prepare(sql: "SELECT 'many' AS count").decodeFirst(Numbers.self)
      Issue.record("expected a conversion error")
    } catch let DatabaseError.conversionFailed(column, type, found, _) {
      #expect(column == "\"count\" (column 0)")
      #expect(type == "Int")
      #expect(found == "TEXT \"many\"")
    }
  }

  @Test func invalidJSONInANestedColumnThrowsCodingFailed() throws {
    struct Holder: Decodable { var address: Address }
    let db = try Database()
    #expect {
      _ = try db.prepare(sql: "SELECT '{\"city\": 1}' AS address").decodeFirst(Holder.self)
    } throws: { error in
      guard case DatabaseError.codingFailed(let message) = error else { return false }
      return message.contains("address") && message.contains("Address")
    }
  }

  @Test func singleColumnRowsDecodeAsPlainValuesAndEnums() throws {
    let db = try Database()
    let numbers = try db.prepare(sql: "SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3").decodeAll(Int.self)
    #expect(numbers == [1, 2, 3])
    let statuses = try db.prepare(sql: "SELECT 'active' UNION ALL SELECT 'retired'").decodeAll(Status.self)
    #expect(statuses == [.active, .retired])
  }

  @Test func decodeAllReadsEveryRowAndResetsTheStatement() throws {
    struct Item: Decodable, Equatable { var n: Int; var label: String? }
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1 AS n, 'a' AS label UNION ALL SELECT 2, NULL")
    let first = try statement.decodeAll(Item.self)
    let second = try statement.decodeAll(Item.self)
    #expect(first == [Item(n: 1, label: "a"), Item(n: 2, label: nil)])
    #expect(second == first)
  }
}
