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

  /// Encodes `a` and `b`, or only `a`, or `a` twice, or `b` before `a`, or an extra key: one statement
  /// remembers the keys of its last complete encode, and every other key list must still be checked.
  struct Varying: Encodable {
    enum Shape { case both, onlyA, twiceA, swapped, extra }
    var shape: Shape
    var a: Int
    var b: Int
    enum CodingKeys: String, CodingKey { case a, b, c }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      switch shape {
      case .both:
        try container.encode(a, forKey: .a)
        try container.encode(b, forKey: .b)
      case .onlyA:
        try container.encode(a, forKey: .a)
      case .twiceA:
        try container.encode(a, forKey: .a)
        try container.encode(b, forKey: .b)
        try container.encode(a, forKey: .a)
      case .swapped:
        try container.encode(b, forKey: .b)
        try container.encode(a, forKey: .a)
      case .extra:
        try container.encode(a, forKey: .a)
        try container.encode(b, forKey: .b)
        try container.encode(0, forKey: .c)
      }
    }
  }

  @Test func anEncodeThatLeavesTheRememberedKeysIsCheckedInFull() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    let statement = try db.prepare(sql: "INSERT INTO t VALUES (:a, :b)")
    try statement.bind(Varying(shape: .both, a: 1, b: 2)).execute()
    try statement.bind(Varying(shape: .both, a: 3, b: 4)).execute()
    // Fewer keys than the remembered encode: :b keeps 4 from the last bind, which must not be reused.
    #expect(throws: DatabaseError.missingParameter(name: ":b", sql: statement.sql)) {
      try statement.bind(Varying(shape: .onlyA, a: 5, b: 6))
    }
    // The remembered keys, then one of them again.
    #expect(throws: DatabaseError.duplicateParameter(name: "a", sql: statement.sql)) {
      try statement.bind(Varying(shape: .twiceA, a: 5, b: 6))
    }
    // Another order binds each value to its own parameter, and becomes the remembered one.
    try statement.bind(Varying(shape: .swapped, a: 7, b: 8)).execute()
    try statement.bind(Varying(shape: .swapped, a: 9, b: 10)).execute()
    try statement.bind(Varying(shape: .both, a: 11, b: 12)).execute()
    // A key without a parameter is ignored by a plain encode, every time.
    try statement.bind(Varying(shape: .extra, a: 13, b: 14)).execute()
    try statement.bind(Varying(shape: .extra, a: 15, b: 16)).execute()
    #expect(
      try db.fetchAll(String.self, sql: "SELECT a || ':' || b FROM t ORDER BY a")
        == ["1:2", "3:4", "7:8", "9:10", "11:12", "13:14", "15:16"])
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

/// Each statement reuses one keyed container per `CodingKeys` type from row to row (and each encoder
/// sink from value to value): these tests pin what a kept container may and may not do then.
@Suite struct ReusedContainerTests {
  final class Slot<Value>: @unchecked Sendable {  // used by one test at a time, on its thread
    var value: Value?
  }

