import Amalgam
import Foundation
import Testing

/// Binds `value` to `SELECT ?1, typeof(?1)` and returns what SQLite stored and its storage class.
private func stored(_ value: (any ParameterBindable)?, in db: Database) throws -> (DatabaseValue, String) {
  let row = try #require(try db.prepare(sql: "SELECT ?1, typeof(?1)").bind(parameterValues: [value]).firstRow())
  guard case .text(let type) = row[1] else { throw TestError(id: -1) }
  return (row[0], type)
}

/// Binds `value` and reads it back as `T`.
private func roundTrip<T: ParameterBindable & ColumnConvertible>(_ value: T, in db: Database) throws -> T? {
  try db.prepare(sql: "SELECT ?").bind(parameterValues: [value]).front(T.self)
}

/// The parts of a `conversionFailed` error thrown by `body`, or nil (with a recorded issue) otherwise.
private func conversionFailure(
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> (column: String?, type: String, found: String, reason: String)? {
  let error = #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) { try body() }
  guard case .conversionFailed(let column, let type, let found, let reason) = error else {
    if error != nil {
      Issue.record("expected conversionFailed, got \(String(describing: error))", sourceLocation: sourceLocation)
    }
    return nil
  }
  return (column, type, found, reason)
}

@Suite("Conversions: integers")
struct IntegerConversionTests {
  private func expectRoundTrip<T: DatabaseInteger>(
    _ value: T, in db: Database, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let (value64, type) = try stored(value, in: db)
    #expect(type == "integer", sourceLocation: sourceLocation)
    #expect(value64 == .integer(Int64(value)), sourceLocation: sourceLocation)
    #expect(try roundTrip(value, in: db) == value, sourceLocation: sourceLocation)
    #expect(try value.databaseValue() == .integer(Int64(value)), sourceLocation: sourceLocation)
    #expect(try T(databaseValue: .integer(Int64(value))) == value, sourceLocation: sourceLocation)
  }

  @Test func everyIntegerWidthRoundTripsItsMinimumZeroAndMaximum() throws {
    let db = try Database()
    for value in [Int8.min, -1, 0, 1, Int8.max] { try expectRoundTrip(value, in: db) }
    for value in [Int16.min, 0, Int16.max] { try expectRoundTrip(value, in: db) }
    for value in [Int32.min, 0, Int32.max] { try expectRoundTrip(value, in: db) }
    for value in [Int64.min, -1, 0, Int64.max] { try expectRoundTrip(value, in: db) }
    for value in [Int.min, 0, Int.max] { try expectRoundTrip(value, in: db) }
    for value in [UInt8.min, 200, UInt8.max] { try expectRoundTrip(value, in: db) }
    for value in [UInt16.min, UInt16.max] { try expectRoundTrip(value, in: db) }
    for value in [UInt32.min, UInt32.max] { try expectRoundTrip(value, in: db) }
    for value in [UInt64.min, UInt64(Int64.max)] { try expectRoundTrip(value, in: db) }
    for value in [UInt.min, UInt(Int64.max)] { try expectRoundTrip(value, in: db) }
  }

  @Test func int64ExtremesAreStoredExactly() throws {
    let db = try Database()
    #expect(try db.fetchOne(Bool.self, sql: "SELECT ? = 9223372036854775807", arguments: [Int64.max]) == true)
    #expect(try db.fetchOne(Bool.self, sql: "SELECT ? = -9223372036854775808", arguments: [Int64.min]) == true)
    #expect(try db.fetchOne(Int64.self, sql: "SELECT 9223372036854775807") == Int64.max)
    #expect(try db.fetchOne(Int64.self, sql: "SELECT -9223372036854775808") == Int64.min)
    #expect(try db.fetchOne(Int64.self, sql: "SELECT ? - 1", arguments: [Int64.max]) == Int64.max - 1)
  }

  @Test func readingAValueOutsideTheTargetRangeThrowsConversionFailed() throws {
    let db = try Database()
    let row300 = try #require(try db.prepare(sql: "SELECT 300 AS v").step())
    let failure = conversionFailure { _ = try row300.value(at: 0, as: UInt8.self) }
    #expect(failure?.column?.contains("v") == true)
    #expect(failure?.type == "UInt8")
    #expect(failure?.found == "INTEGER 300")
    #expect(failure?.reason.contains("300") == true)

    #expect(conversionFailure { _ = try db.fetchOne(Int8.self, sql: "SELECT 128") }?.found == "INTEGER 128")
    #expect(conversionFailure { _ = try db.fetchOne(Int8.self, sql: "SELECT -129") }?.found == "INTEGER -129")
    #expect(conversionFailure { _ = try db.fetchOne(UInt32.self, sql: "SELECT -1") }?.type == "UInt32")
    #expect(conversionFailure { _ = try db.fetchOne(UInt64.self, sql: "SELECT -1") }?.type == "UInt64")
    #expect(conversionFailure { _ = try db.fetchOne(UInt16.self, sql: "SELECT 65536") }?.type == "UInt16")
    #expect(conversionFailure { _ = try db.fetchOne(Int32.self, sql: "SELECT 2147483648") }?.type == "Int32")
    #expect(conversionFailure { _ = try db.fetchOne(UInt8?.self, sql: "SELECT 300") }?.type == "UInt8")
    // Without a row there is no column to name.
    let direct = conversionFailure { _ = try UInt8(databaseValue: .integer(300)) }
    #expect(direct?.column == nil)
    #expect(direct?.found == "INTEGER 300")
  }

  @Test func bindingAnUnsignedValueAboveInt64MaxThrowsUnrepresentableValue() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?")
    for value in [UInt64.max, UInt64(Int64.max) + 1] {
      let error = #expect(throws: DatabaseError.self) { try statement.bind(value: value, toParameter: 1) }
      guard case .unrepresentableValue(let type, let text, _) = error else {
        Issue.record("expected unrepresentableValue, got \(String(describing: error))")
        continue
      }
      #expect(type == "UInt64")
      #expect(text == String(value))
      let direct = #expect(throws: DatabaseError.self) { _ = try value.databaseValue() }
      #expect(direct == error)
    }
    let error = #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT ?", parameterValues: [UInt.max]) }
    guard case .unrepresentableValue("UInt", "18446744073709551615", _) = error else {
      Issue.record("expected unrepresentableValue for UInt.max, got \(String(describing: error))")
      return
    }
  }

  @Test func wholeRealReadsAsIntegerButFractionalRealThrows() throws {
    let db = try Database()
    #expect(try db.fetchOne(Int.self, sql: "SELECT 3.0") == 3)
    #expect(try db.fetchOne(Int8.self, sql: "SELECT -2.0") == -2)
    #expect(try db.fetchOne(UInt64.self, sql: "SELECT 1e19") == 10_000_000_000_000_000_000)
    let fractional = conversionFailure { _ = try db.fetchOne(Int.self, sql: "SELECT 3.5") }
    #expect(fractional?.type == "Int")
    #expect(fractional?.found == "REAL 3.5")
    #expect(conversionFailure { _ = try db.fetchOne(UInt8.self, sql: "SELECT -2.0") }?.found == "REAL -2.0")
    #expect(conversionFailure { _ = try db.fetchOne(Int64.self, sql: "SELECT 1e19") }?.type == "Int64")
    #expect(conversionFailure { _ = try db.fetchOne(Int.self, sql: "SELECT 9e999") }?.type == "Int")
  }

  @Test func textAndBlobDoNotReadAsIntegers() throws {
    let db = try Database()
    let text = conversionFailure { _ = try db.fetchOne(Int.self, sql: "SELECT '12'") }
    #expect(text?.type == "Int")
    #expect(text?.found == "TEXT \"12\"")
    let blob = conversionFailure { _ = try db.fetchOne(Int.self, sql: "SELECT x'0C'") }
    #expect(blob?.found == "BLOB of 1 bytes")
  }
}

