import Amalgam
import Foundation
import Testing

#if !OMIT_JSON
  private struct Address: Codable, Equatable {
    var city: String
    var zip: String?
  }

  private struct Profile: Codable, Equatable {
    var tags: Set<String>
    var scores: [Int]
    var address: Address
  }

  private struct User: TableRecord, Equatable {
    static let tableName = "user"
    var id: Int64
    var name: String
    var profile: JSONColumn<Profile>
    var nicknames: [String]  // not opted in: stored as before
  }

  private struct Wrapper<Document: Encodable>: Encodable {
    var document: Document
  }

  private let profile = Profile(tags: ["b", "a"], scores: [3, 1, 2], address: Address(city: "Paris", zip: nil))

  @Suite struct JSONColumnTests {
    @Test func aValueIsStoredAsJSONTextAndReadBack() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, data)")
      try db.execute(sql: "INSERT INTO t VALUES (1, ?)", parameterValues: [JSONColumn(profile)])
      #expect(try db.fetchValue(String.self, sql: "SELECT typeof(data) FROM t") == "text")
      #expect(try db.fetchValue(Bool.self, sql: "SELECT json_valid(data) FROM t"))
      let stored = try db.fetchValue(JSONColumn<Profile>.self, sql: "SELECT data FROM t")
      #expect(stored.value == profile)
      #expect(stored.storage == .text)
      // SQLite's JSON functions read it.
      #expect(try db.fetchValue(String.self, sql: "SELECT data ->> '$.address.city' FROM t") == "Paris")
      #expect(
        try db.fetchAll(Int.self, sql: "SELECT value FROM t, json_each(t.data, '$.scores') ORDER BY value")
          == [1, 2, 3])
    }

    @Test func aValueIsStoredAsJSONBAndReadBack() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, data)")
      try db.execute(literal: "INSERT INTO t VALUES (1, \(JSONColumn(profile, storage: .jsonb)))")
      #expect(try db.fetchValue(String.self, sql: "SELECT typeof(data) FROM t") == "blob")
      // The blob is JSONB: json() turns it back into the same document.
      #expect(try db.fetchValue(String.self, sql: "SELECT json_type(data, '$.tags') FROM t") == "array")
      #expect(try db.fetchValue(String.self, sql: "SELECT data ->> '$.address.city' FROM t") == "Paris")
      let stored = try db.fetchValue(JSONColumn<Profile>.self, sql: "SELECT data FROM t")
      #expect(stored.value == profile)
      #expect(stored.storage == .jsonb)
      // Read without a row (from a DatabaseValue), JSONB converts on a private connection.
      let raw = try db.fetchValue(DatabaseValue.self, sql: "SELECT data FROM t")
      #expect(try JSONColumn<Profile>(databaseValue: raw).value == profile)
    }

    @Test func arraysSetsAndDictionariesRoundTrip() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(a, s, d)")
      try db.execute(
        sql: "INSERT INTO t VALUES (?, ?, ?)",
        parameterValues: [JSONColumn([1, 2, 3]), JSONColumn(Set(["x"])), JSONColumn(["k": 1.5], storage: .jsonb)])
      #expect(try db.fetchValue(String.self, sql: "SELECT a FROM t") == "[1,2,3]")
      #expect(try db.fetchValue(JSONColumn<Set<String>>.self, sql: "SELECT s FROM t").value == ["x"])
      #expect(try db.fetchValue(JSONColumn<[String: Double]>.self, sql: "SELECT d FROM t").value == ["k": 1.5])
      #expect(try db.fetchValue(Int.self, sql: "SELECT json_array_length(a) FROM t") == 3)
    }

    @Test func recordsStoreOptedInPropertiesAsJSONAndOthersAsBefore() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT, profile, nicknames)")
      let user = User(id: 1, name: "Ada", profile: JSONColumn(profile, storage: .jsonb), nicknames: ["A"])
      try db.insert(user)
      #expect(try db.fetchValue(String.self, sql: "SELECT typeof(profile) FROM user") == "blob")
      #expect(try db.fetchValue(String.self, sql: "SELECT nicknames FROM user") == #"["A"]"#)
      #expect(try db.fetch(User.self, id: 1) == user)
      #expect(try db.fetchAll(User.self, where: "profile ->> '$.address.city' = \("Paris")").count == 1)
    }

    @Test func aValueIsEncodedWithSortedKeysSoThatItAlwaysGivesTheSameBytes() throws {
      // Properties declared out of order, and a dictionary of several keys: both come out sorted.
      struct Document: Codable, Equatable {
        var zulu: Int
        var alpha: String
        var mike: [String: Int]
      }
      let document = Document(
        zulu: 1, alpha: "a", mike: ["kilo": 11, "bravo": 2, "yankee": 25, "echo": 5, "oscar": 15, "charlie": 3])
      let sorted = #"{"alpha":"a","mike":{"bravo":2,"charlie":3,"echo":5,"kilo":11,"oscar":15,"yankee":25},"zulu":1}"#
      for _ in 0..<20 {
        #expect(try JSONColumn(document).jsonText() == sorted)
        #expect(try JSONColumn(document).databaseValue() == .text(sorted))
      }
      // Stored twice, the two values are equal in SQL: `WHERE doc = ?` and UNIQUE see one value.
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(doc TEXT UNIQUE)")
      try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [JSONColumn(document)])
      let matches = try db.fetchValue(
        Int.self, sql: "SELECT count(*) FROM t WHERE doc = ?", arguments: [JSONColumn(document)])
      #expect(matches == 1)
      #expect(throws: SQLiteError.self) {
        try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [JSONColumn(document)])
      }
      // A nested value that a record stores as JSON text without JSONColumn is sorted the same way.
      let values = try StatementEncoder().encode(Wrapper(document: document))
      #expect(values["document"] == .text(sorted))
    }

    @Test func invalidJSONThrowsAConversionError() throws {
      let db = try Database()
      #expect(throws: DatabaseError.self) { try db.fetchValue(JSONColumn<Profile>.self, sql: "SELECT '{oops'") }
      #expect(throws: DatabaseError.self) { try db.fetchValue(JSONColumn<Profile>.self, sql: "SELECT 42") }
      #expect(throws: (any Error).self) { try db.fetchValue(JSONColumn<Profile>.self, sql: "SELECT x'00ff'") }
    }
  }
#endif
