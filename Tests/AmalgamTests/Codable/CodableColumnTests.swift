import Amalgam
import Foundation
import Testing

/// Declares the two protocols and implements neither: stored as JSON.
private struct Address: Codable, Equatable, ColumnConvertible, ParameterBindable {
  var street: String
  var city: String
  var zip: Int?
}

/// Implements its own conversion: keeps it, though it is `Codable` too.
private struct Celsius: Codable, Equatable, ColumnConvertible, ParameterBindable {
  var degrees: Double
  init(degrees: Double) { self.degrees = degrees }
  init(databaseValue: DatabaseValue) throws { degrees = try Double(databaseValue: databaseValue) }
  func databaseValue() throws -> DatabaseValue { .real(degrees) }
}

@Suite("Codable types stored as JSON by declaring ColumnConvertible and ParameterBindable")
struct CodableColumnTests {
  private let address = Address(street: "1 Main St", city: "Springfield", zip: nil)

  @Test func aCodableTypeIsStoredAsTheJSONTextThatJSONColumnWrites() throws {
    let db = try Database()
    let row = try #require(try db.prepare(sql: "SELECT ?1, typeof(?1)").bind(parameterValues: [address]).step())
    #expect(try row.value(at: 1) == "text")
    #expect(try row[0] == .text(#"{"city":"Springfield","street":"1 Main St"}"#))
    #expect(try row[0] == .text(try JSONColumn(address).jsonText()))
    #expect(try address.databaseValue() == JSONColumn(address).databaseValue())
  }

  @Test func aCodableTypeReadsBackFromTextAndFromABlobOfJSON() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(home)")
    try db.execute(sql: "INSERT INTO person VALUES (?)", parameterValues: [address])
    #expect(try db.prepare(sql: "SELECT home FROM person").front(Address.self) == address)
    let blob = try db.prepare(sql: #"SELECT CAST('{"zip":12345,"street":"2 Elm","city":"X"}' AS BLOB)"#)
      .front(Address.self)
    #expect(blob == Address(street: "2 Elm", city: "X", zip: 12345))
    #expect(try Address(databaseValue: .blob(Data(#"{"street":"a","city":"b"}"#.utf8))).city == "b")
  }

  @Test func valuesThatAreNotItsJSONThrowAConversionError() throws {
    let db = try Database()
    for sql in ["SELECT 42", "SELECT '{\"street\": 1}'", "SELECT 'not json'", "SELECT NULL"] {
      #expect(throws: DatabaseError.self, "\(sql)") {
        let _: Address = try db.prepare(sql: sql).front()
      }
    }
    let row = try #require(try db.prepare(sql: "SELECT NULL").step())
    #expect(try row.value(at: 0, as: Address?.self) == nil)
  }

  @Test func typesThatAreCodableKeepTheirOwnConversions() throws {
    #expect(try 5.databaseValue() == .integer(5))
    #expect(try Int(databaseValue: .integer(5)) == 5)
    #expect(try UInt8(databaseValue: .real(7)) == 7)
    #expect(try Int64(42).databaseValue() == .integer(42))
    #expect("x".databaseValue() == .text("x"))
    #expect(try String(databaseValue: .text("x")) == "x")
    #expect(2.5.databaseValue() == .real(2.5))
    #expect(Float(1.5).databaseValue() == .real(1.5))
    #expect(true.databaseValue() == .integer(1))
    #expect(Data([1, 2]).databaseValue() == .blob(Data([1, 2])))
    let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    #expect(uuid.databaseValue() == .text("01020304-0506-0708-090a-0b0c0d0e0f10"))
    #expect(try Decimal(string: "1.25").map { try $0.databaseValue() } == .text("1.25"))
    #expect(try URL(string: "https://a.b").map { try $0.databaseValue() } == .text("https://a.b"))
    #expect(try Date(timeIntervalSince1970: 0).databaseValue() == .text("1970-01-01 00:00:00.000"))
    #expect(try Celsius(degrees: 21).databaseValue() == .real(21))
    let db = try Database()
    let row = try #require(
      try db.prepare(sql: "SELECT typeof(?1), typeof(?2), typeof(?3), typeof(?4)")
        .bind(parameterValues: ["s", uuid, Data([1]), Celsius(degrees: 1)]).step())
    #expect(try row.values() == [.text("text"), .text("text"), .text("blob"), .text("real")])
    #expect(try db.prepare(sql: "SELECT 3.5").front(Celsius.self) == Celsius(degrees: 3.5))
  }

  /// Converts through the protocols' requirements, as generic code does (not through overloads).
  private func read<T: ColumnConvertible>(_ value: DatabaseValue, as type: T.Type) throws -> T {
    try T(databaseValue: value)
  }

  private func stored<T: ParameterBindable>(_ value: T) throws -> DatabaseValue {
    try value.databaseValue()
  }

  @Test func codableIntegersAndOtherTypesKeepTheirOwnWitnesses() throws {
    #expect(try read(.real(7), as: Int.self) == 7)
    #expect(try read(.integer(7), as: Int8.self) == 7)
    #expect(try read(.integer(7), as: UInt64.self) == 7)
    #expect(try read(.real(1.5), as: Float.self) == 1.5)
    #expect(try read(.integer(0), as: Bool.self) == false)
    #expect(try read(.text("a"), as: String.self) == "a")
    #expect(try read(.text("1970-01-01 00:00:00"), as: Date.self) == Date(timeIntervalSince1970: 0))
    #expect(try read(.integer(3), as: Celsius.self) == Celsius(degrees: 3))
    #expect(try stored(5) == .integer(5))
    #expect(try stored(UInt16(5)) == .integer(5))
    #expect(try stored(Int64.min) == .integer(Int64.min))
    #expect(try stored(Float(2)) == .real(2))
    #expect(try stored(false) == .integer(0))
    #expect(try stored("a") == .text("a"))
    #expect(try stored(Data([9])) == .blob(Data([9])))
    #expect(try stored(Celsius(degrees: 4)) == .real(4))
    #expect(try stored(address) == .text(#"{"city":"Springfield","street":"1 Main St"}"#))
  }

  @Test func aCodableColumnTypeIsAPropertyOfARecordLikeAnyOther() throws {
    struct Person: Codable, Equatable { var id: Int64; var home: Address }
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, home TEXT)")
    let person = Person(id: 1, home: address)
    try db.prepare(sql: "INSERT INTO person VALUES (:id, :home)").bind(person).execute()
    #expect(try db.prepare(sql: "SELECT * FROM person").decodeFirst(Person.self) == person)
    // Stored as the JSON text itself (no JSON functions needed: OMIT_JSON may be on).
    #expect(
      try db.prepare(sql: "SELECT home FROM person").front(String.self)
        == #"{"city":"Springfield","street":"1 Main St"}"#)
  }
}
