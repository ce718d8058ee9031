import Amalgam
import Foundation
import Testing

/// The parts of a `conversionFailed` error thrown by `body`, or nil (with a recorded issue) otherwise.
private func conversionFailure(
  _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> (column: String?, type: String, found: String, reason: String)? {
  let error = #expect(throws: DatabaseError.self, comment, sourceLocation: sourceLocation) { try body() }
  guard case .conversionFailed(let column, let type, let found, let reason) = error else {
    if error != nil {
      Issue.record("expected conversionFailed, got \(String(describing: error))", sourceLocation: sourceLocation)
    }
    return nil
  }
  return (column, type, found, reason)
}

/// The type named by an `unrepresentableValue` error thrown by `body`, or nil (with a recorded issue).
private func unrepresentable(
  _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> String? {
  let error = #expect(throws: DatabaseError.self, comment, sourceLocation: sourceLocation) { try body() }
  guard case .unrepresentableValue(let type, _, _) = error else {
    if error != nil {
      Issue.record("expected unrepresentableValue, got \(String(describing: error))", sourceLocation: sourceLocation)
    }
    return nil
  }
  return type
}

private struct Price: Decodable {
  var amount: Decimal
}

private struct Event: Decodable {
  var at: Date
}

private struct Record: Encodable {
  var amount: Decimal
  var link: URL
  var at: Date
}

@Suite("Conversions: non-finite and out-of-range numbers")
struct NonFiniteConversionTests {
  static let nonFinite = ["9e999", "-9e999"]

  @Test func infiniteRealReadAsDecimalThrowsEverywhere() throws {
    let db = try Database()
    for literal in Self.nonFinite {
      // Each of these trapped inside Foundation before.
      #expect(
        conversionFailure("\(literal)") { _ = try db.fetchOne(Decimal.self, sql: "SELECT \(literal)") }?.type
          == "Decimal")
      let statement = try db.prepare(sql: "SELECT \(literal) AS amount")
      let row = try #require(try statement.step())
      let failure = conversionFailure("\(literal)") { _ = try row.value(at: 0, as: Decimal.self) }
      #expect(failure?.column?.contains("amount") == true)
      #expect(failure?.found == "REAL \(literal.hasPrefix("-") ? "-inf" : "inf")")
      try statement.reset()
      #expect(throws: DatabaseError.self, "\(literal)") {
        _ = try db.prepare(sql: "SELECT \(literal) AS amount").decodeFirst(Price.self)
      }
      #expect(throws: DatabaseError.self) { _ = try Decimal(databaseValue: .real(.nan)) }
    }
  }

  @Test func realOutsideDecimalsRangeThrowsInsteadOfBecomingNaNOrZero() throws {
    let db = try Database()
    // 1e308 read as NaN, 1e-300 as something else than 1e-300.
    for literal in ["1e308", "-1e308", "1.7976931348623157e308", "1e200", "1e-300", "5e-324"] {
      let failure = conversionFailure("\(literal)") { _ = try db.fetchOne(Decimal.self, sql: "SELECT \(literal)") }
      #expect(failure?.type == "Decimal")
    }
  }

  #if ENABLE_EXTENSIONS
    /// Found by fuzz-value-conversions (Scripts/stress/fuzz/Corpus/fuzz-value-conversions/decimal-huge-exponent):
    /// SQLite's decimal() refuses a text whose exponent asks for millions of digits with SQLITE_NOMEM.
    /// The statement throws that error (the fuzz harness took it for a failure of the row path), and the
    /// connection goes on; Amalgam's own Decimal reading refuses the text.
    @Test func decimalOfAHugeExponentThrowsSQLitesErrorAndTheConnectionGoesOn() throws {
      let db = try Database()
      let text = "-12.0e0999999999999999995"
      let error = #expect(throws: SQLiteError.self) {
        _ = try db.prepare(sql: "SELECT decimal(?)").bind(parameterValues: [text]).front(String.self)
      }
      #expect(error?.code == .noMemory)
      #expect(try db.prepare(sql: "SELECT decimal('1.5e3')").front(String.self) == "1500")
      #expect(conversionFailure { _ = try Decimal(databaseValue: .text(text)) }?.type == "Decimal")
    }
  #endif

  @Test func realReadAsDecimalIsItsShortestRoundTripDecimal() throws {
    let db = try Database()
    let cases: [(String, String)] = [
      ("0.1", "0.1"), ("2.5", "2.5"), ("-0.0", "0"), ("1e100", "1e100"), ("1.5e-100", "1.5e-100"),
      ("123456789.125", "123456789.125"), ("-7.0", "-7"), ("1.5e128", "1.5e128"), ("1e127", "1e127"),
    ]
    for (literal, expected) in cases {
      let value = try db.fetchOne(Decimal.self, sql: "SELECT \(literal)")
      #expect(value == Decimal(string: expected, locale: nil), "\(literal)")
    }
    #expect(
      try db.fetchOne(Decimal.self, sql: "SELECT 1.5e128")?.description == "15" + String(repeating: "0", count: 127))
    #expect(conversionFailure { _ = try db.fetchOne(Decimal.self, sql: "SELECT 1e128") }?.type == "Decimal")
    #expect(try db.fetchOne(Decimal.self, sql: "SELECT 9223372036854775807")?.description == "9223372036854775807")
    #expect(try db.fetchOne(Decimal.self, sql: "SELECT -9223372036854775808")?.description == "-9223372036854775808")
  }

  @Test func infiniteOrNaNNumbersAreNotDates() throws {
    let db = try Database()
    for literal in Self.nonFinite {
      #expect(
        conversionFailure("\(literal)") { _ = try db.fetchOne(Date.self, sql: "SELECT \(literal)") }?.type == "Date")
      for format in [DatabaseDateFormat.unixTime, .julianDay, .iso8601] {
        #expect(throws: DatabaseError.self, "\(literal) \(format)") {
          _ = try Date(databaseValue: .real(literal.hasPrefix("-") ? -.infinity : .infinity), format: format)
        }
      }
      #expect(throws: DatabaseError.self, "\(literal)") {
        _ = try db.prepare(sql: "SELECT \(literal) AS at").decodeFirst(
          Event.self, using: RowDecoder(dateFormat: .julianDay))
      }
    }
    #expect(throws: DatabaseError.self) { _ = try Date(databaseValue: .real(.nan)) }
    // A finite number of Julian days whose seconds overflow to infinity.
    #expect(conversionFailure { _ = try Date(databaseValue: .real(1e306), format: .julianDay) }?.type == "Date")
    // The largest finite numbers are outside SQLite's date range (see DateParsingTests).
    #expect(conversionFailure { _ = try Date(databaseValue: .real(1e300)) }?.type == "Date")
    #expect(conversionFailure { _ = try Date(databaseValue: .integer(.min)) }?.type == "Date")
  }

  @Test func nonFiniteDatesAreNotStored() throws {
    let db = try Database()
    for seconds in [Double.infinity, -.infinity, .nan] {
      let date = Date(timeIntervalSince1970: seconds)
      for format in [DatabaseDateFormat.unixTime, .julianDay, .iso8601] {
        // A NaN was stored as NULL and an infinity as a REAL that no format reads back.
        #expect(unrepresentable("\(seconds) \(format)") { _ = try date.databaseValue(format: format) } == "Date")
      }
      #expect(unrepresentable("\(seconds)") { try db.execute(sql: "SELECT ?", parameterValues: [date]) } == "Date")
    }
  }

  @Test func integersFromNonFiniteOrHugeRealsThrow() throws {
    let db = try Database()
    for literal in Self.nonFinite + ["1e20", "-1e20", "1.5"] {
      #expect(
        conversionFailure("\(literal)") { _ = try db.fetchOne(Int.self, sql: "SELECT \(literal)") }?.type == "Int")
      #expect(conversionFailure("\(literal)") { _ = try db.fetchOne(Int64.self, sql: "SELECT \(literal)") } != nil)
      #expect(conversionFailure("\(literal)") { _ = try db.fetchOne(UInt64.self, sql: "SELECT \(literal)") } != nil)
      #expect(conversionFailure("\(literal)") { _ = try db.fetchOne(Int8.self, sql: "SELECT \(literal)") } != nil)
      #expect(conversionFailure("\(literal)") { _ = try db.fetchOne(UInt32.self, sql: "SELECT \(literal)") } != nil)
      #expect(conversionFailure("\(literal)") { _ = try db.fetchOne(Bool.self, sql: "SELECT \(literal)") } != nil)
    }
    #expect(throws: DatabaseError.self) { _ = try Int(databaseValue: .real(.nan)) }
    #expect(throws: DatabaseError.self) { _ = try UInt8(databaseValue: .real(-.infinity)) }
    // 2^63 is a whole REAL just outside Int64.
    #expect(conversionFailure { _ = try db.fetchOne(Int64.self, sql: "SELECT 9223372036854775808.0") } != nil)
    #expect(try db.fetchOne(UInt64.self, sql: "SELECT 9223372036854775808.0") == 9_223_372_036_854_775_808)
  }

  @Test func floatsAndDoublesKeepInfinitiesAndRejectFiniteOverflow() throws {
    let db = try Database()
    #expect(try db.fetchOne(Double.self, sql: "SELECT 9e999") == .infinity)
    #expect(try db.fetchOne(Float.self, sql: "SELECT -9e999") == -.infinity)
    #expect(conversionFailure { _ = try db.fetchOne(Float.self, sql: "SELECT -1e300") }?.type == "Float")
    // SQLite stores NaN as NULL, for Float as for Double.
    #expect(try db.fetchOne(Bool.self, sql: "SELECT ?1 IS NULL", arguments: [Float.nan]) == true)
    #expect(try db.fetchOne(Double.self, sql: "SELECT ?", arguments: [Float.infinity]) == .infinity)
  }
}

