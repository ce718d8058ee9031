import Amalgam
import Foundation
import Testing

/// Every standard type `RowDecoder` reads directly, each in a width of its own.
private struct EveryWidth: Decodable, Equatable {
  var bool: Bool
  var string: String
  var double: Double
  var float: Float
  var int: Int
  var int8: Int8
  var int16: Int16
  var int32: Int32
  var int64: Int64
  var uint: UInt
  var uint8: UInt8
  var uint16: UInt16
  var uint32: UInt32
  var uint64: UInt64

  static let sql = """
    SELECT 1 AS bool, 'text' AS string, 2.25 AS double, 1.5 AS float, -42 AS int, -8 AS int8, -1600 AS int16,
      -320000 AS int32, -9223372036854775808 AS int64, 7 AS uint, 255 AS uint8, 65535 AS uint16,
      4294967295 AS uint32, 9223372036854775807 AS uint64
    """
  static let expected = EveryWidth(
    bool: true, string: "text", double: 2.25, float: 1.5, int: -42, int8: -8, int16: -1_600, int32: -320_000,
    int64: .min, uint: 7, uint8: 255, uint16: 65_535, uint32: .max, uint64: UInt64(Int64.max))
}

/// The same types as optionals: the synthesized `init(from:)` calls `decodeIfPresent` for each.
private struct EveryOptionalWidth: Decodable, Equatable {
  var bool: Bool?
  var string: String?
  var double: Double?
  var float: Float?
  var int: Int?
  var int8: Int8?
  var int16: Int16?
  var int32: Int32?
  var int64: Int64?
  var uint: UInt?
  var uint8: UInt8?
  var uint16: UInt16?
  var uint32: UInt32?
  var uint64: UInt64?
}

/// A value that decodes itself from a single value: `nil` for NULL, else an integer.
private struct MaybeNumber: Decodable, Equatable {
  var number: Int?
  init(_ number: Int?) { self.number = number }
  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    number = container.decodeNil() ? nil : try container.decode(Int.self)
  }
}

private struct Wrapped<Value: Decodable & Equatable>: Decodable, Equatable {
  var value: Value
}

/// Decodes `type` from the first row of `sql`.
private func decodeFirst<T: Decodable>(
  _ type: T.Type, _ sql: String, using decoder: RowDecoder = RowDecoder()
) throws -> T? {
  let db = try Database()
  return try db.prepare(sql: sql).decodeFirst(type, using: decoder)
}

@Suite struct RowDecoderCoverageTests {
  @Test func everyStandardTypeDecodesFromItsColumn() throws {
    #expect(try decodeFirst(EveryWidth.self, EveryWidth.sql) == EveryWidth.expected)
    let db = try Database()
    // Row.decode(_:using:) reads the same.
    let viaRow = try db.fetchAll(sql: EveryWidth.sql) { row in try row.decode(EveryWidth.self) }
    #expect(viaRow == [EveryWidth.expected])
  }

  @Test func everyOptionalStandardTypeDecodesNullAsNil() throws {
    let filled = try #require(try decodeFirst(EveryOptionalWidth.self, EveryWidth.sql))
    #expect(filled.int8 == -8)
    #expect(filled.uint64 == UInt64(Int64.max))
    #expect(filled.float == 1.5)
    #expect(filled.bool == true)
    let names = [
      "bool", "string", "double", "float", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
      "uint32", "uint64",
    ]
    let nulls = "SELECT " + names.map { "NULL AS \($0)" }.joined(separator: ", ")
    #expect(try decodeFirst(EveryOptionalWidth.self, nulls) == EveryOptionalWidth())
  }

  @Test(arguments: [
    ("SELECT 300 AS value", "Int8"), ("SELECT -1 AS value", "UInt8"), ("SELECT 70000 AS value", "Int16"),
    ("SELECT 1.5 AS value", "UInt32"), ("SELECT 'x' AS value", "Bool"), ("SELECT NULL AS value", "Float"),
  ])
  func aValueOutsideThePropertysTypeThrowsNamingTheColumn(sql: String, type: String) throws {
    func decode<T: Decodable & Equatable>(_: T.Type) throws { _ = try decodeFirst(Wrapped<T>.self, sql) }
    do {
      switch type {
      case "Int8": try decode(Int8.self)
      case "UInt8": try decode(UInt8.self)
      case "Int16": try decode(Int16.self)
      case "UInt32": try decode(UInt32.self)
      case "Bool": try decode(Bool.self)
      default: try decode(Float.self)
      }
      Issue.record("expected a conversion error for \(type)")
    } catch let DatabaseError.conversionFailed(column, failedType, _, _) {
      #expect(column == "\"value\" (column 0)")
      #expect(failedType == type)
    }
  }

