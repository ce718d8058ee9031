// Fuzzes the conversions from stored values to Foundation types (Date, Decimal, UUID, URL, Data and the
// standard numbers), checking each against SQLite's own reading of the same value where one exists:
// - a text that reads as a Date is one that julianday() reads, at the same instant (to the millisecond),
//   and the date written back reads as the same instant; a text julianday() reads is a Date unless it
//   is one of the documented refusals (a day past its month's end or a time in hour 24 after 24:00,
//   which julianday() rolls over; "now"; a number; a NUL);
// - a text that reads as a Decimal is equal to the Decimal written back by SQLite's decimal extension
//   (decimal_cmp of both after decimal(): decimal_cmp('1e-3', '0.001') alone answers 1), and
//   reads back as the same Decimal;
// - a UUID or URL written back is the text it was read from (UUIDs in lower case);
// - reading through a row (init(row:at:)) and through a DatabaseValue (init(databaseValue:)) agree.
import Amalgam
import Foundation
import FuzzSupport

/// The connection every run reuses: an in-memory database, for SQLite's readings and row reads.
nonisolated(unsafe) let database = try! Database()  // The fuzzer calls the target on one thread.
nonisolated(unsafe) let readBack = try! database.prepare(sql: "SELECT ?1")
/// SQLite's readings of a text: julianday(), and decimal_cmp() of decimal() of it and of another text.
nonisolated(unsafe) let julianDayReading = try! database.prepare(sql: "SELECT julianday(?1)")
nonisolated(unsafe) let decimalReading = try! database.prepare(sql: "SELECT decimal_cmp(decimal(?1), decimal(?2))")

/// The value of `value` read back from SQLite as a row: the row path of the conversions.
func readThroughRow<T: ColumnConvertible>(_ value: DatabaseValue, as type: T.Type) -> Result<T, any Error> {
  do {
    try readBack.reset().clearBindings().bind(parameterValues: [value])
    guard let row = try readBack.step() else { fatalError("SELECT returned no row") }
    return Result { try row.value(at: 0, as: T.self) }
  } catch {
    fatalError("reading back a bound value failed: \(error)")
  }
}

/// Checks that the row path and the value path agree on `value` as `T`, and returns the value path's
/// result.
func bothPaths<T: ColumnConvertible & Equatable>(_ value: DatabaseValue, as type: T.Type) -> T? {
  let direct = Result { try T(databaseValue: value) }
  // SQLite stores a bound NaN as NULL: the row path reads another value.
  if case .real(let real) = value, real.isNaN { return try? direct.get() }
  let throughRow = readThroughRow(value, as: T.self)
  switch (direct, throughRow) {
  case (.success(let a), .success(let b)):
    fuzzCheck(a == b, "\(T.self) of \(value): \(a) directly, \(b) through a row")
    return a
  case (.failure, .failure):
    return nil
  case (.success(let a), .failure(let error)):
    fuzzCheck(false, "\(T.self) of \(value): \(a) directly, but a row throws \(error)")
  case (.failure(let error), .success(let b)):
    fuzzCheck(false, "\(T.self) of \(value): a row reads \(b), but directly it throws \(error)")
  }
  return nil
}

/// SQLite's julianday() of `text` and decimal_cmp(text, other).
func sqliteReadings(_ text: String, decimal other: String?) -> (julianDay: Double?, decimalComparison: Int64?) {
  // SQLite's decimal() refuses some texts with an error (an exponent such as e0999999999999999995 asks
  // for more digits than it may allocate: SQLITE_NOMEM): then SQLite has no decimal reading to compare.
  let comparison: Int64?
  do {
    try decimalReading.reset().clearBindings().bind(parameterValues: [text, other])
    guard let row = try decimalReading.step() else { fatalError("SELECT returned no row") }
    comparison = try row.value(at: 0, as: Int64?.self)
  } catch let error as SQLiteError where error.code == .noMemory || error.code == .tooBig {
    comparison = nil
  } catch {
    fatalError("SQLite's decimal reading of \(text.debugDescription) failed: \(error)")
  }
  do {
    try julianDayReading.reset().clearBindings().bind(parameterValues: [text])
    guard let row = try julianDayReading.step() else { fatalError("SELECT returned no row") }
    return (try row.value(at: 0, as: Double?.self), comparison)
  } catch {
    fatalError("SQLite's readings of \(text.debugDescription) failed: \(error)")
  }
}

func checkDate(_ text: String) {
  let date = bothPaths(.text(text), as: Date.self)
  let julianDay = sqliteReadings(text, decimal: nil).julianDay
  if let date {
    guard let julianDay else {
      fuzzCheck(false, "\(text.debugDescription) reads as \(date), but julianday() is NULL")
      return
    }
    let ours = date.timeIntervalSince1970 / 86_400 + 2_440_587.5
    fuzzCheck(abs(ours - julianDay) * 86_400 < 0.002, "\(text.debugDescription): \(ours) here, julianday() \(julianDay)")
    // Written back (within 0000...9999) and read again: the same instant to the millisecond.
    if let written = try? date.databaseValue(format: .iso8601) {
      guard let again = try? Date(databaseValue: written) else {
        fuzzCheck(false, "\(written) (written from \(text.debugDescription)) does not read back")
        return
      }
      fuzzCheck(abs(again.timeIntervalSince(date)) < 0.002, "\(text.debugDescription) -> \(written) -> \(again)")
    }
  } else if julianDay != nil {
    // The documented refusals: "now"/"subsec", numbers written as text, text with a NUL, fields out of
    // range.
    let lower = text.lowercased()
    let refused =
      lower.contains("now") || lower.contains("subsec") || text.utf8.contains(0) || namesAFieldOutOfRange(text)
      || Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) != nil
      || text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x20 || $0 == 0x2B || $0 == 0x2D || $0 == 0x65 || $0 == 0x45 }
    fuzzCheck(refused, "\(text.debugDescription): julianday() reads \(julianDay!), Date(databaseValue:) throws")
  }
}

