import Amalgam
import Foundation
import Testing

/// The encoder reuses one sink per statement and the decoder reads through the statement: these tests
/// pin what that must not change (kept containers, nested encodes, statements reused across types).
@Suite struct CodableReuseTests {
  /// Keeps its keyed container in a global box after encoding, and uses it later.
  final class Keeper: @unchecked Sendable {  // used by one test at a time, on one thread
    var container: KeyedEncodingContainer<Kept.CodingKeys>?
  }

  struct Kept: Encodable {
    let keeper: Keeper
    var a: Int
    enum CodingKeys: String, CodingKey { case a }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(a, forKey: .a)
      keeper.container = container
    }
  }

  @Test func aContainerKeptAfterItsEncodeThrowsAndBindsNothing() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a)")
    let statement = try db.prepare(sql: "INSERT INTO t VALUES (:a)")
    let keeper = Keeper()
    try statement.bind(Kept(keeper: keeper, a: 1)).execute()
    #expect(try db.fetchAll(Int.self, sql: "SELECT a FROM t") == [1])
    var kept = try #require(keeper.container)
    #expect(throws: DatabaseError.self) { try kept.encode(99, forKey: .a) }
    // The statement still encodes normally afterwards, and the kept container did not bind 99.
    try statement.bind(Kept(keeper: Keeper(), a: 2)).execute()
    #expect(try db.fetchAll(Int.self, sql: "SELECT a FROM t ORDER BY a") == [1, 2])
  }

  /// Encodes another value into the same statement from inside its own `encode(to:)`.
  struct Nested: Encodable {
    let statement: Statement
    var a: Int
    enum CodingKeys: String, CodingKey { case a }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      // The inner encode binds :a = a + 100, then the outer one binds :a = a over it.
      try StatementEncoder().encode(Plain(a: a + 100), to: statement)
      try container.encode(a, forKey: .a)
    }
  }

  struct Plain: Codable, Equatable { var a: Int }

  @Test func aNestedEncodeIntoTheSameStatementUsesItsOwnSink() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a)")
    let statement = try db.prepare(sql: "INSERT INTO t VALUES (:a)")
    try statement.bind(Nested(statement: statement, a: 5)).execute()
    try statement.bind(Plain(a: 6)).execute()
    #expect(try db.fetchAll(Int.self, sql: "SELECT a FROM t ORDER BY a") == [5, 6])
  }

  struct Missing: Encodable { var a: Int }

  @Test func aFailedEncodeLeavesTheStatementReusable() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    let statement = try db.prepare(sql: "INSERT INTO t VALUES (:a, :b)")
    #expect(throws: DatabaseError.missingParameter(name: ":b", sql: statement.sql)) {
      try statement.bind(Missing(a: 1))
    }
    struct Both: Encodable { var a: Int; var b: String }
    try statement.bind(Both(a: 2, b: "x")).execute()
    #expect(try db.fetchAll(String.self, sql: "SELECT a || b FROM t") == ["2x"])
  }

  struct Two: Decodable, Equatable { var x: Int; var y: String }
  struct Swapped: Decodable, Equatable { var y: String; var x: Int }

  @Test func decodingFindsColumnsInAnyOrderAcrossRowsAndTypes() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x, y); INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    let statement = try db.prepare(sql: "SELECT x, y FROM t ORDER BY x")
    // Alternate the property order from row to row on one statement.
    var results: [String] = []
    while let row = try statement.step() {
      if row.statement.columnCount == 2, try row.value(at: 0) as Int % 2 == 1 {
        let value = try row.decode(Two.self)
        results.append("\(value.x)\(value.y)")
      } else {
        let value = try row.decode(Swapped.self)
        results.append("\(value.y)\(value.x)")
      }
    }
    #expect(results == ["1a", "b2", "3c"])
    #expect(throws: DatabaseError.noSuchColumn(name: "z", available: ["x", "y"])) {
      struct Z: Decodable { var z: Int }
      _ = try db.fetchOne(Z.self, sql: "SELECT x, y FROM t")
    }
  }

  /// Keeps its keyed decoding container after decoding.
  final class DecodingKeeper: @unchecked Sendable {  // written by one test only, on its thread
    var container: KeyedDecodingContainer<KeptDecodable.CodingKeys>?
  }

  struct KeptDecodable: Decodable {
    var x: Int
    enum CodingKeys: String, CodingKey { case x }
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      x = try container.decode(Int.self, forKey: .x)
      CodableReuseTests.lastContainer.container = container
    }
  }

  static let lastContainer = DecodingKeeper()

  @Test func aDecodingContainerKeptAfterItsDecodeThrowsEvenAfterItsStatementIsGone() throws {
    do {
      let db = try Database()
      try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (41)")
      #expect(try db.fetchOne(KeptDecodable.self, sql: "SELECT x FROM t")?.x == 41)
      try db.close()
    }
    // The database and its statements are released; the kept container must not read them.
    let kept = try #require(Self.lastContainer.container)
    #expect(throws: DatabaseError.self) { _ = try kept.decode(Int.self, forKey: .x) }
    #expect(throws: DatabaseError.self) { _ = try kept.decode(String.self, forKey: .x) }
    #expect(throws: DatabaseError.self) { _ = try kept.decodeNil(forKey: .x) }
    #expect(!kept.contains(.x))
    #expect(kept.allKeys.isEmpty)
    #expect(throws: DatabaseError.self) { _ = try kept.superDecoder() }
  }
}
