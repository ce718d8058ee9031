#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

extension Data: ParameterBindable, ColumnConvertible {
  /// The bytes as ``DatabaseValue/blob(_:)``. An empty `Data` is stored as an empty blob, not NULL.
  public func databaseValue() -> DatabaseValue { .blob(self) }

  /// Reads BLOB, or the UTF-8 bytes of TEXT (which recovers text that is not valid UTF-8).
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .blob(let data): self = data
    case .text(let text): self = Data(text.utf8)
    default: throw DatabaseError.cannotConvert(databaseValue, to: Data.self)
    }
  }

  /// Copies the bytes of a BLOB or TEXT column straight from SQLite; other storage classes as
  /// ``init(databaseValue:)``.
  @inlinable
  public init(row: borrowing Row, at index: Int32) throws {
    var bytes: UnsafeRawPointer?
    var count: Int32 = 0
    switch amalgam_column_bytes(row.sqliteHandle, index, &bytes, &count) {
    case SQLITE_BLOB, SQLITE_TEXT:
      if let bytes {
        self = Data(bytes: bytes, count: Int(count))
      } else if count == 0 {
        self = Data()
      } else {
        throw SQLiteError(code: .noMemory)
      }
    default: try self.init(databaseValue: row.databaseValue(at: index))
    }
  }
}

extension UUID: ParameterBindable, ColumnConvertible {
  /// The UUID as lower-case text (`"6ba7b810-9dad-11d1-80b4-00c04fd430c8"`), the form SQLite's `uuid()`
  /// returns; `uuid_blob()` converts it to 16 bytes in SQL.
  public func databaseValue() -> DatabaseValue { .text(uuidString.lowercased()) }

  /// Reads TEXT in the usual 36-character form (any case), or a 16-byte BLOB.
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .text(let text):
      // Foundation's parser on Linux also takes some malformed text (a dash out of place, read as a
      // different UUID; fuzz-value-conversions found it): check the form first.
      guard Self.isCanonicalText(text), let uuid = UUID(uuidString: text) else {
        throw DatabaseError.cannotConvert(databaseValue, to: UUID.self, "the text is not a UUID")
      }
      self = uuid
    case .blob(let data):
      guard data.count == 16 else {
        throw DatabaseError.cannotConvert(databaseValue, to: UUID.self, "a UUID blob has 16 bytes")
      }
      let b = [UInt8](data)
      self = UUID(
        uuid: (
          b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
          b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
        ))
    default:
      throw DatabaseError.cannotConvert(databaseValue, to: UUID.self)
    }
  }
}

extension UUID {
  /// Whether `text` is 32 hexadecimal digits in groups of 8-4-4-4-12 separated by dashes.
  static func isCanonicalText(_ text: String) -> Bool {
    var count = 0
    for byte in text.utf8 {
      switch count {
      case 8, 13, 18, 23:
        guard byte == UInt8(ascii: "-") else { return false }
      default:
        let isHex =
          (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
          || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
        guard isHex else { return false }
      }
      count += 1
      if count > 36 { return false }
    }
    return count == 36
  }
}

extension URL: ParameterBindable, ColumnConvertible {
  /// The URL's absolute string as TEXT.
  ///
  /// - Throws: ``DatabaseError/unrepresentableValue(type:value:reason:)`` for a relative reference (a URL
  ///   without a scheme, such as `URL(string: "a/b")`), which ``init(databaseValue:)`` could not read back.
  ///   (Binding to a statement of a connection with ``ValueStorage/relativeURLs`` stores it.)
  public func databaseValue() throws -> DatabaseValue {
    let text = absoluteString
    guard URL.hasValidScheme(text) else {
      throw DatabaseError.unrepresentableValue(
        type: "URL", value: "\"\(text)\"",
        reason: "a URL without a scheme is a relative reference; store its absolute form, or a String")
    }
    return .text(text)
  }