@Suite("Conversions: Bool, Double, Float")
struct NumberConversionTests {
  @Test func boolIsStoredAsOneAndZeroAndReadsSQLiteTruth() throws {
    let db = try Database()
    #expect(try stored(true, in: db) == (.integer(1), "integer"))
    #expect(try stored(false, in: db) == (.integer(0), "integer"))
    #expect(try roundTrip(true, in: db) == true)
    #expect(try roundTrip(false, in: db) == false)
    #expect(try db.fetchOne(Bool.self, sql: "SELECT 0") == false)
    #expect(try db.fetchOne(Bool.self, sql: "SELECT -7") == true)
    #expect(try db.fetchOne(Bool.self, sql: "SELECT TRUE") == true)
    #expect(try db.fetchOne(Bool.self, sql: "SELECT 1 > 2") == false)
    #expect(try db.fetchOne(Bool?.self, sql: "SELECT NULL") == nil)
    #expect(conversionFailure { _ = try db.fetchOne(Bool.self, sql: "SELECT 'true'") }?.type == "Bool")
  }

  @Test func doublesRoundTripExactly() throws {
    let db = try Database()
    let values: [Double] = [
      0.1, -1.5, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .pi,
      .infinity, -.infinity,
    ]
    for value in values {
      #expect(try stored(value, in: db) == (.real(value), "real"))
      #expect(try roundTrip(value, in: db) == value)
    }
  }

