import Amalgam
import Foundation
import Testing

/// `Date(databaseValue: .text(...))` must accept exactly the text that SQLite's date functions accept,
/// and read the same instant, except text that names a field out of range (a day past the month's end,
/// a time in hour 24 after 24:00), which SQLite rolls over and Amalgam refuses: each string is checked
/// against SQLite's own `julianday()`.
@Suite("Date text parsing agrees with SQLite's julianday()")
struct DateParsingTests {
  /// Strings written by hand around every rule of SQLite's parser (date.c: parseYyyyMmDd, parseHhMmSs,
  /// parseTimezone, computeJD, validJulianDay).
  static let handWritten: [String] = [
    // Dates.
    "2023-11-14", "1970-01-01", "2024-02-29", "2023-02-29", "2023-02-31", "2023-04-31", "2023-12-31",
    "0000-01-01", "0001-01-01", "9999-12-31", "2023-00-10", "2023-13-01", "2023-11-00", "2023-11-32",
    "2023-1-14", "23-11-14", "20231114", "2023/11/14", "2023-11-14x", "2023-11-1", "+2023-11-14",
    // Negative years, and the start of Julian day 0 (-4713-11-24 12:00 UTC).
    "-0001-01-01", "-1000-06-15", "-4713-11-24", "-4713-11-24 12:00", "-4713-11-24 11:59:59",
    "-4713-11-25", "-4713-01-01", "-4714-12-31", "-9999-01-01", "--2023-11-14",
    // Times after a date, with spaces and 'T'.
    "2023-11-14 22:13", "2023-11-14 22:13:20", "2023-11-14 22:13:20.123", "2023-11-14T22:13:20",
    "2023-11-14t22:13:20", "2023-11-14TT22:13", "2023-11-14 T 22:13", "2023-11-14   22:13", "2023-11-14\t22:13",
    "2023-11-14\n22:13", "2023-11-14\r22:13", "2023-11-14\u{0B}22:13", "2023-11-14\u{0C}22:13",
    "2023-11-14 ", "2023-11-14T", "2023-11-14 T ", "2023-11-1422:13",
    // Hours, minutes, seconds.
    "2023-11-14 24:00", "2023-11-14 24:00:00", "2023-11-14 24:59:59", "2023-11-14 25:00", "2023-11-14 23:60",
    "2023-11-14 23:59:60", "2023-11-14 9:30", "2023-11-14 09:3", "2023-11-14 09:30:5", "2023-11-14 0930",
    "2023-11-14 22", "2023-11-14 22:", "2023-11-14 22:13:", "2023-11-14 22:13:20:00",
    // Fractions.
    "2023-11-14 22:13:20.5", "2023-11-14 22:13:20.05", "2023-11-14 22:13:20.0005", "2023-11-14 22:13:20.0004",
    "2023-11-14 22:13:20.9994", "2023-11-14 22:13:20.9995", "2023-11-14 22:13:20.999999999",
    "2023-11-14 22:13:20.123456789012345678901234567890", "2023-11-14 22:13:20.", "2023-11-14 22:13:20.x",
    "2023-11-14 22:13.5", "2023-11-14 22:13:20,5", "2023-11-14 22:13:20..5",
    "2023-11-14 22:13:20." + String(repeating: "7", count: 320),
    // Time zones.
    "2023-11-14 22:13Z", "2023-11-14 22:13z", "2023-11-14 22:13 Z", "2023-11-14 22:13:20Z ",
    "2023-11-14 22:13+02:00", "2023-11-14 22:13-04:30", "2023-11-14 22:13 +02:00", "2023-11-14 22:13:20.5-01:00",
    "2023-11-14 22:13+14:59", "2023-11-14 22:13+15:00", "2023-11-14 22:13-14:00", "2023-11-14 22:13+99:99",
    "2023-11-14 22:13+02:60", "2023-11-14 22:13+0200", "2023-11-14 22:13+2:00", "2023-11-14 22:13+02",
    "2023-11-14 22:13+02:00 ", "2023-11-14 22:13+02:00x", "2023-11-14 22:13ZZ", "2023-11-14 22:13 UTC",
    "2023-11-14 22:13+00:00", "2023-11-14 22:13-00:00", "2023-11-14Z", "2023-11-14+02:00",
    // Time alone (on 2000-01-01).
    "22:13", "22:13:20", "22:13:20.123", "00:00", "24:00", "22:13Z", "22:13-05:00", "22:13 ", " 22:13", "2:13",
    "22:13:20.5+01:00", "T22:13", "22:1",
    // Surrounding spaces.
    " 2023-11-14", "2023-11-14 22:13 ", "2023-11-14 22:13\t", "2023-11-14 22:13\n",
    // The ends of the range.
    "9999-12-31 23:59:59.999", "9999-12-31 23:59:59.9999", "9999-12-31 24:00", "9999-12-31 23:00-01:00",
    "9999-12-31 23:00+01:00", "0000-01-01 00:00+01:00", "0000-01-01 00:00-01:00",
    // Not dates at all.
    "", " ", "yesterday", "2023-11", "Nov 14 2023", "14/11/2023", "nowish", "T", "Z",
  ]

