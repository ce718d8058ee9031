import Amalgam
import Foundation
import Testing

@Suite("Conversions: Date")
struct DateConversionTests {
  /// Stores `date` with the default format and returns the stored value and its `typeof`.
  private func stored(_ date: Date, in db: Database) throws -> (DatabaseValue, String)? {
    let row = try db.prepare(sql: "SELECT ?1, typeof(?1)").bind(parameterValues: [date]).firstRow()
    guard let row, case .text(let type) = row[1] else { return nil }
    return (row[0], type)
  }

  @Test func defaultFormatIsUTCTextWithMilliseconds() throws {
    let db = try Database()
    let date = Date(timeIntervalSince1970: 1_700_000_000.123)
    let result = try #require(try stored(date, in: db))
    #expect(result.1 == "text")
    #expect(result.0 == .text("2023-11-14 22:13:20.123"))
    #expect(try date.databaseValue() == .text("2023-11-14 22:13:20.123"))
    #expect(try date.databaseValue(format: .iso8601) == .text("2023-11-14 22:13:20.123"))
    #expect(try Date(timeIntervalSince1970: 0).databaseValue() == .text("1970-01-01 00:00:00.000"))
    #expect(try Date(timeIntervalSince1970: 1_709_202_600).databaseValue() == .text("2024-02-29 10:30:00.000"))
  }

  @Test func millisecondPreciseDatesAreStoredWithTheirMilliseconds() throws {
    // Each Date is built from a whole number of milliseconds; its stored text must show exactly those.
    let cases: [(Double, String)] = [
      (1.001, "1970-01-01 00:00:01.001"),
      (277_860_467.501, "1978-10-21 23:27:47.501"),
      (-676_563_976.620, "1948-07-24 09:33:43.380"),
      (-480_496_485.879, "1954-10-10 16:45:14.121"),
      (1_234_567_890.987, "2009-02-13 23:31:30.987"),
    ]
    for (seconds, text) in cases {
      let value = try Date(timeIntervalSince1970: seconds).databaseValue()
      #expect(value == .text(text), "Date(timeIntervalSince1970: \(seconds)) is stored as \(value)")
    }
  }