  /// Reads TEXT that is an absolute URL, exactly as ``databaseValue()`` stores it.
  ///
  /// The text is a URL when it starts with a scheme (a letter, then letters, digits, `+`, `-` or `.`,
  /// then `:`, as RFC 3986 defines it), `URL(string:)` parses it, and the parsed URL's `absoluteString`
  /// is the text itself. So `"https://example.com/a%20b"` and `"mailto:a@example.com"` are read, while
  /// `"::::"`, a relative reference such as `"a/b"`, text with spaces, and text that parsing would
  /// change (an internationalized host, which `URL` converts to Punycode) throw
  /// ``DatabaseError/conversionFailed(column:type:found:reason:)``.
  public init(databaseValue: DatabaseValue) throws {
    guard case .text(let text) = databaseValue else {
      throw DatabaseError.cannotConvert(databaseValue, to: URL.self)
    }
    guard URL.hasValidScheme(text) else {
      throw DatabaseError.cannotConvert(
        databaseValue, to: URL.self,
        "the text is not an absolute URL (it does not start with a scheme such as \"https:\")")
    }
    guard let url = URL(string: text), url.absoluteString == text else {
      throw DatabaseError.cannotConvert(databaseValue, to: URL.self, "the text is not a URL")
    }
    self = url
  }

  /// Binds the URL's absolute string; a relative reference only on a connection with
  /// ``ValueStorage/relativeURLs`` (FeistyDB's storage), else it throws as ``databaseValue()`` does.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func bind(to statement: Statement, at index: Int32) throws {
    let value: DatabaseValue =
      statement.connection.valueStorage.relativeURLs ? .text(absoluteString) : try databaseValue()
    try value.bind(to: statement, at: index)
  }

  /// Reads a URL as ``init(databaseValue:)`` does; on a connection with ``ValueStorage/relativeURLs``
  /// also any text that `URL(string:)` parses, as FeistyDB reads it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  public init(row: borrowing Row, at index: Int32) throws {
    let stored = try row.databaseValue(at: index)
    if case .text(let text) = stored, !URL.hasValidScheme(text),
      row.statement.connection.valueStorage.relativeURLs, let url = URL(string: text)
    {
      self = url
      return
    }
    try self.init(databaseValue: stored)
  }

  /// Whether `text` starts with an RFC 3986 scheme followed by `:`.
  static func hasValidScheme(_ text: String) -> Bool {
    var isFirst = true
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
        break
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
        if isFirst { return false }
      case UInt8(ascii: ":"):
        return !isFirst
      default:
        return false
      }
      isFirst = false
    }
    return false
  }
}

extension Decimal: ParameterBindable, ColumnConvertible {
  /// The number as TEXT (`"12.345"`), which keeps every digit and works with SQLite's `decimal_*`
  /// functions. (A REAL would round it to a binary fraction.)
  ///
  /// - Throws: ``DatabaseError/unrepresentableValue(type:value:reason:)`` for `Decimal.nan`, which is
  ///   not a number.
  public func databaseValue() throws -> DatabaseValue {
    guard !isNaN else {
      throw DatabaseError.unrepresentableValue(type: "Decimal", value: "NaN", reason: "NaN is not a number")
    }
    return .text(description)
  }

  /// Reads TEXT holding a decimal number, INTEGER, or REAL, exactly, or throws
  /// ``DatabaseError/conversionFailed(column:type:found:reason:)``.
  ///
  /// - TEXT must be a whole decimal number and nothing else: an optional sign, digits with an optional
  ///   decimal point, and an optional exponent (`"-12.5"`, `".5"`, `"1e-3"`). Spaces, trailing
  ///   characters (`"12abc"`), hexadecimal, `"NaN"` and `"Infinity"` throw.
  /// - A REAL is read as the shortest decimal that converts back to the same `Double`, the digits
  ///   SQLite and Swift print for it (REAL `0.1` reads as `0.1`). Infinities and NaN throw.
  /// - An INTEGER is read exactly.
  ///
  /// A number that `Decimal` cannot hold exactly throws rather than being rounded: one with more than 38
  /// significant digits, or whose last significant digit stands for a power of ten outside -128...127
  /// (`1e128`, REAL `1e308` and REAL `1e-300` throw; `1.5e128` and `1e-128` are read).
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .integer(let value): self = Decimal(value)
    case .real(let value):
      guard value.isFinite else {
        throw DatabaseError.cannotConvert(databaseValue, to: Decimal.self, "\(value) is not a finite number")
      }
      guard let decimal = ExactDecimal.parse(value == 0 ? "0" : "\(value)") else {
        throw DatabaseError.cannotConvert(
          databaseValue, to: Decimal.self, "\(value) is outside the range that Decimal holds exactly")
      }
      self = decimal
    case .text(let text):
      guard ExactDecimal.digits(of: text) != nil else {
        throw DatabaseError.cannotConvert(databaseValue, to: Decimal.self, "the text is not a decimal number")
      }
      guard let value = ExactDecimal.parse(text) else {
        throw DatabaseError.cannotConvert(
          databaseValue, to: Decimal.self,
          "the number has more digits, or a larger or smaller magnitude, than Decimal holds exactly")
      }
      self = value
    default: throw DatabaseError.cannotConvert(databaseValue, to: Decimal.self)
    }
  }
}