  /// Hand-written strings that `julianday()` reads by rolling a field over into the next month or day,
  /// and that are therefore not dates.
  static let outOfRange: Set<String> = ["2023-02-29", "2023-02-31", "2023-04-31", "2023-11-14 24:59:59"]

  /// Dates and times put together from parts, valid and invalid.
  static let generated: [String] = {
    let dates = ["2023-11-14", "-0500-03-01", "2000-02-30", "1999-12-31", "2023-1-14", ""]
    let separators = [" ", "T", "  ", "T ", ""]
    let times = ["00:00", "12:34:56", "23:59:59.9", "24:00:00.000", "12:60", "1:00", "12:34:5", "12:34:56.", ""]
    let zones = ["", "Z", "+05:30", "-12:00", " +01:00", "+5:30", "-15:00", "Q"]
    var strings: [String] = []
    for date in dates {
      for separator in separators {
        for time in times {
          for zone in zones { strings.append(date + separator + time + zone) }
        }
      }
    }
    return strings
  }()

  /// Text SQLite's functions accept but Amalgam does not read as a stored date (see
  /// `Date(databaseValue:format:)`): the current time, and numbers written as text.
  static let excluded: [String] = [
    "now", "NOW", "subsec", "subsecond", "2460000.5", " 2460000 ", "0", "1e3", "22", "2023",
  ]

  /// SQLite's reading of `text` as seconds since 1970, or nil when `julianday(text)` is NULL.
  private func sqliteSeconds(_ text: String, in db: Database) throws -> Double? {
    guard let days = try db.fetchOne(Double?.self, sql: "SELECT julianday(?)", arguments: [text]) ?? nil else {
      return nil
    }
    return (days - 2_440_587.5) * 86_400
  }

  private func amalgamSeconds(_ text: String) -> Double? {
    (try? Date(databaseValue: .text(text)))?.timeIntervalSince1970
  }

