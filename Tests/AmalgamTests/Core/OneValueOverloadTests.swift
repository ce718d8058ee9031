import Foundation
import Testing

@testable import Amalgam

/// Calls with one value where several overloads could apply: each compiles (this file is the probe) and
/// means what FeistyDB's spelling means.
@Suite struct OneValueOverloadTests {
  /// A value that encodes to named parameters (`:id`, `:name`).
  struct Person: Encodable {
    var id: Int
    var name: String
  }

  /// A record of table `person`.
  struct PersonRecord: TableRecord, Equatable {
    static let tableName = "person"
    var id: Int
    var name: String
  }

  @Test func bindingOneValueBindsParameterOne() throws {
    let db = try Database()
    #expect(try db.prepare(sql: "SELECT ?").bind(42).front(Int.self) == 42)
    #expect(try db.prepare(sql: "SELECT ?").bind("a").front(String.self) == "a")
    #expect(try db.prepare(sql: "SELECT ?").bind(2.5).front(Double.self) == 2.5)
    #expect(try db.prepare(sql: "SELECT ?").bind(Data([1, 2])).front(Data.self) == Data([1, 2]))
    #expect(try db.prepare(sql: "SELECT ?").bind(true).front(Bool.self) == true)
    #expect(try db.prepare(sql: "SELECT ?").bind(Int64.max).front(Int64.self) == .max)
    let missing: Int? = nil
    #expect(try db.prepare(sql: "SELECT typeof(?)").bind(missing).front(String.self) == "null")
    let present: String? = "p"
    #expect(try db.prepare(sql: "SELECT ?").bind(present).front(String.self) == "p")
    #expect(try db.prepare(sql: "SELECT ?").bind(DatabaseValue.integer(7)).front(Int.self) == 7)
    #expect(try db.prepare(sql: "SELECT typeof(?)").bind(DatabaseValue.null).front(String.self) == "null")
    let uuid = UUID()
    #expect(try db.prepare(sql: "SELECT ?").bind(uuid).front(UUID.self) == uuid)
  }

  @Test func bindingOneValueToAStatementWithTwoParametersThrowsTheCountMismatch() throws {
    let db = try Database()
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 2, provided: 1, sql: "SELECT ?, ?")) {
      try db.prepare(sql: "SELECT ?, ?").bind(42)
    }
  }

  @Test func anEncodableValueBindsItsPropertiesToNamedParameters() throws {
    let db = try Database()
    let row = try #require(
      try db.prepare(sql: "SELECT :name, :id").bind(Person(id: 3, name: "Ada")).step()?.values())
    #expect(row == [.text("Ada"), .integer(3)])
    // A value that is also bindable as one parameter binds its properties when the encoder is given.
    let encoded = try #require(
      try db.prepare(sql: "SELECT :id, :name").bind(Person(id: 4, name: "Bo"), using: StatementEncoder()).step()?
        .values())
    #expect(encoded == [.integer(4), .text("Bo")])
  }

  @Test func otherOneValueCallsCompileAndMeanWhatTheySay() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
    try db.execute(sql: "INSERT INTO person(id, name) VALUES (?, ?)", arguments: [1, "Ada"])
    try db.execute(sql: "INSERT INTO person(id, name) VALUES (?, ?)", parameterValues: [2, "Bo"])
    _ = try db.insert(PersonRecord(id: 3, name: "Cy"))
    let names = try db.prepare(sql: "SELECT name FROM person ORDER BY id").column(0, as: String.self)
    #expect(names == ["Ada", "Bo", "Cy"])
    let inferred: [String] = try db.prepare(sql: "SELECT name FROM person ORDER BY id").column(0)
    #expect(inferred == names)
    let optional: Int? = try db.prepare(sql: "SELECT count(*) FROM person").front()
    #expect(optional == 3)
    let required: Int = try db.prepare(sql: "SELECT count(*) FROM person").front()
    #expect(required == 3)
    #expect(try db.prepare(sql: "SELECT count(*) FROM person").front(Int.self) == 3)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM person") == 3)
    #expect(try db.fetchAll(String.self, sql: "SELECT name FROM person ORDER BY id") == names)
    #expect(try db.fetch(PersonRecord.self, id: 2) == PersonRecord(id: 2, name: "Bo"))
    #expect(try db.fetchAll(PersonRecord.self).map(\.name) == names)
    #expect(try db.prepare(sql: "SELECT :a").bind(named: (":a", 5)).front(Int.self) == 5)
  }

  @Test func oneValueFetchesThroughAQueueCompileAndReadColumns() throws {
    let queue = try DatabaseQueue()
    #expect(try queue.fetchOne(Int.self, sql: "SELECT 6") == 6)
    #expect(try queue.fetchAll(String.self, sql: "SELECT 'x' UNION ALL SELECT 'y'") == ["x", "y"])
    #expect(try queue.read { db in try db.prepare(sql: "SELECT ?").bind(8).front(Int.self) } == 8)
  }
}
