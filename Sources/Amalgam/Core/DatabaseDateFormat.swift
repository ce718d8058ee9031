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
/// Choose another format per connection with ``ValueStorage/dates`` (``Database/valueStorage``),
/// which binding a `Date` to a statement and reading one from a row follow; per value with
/// `date.databaseValue(format:)` and `Date(databaseValue:format:)`; or per `Codable` type with
/// ``RowDecoder/dateFormat`` and ``StatementEncoder/dateFormat``.
///
/// Related SQLite documentation: <https://sqlite.org/lang_datefunc.html>
public enum DatabaseDateFormat: Sendable, Hashable {
  /// TEXT `"YYYY-MM-DD HH:MM:SS.SSS"` in UTC (the default).
  case iso8601
  /// REAL seconds since 1970-01-01 00:00:00 UTC (SQLite's `'unixepoch'` modifier).
  case unixTime
  /// REAL days since noon in Greenwich on November 24, 4714 B.C. (SQLite's `julianday()`).
  case julianDay
  /// REAL seconds since 2001-01-01 00:00:00 UTC, Foundation's `timeIntervalSinceReferenceDate`: how
  /// FeistyDB stores a `Date`. SQLite's date functions read it with `unixepoch` after adding
  /// 978307200 seconds: `datetime(created + 978307200, 'unixepoch')`.
  case timeIntervalSinceReferenceDate
}

extension DatabaseDateFormat {
  /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
  static let referenceDateOffset: Double = 978_307_200
}

extension Date: ParameterBindable, ColumnConvertible {
  /// The date in the default format, ``DatabaseDateFormat/iso8601``. (Binding a date to a statement
  /// uses its connection's format instead, ``ValueStorage/dates``.)
  public func databaseValue() throws -> DatabaseValue { try databaseValue(format: .iso8601) }