  @Test func everyHandWrittenStringParsesExactlyWhenJuliandayDoes() throws {
    let db = try Database()
    var accepted = 0
    for text in Self.handWritten {
      let sqlite = try sqliteSeconds(text, in: db)
      let amalgam = amalgamSeconds(text)
      if Self.outOfRange.contains(text) {
        #expect(sqlite != nil && amalgam == nil, "\(text.debugDescription): SQLite \(String(describing: sqlite))")
        continue
      }
      #expect(
        (sqlite == nil) == (amalgam == nil),
        "\(text.debugDescription): SQLite \(String(describing: sqlite)), Amalgam \(String(describing: amalgam))")
      if let sqlite, let amalgam {
        accepted += 1
        #expect(abs(sqlite - amalgam) < 0.001, "\(text.debugDescription): SQLite \(sqlite), Amalgam \(amalgam)")
      }
    }
    // The table exercises both sides.
    #expect(accepted > 60)
    #expect(Self.handWritten.count - accepted > 60)
  }

  @Test func everyGeneratedStringParsesExactlyWhenJuliandayDoes() throws {
    let db = try Database()
    var accepted = 0
    for text in Self.generated {
      let sqlite = try sqliteSeconds(text, in: db)
      let amalgam = amalgamSeconds(text)
      // February 30 does not exist: julianday() reads it as March 1 or 2.
      if text.hasPrefix("2000-02-30") {
        #expect(amalgam == nil, "\(text.debugDescription)")
        continue
      }
      #expect(
        (sqlite == nil) == (amalgam == nil),
        "\(text.debugDescription): SQLite \(String(describing: sqlite)), Amalgam \(String(describing: amalgam))")
      if let sqlite, let amalgam {
        accepted += 1
        #expect(abs(sqlite - amalgam) < 0.001, "\(text.debugDescription): SQLite \(sqlite), Amalgam \(amalgam)")
      }
    }
    #expect(accepted > 100)
    #expect(Self.generated.count - accepted > 100)
  }

  @Test func formsThatUsedToBeMisreadNowAgreeWithSQLite() throws {
    // 24:00 is midnight at the end of the day, as SQLite reads it.
    let midnight = try Date(databaseValue: .text("2023-11-14 24:00"))
    #expect(midnight == Date(timeIntervalSince1970: 1_699_920_000 + 86_400))
    // A time alone is on 2000-01-01.
    #expect(try Date(databaseValue: .text("12:00")) == Date(timeIntervalSince1970: 946_728_000))
    // Offsets beyond 14:59 are not offsets.
    for text in ["2023-11-14 22:13+99:99", "2023-11-14 22:13+15:00", "2023-11-14 22:13+02:60"] {
      #expect(throws: DatabaseError.self, "\(text)") { _ = try Date(databaseValue: .text(text)) }
    }
  }

  @Test func nowAndNumbersWrittenAsTextAreNotStoredDates() throws {
    let db = try Database()
    for text in Self.excluded {
      // SQLite's julianday() takes them...
      #expect(try sqliteSeconds(text, in: db) != nil, "\(text)")
      // ...but a stored column must read the same whenever it is read, and a number is read as a number.
      let error = #expect(throws: DatabaseError.self, "\(text)") { _ = try Date(databaseValue: .text(text)) }
      guard case .conversionFailed(_, "Date", _, _) = error else {
        Issue.record("expected conversionFailed for \(text), got \(String(describing: error))")
        continue
      }
    }
  }

  @Test func textWithANulCharacterIsNotADate() throws {
    // SQLite's julianday() reads only up to the NUL and would take the date before it.
    #expect(throws: DatabaseError.self) { _ = try Date(databaseValue: .text("2023-11-14\u{0}garbage")) }
    let db = try Database()
    let error = #expect(throws: DatabaseError.self) {
      _ = try db.fetchOne(Date.self, sql: "SELECT CAST(x'323032332D31312D3134003132' AS TEXT)")
    }
    #expect(error != nil)
  }

  @Test func aParsedDateIsStoredBackAsTheTextSQLiteGives() throws {
    // Through julianday(): strftime() on the text itself would echo "24:00" rather than normalize it.
    let db = try Database()
    for text in ["2023-11-14T22:13:20.5+02:00", "2023-11-14 24:00", "22:13", "2024-02-29", "0000-01-01 00:00-01:00"] {
      let date = try Date(databaseValue: .text(text))
      let sqlite = try db.fetchOne(
        String.self, sql: "SELECT strftime('%Y-%m-%d %H:%M:%f', julianday(?))", arguments: [text])
      #expect(try date.databaseValue() == .text(sqlite ?? ""), "\(text)")
    }
  }

  @Test func aFieldOutOfRangeIsNotADateThoughSQLiteRollsItOver() throws {
    let db = try Database()
    let texts = [
      "2024-02-30", "2023-02-29", "1900-02-29", "2100-02-29", "2023-04-31", "2023-06-31", "2023-09-31",
      "2023-11-31", "2023-13-01", "2023-00-10", "2023-11-32", "2023-11-00", "2023-11-14 25:00", "2023-11-14 23:60",
      "2023-11-14 23:59:60", "2023-11-14 24:30", "2023-11-14 24:00:01", "2023-11-14 24:00:00.5",
      "2023-11-14T24:01Z", "24:01", "-0001-02-29",
    ]
    for text in texts {
      let error = #expect(throws: DatabaseError.self, "\(text)") { _ = try Date(databaseValue: .text(text)) }
      guard case .conversionFailed(nil, "Date", let found, _)? = error else {
        Issue.record("expected conversionFailed for \(text), got \(String(describing: error))")
        continue
      }
      #expect(found.contains(text), "\(found)")
      // Read from a row, the error names the column and the value.
      let row = #expect(throws: DatabaseError.self, "\(text)") {
        _ = try db.fetchOne(Date.self, sql: "SELECT ? AS at", arguments: [text])
      }
      #expect(row?.description.contains(text) == true, "\(String(describing: row))")
    }
    // What SQLite made of the first one: March 1st.
    #expect(try db.fetchOne(String.self, sql: "SELECT date('2024-02-30')") == "2024-03-01")
    // The days that do exist, leap days included (years 0 and -4 are leap years, proleptically).
    let valid: [(String, String)] = [
      ("2024-02-29", "2024-02-29 00:00:00.000"), ("2000-02-29", "2000-02-29 00:00:00.000"),
      ("0000-02-29", "0000-02-29 00:00:00.000"), ("2023-04-30 23:59:59.999", "2023-04-30 23:59:59.999"),
      ("2023-12-31 24:00", "2024-01-01 00:00:00.000"), ("2023-12-31 24:00:00.000", "2024-01-01 00:00:00.000"),
    ]
    for (text, stored) in valid {
      #expect(try Date(databaseValue: .text(text)).databaseValue() == .text(stored), "\(text)")
    }
    let leapDay = try Date(databaseValue: .text("-0004-02-29"))
    #expect(try leapDay == Date(databaseValue: .text("-0004-03-01")).addingTimeInterval(-86_400))
  }

  @Test func aNumberOutsideSQLitesDateRangeIsNotADate() throws {
    let db = try Database()
    // Seconds since 1970 (the default, and .iso8601) and Julian days, just outside the range of
    // SQLite's date functions, far outside it, and at the largest numbers.
    let unixTimes: [DatabaseValue] = [
      .real(1e300), .real(-1e300), .real(.greatestFiniteMagnitude), .integer(.max), .integer(.min),
      .real(253_402_300_800), .real(-210_866_760_000.001), .integer(253_402_300_800),
    ]
    for value in unixTimes {
      for format in [DatabaseDateFormat.unixTime, .iso8601] {
        let error = #expect(throws: DatabaseError.self, "\(value) \(format)") {
          _ = try Date(databaseValue: value, format: format)
        }
        guard case .conversionFailed(nil, "Date", _, let reason)? = error else {
          Issue.record("expected conversionFailed for \(value), got \(String(describing: error))")
          continue
        }
        #expect(reason.contains("seconds since 1970 is outside the range of SQLite's date functions"), "\(reason)")
      }
    }
    let julianDays: [DatabaseValue] = [.real(-0.000_1), .real(-1), .real(5_373_484.5), .real(1e300), .integer(.max)]
    for value in julianDays {
      let error = #expect(throws: DatabaseError.self, "\(value)") {
        _ = try Date(databaseValue: value, format: .julianDay)
      }
      #expect(error?.description.contains("Julian days is outside the range") == true, "\(String(describing: error))")
    }
    // Through a row and RowDecoder, the same.
    struct Event: Decodable { var at: Date }
    #expect(throws: DatabaseError.self) { _ = try db.fetchOne(Date.self, sql: "SELECT 1e300") }
    #expect(throws: DatabaseError.self) {
      _ = try db.prepare(sql: "SELECT 1e300 AS at").decodeFirst(Event.self, using: RowDecoder(dateFormat: .unixTime))
    }
    #expect(throws: DatabaseError.self) {
      _ = try db.prepare(sql: "SELECT -1 AS at").decodeFirst(Event.self, using: RowDecoder(dateFormat: .julianDay))
    }
    // The ends of the range read, exactly as before.
    #expect(try Date(databaseValue: .integer(-210_866_760_000)).timeIntervalSince1970 == -210_866_760_000)
    #expect(try Date(databaseValue: .real(253_402_300_799.999)).timeIntervalSince1970 == 253_402_300_799.999)
    #expect(try Date(databaseValue: .real(0), format: .julianDay).timeIntervalSince1970 == -210_866_760_000)
    #expect(try Date(databaseValue: .real(2_440_587.5), format: .julianDay).timeIntervalSince1970 == 0)
    #expect(try Date(databaseValue: .integer(1_700_000_000)).timeIntervalSince1970 == 1_700_000_000)
    // Dates outside the range are not written in any format either: they could not be read back.
    for seconds in [1e300, 253_402_300_800, -210_866_760_000.5] {
      for format in [DatabaseDateFormat.unixTime, .julianDay, .iso8601] {
        #expect(throws: DatabaseError.self, "\(seconds) \(format)") {
          _ = try Date(timeIntervalSince1970: seconds).databaseValue(format: format)
        }
      }
    }
  }
}