  @Test func storedDateWorksWithSQLiteDateFunctions() throws {
    let db = try Database()
    let date = Date(timeIntervalSince1970: 1_700_000_000.123)
    try db.execute(sql: "CREATE TABLE event(at)")
    try db.execute(sql: "INSERT INTO event VALUES (?)", parameterValues: [date])
    #expect(try db.fetchOne(Int.self, sql: "SELECT unixepoch(at) FROM event") == 1_700_000_000)
    #expect(try db.fetchOne(Double.self, sql: "SELECT unixepoch(at, 'subsec') FROM event") == 1_700_000_000.123)
    let julian = try #require(try db.fetchOne(Double.self, sql: "SELECT julianday(at) FROM event"))
    #expect(abs(julian - 2_460_263.425_927_349_4) < 1e-9)
    #expect(try db.fetchOne(String.self, sql: "SELECT datetime(at) FROM event") == "2023-11-14 22:13:20")
    #expect(try db.fetchOne(String.self, sql: "SELECT date(at, '+1 day') FROM event") == "2023-11-15")
    #expect(
      try db.fetchOne(String.self, sql: "SELECT strftime('%Y-%m-%d %H:%M:%f', at) FROM event")
        == "2023-11-14 22:13:20.123")
    // Text dates sort chronologically.
    try db.execute(sql: "INSERT INTO event VALUES (?)", parameterValues: [Date(timeIntervalSince1970: 86_400)])
    try db.execute(sql: "INSERT INTO event VALUES (?)", parameterValues: [Date(timeIntervalSince1970: 1_800_000_000)])
    let ordered = try db.prepare(sql: "SELECT unixepoch(at) FROM event ORDER BY at").column(0, as: Int.self)
    #expect(ordered == [86_400, 1_700_000_000, 1_800_000_000])
  }

  @Test func storedDateReadsBackToTheSameMillisecond() throws {
    let db = try Database()
    for seconds in [1_700_000_000.123, 0, 86_400.5, 1_234_567_890.987] {
      let date = Date(timeIntervalSince1970: seconds)
      let back = try #require(try db.prepare(sql: "SELECT ?").bind(parameterValues: [date]).front(Date.self))
      #expect(abs(back.timeIntervalSince1970 - seconds) < 0.000_001, "\(seconds)")
    }
  }

  @Test func dateTextReadFromTheDatabaseIsStoredBackUnchanged() throws {
    let db = try Database()
    for text in [
      "2023-11-14 22:13:20.123", "1975-10-27 20:52:37.797", "2007-02-04 17:48:00.088", "1930-03-04 02:19:04.561",
    ] {
      let date = try #require(try db.fetchOne(Date.self, sql: "SELECT ?", arguments: [text]))
      let again = try date.databaseValue()
      #expect(again == .text(text), "\(text) was read and stored again as \(again)")
      #expect(try db.fetchOne(String.self, sql: "SELECT ?", arguments: [date]) == text)
    }
  }

  @Test func parsesTheFormsSQLiteAccepts() throws {
    let db = try Database()
    let base = 1_700_000_000.0  // 2023-11-14 22:13:20 UTC
    let cases: [(String, Double)] = [
      ("2023-11-14 22:13:20.123", base + 0.123),
      ("2023-11-14T22:13:20.123", base + 0.123),
      ("2023-11-14T22:13:20Z", base),
      ("2023-11-14 22:13:20.5Z", base + 0.5),
      ("2023-11-15T00:13:20+02:00", base),
      ("2023-11-14T17:43:20-04:30", base),
      ("2023-11-14 22:13", base - 20),
      ("2023-11-14 22:13:20", base),
      ("2023-11-14", 1_699_920_000),
      ("1970-01-01", 0),
      ("2024-02-29", 1_709_164_800),
    ]
    for (text, seconds) in cases {
      let date = try #require(try db.fetchOne(Date.self, sql: "SELECT ?", arguments: [text]), "\(text)")
      #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001, "\(text) read as \(date.timeIntervalSince1970)")
      // SQLite agrees.
      let sqlite = try #require(try db.fetchOne(Double.self, sql: "SELECT unixepoch(?, 'subsec')", arguments: [text]))
      #expect(abs(sqlite - seconds) < 0.000_001, "\(text): SQLite says \(sqlite)")
    }
  }

  @Test func textThatIsNotADateThrowsConversionFailed() throws {
    let db = try Database()
    for text in ["yesterday", "2023-13-01", "2023-11-14 25:00", "2023-11-14X22:13", "2023-11-14 22:13:20.", ""] {
      let error = #expect(throws: DatabaseError.self, "\(text)") {
        _ = try db.fetchOne(Date.self, sql: "SELECT ? AS d", arguments: [text])
      }
      guard case .conversionFailed(let column, "Date", _, _) = error else {
        Issue.record("expected conversionFailed to Date for \(text), got \(String(describing: error))")
        continue
      }
      #expect(column?.contains("d") == true)
    }
    let blob = #expect(throws: DatabaseError.self) { _ = try db.fetchOne(Date.self, sql: "SELECT x'01'") }
    guard case .conversionFailed(_, "Date", "BLOB of 1 bytes", _) = blob else {
      Issue.record("expected conversionFailed for a blob, got \(String(describing: blob))")
      return
    }
  }

  @Test func unixTimeFormatStoresRealSecondsSince1970() throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000.5)
    #expect(try date.databaseValue(format: .unixTime) == .real(1_700_000_000.5))
    #expect(try Date(databaseValue: .real(1_700_000_000.5), format: .unixTime) == date)
    #expect(
      try Date(databaseValue: .integer(1_700_000_000), format: .unixTime) == Date(timeIntervalSince1970: 1_700_000_000))
    // Numbers read as Unix time by default.
    #expect(try Date(databaseValue: .integer(86_400)) == Date(timeIntervalSince1970: 86_400))
    let db = try Database()
    let value = try date.databaseValue(format: .unixTime)
    #expect(
      try db.fetchOne(String.self, sql: "SELECT datetime(?, 'unixepoch')", arguments: [value]) == "2023-11-14 22:13:20")
    #expect(try db.fetchOne(Date.self, sql: "SELECT unixepoch()").map { abs($0.timeIntervalSinceNow) < 60 } == true)
  }

  @Test func julianDayFormatStoresRealDaysAndMatchesSQLite() throws {
    #expect(try Date(timeIntervalSince1970: 0).databaseValue(format: .julianDay) == .real(2_440_587.5))
    #expect(try Date(timeIntervalSince1970: 86_400).databaseValue(format: .julianDay) == .real(2_440_588.5))
    #expect(try Date(databaseValue: .real(2_440_587.5), format: .julianDay) == Date(timeIntervalSince1970: 0))
    #expect(try Date(databaseValue: .integer(2_440_588), format: .julianDay) == Date(timeIntervalSince1970: 43_200))

    let db = try Database()
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let julian = try date.databaseValue(format: .julianDay)
    guard case .real(let days) = julian else {
      Issue.record("expected a REAL, got \(julian)")
      return
    }
    let sqliteDays = try #require(try db.fetchOne(Double.self, sql: "SELECT julianday('2023-11-14 22:13:20')"))
    #expect(abs(days - sqliteDays) < 1e-8)
    #expect(try db.fetchOne(String.self, sql: "SELECT datetime(?)", arguments: [julian]) == "2023-11-14 22:13:20")
    let back = try Date(databaseValue: julian, format: .julianDay)
    #expect(abs(back.timeIntervalSince1970 - 1_700_000_000) < 0.001)
  }

  @Test func dateBefore1970RoundTrips() throws {
    let db = try Database()
    let seconds = -459_084_303.211  // 1955-06-15 12:34:56.789 UTC
    let date = Date(timeIntervalSince1970: seconds)
    #expect(try date.databaseValue() == .text("1955-06-15 12:34:56.789"))
    #expect(try db.fetchOne(Double.self, sql: "SELECT unixepoch(?, 'subsec')", arguments: [date]) == seconds)
    let back = try #require(try db.prepare(sql: "SELECT ?").bind(parameterValues: [date]).front(Date.self))
    #expect(abs(back.timeIntervalSince1970 - seconds) < 0.000_001)
    #expect(try Date(timeIntervalSince1970: -1).databaseValue() == .text("1969-12-31 23:59:59.000"))
    #expect(try Date(timeIntervalSince1970: -0.25).databaseValue() == .text("1969-12-31 23:59:59.750"))
    #expect(try Date(timeIntervalSince1970: -62_135_596_800).databaseValue() == .text("0001-01-01 00:00:00.000"))
  }

  @Test func dateInYear9999RoundTripsAndLaterYearsAreUnrepresentable() throws {
    let db = try Database()
    let seconds = 253_402_300_799.999  // 9999-12-31 23:59:59.999 UTC
    let date = Date(timeIntervalSince1970: seconds)
    #expect(try date.databaseValue() == .text("9999-12-31 23:59:59.999"))
    let back = try #require(try db.prepare(sql: "SELECT ?").bind(parameterValues: [date]).front(Date.self))
    #expect(abs(back.timeIntervalSince1970 - seconds) < 0.000_01)
    #expect(try db.fetchOne(String.self, sql: "SELECT date(?)", arguments: [date]) == "9999-12-31")

    let tooLate = Date(timeIntervalSince1970: 253_402_300_800)  // 10000-01-01
    let error = #expect(throws: DatabaseError.self) { _ = try tooLate.databaseValue() }
    guard case .unrepresentableValue("Date", _, _) = error else {
      Issue.record("expected unrepresentableValue, got \(String(describing: error))")
      return
    }
    #expect(throws: error!) { try db.execute(sql: "SELECT ?", parameterValues: [tooLate]) }
    // Nor in the other formats, which no reader would take back: the range is SQLite's.
    #expect(throws: DatabaseError.self) { _ = try tooLate.databaseValue(format: .unixTime) }
    #expect(throws: DatabaseError.self) { _ = try tooLate.databaseValue(format: .julianDay) }
  }
}