  @Test func nanIsStoredAsNull() throws {
    let db = try Database()
    #expect(try stored(Double.nan, in: db) == (.null, "null"))
    #expect(try roundTrip(Double.nan, in: db) == nil)
  }

  @Test func integersReadAsDoubleAndTextDoesNot() throws {
    let db = try Database()
    #expect(try db.fetchOne(Double.self, sql: "SELECT 42") == 42.0)
    #expect(try db.fetchOne(Double.self, sql: "SELECT 9223372036854775807") == 9.223372036854775807e18)
    #expect(try Double(databaseValue: .integer(-3)) == -3.0)
    let failure = conversionFailure { _ = try db.fetchOne(Double.self, sql: "SELECT '1.5'") }
    #expect(failure?.type == "Double")
    #expect(failure?.found == "TEXT \"1.5\"")
  }

  @Test func floatRoundTripsAndOutOfRangeValueThrows() throws {
    let db = try Database()
    for value: Float in [1.5, 0.1, -3.25, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity] {
      #expect(try stored(value, in: db) == (.real(Double(value)), "real"))
      #expect(try roundTrip(value, in: db) == value)
    }
    #expect(try db.fetchOne(Float.self, sql: "SELECT 7") == 7)
    let failure = conversionFailure { _ = try db.fetchOne(Float.self, sql: "SELECT 1e300 AS big") }
    #expect(failure?.type == "Float")
    #expect(failure?.column?.contains("big") == true)
    #expect(failure?.found == "REAL 1e+300")
    // An infinite REAL is in range.
    #expect(try db.fetchOne(Float.self, sql: "SELECT 9e999") == .infinity)
  }
}