  @Test func foundationTypesDecodeFromTheirStorageForm() throws {
    struct Values: Decodable, Equatable {
      var data: Data
      var uuid: UUID
      var url: URL
      var decimal: Decimal
      var date: Date
      var bytes: [UInt8]
      var noDate: Date?
    }
    let values = try #require(
      try decodeFirst(
        Values.self,
        """
        SELECT x'DEAD' AS data, '6ba7b810-9dad-11d1-80b4-00c04fd430c8' AS uuid, 'https://sqlite.org/' AS url,
          '12.345' AS decimal, '1970-01-01 00:01:00' AS date, x'010203' AS bytes, NULL AS noDate
        """))
    #expect(
      values
        == Values(
          data: Data([0xDE, 0xAD]), uuid: UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!,
          url: URL(string: "https://sqlite.org/")!, decimal: Decimal(string: "12.345")!,
          date: Date(timeIntervalSince1970: 60), bytes: [1, 2, 3], noDate: nil))
  }

  @Test func singleValueTypesReadEveryStorageClass() throws {
    // NULL and INTEGER reach a single-value type as JSON `null` and a number.
    #expect(try decodeFirst(Wrapped<MaybeNumber>.self, "SELECT NULL AS value")?.value == MaybeNumber(nil))
    #expect(try decodeFirst(Wrapped<MaybeNumber>.self, "SELECT 12 AS value")?.value == MaybeNumber(12))
    // REAL as a JSON number, for a type that is not ColumnConvertible.
    struct Ratio: Decodable, Equatable {
      var value: Double
      init(_ value: Double) { self.value = value }
      init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    }
    #expect(try decodeFirst(Wrapped<Ratio>.self, "SELECT 0.25 AS value")?.value == Ratio(0.25))
    // At the top level, the first column is the single value.
    #expect(try decodeFirst(MaybeNumber.self, "SELECT NULL, 'ignored'") == MaybeNumber(nil))
    #expect(try decodeFirst(MaybeNumber.self, "SELECT 5") == MaybeNumber(5))
    #expect(try decodeFirst(Int?.self, "SELECT NULL") == .some(nil))
  }

  /// Regression: a top-level `Date`, `Data`, `URL` or `Decimal` decoded through its own Codable form
  /// (seconds since 2001, an array of byte columns, keyed containers) instead of from the column.
  @Test func columnTypesAtTheTopLevelReadTheFirstColumnInTheDecodersFormat() throws {
    let db = try Database()
    #expect(try decodeFirst(Date.self, "SELECT 86400") == Date(timeIntervalSince1970: 86_400))
    #expect(
      try db.prepare(sql: "SELECT '1970-01-02 00:00:00' UNION ALL SELECT 60").decodeAll(Date.self)
        == [Date(timeIntervalSince1970: 86_400), Date(timeIntervalSince1970: 60)])
    #expect(
      try decodeFirst(Date.self, "SELECT 2440588.5", using: RowDecoder(dateFormat: .julianDay))
        == Date(timeIntervalSince1970: 86_400))
    // Optional dates too, at the top level and in columns read in order.
    let julian = RowDecoder(dateFormat: .julianDay)
    #expect(try decodeFirst(Date?.self, "SELECT 2440588.5", using: julian) == Date(timeIntervalSince1970: 86_400))
    #expect(try decodeFirst(Date?.self, "SELECT NULL", using: julian) == .some(nil))
    #expect(
      try decodeFirst([Date?].self, "SELECT 2440588.5, NULL", using: julian) == [
        Date(timeIntervalSince1970: 86_400), nil,
      ])
    #expect(
      try decodeFirst([Date?].self, "SELECT NULL, '1970-01-02 00:00:00'") == [nil, Date(timeIntervalSince1970: 86_400)])
    #expect(try decodeFirst(Data.self, "SELECT x'0102', x'03'") == Data([1, 2]))
    #expect(try decodeFirst(URL.self, "SELECT 'https://sqlite.org/'") == URL(string: "https://sqlite.org/"))
    #expect(try decodeFirst(Decimal.self, "SELECT '0.1'") == Decimal(string: "0.1"))
    #expect(try decodeFirst(UUID?.self, "SELECT NULL") == .some(nil))
    // A conversion error names the column, as for a property.
    do {
      _ = try decodeFirst(URL.self, "SELECT 42 AS link")
      Issue.record("expected a conversion error")
    } catch let DatabaseError.conversionFailed(column, type, found, _) {
      #expect(column == "\"link\" (column 0)")
      #expect(type == "URL")
      #expect(found == "INTEGER 42")
    }
    let fetched = try db.fetchAll(Date.self, sql: "SELECT 60")
    #expect(fetched == [Date(timeIntervalSince1970: 60)])
  }

  @Test func structuredValuesDecodeFromJSONInTextOrBlob() throws {
    struct Point: Decodable, Equatable { var x: Int }
    #expect(try decodeFirst(Wrapped<Point>.self, #"SELECT '{"x": 1}' AS value"#)?.value == Point(x: 1))
    // Leading white space before the JSON is allowed.
    #expect(try decodeFirst(Wrapped<[Int]>.self, "SELECT ' \n\t[1, 2]' AS value")?.value == [1, 2])
    // A BLOB holds the JSON bytes themselves (as `jsonb` does not: that is a binary format).
    #expect(try decodeFirst(Wrapped<Point>.self, #"SELECT CAST('{"x": 2}' AS BLOB) AS value"#)?.value == Point(x: 2))
    #expect(try decodeFirst(Wrapped<[String: Int]>.self, #"SELECT '{"a": 3}' AS value"#)?.value == ["a": 3])
  }

  @Test func aColumnThatIsNotTheJSONOfItsTypeThrowsNamingTypeColumnAndValue() throws {
    struct Point: Decodable, Equatable { var x: Int }
    let cases = [
      ("SELECT 5 AS value", "INTEGER 5"), ("SELECT 2.5 AS value", "REAL 2.5"), ("SELECT NULL AS value", "NULL"),
      ("SELECT x'00' AS value", "BLOB of 1 bytes"), ("SELECT 'plain' AS value", "TEXT \"plain\""),
    ]
    for (sql, summary) in cases {
      #expect {
        _ = try decodeFirst(Wrapped<Point>.self, sql)
      } throws: { error in
        guard case DatabaseError.codingFailed(let message) = error else { return false }
        return message.hasPrefix("Cannot decode Point from column \"value\" (column 0) (\(summary)): ")
      }
    }
  }

  @Test func arraysAndUnkeyedTypesReadTheColumnsInOrder() throws {
    #expect(try decodeFirst([Int].self, "SELECT 1, 2, 3") == [1, 2, 3])
    #expect(try decodeFirst([String?].self, "SELECT 'a', NULL, 'c'") == ["a", nil, "c"])

    struct Triple: Decodable, Equatable {
      var count: Int?
      var first: Int
      var second: String?
      var third: Point
      var atEnd: Bool
      struct Point: Decodable, Equatable { var x: Int }
      init(count: Int?, first: Int, second: String?, third: Point, atEnd: Bool) {
        (self.count, self.first, self.second, self.third, self.atEnd) = (count, first, second, third, atEnd)
      }
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        #expect(container.codingPath.isEmpty)
        count = container.count
        first = try container.decode(Int.self)
        second = try container.decodeIfPresent(String.self)
        third = try container.decode(Point.self)
        atEnd = container.isAtEnd
      }
    }
    #expect(
      try decodeFirst(Triple.self, #"SELECT 1, NULL, '{"x": 9}'"#)
        == Triple(count: 3, first: 1, second: nil, third: .init(x: 9), atEnd: true))
    #expect(
      try decodeFirst(Triple.self, #"SELECT 1, 'two', '{"x": 9}', 'more'"#)
        == Triple(count: 4, first: 1, second: "two", third: .init(x: 9), atEnd: false))
    // Reading past the last column throws rather than reading out of bounds.
    #expect(throws: DatabaseError.self) { _ = try decodeFirst([Int].self, "SELECT 1, 'x'") }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 1, count: 1)) {
      _ = try decodeFirst(Triple.self, "SELECT 1")
    }
  }

  @Test func unkeyedContainersRefuseNestingButOfferASuperDecoder() throws {
    struct NestedKeyed: Decodable {
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        _ = try container.nestedContainer(keyedBy: AnyKey.self)
      }
    }
    struct NestedUnkeyed: Decodable {
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        _ = try container.nestedUnkeyedContainer()
      }
    }
    struct ViaSuper: Decodable {
      var first: Int
      var second: String
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        // The super decoder reads the same row from its first column, by name too.
        let superDecoder = try container.superDecoder()
        first = try superDecoder.singleValueContainer().decode(Int.self)
        second = try superDecoder.container(keyedBy: AnyKey.self).decode(String.self, forKey: AnyKey("b"))
      }
    }
    let message = "Nested containers are not supported in a row"
    #expect(throws: DatabaseError.codingFailed(message)) { _ = try decodeFirst(NestedKeyed.self, "SELECT 1") }
    #expect(throws: DatabaseError.codingFailed(message)) { _ = try decodeFirst(NestedUnkeyed.self, "SELECT 1") }
    let viaSuper = try #require(try decodeFirst(ViaSuper.self, "SELECT 7 AS a, 'bee' AS b"))
    #expect(viaSuper.first == 7)
    #expect(viaSuper.second == "bee")
  }

  @Test func aDictionaryDecodesEveryColumnByName() throws {
    #expect(try decodeFirst([String: Int].self, "SELECT 1 AS a, 2 AS b") == ["a": 1, "b": 2])
    let withNull: [String: String?] = ["a": "x", "b": nil]
    #expect(try decodeFirst([String: String?].self, "SELECT 'x' AS a, NULL AS b") == withNull)
  }

  @Test func keyedContainersRefuseNestedContainersNamingTheColumn() throws {
    struct Nested: Decodable {
      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        #expect(container.codingPath.isEmpty)
        #expect(decoder.codingPath.isEmpty)
        #expect(decoder.userInfo.isEmpty)
        _ = try container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("address"))
      }
    }
    struct NestedUnkeyed: Decodable {
      init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(forKey: AnyKey("tags"))
      }
    }
    let message = "nested containers are not supported; make the property a Decodable type stored as JSON"
    #expect(throws: DatabaseError.codingFailed("Column \"address\": " + message)) {
      _ = try decodeFirst(Nested.self, "SELECT 1 AS address")
    }
    #expect(throws: DatabaseError.codingFailed("Column \"tags\": " + message)) {
      _ = try decodeFirst(NestedUnkeyed.self, "SELECT 1 AS tags")
    }
  }

  @Test func superDecodersReadTheSameRowForAParentClass() throws {
    class Base: Decodable {
      let id: Int
      private enum CodingKeys: String, CodingKey { case id }
      required init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .id)
      }
    }
    final class Child: Base {
      let name: String
      private enum CodingKeys: String, CodingKey { case name, parent }
      required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        // Both forms of superDecoder read the same row: the parent's properties are columns too.
        let keyed = try Base(from: container.superDecoder(forKey: .parent))
        try super.init(from: container.superDecoder())
        #expect(keyed.id == id)
      }
    }
    let child = try #require(try decodeFirst(Child.self, "SELECT 'kid' AS name, 4 AS id"))
    #expect(child.id == 4)
    #expect(child.name == "kid")
  }

  @Test func decodeNilReadsTheNamedColumn() throws {
    struct Flags: Decodable, Equatable {
      var a: Bool
      var b: Bool
      var missing: Bool
      init(a: Bool, b: Bool, missing: Bool) { (self.a, self.b, self.missing) = (a, b, missing) }
      init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        a = try container.decodeNil(forKey: AnyKey("a"))
        b = try container.decodeNil(forKey: AnyKey("b"))
        missing = container.contains(AnyKey("c"))
      }
    }
    #expect(try decodeFirst(Flags.self, "SELECT 1 AS a, NULL AS b") == Flags(a: false, b: true, missing: false))
  }

  @Test func decodeFirstOfNoRowIsNilAndResetsTheStatement() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1);")
    let statement = try db.prepare(sql: "SELECT n FROM t WHERE n > ?")
    try statement.bind(parameterValues: [5])
    #expect(try statement.decodeFirst(Int.self) == nil)
    try statement.bind(parameterValues: [0])
    #expect(try statement.decodeFirst(Int.self) == 1)
    #expect(try statement.decodeFirst(Int.self) == 1)
  }
}

/// A coding key for any name.
private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