@Suite("Conversions: Decimal and URL are exact or throw")
struct ExactConversionTests {
  @Test func decimalTextMustBeADecimalNumberAndNothingElse() throws {
    let db = try Database()
    for text in [
      "12abc", " 5", "5 ", "", "-", ".", "1e", "1e+", "0x10", "NaN", "nan", "Infinity", "inf", "1,5", "1..5",
      "+-1", "1e5.5", "١٢", "5\u{0}",
    ] {
      let failure = conversionFailure("\(text.debugDescription)") {
        _ = try db.fetchOne(Decimal.self, sql: "SELECT ?", arguments: [text])
      }
      #expect(failure?.type == "Decimal")
    }
    let cases: [(String, String)] = [
      ("12", "12"), ("-12.50", "-12.5"), ("+3", "3"), (".5", "0.5"), ("5.", "5"), ("1e3", "1000"), ("1E-3", "0.001"),
      ("-0", "0"), ("0.000", "0"), ("00012.3400", "12.34"),
      ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
      ("1e127", "1e127"), ("25e127", "2.5e128"), ("1e-128", "1e-128"),
    ]
    for (text, expected) in cases {
      let value = try db.fetchOne(Decimal.self, sql: "SELECT ?", arguments: [text])
      #expect(value == Decimal(string: expected, locale: nil), "\(text): \(String(describing: value))")
    }
  }