  /// Binds the date in the format of the statement's connection (``ValueStorage/dates``).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func bind(to statement: Statement, at index: Int32) throws {
    try databaseValue(format: statement.connection.valueStorage.dates).bind(to: statement, at: index)
  }

  /// Reads a date from a row, interpreting a number in the format of the row's connection
  /// (``ValueStorage/dates``); text is parsed whatever the format.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  public init(row: borrowing Row, at index: Int32) throws {
    try self.init(databaseValue: row.databaseValue(at: index), format: row.statement.connection.valueStorage.dates)
  }

  /// The date in the given format.
  ///
  /// - Throws: ``DatabaseError/unrepresentableValue(type:value:reason:)`` for a date whose time interval
  ///   is infinite or NaN (in any format: SQLite would store NaN as NULL, and no format reads an infinity
  ///   back), for a date outside the range of SQLite's date functions, -4713-11-24 12:00 to
  ///   9999-12-31 23:59:59.999 UTC (which no format reads back), and for ``DatabaseDateFormat/iso8601``
  ///   when the year is outside 0000...9999.
  public func databaseValue(format: DatabaseDateFormat) throws -> DatabaseValue {
    let seconds = timeIntervalSince1970
    guard seconds.isFinite else {
      throw DatabaseError.unrepresentableValue(
        type: "Date", value: "\(seconds) s since 1970", reason: "a date must be a finite time")
    }
    guard ISO8601Text.isInSQLiteRange(seconds: seconds) else {
      throw DatabaseError.unrepresentableValue(
        type: "Date", value: "\(seconds) s since 1970", reason: ISO8601Text.rangeDescription)
    }
    switch format {
    case .unixTime: return .real(seconds)
    case .timeIntervalSinceReferenceDate: return .real(timeIntervalSinceReferenceDate)
    case .julianDay: return .real(seconds / 86_400 + 2_440_587.5)
    case .iso8601:
      guard let text = ISO8601Text.format(self) else {
        throw DatabaseError.unrepresentableValue(
          type: "Date", value: "\(seconds) s since 1970",
          reason: "SQLite's date functions handle the years 0000 to 9999 only")
      }
      return .text(text)
    }
  }

  /// Reads a date whatever its format: TEXT in one of the forms SQLite's date and time functions accept
  /// (see ``init(databaseValue:format:)``), or INTEGER/REAL as seconds since 1970
  /// (``DatabaseDateFormat/unixTime``).
  public init(databaseValue: DatabaseValue) throws {
    try self.init(databaseValue: databaseValue, format: .unixTime)
  }

  /// Reads a date; a number is interpreted as `format` says.
  ///
  /// TEXT is read exactly as SQLite's date and time functions read a time value, so a text is a date
  /// here when `julianday(text)` is not NULL, and both give the same instant (to the millisecond):
  ///
  /// - `YYYY-MM-DD`, optionally followed by a time; the year may have a leading `-`. The day must exist
  ///   in its month (the proleptic Gregorian calendar, so `2024-02-29` is a date and `2023-02-29` is
  ///   not): SQLite's functions roll a day past the month's end over into the next month (`2023-02-31`
  ///   is March 3), but a stored value that names a day that does not exist is not a date.
  /// - A time `HH:MM`, `HH:MM:SS` or `HH:MM:SS.F...` (any number of fraction digits; SQLite keeps at
  ///   most .999) after the date, separated by spaces or `T`, or alone (a time alone is on 2000-01-01).
  ///   Hours run from 00 to 23, minutes and seconds from 00 to 59; `24:00` (`24:00:00`, with any zero
  ///   fraction) is midnight at the end of the day, and any later time in hour 24, which SQLite would
  ///   roll over into the next day, is not a time.
  /// - After a time, optional spaces and a `Z` or a `±HH:MM` offset of at most 14:59, then optional
  ///   spaces.
  /// - The instant must lie between -4713-11-24 12:00 and 9999-12-31 23:59:59.999 UTC.
  ///
  /// Numbers (INTEGER or REAL) must be finite and, converted as `format` says, within the same range:
  /// Julian days 0 to 5373484.49999 (`.julianDay`), -210866760000 to 253402300799.999 seconds since
  /// 1970 (`.unixTime` and `.iso8601`), or the same range less 978307200 seconds since 2001
  /// (`.timeIntervalSinceReferenceDate`). SQLite's date functions return NULL for any other number.
  ///
  /// Three forms that SQLite's functions also take are refused because they are not a stored date:
  /// `"now"` (and `"subsec"`), whose value depends on when it is read; numbers written as text
  /// (`"2460000.5"`), which SQLite reads as a Julian day number only when the number is small enough and
  /// would be ambiguous here (read numbers with a numeric column and `format`); and text with a NUL
  /// character, which SQLite reads only up to the NUL.
  ///
  /// - Throws: ``DatabaseError/conversionFailed(column:type:found:reason:)``, naming the value, for text
  ///   that is not a date (a field out of range: month 13, day 32, February 29 of a common year, hour
  ///   25), a number that is infinite, NaN or outside the range above, and BLOB or NULL.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_datefunc.html>
  public init(databaseValue: DatabaseValue, format: DatabaseDateFormat) throws {
    switch databaseValue {
    case .text(let text):
      guard let date = ISO8601Text.parse(text) else {
        throw DatabaseError.cannotConvert(
          databaseValue, to: Date.self, "the text is not a date or time that SQLite's date functions accept")
      }
      self = date
    case .integer, .real:
      let number = try Double(databaseValue: databaseValue)
      let seconds: Double
      switch format {
      case .julianDay: seconds = (number - 2_440_587.5) * 86_400
      case .timeIntervalSinceReferenceDate: seconds = number + DatabaseDateFormat.referenceDateOffset
      case .unixTime, .iso8601: seconds = number
      }
      guard seconds.isFinite else {
        throw DatabaseError.cannotConvert(databaseValue, to: Date.self, "\(number) is not a finite time")
      }
      guard ISO8601Text.isInSQLiteRange(seconds: seconds) else {
        let unit =
          switch format {
          case .julianDay: "Julian days"
          case .timeIntervalSinceReferenceDate: "seconds since 2001"
          case .unixTime, .iso8601: "seconds since 1970"
          }
        throw DatabaseError.cannotConvert(
          databaseValue, to: Date.self, "\(number) \(unit) is outside \(ISO8601Text.rangeDescription)")
      }
      // Foundation keeps seconds since 2001: made from them directly, the date is exactly the one stored.
      self =
        format == .timeIntervalSinceReferenceDate
        ? Date(timeIntervalSinceReferenceDate: number) : Date(timeIntervalSince1970: seconds)
    default:
      throw DatabaseError.cannotConvert(databaseValue, to: Date.self)
    }
  }
}