  /// Keeps its container in `slot`, and reads `x` through the container `previous` holds when there is one.
  struct Reader: Decodable {
    nonisolated(unsafe) static var slot = Slot<KeyedDecodingContainer<CodingKeys>>()
    nonisolated(unsafe) static var previous = Slot<KeyedDecodingContainer<CodingKeys>>()
    var x: Int
    var throughPrevious: Int?
    enum CodingKeys: String, CodingKey { case x }
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      x = try container.decode(Int.self, forKey: .x)
      throughPrevious = try Self.previous.value?.decode(Int.self, forKey: .x)
      Self.slot.value = container
    }
  }

  @Test func aContainerKeptFromOneRowThrowsBetweenDecodesAndReadsTheCurrentRowDuringOne() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
    let statement = try db.prepare(sql: "SELECT x FROM t ORDER BY x")
    Reader.previous.value = nil
    let first = try #require(try statement.step())
    #expect(try first.decode(Reader.self).x == 1)
    let kept = try #require(Reader.slot.value)
    // Between decodes, the kept container reads nothing.
    #expect(throws: DatabaseError.self) { _ = try kept.decode(Int.self, forKey: .x) }
    // During the next row's decode of the same statement, it reads that row, never the old one.
    Reader.previous.value = kept
    let second = try #require(try statement.step())
    let decoded = try second.decode(Reader.self)
    #expect(decoded.x == 2)
    #expect(decoded.throughPrevious == 2)
    Reader.previous.value = nil
    #expect(throws: DatabaseError.self) { _ = try kept.decode(Int.self, forKey: .x) }
  }

  @Test func aContainerKeptFromAReleasedStatementThrowsDuringAnotherStatementsDecode() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (7)")
    Reader.previous.value = nil
    do {
      let statement = try db.prepare(sql: "SELECT x FROM t")
      #expect(try statement.decodeFirst(Reader.self)?.x == 7)
    }
    let kept = try #require(Reader.slot.value)
    // The released statement's scope gave its cell back; the new statement's decode likely reuses it,
    // and must not let the kept container through to the freed statement.
    Reader.previous.value = kept
    defer { Reader.previous.value = nil }
    let other = try db.prepare(sql: "SELECT x + 1 AS x FROM t")
    #expect(throws: DatabaseError.self) { _ = try other.decodeFirst(Reader.self) }
  }

  struct Point: Codable, Equatable { var x: Int; var y: Int }
  struct Label: Codable, Equatable { var y: Int; var name: String }

  @Test func oneStatementDecodesAndEncodesTypesInTurn() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x, y, name)")
    let insert = try db.prepare(sql: "INSERT INTO t VALUES (:x, :y, :name)")
    struct Row3: Encodable { var x: Int; var y: Int; var name: String }
    struct Reordered: Encodable { var name: String; var y: Int; var x: Int }
    for i in 0..<4 {
      // Two key types in turn through the statement's reused containers.
      if i % 2 == 0 {
        try insert.bind(Row3(x: i, y: i * 10, name: "p\(i)")).execute()
      } else {
        try insert.bind(Reordered(name: "d\(i)", y: i * 10, x: i)).execute()
      }
    }
    let select = try db.prepare(sql: "SELECT x, y, name FROM t ORDER BY x")
    var points: [Point] = []
    var labels: [Label] = []
    while let row = try select.step() {
      points.append(try row.decode(Point.self))
      labels.append(try row.decode(Label.self))
    }
    #expect(points == (0..<4).map { Point(x: $0, y: $0 * 10) })
    #expect(labels.map(\.name) == ["p0", "d1", "p2", "d3"])
    #expect(labels.map(\.y) == [0, 10, 20, 30])
  }

  /// Keeps its encoding container, and writes `b` through the one `previous` holds (else itself).
  struct Writer: Encodable {
    nonisolated(unsafe) static var slot = Slot<KeyedEncodingContainer<CodingKeys>>()
    nonisolated(unsafe) static var previous = Slot<KeyedEncodingContainer<CodingKeys>>()
    var a: Int
    enum CodingKeys: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(a, forKey: .a)
      if var previous = Self.previous.value {
        try previous.encode(a + 1000, forKey: .b)
      } else {
        try container.encode(0, forKey: .b)
      }
      Self.slot.value = container
    }
  }

  @Test func anEncodingContainerKeptFromOneValueWritesOnlyDuringALaterEncodeOfItsStatement() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    let insert = try db.prepare(sql: "INSERT INTO t VALUES (:a, :b)")
    Writer.previous.value = nil
    try insert.bind(Writer(a: 1)).execute()
    var kept = try #require(Writer.slot.value)
    #expect(throws: DatabaseError.self) { try kept.encode(5, forKey: .b) }
    Writer.previous.value = kept
    defer { Writer.previous.value = nil }
    try insert.bind(Writer(a: 2)).execute()
    // A different statement: the kept container belongs to the first one's sink, which is not encoding.
    let other = try db.prepare(sql: "INSERT INTO t VALUES (:a, :b)")
    #expect(throws: DatabaseError.self) { try other.bind(Writer(a: 3)) }
    #expect(try db.fetchAll(String.self, sql: "SELECT a || ',' || b FROM t ORDER BY a") == ["1,0", "2,1002"])
  }
}