  @Test func decimalTextThatDecimalCannotHoldExactlyThrows() throws {
    let db = try Database()
    for text in [
      // 39 and more significant digits would be rounded.
      "123456789012345678901234567890123456789", "1.00000000000000000000000000000000000000001",
      // Magnitudes beyond Decimal's exponent range.
      "1e128", "1e166", "1e-129", "1e1000000000", "-1e300",
    ] {
      #expect(
        conversionFailure("\(text)") { _ = try db.fetchOne(Decimal.self, sql: "SELECT ?", arguments: [text]) }?.type
          == "Decimal"
      )
    }
    // Trailing zeros are not significant digits.
    #expect(
      try db.fetchOne(Decimal.self, sql: "SELECT ?", arguments: ["1.5" + String(repeating: "0", count: 60)])
        == Decimal(string: "1.5", locale: nil))
  }

  @Test func decimalNaNIsNotStored() throws {
    let db = try Database()
    #expect(unrepresentable { _ = try Decimal.nan.databaseValue() } == "Decimal")
    #expect(unrepresentable { try db.execute(sql: "SELECT ?", parameterValues: [Decimal.nan]) } == "Decimal")
  }

  @Test func urlTextMustBeAnAbsoluteURLThatReadsBackUnchanged() throws {
    let db = try Database()
    for text in [
      "::::", ":", "a/b", "/tmp/file", "", " https://example.com", "https://example.com ", "http://x y",
      "1http://a", "-x:y", "https://例え.jp", "://example.com",
    ] {
      let failure = conversionFailure("\(text.debugDescription)") {
        _ = try db.fetchOne(URL.self, sql: "SELECT ?", arguments: [text])
      }
      #expect(failure?.type == "URL")
    }
    for text in [
      "https://example.com/a%20b?q=1#f", "mailto:ada@example.com", "urn:isbn:0451450523", "x-app+v1.2:thing",
      "file:///tmp/some%20dir/file.sqlite", "HTTPS://EXAMPLE.COM", "http:",
    ] {
      let url = try #require(try db.fetchOne(URL.self, sql: "SELECT ?", arguments: [text]), "\(text)")
      #expect(url.absoluteString == text)
    }
  }

  @Test func aRelativeURLIsNotStored() throws {
    let relative = try #require(URL(string: "a/b"))
    #expect(unrepresentable { _ = try relative.databaseValue() } == "URL")
    let base = try #require(URL(string: "https://example.com/dir/"))
    #expect(try URL(string: "a/b", relativeTo: base)?.databaseValue() == .text("https://example.com/dir/a/b"))
  }

  @Test func theEncoderRefusesWhatCannotBeStoredFaithfully() throws {
    let encoder = StatementEncoder()
    let link = try #require(URL(string: "https://example.com"))
    let now = Date(timeIntervalSince1970: 0)
    #expect(try encoder.encode(Record(amount: 5, link: link, at: now))["amount"] == .text("5"))
    let relative = try #require(URL(string: "a/b"))
    let records = [
      Record(amount: .nan, link: link, at: now), Record(amount: 5, link: relative, at: now),
      Record(amount: 5, link: link, at: Date(timeIntervalSince1970: .infinity)),
    ]
    for record in records {
      #expect(throws: DatabaseError.self) { _ = try encoder.encode(record) }
      #expect(throws: DatabaseError.self) { _ = try StatementEncoder(dateFormat: .unixTime).encode(record) }
    }
  }
}
