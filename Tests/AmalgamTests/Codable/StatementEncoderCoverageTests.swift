import Amalgam
import Foundation
import Testing

/// Every standard type `StatementEncoder` binds directly, each in a width of its own.
private struct EveryWidth: Encodable {
  var bool = true
  var string = "text"
  var double = 2.25
  var float: Float = 1.5
  var int = -42
  var int8: Int8 = -8
  var int16: Int16 = -1_600
  var int32: Int32 = -320_000
  var int64 = Int64.min
  var uint: UInt = 7
  var uint8: UInt8 = 255
  var uint16: UInt16 = 65_535
  var uint32 = UInt32.max
  var uint64 = UInt64(Int64.max)

  static let names = [
    "bool", "string", "double", "float", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
    "uint32", "uint64",
  ]
  static let expected: [DatabaseValue] = [
    .integer(1), .text("text"), .real(2.25), .real(1.5), .integer(-42), .integer(-8), .integer(-1_600),
    .integer(-320_000), .integer(Int64.min), .integer(7), .integer(255), .integer(65_535),
    .integer(Int64(UInt32.max)), .integer(Int64.max),
  ]
}

/// The same types as optionals: the synthesized `encode(to:)` calls `encodeIfPresent` for each.
private struct EveryOptionalWidth: Encodable {
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

  static let filled = EveryOptionalWidth(
    bool: false, string: "", double: -0.5, float: 0.25, int: 1, int8: Int8.max, int16: Int16.min, int32: 32,
    int64: 64, uint: 0, uint8: 8, uint16: 16, uint32: 32, uint64: 64)
  static let filledValues: [DatabaseValue] = [
    .integer(0), .text(""), .real(-0.5), .real(0.25), .integer(1), .integer(127), .integer(-32_768),
    .integer(32), .integer(64), .integer(0), .integer(8), .integer(16), .integer(32), .integer(64),
  ]
}

/// A value that encodes itself as one single value, chosen by the case.
private enum Single: Encodable {
  case text(String)
  case number(Int)
  case real(Double)
  case flag(Bool)
  case none

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .text(let text): try container.encode(text)
    case .number(let number): try container.encode(number)
    case .real(let real): try container.encode(real)
    case .flag(let flag): try container.encode(flag)
    case .none: try container.encodeNil()
    }
  }
}

private struct Holder<Value: Encodable>: Encodable {
  var value: Value
}

private struct OptionalHolder<Value: Encodable>: Encodable {
  var value: Value?
}

/// Binds `value` to `SELECT` of each name as a parameter, and returns the row the statement produced.
private func boundRow<T: Encodable>(_ value: T, names: [String], encoder: StatementEncoder = StatementEncoder()) throws
  -> [DatabaseValue]
{
  let db = try Database()
  let statement = try db.prepare(sql: "SELECT " + names.map { ":" + $0 }.joined(separator: ", "))
  try statement.bind(value, using: encoder)
  return try #require(try statement.firstRow())
}

/// Encodes `value` into a dictionary and by binding a statement, and checks both give `expected`.
private func expectEncoding<T: Encodable>(
  _ value: T, names: [String], _ expected: [DatabaseValue], sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let dictionary = try StatementEncoder().encode(value)
  #expect(
    dictionary == Dictionary(uniqueKeysWithValues: zip(names, expected)), sourceLocation: sourceLocation)
  #expect(try boundRow(value, names: names) == expected, sourceLocation: sourceLocation)
}

@Suite struct StatementEncoderCoverageTests {
  @Test func everyStandardTypeEncodesToItsStorageClass() throws {
    try expectEncoding(EveryWidth(), names: EveryWidth.names, EveryWidth.expected)
  }

  @Test func everyOptionalStandardTypeBindsItsValueOrNull() throws {
    try expectEncoding(EveryOptionalWidth.filled, names: EveryWidth.names, EveryOptionalWidth.filledValues)
    // nil binds NULL rather than being skipped: a skipped property would leave its parameter unbound
    // and the statement's binding would throw `missingParameter`.
    try expectEncoding(
      EveryOptionalWidth(), names: EveryWidth.names, Array(repeating: .null, count: EveryWidth.names.count))
  }

  @Test func anUnsignedIntegerBeyondInt64Throws() throws {
    var value = EveryWidth()
    value.uint64 = UInt64(Int64.max) + 1
    let isUnrepresentable: (any Error) -> Bool = { error in
      guard case DatabaseError.unrepresentableValue(let type, let text, _) = error else { return false }
      return type == "UInt64" && text == "9223372036854775808"
    }
    #expect(performing: { try StatementEncoder().encode(value) }, throws: isUnrepresentable)
    #expect(performing: { try boundRow(value, names: EveryWidth.names) }, throws: isUnrepresentable)
    let optional = EveryOptionalWidth(uint64: UInt64(Int64.max) + 1)
    #expect(performing: { try StatementEncoder().encode(optional) }, throws: isUnrepresentable)
    #expect(performing: { try boundRow(optional, names: EveryWidth.names) }, throws: isUnrepresentable)
  }