/// Formats and parses SQLite's date text without locale or calendar machinery: proleptic Gregorian, UTC.
enum ISO8601Text {
  /// Whether `seconds` since 1970 lies in the range of SQLite's date functions (validJulianDay in
  /// date.c): from Julian day 0, -4713-11-24 12:00 UTC, to 9999-12-31 23:59:59.999 UTC.
  static func isInSQLiteRange(seconds: Double) -> Bool {
    seconds >= -210_866_760_000 && seconds < 253_402_300_800
  }

  /// The range of ``isInSQLiteRange(seconds:)``, for messages.
  static let rangeDescription =
    "the range of SQLite's date functions (-4713-11-24 12:00 to 9999-12-31 23:59:59.999 UTC)"

  /// The number of days of `month` in `year` of the proleptic Gregorian calendar (year 0 is a leap year).
  static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

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
    let (days, msOfDay) =
      millisecondOfDay < 0 ? (dayCount - 1, millisecondOfDay + 86_400_000) : (dayCount, millisecondOfDay)
    let (year, month, day) = civil(days: days)
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(msOfDay / 3_600_000, 2)):"
      + "\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))"
  }

  /// Parses the text forms SQLite's `julianday()` accepts (see `Date(databaseValue:format:)`), following
  /// `parseDateOrTime` in SQLite's date.c step by step; `nil` for anything else.
  static func parse(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { parse(bytes: $0) }
  }

  private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    let end = bytes.count
    var position = 0
    func isDigit(_ index: Int) -> Bool { index < end && bytes[index] >= 0x30 && bytes[index] <= 0x39 }
    // SQLite's sqlite3Isspace: space, \t, \n, \v, \f, \r.
    func isSpace(_ index: Int) -> Bool { index < end && (bytes[index] == 0x20 || (0x09...0x0D).contains(bytes[index])) }
    func byte(_ index: Int) -> UInt8 { index < end ? bytes[index] : 0 }
    /// `width` digits at `position` within `range`; SQLite's getDigits.
    func number(_ width: Int, _ range: ClosedRange<Int>) -> Int? {
      var value = 0
      for offset in 0..<width {
        guard isDigit(position + offset) else { return nil }
        value = value * 10 + Int(bytes[position + offset] - 0x30)
      }
      guard range.contains(value) else { return nil }
      position += width
      return value
    }
    func expect(_ character: UInt8) -> Bool {
      guard byte(position) == character else { return false }
      position += 1
      return true
    }
    // SQLite reads text only up to a NUL character; such text is not a stored date.
    guard !bytes.contains(0) else { return nil }

    // YYYY-MM-DD, with an optional leading '-' (parseYyyyMmDd).
    var year = 2000
    var month = 1
    var day = 1
    let negativeYear = expect(0x2D)
    if let y = number(4, 0...9999), expect(0x2D), let m = number(2, 1...12), expect(0x2D), let d = number(2, 1...31) {
      (year, month, day) = (negativeYear ? -y : y, m, d)
      // SQLite rolls a day past the month's end over; a stored date must name a day that exists.
      guard day <= daysInMonth(year: year, month: month) else { return nil }
      while isSpace(position) || byte(position) == 0x54 { position += 1 }  // spaces or 'T'
      if position == end {
        return instant(year: year, month: month, day: day, time: nil)
      }
    } else {
      position = 0  // a time alone (parseHhMmSs), on 2000-01-01
    }

    // HH:MM[:SS[.F...]] (parseHhMmSs).
    guard let hour = number(2, 0...24), expect(0x3A), let minute = number(2, 0...59) else { return nil }
    var second = 0
    var fraction = 0.0
    var sqliteFraction = 0.0
    if expect(0x3A) {
      guard let s = number(2, 0...59) else { return nil }
      second = s
      if byte(position) == 0x2E && isDigit(position + 1) {
        position += 1
        // SQLite's own arithmetic, to agree with it on the millisecond it rounds to...
        var scale = 1.0
        // ...and the fraction as one integer over a power of ten, which is exact to 15 digits.
        var numerator = 0.0
        var denominator = 1.0
        while isDigit(position) {
          let digit = Double(bytes[position] - 0x30)
          sqliteFraction = sqliteFraction * 10 + digit
          scale *= 10
          if denominator < 1e15 {
            numerator = numerator * 10 + digit
            denominator *= 10
          }
          position += 1
        }
        sqliteFraction /= scale
        // Hundreds of digits overflow SQLite's arithmetic to NaN, which it cannot turn into a time.
        guard !sqliteFraction.isNaN else { return nil }
        // SQLite truncates to .999 so that rounding cannot reach the next second.
        if sqliteFraction > 0.999 { sqliteFraction = 0.999 }
        fraction = min(numerator / denominator, 0.999)
      }
    }

    // Hour 24 is the end of the day only at 24:00:00.000; SQLite would roll later times over.
    guard hour < 24 || (minute == 0 && second == 0 && sqliteFraction == 0) else { return nil }

    // Optional spaces, then Z or ±HH:MM, then optional spaces (parseTimezone).
    var offsetMinutes = 0
    while isSpace(position) { position += 1 }
    if position < end {
      let sign = byte(position)
      if sign == 0x5A || sign == 0x7A {  // 'Z' or 'z'
        position += 1
      } else if sign == 0x2B || sign == 0x2D {  // '+' or '-'
        position += 1
        guard let offsetHour = number(2, 0...14), expect(0x3A), let offsetMinute = number(2, 0...59) else {
          return nil
        }
        offsetMinutes = (sign == 0x2B ? 1 : -1) * (offsetHour * 60 + offsetMinute)
      } else {
        return nil
      }
      while isSpace(position) { position += 1 }
      guard position == end else { return nil }
    }
    return instant(
      year: year, month: month, day: day,
      time: (
        hour: hour, minute: minute, second: second, fraction: fraction, sqliteFraction: sqliteFraction,
        offsetMinutes: offsetMinutes
      ))
  }

  /// The instant of a parsed date and time, or `nil` outside the range SQLite's date functions accept
  /// (computeJD and validJulianDay): Julian day 0 (-4713-11-24 12:00 UTC) to 9999-12-31 23:59:59.999.
  private static func instant(
    year: Int, month: Int, day: Int,
    time: (hour: Int, minute: Int, second: Int, fraction: Double, sqliteFraction: Double, offsetMinutes: Int)?
  ) -> Date? {
    guard year >= -4713 else { return nil }
    let dayStart = days(year: year, month: month, day: day) * 86_400
    var seconds = Double(dayStart)
    // SQLite's instant in milliseconds since 1970, rounded as it rounds.
    var milliseconds = dayStart * 1000
    if let time {
      let whole = time.hour * 3600 + time.minute * 60 + time.second - time.offsetMinutes * 60
      milliseconds +=
        (whole - time.second) * 1000 + Int((Double(time.second) + time.sqliteFraction) * 1000 + 0.5)
      seconds += Double(whole) + time.fraction
    }
    // Julian day 0 is -210_866_760_000 s since 1970; 253_402_300_799.999 s is the end of year 9999.
    guard milliseconds >= -210_866_760_000_000, milliseconds <= 253_402_300_799_999 else { return nil }
    return Date(timeIntervalSince1970: seconds)
  }
}