@Suite("Conversions: text and bytes")
struct TextAndBlobConversionTests {
  @Test func stringWithEmbeddedNULRoundTripsExactly() throws {
    let db = try Database()
    let value = "a\u{0}b"
    #expect(try stored(value, in: db) == (.text(value), "text"))
    let back = try #require(try roundTrip(value, in: db))
    #expect(back == value)
    #expect(back.utf8.count == 3)
    #expect(Array(back.utf8) == [0x61, 0x00, 0x62])
    #expect(try db.fetchOne(Int.self, sql: "SELECT octet_length(?)", arguments: [value]) == 3)
    #expect(try db.fetchOne(String.self, sql: "SELECT hex(?)", arguments: [value]) == "610062")
    // Stored in a table and read back.
    try db.execute(sql: "CREATE TABLE t(v TEXT)")
    try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value])
    #expect(try db.fetchOne(String.self, sql: "SELECT v FROM t") == value)
    #expect(try db.fetchOne(DatabaseValue.self, sql: "SELECT v FROM t") == .text(value))
  }

  @Test func nonASCIIAndEmojiRoundTripByteForByte() throws {
    let db = try Database()
    // "e" + combining acute accent must not be normalised to "é" (Swift's == would not notice).
    let value = "👩‍👩‍👧 café e\u{301} ñ 日本語 Ωmega 𝄞"
    let back = try #require(try roundTrip(value, in: db))
    #expect(Array(back.utf8) == Array(value.utf8))
    #expect(back.utf8.count == value.utf8.count)
    #expect(back.unicodeScalars.count == value.unicodeScalars.count)
    #expect(try db.fetchOne(Int.self, sql: "SELECT octet_length(?)", arguments: [value]) == value.utf8.count)
    #expect(try db.fetchOne(Int.self, sql: "SELECT length(?)", arguments: [value]) == value.unicodeScalars.count)
    #expect(try db.fetchOne(String.self, sql: "SELECT 'é' || '🙂'") == "é🙂")
  }

  @Test func emptyStringIsStoredAsEmptyTextNotNull() throws {
    let db = try Database()
    #expect(try stored("", in: db) == (.text(""), "text"))
    #expect(try db.fetchOne(Bool.self, sql: "SELECT ? IS NULL", arguments: [""]) == false)
    #expect(try db.fetchOne(Int.self, sql: "SELECT length(?)", arguments: [""]) == 0)
    #expect(try roundTrip("", in: db) == "")
    try db.execute(sql: "CREATE TABLE t(v)")
    try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [""])
    #expect(try db.fetchOne(String.self, sql: "SELECT typeof(v) FROM t") == "text")
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE v = ''") == 1)
    #expect(try db.fetchOne(String?.self, sql: "SELECT v FROM t") == "")
  }

  @Test func emptyDataIsStoredAsAnEmptyBlobNotNull() throws {
    let db = try Database()
    #expect(try stored(Data(), in: db) == (.blob(Data()), "blob"))
    #expect(try stored([UInt8](), in: db) == (.blob(Data()), "blob"))
    #expect(try stored(DatabaseValue.blob(Data()), in: db) == (.blob(Data()), "blob"))
    #expect(try db.fetchOne(Bool.self, sql: "SELECT ? IS NULL", arguments: [Data()]) == false)
    try db.execute(sql: "CREATE TABLE t(v)")
    try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [Data()])
    #expect(try db.fetchOne(String.self, sql: "SELECT typeof(v) FROM t") == "blob")
    #expect(try db.fetchOne(Int.self, sql: "SELECT length(v) FROM t") == 0)
    #expect(try db.fetchOne(Data?.self, sql: "SELECT v FROM t") == Data())
    #expect(try db.fetchOne([UInt8]?.self, sql: "SELECT v FROM t") == [])
    #expect(try db.fetchOne(Data.self, sql: "SELECT x''") == Data())
  }

  @Test func invalidUTF8TextThrowsAsStringButReadsAsBytes() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT CAST(x'FF' AS TEXT) AS bad, typeof(CAST(x'FF' AS TEXT))")
    let row = try #require(try statement.step())
    #expect(try row.value(at: 1, as: String.self) == "text")
    let failure = conversionFailure { _ = try row.value(at: 0, as: String.self) }
    #expect(failure?.column?.contains("bad") == true)
    #expect(failure?.type == "String")
    #expect(failure?.reason.contains("UTF-8") == true)
    #expect(conversionFailure { _ = try row.value(at: 0, as: String?.self) }?.type == "String")
    #expect(
      conversionFailure { _ = try row.value(named: "bad", as: DatabaseValue.self) }?.column?.contains("bad") == true)
    #expect(conversionFailure { _ = try row.values() } != nil)
    #expect(try row.value(at: 0, as: Data.self) == Data([0xFF]))
    #expect(try row.value(at: 0, as: [UInt8].self) == [0xFF])
  }

  @Test func byteArraysAndDataRoundTripAsBlobs() throws {
    let db = try Database()
    let bytes: [UInt8] = [0, 1, 127, 128, 255, 0]
    #expect(try stored(bytes, in: db) == (.blob(Data(bytes)), "blob"))
    #expect(try roundTrip(bytes, in: db) == bytes)
    let data = Data((0...255).map { UInt8($0) })
    #expect(try stored(data, in: db) == (.blob(data), "blob"))
    #expect(try roundTrip(data, in: db) == data)
    #expect(
      try db.fetchOne(String.self, sql: "SELECT hex(?)", arguments: [Data([0xDE, 0xAD, 0xBE, 0xEF])]) == "DEADBEEF")
  }

  @Test func textReadsAsItsUTF8BytesButBlobDoesNotReadAsString() throws {
    let db = try Database()
    #expect(try db.fetchOne(Data.self, sql: "SELECT 'héllo'") == Data("héllo".utf8))
    #expect(try db.fetchOne([UInt8].self, sql: "SELECT 'héllo'") == Array("héllo".utf8))
    let failure = conversionFailure { _ = try db.fetchOne(String.self, sql: "SELECT x'6869'") }
    #expect(failure?.type == "String")
    #expect(failure?.found == "BLOB of 2 bytes")
    #expect(conversionFailure { _ = try db.fetchOne(String.self, sql: "SELECT 5") }?.found == "INTEGER 5")
    #expect(conversionFailure { _ = try db.fetchOne(Data.self, sql: "SELECT 5") }?.type == "Data")
  }
}