  @Test func foundationTypesBindInTheirStorageForm() throws {
    struct Values: Encodable {
      var data = Data([0xDE, 0xAD])
      var uuid = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!
      var url = URL(string: "https://sqlite.org/lang.html")!
      var decimal = Decimal(string: "12.345")!
      var date = Date(timeIntervalSince1970: 0)
      var bytes: [UInt8] = [1, 2, 3]
      var optionalDate: Date? = Date(timeIntervalSince1970: 60)
      var noDate: Date?
      var noURL: URL?
    }
    let names = ["data", "uuid", "url", "decimal", "date", "bytes", "optionalDate", "noDate", "noURL"]
    try expectEncoding(
      Values(), names: names,
      [
        .blob(Data([0xDE, 0xAD])), .text("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
        .text("https://sqlite.org/lang.html"), .text("12.345"), .text("1970-01-01 00:00:00.000"),
        .blob(Data([1, 2, 3])), .text("1970-01-01 00:01:00.000"), .null, .null,
      ])
    // The encoder's date format applies to optional dates too, in both paths.
    let unix = StatementEncoder(dateFormat: .unixTime)
    #expect(try unix.encode(Values())["optionalDate"] == .real(60))
    #expect(try boundRow(Values(), names: ["date", "optionalDate"], encoder: unix) == [.real(0), .real(60)])
  }

  @Test func aDecimalNaNThrowsInsteadOfBindingText() throws {
    let isNaN: (any Error) -> Bool = { error in
      guard case DatabaseError.unrepresentableValue(let type, _, _) = error else { return false }
      return type == "Decimal"
    }
    #expect(performing: { try StatementEncoder().encode(Holder(value: Decimal.nan)) }, throws: isNaN)
    #expect(performing: { try boundRow(Holder(value: Decimal.nan), names: ["value"]) }, throws: isNaN)
  }

  @Test func singleValuesStoreThemselvesInTheirStorageClass() throws {
    let cases: [(Single, DatabaseValue)] = [
      (.text("hi \"there\""), .text("hi \"there\"")), (.number(-12), .integer(-12)), (.real(0.5), .real(0.5)),
      (.flag(true), .integer(1)), (.flag(false), .integer(0)), (.none, .null),
    ]
    for (single, expected) in cases {
      try expectEncoding(Holder(value: single), names: ["value"], [expected])
      // The same through `encodeIfPresent`, present and absent.
      try expectEncoding(OptionalHolder(value: single), names: ["value"], [expected])
    }
    try expectEncoding(OptionalHolder<Single>(value: nil), names: ["value"], [.null])
  }

  @Test func structuredValuesAreStoredAsJSONText() throws {
    struct Point: Encodable { var x: Int }
    try expectEncoding(Holder(value: Point(x: 3)), names: ["value"], [.text(#"{"x":3}"#)])
    try expectEncoding(Holder(value: ["a", "b"]), names: ["value"], [.text(#"["a","b"]"#)])
    try expectEncoding(Holder(value: ["k": 1]), names: ["value"], [.text(#"{"k":1}"#)])
    try expectEncoding(OptionalHolder(value: [1, 2]), names: ["value"], [.text("[1,2]")])
  }

  @Test func aValueJSONCannotEncodeThrowsCodingFailedNamingItsType() throws {
    struct Measure: Encodable { var value: Double }
    let isCodingFailure: (any Error) -> Bool = { error in
      guard case DatabaseError.codingFailed(let message) = error else { return false }
      return message.hasPrefix("Cannot encode Measure")
    }
    let value = Holder(value: Measure(value: .nan))
    #expect(performing: { try StatementEncoder().encode(value) }, throws: isCodingFailure)
    #expect(performing: { try boundRow(value, names: ["value"]) }, throws: isCodingFailure)
  }

  @Test func superEncodersWriteTheParentsPropertiesToTheSameParameters() throws {
    class Base: Encodable {
      var id = 1
      private enum CodingKeys: String, CodingKey { case id }
    }
    final class Child: Base {
      var name = "child"
      var useKey: Bool
      init(useKey: Bool) { self.useKey = useKey }
      private enum CodingKeys: String, CodingKey { case name, parent }
      override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: useKey ? container.superEncoder(forKey: .parent) : container.superEncoder())
      }
    }
    for useKey in [false, true] {
      try expectEncoding(Child(useKey: useKey), names: ["id", "name"], [.integer(1), .text("child")])
    }
  }

  @Test func anEncoderWithoutANameForTheValueThrows() throws {
    let positional = "StatementEncoder encodes keyed values (structs, classes) into named parameters only"
    try expectCodingFailure([1, 2], positional)
    try expectCodingFailure(5, positional)
    try expectCodingFailure(Single.none, positional)
  }

  @Test(arguments: Shape.allCases)
  func unsupportedContainerShapesThrowSayingWhy(shape: Shape) throws {
    try expectCodingFailure(ShapedValue(shape: shape), shape.message)
  }

  /// A value that writes itself through a container shape the encoder does not support.
  struct ShapedValue: Encodable {
    var shape: Shape
    func encode(to encoder: any Encoder) throws { try shape.encode(to: encoder) }
  }

  /// The ways of writing a property through a container the encoder does not support.
  enum Shape: CaseIterable, Sendable, CustomTestStringConvertible {
    case nestedKeyed, nestedKeyedNil, nestedKeyedNested, nestedKeyedUnkeyed, nestedKeyedSuper, nestedKeyedSuperKey
    case nestedUnkeyed, unkeyedNil, unkeyedNestedKeyed, unkeyedNestedUnkeyed
    case unkeyedSuperKeyed, unkeyedSuperUnkeyed, unkeyedSuperSingle

    enum Key: String, CodingKey { case value, other }

    var testDescription: String { "\(self)" }

    var message: String {
      switch self {
      case .nestedKeyed, .nestedKeyedNil, .nestedKeyedNested, .nestedKeyedSuper, .nestedKeyedSuperKey,
        .unkeyedNestedKeyed, .unkeyedSuperKeyed:
        "StatementEncoder: nested containers are not supported"
      case .nestedKeyedUnkeyed, .nestedUnkeyed, .unkeyedNil, .unkeyedNestedUnkeyed, .unkeyedSuperUnkeyed,
        .unkeyedSuperSingle:
        "StatementEncoder encodes keyed values (structs, classes) into named parameters only"
      }
    }

    func encode(to encoder: any Encoder) throws {
      #expect(encoder.codingPath.isEmpty)
      #expect(encoder.userInfo.isEmpty)
      var container = encoder.container(keyedBy: Key.self)
      #expect(container.codingPath.isEmpty)
      switch self {
      case .nestedKeyed, .nestedKeyedNil, .nestedKeyedNested, .nestedKeyedUnkeyed, .nestedKeyedSuper,
        .nestedKeyedSuperKey:
        var nested = container.nestedContainer(keyedBy: Key.self, forKey: .value)
        #expect(nested.codingPath.isEmpty)
        switch self {
        case .nestedKeyedNil: try nested.encodeNil(forKey: .other)
        case .nestedKeyedNested:
          var deeper = nested.nestedContainer(keyedBy: Key.self, forKey: .other)
          try deeper.encode(1, forKey: .value)
        case .nestedKeyedUnkeyed:
          var deeper = nested.nestedUnkeyedContainer(forKey: .other)
          try deeper.encode(1)
        case .nestedKeyedSuper:
          var deeper = nested.superEncoder().container(keyedBy: Key.self)
          try deeper.encode(1, forKey: .value)
        case .nestedKeyedSuperKey:
          var deeper = nested.superEncoder(forKey: .other).container(keyedBy: Key.self)
          try deeper.encode(1, forKey: .value)
        default: try nested.encode(1, forKey: .other)
        }
      default:
        var unkeyed = container.nestedUnkeyedContainer(forKey: .value)
        #expect(unkeyed.codingPath.isEmpty)
        #expect(unkeyed.count == 0)
        switch self {
        case .unkeyedNil: try unkeyed.encodeNil()
        case .unkeyedNestedKeyed:
          var deeper = unkeyed.nestedContainer(keyedBy: Key.self)
          try deeper.encode(1, forKey: .value)
        case .unkeyedNestedUnkeyed:
          var deeper = unkeyed.nestedUnkeyedContainer()
          try deeper.encode(1)
        case .unkeyedSuperKeyed:
          let superEncoder = unkeyed.superEncoder()
          #expect(superEncoder.codingPath.isEmpty)
          #expect(superEncoder.userInfo.isEmpty)
          var deeper = superEncoder.container(keyedBy: Key.self)
          try deeper.encode(1, forKey: .value)
        case .unkeyedSuperUnkeyed:
          var deeper = unkeyed.superEncoder().unkeyedContainer()
          try deeper.encode(1)
        case .unkeyedSuperSingle:
          var deeper = unkeyed.superEncoder().singleValueContainer()
          try deeper.encode(1)
        default: try unkeyed.encode(1)
        }
      }
    }
  }
}

/// Checks that encoding `value`, into a dictionary and into a statement, throws `codingFailed(message)`.
private func expectCodingFailure<T: Encodable>(
  _ value: T, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
  #expect(throws: DatabaseError.codingFailed(message), sourceLocation: sourceLocation) {
    try StatementEncoder().encode(value)
  }
  let db = try Database()
  let statement = try db.prepare(sql: "SELECT :value")
  #expect(throws: DatabaseError.codingFailed(message), sourceLocation: sourceLocation) {
    try statement.bind(value)
  }
  // The failed binding leaves the statement usable.
  try statement.bind(Holder(value: 9))
  #expect(try statement.firstRow() == [.integer(9)])
}
