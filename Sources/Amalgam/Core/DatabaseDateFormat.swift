#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How a `Date` is stored in SQLite, which has no date type of its own.
///
/// The default, ``iso8601``, is the text form SQLite's date and time functions read and write:
/// `"2026-11-22 14:03:27.512"`, in UTC, to the millisecond. Such values sort chronologically and work
/// with `date()`, `datetime()`, `strftime()` and `unixepoch()` directly.
///
/// Choose another format per value with `date.databaseValue(format:)` and
/// `Date(databaseValue:format:)`, or per `Codable` type with ``RowDecoder/dateFormat`` and
/// ``StatementEncoder/dateFormat``.
///
/// Related SQLite documentation: <https://sqlite.org/lang_datefunc.html>
public enum DatabaseDateFormat: Sendable, Hashable {
  /// TEXT `"YYYY-MM-DD HH:MM:SS.SSS"` in UTC (the default).
  case iso8601
  /// REAL seconds since 1970-01-01 00:00:00 UTC (SQLite's `'unixepoch'` modifier).
  case unixTime
  /// REAL days since noon in Greenwich on November 24, 4714 B.C. (SQLite's `julianday()`).
  case julianDay
}

extension Date: ParameterBindable, ColumnConvertible {
  /// The date in the default format, ``DatabaseDateFormat/iso8601``.
  public func databaseValue() throws -> DatabaseValue { try databaseValue(format: .iso8601) }

  /// The date in the given format.
  ///
  /// - Throws: ``DatabaseError/unrepresentableValue(type:value:reason:)`` for ``DatabaseDateFormat/iso8601``
  ///   when the year is outside 0000...9999, the range of SQLite's date functions.
  public func databaseValue(format: DatabaseDateFormat) throws -> DatabaseValue {
    switch format {
    case .unixTime: return .real(timeIntervalSince1970)
    case .julianDay: return .real(timeIntervalSince1970 / 86_400 + 2_440_587.5)
    case .iso8601:
      guard let text = ISO8601Text.format(self) else {
        throw DatabaseError.unrepresentableValue(
          type: "Date", value: "\(timeIntervalSince1970) s since 1970",
          reason: "SQLite's date functions handle the years 0000 to 9999 only")
      }
      return .text(text)
    }
  }

  /// Reads a date whatever its format: ISO-8601 TEXT (`"YYYY-MM-DD"`, `"YYYY-MM-DD HH:MM[:SS[.SSS]]"`, a
  /// `T` separator, a `Z` or `±HH:MM` suffix), or INTEGER/REAL as seconds since 1970 (``DatabaseDateFormat/unixTime``).
  public init(databaseValue: DatabaseValue) throws {
    try self.init(databaseValue: databaseValue, format: .unixTime)
  }

  /// Reads a date; a number is interpreted as `format` says (TEXT is always ISO-8601).
  public init(databaseValue: DatabaseValue, format: DatabaseDateFormat) throws {
    switch databaseValue {
    case .text(let text):
      guard let date = ISO8601Text.parse(text) else {
        throw DatabaseError.cannotConvert(databaseValue, to: Date.self, "the text is not an ISO-8601 date")
      }
      self = date
    case .integer, .real:
      let number = try Double(databaseValue: databaseValue)
      switch format {
      case .julianDay: self = Date(timeIntervalSince1970: (number - 2_440_587.5) * 86_400)
      case .unixTime, .iso8601: self = Date(timeIntervalSince1970: number)
      }
    default:
      throw DatabaseError.cannotConvert(databaseValue, to: Date.self)
    }
  }
}

/// Formats and parses SQLite's date text without locale or calendar machinery: proleptic Gregorian, UTC.
enum ISO8601Text {
  /// Days from 1970-01-01 to the given civil date.
  static func days(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The civil date of a day count from 1970-01-01.
  static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// `"YYYY-MM-DD HH:MM:SS.SSS"`, or `nil` outside the years 0000...9999.
  static func format(_ date: Date) -> String? {
    let seconds = date.timeIntervalSince1970
    // Years 0000 and 9999 bound SQLite's date range.
    guard seconds.isFinite, seconds >= -62_167_219_200, seconds < 253_402_300_800 else { return nil }
    // To the nearest millisecond: a whole millisecond is rarely exact in binary and may sit just below.
    let milliseconds = Int((seconds * 1000).rounded(.toNearestOrAwayFromZero))
    let (dayCount, millisecondOfDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    let (days, msOfDay) = millisecondOfDay < 0 ? (dayCount - 1, millisecondOfDay + 86_400_000) : (dayCount, millisecondOfDay)
    let (year, month, day) = civil(days: days)
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(msOfDay / 3_600_000, 2)):"
      + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))"
  }

  /// Parses the forms SQLite's date functions accept; `nil` for anything else.
  static func parse(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    var position = 0
    func number(_ width: Int) -> Int? {
      guard position + width <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[position..<position + width] {
        guard byte >= 0x30 && byte <= 0x39 else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      position += width
      return value
    }
    func expect(_ character: UInt8) -> Bool {
      guard position < bytes.count, bytes[position] == character else { return false }
      position += 1
      return true
    }
    guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    var seconds = Double(days(year: year, month: month, day: day) * 86_400)
    if position < bytes.count {
      guard expect(0x20) || expect(0x54) else { return nil }  // ' ' or 'T'
      guard let hour = number(2), expect(0x3A), let minute = number(2), hour < 24, minute < 60 else { return nil }
      seconds += Double(hour * 3600 + minute * 60)
      if expect(0x3A) {
        guard let second = number(2), second < 60 else { return nil }
        seconds += Double(second)
        if expect(0x2E) {
          // The fraction as one integer over a power of ten: summing digit by digit drifts low.
          var numerator = 0.0
          var denominator = 1.0
          let start = position
          while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
            if denominator < 1e15 {
              numerator = numerator * 10 + Double(bytes[position] - 0x30)
              denominator *= 10
            }
            position += 1
          }
          guard position > start else { return nil }
          seconds += numerator / denominator
        }
      }
      if expect(0x5A) {  // 'Z'
      } else if position < bytes.count, bytes[position] == 0x2B || bytes[position] == 0x2D {
        let sign: Double = bytes[position] == 0x2B ? 1 : -1
        position += 1
        guard let offsetHour = number(2), expect(0x3A), let offsetMinute = number(2) else { return nil }
        seconds -= sign * Double(offsetHour * 3600 + offsetMinute * 60)
      }
    }
    guard position == bytes.count else { return nil }
    return Date(timeIntervalSince1970: seconds)
  }
}