/// Parses decimal text into a `Decimal` only when the result is exactly the number written.
enum ExactDecimal {
  /// A number as sign, significant digits (no leading or trailing zeros; empty for zero) and the power
  /// of ten of the last digit.
  struct Digits: Equatable {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int
  }

  /// The digits of `text` when it is `[+-]? (digits [. digits*]? | . digits) ([eE] [+-]? digits)?`,
  /// else `nil`.
  static func digits(of text: String) -> Digits? {
    let bytes = Array(text.utf8)
    var position = 0
    var negative = false
    if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
      negative = bytes[position] == UInt8(ascii: "-")
      position += 1
    }
    var digits: [UInt8] = []
    var exponent = 0
    var sawDigit = false
    func isDigit(_ index: Int) -> Bool {
      index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }
    while isDigit(position) {
      sawDigit = true
      if !(digits.isEmpty && bytes[position] == UInt8(ascii: "0")) { digits.append(bytes[position] - 0x30) }
      position += 1
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      while isDigit(position) {
        sawDigit = true
        if !(digits.isEmpty && bytes[position] == UInt8(ascii: "0")) { digits.append(bytes[position] - 0x30) }
        exponent -= 1
        position += 1
      }
    }
    guard sawDigit else { return nil }
    if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
      position += 1
      var exponentNegative = false
      if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
        exponentNegative = bytes[position] == UInt8(ascii: "-")
        position += 1
      }
      guard isDigit(position) else { return nil }
      var written = 0
      while isDigit(position) {
        // Beyond a million the number is out of Decimal's range anyway; stop before overflowing.
        written = min(written * 10 + Int(bytes[position] - 0x30), 1_000_000)
        position += 1
      }
      exponent += exponentNegative ? -written : written
    }
    guard position == bytes.count else { return nil }
    while let last = digits.last, last == 0 {
      digits.removeLast()
      exponent += 1
    }
    if digits.isEmpty { return Digits(negative: false, digits: [], exponent: 0) }
    return Digits(negative: negative, digits: digits, exponent: exponent)
  }

  /// The `Decimal` that `text` writes, or `nil` when the text is not a number or `Decimal` cannot hold
  /// it exactly.
  static func parse(_ text: String) -> Decimal? {
    guard let number = digits(of: text) else { return nil }
    if number.digits.isEmpty { return Decimal.zero }
    // Decimal holds a significand of up to 38 digits times a power of ten in -128...127. (Padding the
    // significand with zeros to bring a larger exponent into range does not help: Decimal strips them.)
    guard number.digits.count <= 38, (-128...127).contains(number.exponent) else { return nil }
    let significandText = String(decoding: number.digits.map { $0 + 0x30 }, as: UTF8.self)
    guard let significand = Decimal(string: significandText, locale: nil) else { return nil }
    let value = Decimal(sign: number.negative ? .minus : .plus, exponent: number.exponent, significand: significand)
    // Check the result against the text rather than trusting each step to be exact.
    guard !value.isNaN, let back = digits(of: value.description), back == digits(of: text) else { return nil }
    return value
  }
}
