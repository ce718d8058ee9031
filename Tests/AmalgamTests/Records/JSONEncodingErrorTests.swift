import Amalgam
import Foundation
import Testing

/// A measurement stored in one column as JSON, as FeistyDB stores `Codable` columns.
private struct Reading: Codable, Equatable, ColumnConvertible, ParameterBindable {
  var value: Double
}

/// A record that embeds a ``JSONColumn`` and is itself encoded to JSON elsewhere.
private struct Envelope: Codable, Equatable {
  var id: Int
  var payload: JSONColumn<[String: Int]>
}

/// The errors of values that JSON cannot hold, and ``JSONColumn`` inside other `Codable` values.
@Suite struct JSONEncodingErrorTests {
  @Test func aCodableColumnThatJSONCannotHoldThrowsCodingFailed() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(reading)")
    let error = #expect(throws: DatabaseError.self) {
      try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [Reading(value: .nan)])
    }
    guard case .codingFailed(let message) = error else {
      Issue.record("expected codingFailed, got \(String(describing: error))")
      return
    }
    #expect(message.hasPrefix("Cannot encode Reading as JSON: "))
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    // A finite value is stored and read back.
    try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [Reading(value: 1.5)])
    #expect(try db.fetchValue(Reading.self, sql: "SELECT reading FROM t") == Reading(value: 1.5))
  }

  @Test func aJSONColumnThatJSONCannotHoldThrowsCodingFailed() throws {
    let column = JSONColumn([Double.infinity])
    let error = #expect(throws: DatabaseError.self) { try column.jsonText() }
    guard case .codingFailed(let message) = error else {
      Issue.record("expected codingFailed, got \(String(describing: error))")
      return
    }
    #expect(message.hasPrefix("Cannot encode Array<Double> as JSON: "))
    let db = try Database()
    #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT ?", parameterValues: [column]) }
  }

  @Test func aJSONColumnConvertsFromTextAndRefusesOtherStorageClasses() throws {
    let column = try JSONColumn<[Int]>(databaseValue: .text("[1,2,3]"))
    #expect(column.value == [1, 2, 3])
    #expect(column.storage == .text)
    let error = #expect(throws: DatabaseError.self) { try JSONColumn<[Int]>(databaseValue: .integer(7)) }
    guard case .conversionFailed(_, _, _, let reason) = error else {
      Issue.record("expected conversionFailed, got \(String(describing: error))")
      return
    }
    #expect(reason == "JSON is stored as TEXT or as a JSONB BLOB")
  }

  #if !OMIT_JSON
    @Test func aJSONBBlobWhoseTextIsNotUTF8IsRefused() throws {
      // JSONB: a TEXT element (type 7) of one byte (size 1 in the high nibble), 0xFF, which is not UTF-8.
      let corrupt = DatabaseValue.blob(Data([0x17, 0xFF]))
      let error = #expect(throws: DatabaseError.self) { try JSONColumn<String>(databaseValue: corrupt) }
      #expect(error == DatabaseError.codingFailed("SQLite's json() returned text that is not UTF-8"))
      let db = try Database()
      #expect(throws: DatabaseError.codingFailed("SQLite's json() returned text that is not UTF-8")) {
        try db.fetchOne(JSONColumn<String>.self, sql: "SELECT x'17FF'")
      }
    }
  #endif

  @Test func aJSONColumnInsideAnotherCodableValueEncodesAsItsValue() throws {
    let envelope = Envelope(id: 1, payload: JSONColumn(["a": 1]))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(envelope), as: UTF8.self)
    #expect(json == #"{"id":1,"payload":{"a":1}}"#)
    let decoded = try JSONDecoder().decode(Envelope.self, from: Data(json.utf8))
    #expect(decoded == envelope)
    #expect(decoded.payload.storage == .text)
  }
}