@Suite("Conversions: UUID, URL, Decimal")
struct FoundationConversionTests {
  @Test func uuidIsStoredAsLowercaseTextAndRoundTrips() throws {
    let db = try Database()
    let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    #expect(try stored(uuid, in: db) == (.text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"), "text"))
    #expect(try roundTrip(uuid, in: db) == uuid)
    #expect(try db.fetchOne(UUID.self, sql: "SELECT 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'") == uuid)
  }

  @Test func uuidReadsFromASixteenByteBlob() throws {
    let db = try Database()
    let expected = try #require(UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF"))
    #expect(try db.fetchOne(UUID.self, sql: "SELECT x'00112233445566778899AABBCCDDEEFF'") == expected)
    let short = conversionFailure { _ = try db.fetchOne(UUID.self, sql: "SELECT x'00112233445566778899AABBCCDDEE'") }
    #expect(short?.type == "UUID")
    #expect(short?.found == "BLOB of 15 bytes")
    let text = conversionFailure { _ = try db.fetchOne(UUID.self, sql: "SELECT 'not-a-uuid'") }
    #expect(text?.found == "TEXT \"not-a-uuid\"")
  }

  #if ENABLE_EXTENSIONS
    @Test func uuidWorksWithTheUUIDExtensionFunctions() throws {
      let db = try Database()
      let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
      #expect(
        try db.fetchOne(Data.self, sql: "SELECT uuid_blob(?)", arguments: [uuid])
          == Data([0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F]))
      #expect(try db.fetchOne(UUID.self, sql: "SELECT uuid_blob(?)", arguments: [uuid]) == uuid)
      #expect(
        try db.fetchOne(String.self, sql: "SELECT uuid_str(uuid_blob(?))", arguments: [uuid])
          == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    }
  #endif

  @Test func urlIsStoredAsItsAbsoluteStringAndRoundTrips() throws {
    let db = try Database()
    let web = try #require(URL(string: "https://example.com/a%20b/c?q=1&r=%C3%A9#frag"))
    #expect(try stored(web, in: db) == (.text("https://example.com/a%20b/c?q=1&r=%C3%A9#frag"), "text"))
    #expect(try roundTrip(web, in: db) == web)
    let file = URL(fileURLWithPath: "/tmp/some dir/file.sqlite")
    #expect(try stored(file, in: db) == (.text("file:///tmp/some%20dir/file.sqlite"), "text"))
    #expect(try roundTrip(file, in: db) == file)
    #expect(try roundTrip(file, in: db)?.path == "/tmp/some dir/file.sqlite")
    #expect(conversionFailure { _ = try db.fetchOne(URL.self, sql: "SELECT 1") }?.type == "URL")
  }

  @Test func decimalIsStoredAsTextAndKeepsEveryDigit() throws {
    let db = try Database()
    let decimal = try #require(Decimal(string: "12.345678901234567890", locale: nil))
    let (value, type) = try stored(decimal, in: db)
    #expect(type == "text")
    guard case .text(let text) = value else {
      Issue.record("expected text, got \(value)")
      return
    }
    // Twenty significant digits: more than a Double holds.
    #expect(text.hasPrefix("12.34567890123456789"))
    #expect(Decimal(string: text, locale: nil) == decimal)
    let back = try #require(try roundTrip(decimal, in: db))
    #expect(back == decimal)
    #expect(back != Decimal(12.345678901234567890 as Double))
    #expect(
      try db.fetchOne(Decimal.self, sql: "SELECT '-0.000000000000000000001'")
        == Decimal(string: "-0.000000000000000000001", locale: nil))
  }

  @Test func decimalReadsIntegerRealAndRejectsOtherText() throws {
    let db = try Database()
    #expect(try db.fetchOne(Decimal.self, sql: "SELECT 42") == Decimal(42))
    #expect(try db.fetchOne(Decimal.self, sql: "SELECT 2.5") == Decimal(string: "2.5", locale: nil))
    let failure = conversionFailure { _ = try db.fetchOne(Decimal.self, sql: "SELECT 'abc'") }
    #expect(failure?.type == "Decimal")
    #expect(failure?.found == "TEXT \"abc\"")
    #expect(conversionFailure { _ = try db.fetchOne(Decimal.self, sql: "SELECT x'01'") }?.type == "Decimal")
  }

  #if ENABLE_EXTENSIONS
    @Test func decimalWorksWithTheDecimalExtensionFunctions() throws {
      let db = try Database()
      let a = try #require(Decimal(string: "0.1", locale: nil))
      let b = try #require(Decimal(string: "0.2", locale: nil))
      #expect(
        try db.fetchOne(Decimal.self, sql: "SELECT decimal_add(?, ?)", arguments: [a, b])
          == Decimal(string: "0.3", locale: nil))
      #expect(try db.fetchOne(String.self, sql: "SELECT decimal_add(?, ?)", arguments: [a, b]) == "0.3")
    }
  #endif
}