/// Whether `text` names a day past its month's end (`2023-02-30`) or a time in hour 24 after 24:00:00.000
/// (`24:30`): julianday() rolls such fields over into the next month or day, Date(databaseValue:)
/// refuses them.
func namesAFieldOutOfRange(_ text: String) -> Bool {
  let bytes = Array(text.utf8)
  func number(at index: Int, _ width: Int) -> Int? {
    guard index >= 0, index + width <= bytes.count else { return nil }
    var value = 0
    for byte in bytes[index..<index + width] {
      guard byte >= 0x30 && byte <= 0x39 else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }
  func byte(_ index: Int) -> UInt8 { index >= 0 && index < bytes.count ? bytes[index] : 0 }
  let start = byte(0) == 0x2D ? 1 : 0
  if let year = number(at: start, 4), byte(start + 4) == 0x2D, let month = number(at: start + 5, 2),
    (1...12).contains(month), byte(start + 7) == 0x2D, let day = number(at: start + 8, 2)
  {
    let signed = start == 1 ? -year : year
    let leap = signed % 4 == 0 && (signed % 100 != 0 || signed % 400 == 0)
    let length = month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(month) ? 30 : 31
    if day > length && day <= 31 { return true }
  }
  // An hour 24 at the start, or after the date's spaces or 'T'.
  for index in bytes.indices where number(at: index, 2) == 24 && byte(index + 2) == 0x3A {
    let before = byte(index - 1)
    guard index == 0 || before == 0x54 || before == 0x74 || before == 0x20 || (0x09...0x0D).contains(before) else {
      continue
    }
    if let minute = number(at: index + 3, 2), minute != 0 { return true }
    if byte(index + 5) == 0x3A, let second = number(at: index + 6, 2) {
      if second != 0 { return true }
      var position = index + 8
      if byte(position) == 0x2E {
        position += 1
        while let digit = number(at: position, 1) {
          if digit != 0 { return true }
          position += 1
        }
      }
    }
  }
  return false
}

func checkDecimal(_ value: DatabaseValue) {
  guard let decimal = bothPaths(value, as: Decimal.self) else { return }
  guard case .text(let written) = try? decimal.databaseValue() else {
    fuzzCheck(false, "Decimal \(decimal) read from \(value) cannot be written")
    return
  }
  let again = try? Decimal(databaseValue: .text(written))
  fuzzCheck(again == decimal, "Decimal \(decimal) written as \(written) reads back as \(String(describing: again))")
  switch value {
  case .text(let text):
    if let comparison = sqliteReadings(text, decimal: written).decimalComparison {
      fuzzCheck(comparison == 0, "decimal_cmp(\(text.debugDescription), \(written)) = \(comparison)")
    }
  case .integer(let integer):
    fuzzCheck(written == String(integer), "INTEGER \(integer) reads as Decimal \(written)")
  case .real(let real):
    fuzzCheck(Double(written) == real, "REAL \(real) reads as Decimal \(written)")
  default:
    fuzzCheck(false, "\(value) read as Decimal \(decimal)")
  }
}

func checkUUID(_ value: DatabaseValue) {
  guard let uuid = bothPaths(value, as: UUID.self) else { return }
  let written = uuid.databaseValue()
  switch value {
  case .text(let text):
    fuzzCheck(written == .text(text.lowercased()), "UUID text \(text.debugDescription) written back as \(written)")
  case .blob(let bytes):
    fuzzCheck(bytes.count == 16, "a \(bytes.count)-byte blob read as a UUID")
    let again = try? UUID(databaseValue: written)
    fuzzCheck(again == uuid, "UUID \(uuid) written as \(written) reads back as \(String(describing: again))")
  default:
    fuzzCheck(false, "\(value) read as UUID \(uuid)")
  }
}

func checkURL(_ text: String) {
  guard let url = bothPaths(.text(text), as: URL.self) else { return }
  let written = try? url.databaseValue()
  fuzzCheck(written == .text(text), "URL text \(text.debugDescription) written back as \(String(describing: written))")
}

func checkStandard(_ value: DatabaseValue) {
  _ = bothPaths(value, as: Int64.self)
  _ = bothPaths(value, as: Int32.self)
  _ = bothPaths(value, as: UInt8.self)
  _ = bothPaths(value, as: Bool.self)
  _ = bothPaths(value, as: String.self)
  _ = bothPaths(value, as: Data.self)
  _ = bothPaths(value, as: [UInt8].self)
  if let double = bothPaths(value, as: Double.self), case .real(let real) = value {
    fuzzCheck(double == real || (double.isNaN && real.isNaN), "REAL \(real) read as Double \(double)")
  }
  _ = bothPaths(value, as: Date?.self)
  _ = bothPaths(value, as: Float?.self)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  let selector = input.byte()
  let bytes = input.rest()
  let text = String(decoding: bytes, as: UTF8.self)
  switch selector % 6 {
  case 0: checkDate(text)
  case 1: checkDecimal(.text(text))
  case 2: checkUUID(.text(text))
  case 3: checkURL(text)
  default:
    var values = FuzzInput(bytes: bytes)
    while !values.isEmpty {
      let value = values.value()
      checkStandard(value)
      checkDecimal(value)
      checkUUID(value)
      if case .text(let text) = value { checkDate(text) }
    }
  }
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_value_conversions_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
