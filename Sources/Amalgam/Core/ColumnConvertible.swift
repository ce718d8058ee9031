#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// A Swift type that can be created from a stored value: a column of a row, or any ``DatabaseValue``.
///
/// Conversions are strict: a value of the wrong storage class, or one that does not fit, throws
/// ``DatabaseError/conversionFailed(column:type:found:reason:)`` rather than being coerced silently.
/// A non-optional type throws on NULL; `Optional<T>` reads NULL as `nil`.
///
/// ```swift
/// struct Celsius: ColumnConvertible {
///   var degrees: Double
///   init(databaseValue: DatabaseValue) throws { degrees = try Double(databaseValue: databaseValue) }
/// }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
public protocol ColumnConvertible {
  /// Creates a value from a stored value, or throws if the conversion cannot be done.
  init(databaseValue: DatabaseValue) throws

  /// Creates a value from column `index` (0-based, already range-checked) of `row`. The default reads
  /// the column as a ``DatabaseValue``; types override it to read SQLite's column functions directly.
  init(row: borrowing Row, at index: Int32) throws

  /// Creates a value from a protected `sqlite3_value*`, such as an SQL function's argument. The
  /// default reads it as a ``DatabaseValue`` (TEXT that is not valid UTF-8 throws); numeric and
  /// optional types read SQLite's value functions directly.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  init(sqliteValue value: OpaquePointer) throws
}

extension ColumnConvertible {
  public init(row: borrowing Row, at index: Int32) throws {
    try self.init(databaseValue: row.databaseValue(at: index))
  }

  public init(sqliteValue value: OpaquePointer) throws {
    try self.init(databaseValue: DatabaseValue(strictSQLiteValue: value))
  }
}

extension DatabaseValue {
  /// Reads a protected `sqlite3_value*` as stored; TEXT that is not valid UTF-8 throws.
  @usableFromInline
  init(strictSQLiteValue value: OpaquePointer) throws {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
      // NULL for TEXT: SQLite ran out of memory converting it to UTF-8; do not read the length then.
      guard let bytes = sqlite3_value_text(value) else {
        throw SQLiteError(code: .noMemory, message: "Out of memory reading a value as UTF-8 text")
      }
      let count = Int(sqlite3_value_bytes(value))
      guard let text = String.validatingUTF8(UnsafeBufferPointer(start: bytes, count: count)) else {
        throw DatabaseError.conversionFailed(
          column: nil, type: "String", found: "TEXT of \(count) bytes", reason: "the text is not valid UTF-8")
      }
      self = .text(text)
    case SQLITE_BLOB:
      let bytes = sqlite3_value_blob(value)
      let count = Int(sqlite3_value_bytes(value))
      guard let bytes, count > 0 else {
        // No bytes for a non-empty BLOB: SQLite ran out of memory expanding a zero-filled one.
        if count > 0 { throw SQLiteError(code: .noMemory, message: "Out of memory reading a value as a BLOB") }
        self = .blob(Data())
        return
      }
      self = .blob(Data(bytes: bytes, count: count))
    default: self = .null
    }
  }
}

extension DatabaseValue: ColumnConvertible {
  /// The value itself.
  public init(databaseValue: DatabaseValue) { self = databaseValue }

  public init(row: borrowing Row, at index: Int32) throws {
    self = try row.databaseValue(at: index)
  }
}

extension Optional: ColumnConvertible where Wrapped: ColumnConvertible {
  /// `nil` for NULL, else the wrapped type's conversion.
  public init(databaseValue: DatabaseValue) throws {
    if case .null = databaseValue {
      self = .none
    } else {
      self = .some(try Wrapped(databaseValue: databaseValue))
    }
  }

  public init(row: borrowing Row, at index: Int32) throws {
    if sqlite3_column_type(row.sqliteHandle, index) == SQLITE_NULL {
      self = .none
    } else {
      self = .some(try Wrapped(row: row, at: index))
    }
  }

  public init(sqliteValue value: OpaquePointer) throws {
    if sqlite3_value_type(value) == SQLITE_NULL {
      self = .none
    } else {
      self = .some(try Wrapped(sqliteValue: value))
    }
  }
}

extension DatabaseError {
  /// A conversion failure not yet tied to a column; ``Row`` adds the column.
  static func cannotConvert(_ value: DatabaseValue, to type: Any.Type, _ reason: String? = nil) -> DatabaseError {
    let reason =
      reason
      ?? (value.isNull
        ? "the value is NULL; read an optional type to accept NULL"
        : "a \(value.storageClass) value cannot be read as \(type)")
    return .conversionFailed(column: nil, type: "\(type)", found: value.summary, reason: reason)
  }
}

extension DatabaseValue {
  /// Reads a protected `sqlite3_value*` as stored, copied; TEXT that is not valid UTF-8 is repaired
  /// (invalid bytes become U+FFFD). `nil` when SQLite ran out of memory converting it (TEXT to UTF-8,
  /// a zero-filled BLOB to bytes). ``init(strictSQLiteValue:)`` throws instead.
  static func copied(_ value: OpaquePointer) -> DatabaseValue? {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT: return FunctionArguments.text(of: value).map { .text($0) }
    case SQLITE_BLOB:
      let bytes = sqlite3_value_blob(value)
      let count = Int(sqlite3_value_bytes(value))
      if let bytes, count > 0 { return .blob(Data(bytes: bytes, count: count)) }
      return count > 0 ? nil : .blob(Data())
    default: return .null
    }
  }
}