@Suite("Conversions: DatabaseValue")
struct DatabaseValueTests {
  @Test func literalsBuildTheMatchingCase() {
    let null: DatabaseValue = nil
    let integer: DatabaseValue = 42
    let real: DatabaseValue = 1.5
    let text: DatabaseValue = "hi"
    let yes: DatabaseValue = true
    let no: DatabaseValue = false
    #expect(null == .null)
    #expect(integer == .integer(42))
    #expect(real == .real(1.5))
    #expect(text == .text("hi"))
    #expect(yes == .integer(1))
    #expect(no == .integer(0))
  }

  @Test func equalityAndHashingAreStructural() {
    #expect(DatabaseValue.null == .null)
    #expect(DatabaseValue.integer(1) != .real(1))
    #expect(DatabaseValue.text("1") != .integer(1))
    #expect(DatabaseValue.blob(Data("a".utf8)) != .text("a"))
    #expect(DatabaseValue.blob(Data([1, 2])) == .blob(Data([1, 2])))
    let set: Set<DatabaseValue> = [.null, .null, .integer(1), .real(1), .integer(1), .text("1"), .blob(Data([1]))]
    #expect(set.count == 5)
    #expect(set.contains(.real(1)))
    let dictionary: [DatabaseValue: String] = [.integer(1): "int", .real(1): "real"]
    #expect(dictionary[.integer(1)] == "int")
    #expect(dictionary[.real(1)] == "real")
  }

  @Test func storageClassIsNullAndDescriptionFollowSQL() {
    #expect(DatabaseValue.null.storageClass == "NULL")
    #expect(DatabaseValue.integer(1).storageClass == "INTEGER")
    #expect(DatabaseValue.real(1).storageClass == "REAL")
    #expect(DatabaseValue.text("").storageClass == "TEXT")
    #expect(DatabaseValue.blob(Data()).storageClass == "BLOB")
    #expect(DatabaseValue.null.isNull)
    #expect(!DatabaseValue.integer(0).isNull)
    #expect(!DatabaseValue.text("").isNull)
    #expect(DatabaseValue.null.description == "NULL")
    #expect(DatabaseValue.integer(-7).description == "-7")
    #expect(DatabaseValue.real(2.5).description == "2.5")
    #expect(DatabaseValue.text("it's").description == "'it''s'")
    #expect(DatabaseValue.blob(Data([0x00, 0x0F, 0xAB])).description == "x'000FAB'")
  }

  @Test func everyCaseRoundTripsThroughSQLite() throws {
    let db = try Database()
    let values: [DatabaseValue] = [.null, .integer(-5), .real(0.25), .text("t"), .blob(Data([9, 8, 7]))]
    let statement = try db.prepare(
      sql: "SELECT ?, ?, ?, ?, ?, typeof(?1), typeof(?2), typeof(?3), typeof(?4), typeof(?5)")
    try statement.bind(parameterValues: values)
    let row = try #require(try statement.firstRow())
    #expect(Array(row[0..<5]) == values)
    #expect(Array(row[5...]) == ["null", "integer", "real", "text", "blob"])
    #expect(DatabaseValue(databaseValue: .integer(3)) == .integer(3))
    #expect(DatabaseValue.text("x").databaseValue() == .text("x"))
  }

  @Test func optionalBindsNullAndReadsNil() throws {
    let db = try Database()
    let none: Int? = nil
    let some: Int? = 4
    #expect(try stored(none, in: db) == (.null, "null"))
    #expect(try stored(some, in: db) == (.integer(4), "integer"))
    #expect(try none.databaseValue() == .null)
    #expect(try Int?(databaseValue: .null) == nil)
    #expect(try Int?(databaseValue: .integer(9)) == 9)
  }
}
