import AmalgamSQLite

/// A Swift value that can be bound to a statement parameter.
///
/// Conforming types describe themselves as a ``DatabaseValue``; a type may also override
/// ``bind(to:at:)`` to call SQLite's bind functions directly. Standard library integers, floating-point
/// numbers, `Bool`, `String`, `Data`, `[UInt8]`, `Date`, `UUID`, `URL`, `Decimal`, optionals of these
/// and `DatabaseValue` conform.
///
/// ```swift
/// struct Celsius: ParameterBindable {
///   var degrees: Double
///   func databaseValue() throws -> DatabaseValue { .real(degrees) }
/// }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
public protocol ParameterBindable {
  /// The value to store. Throws when the value has no SQLite representation (an integer out of range).
  func databaseValue() throws -> DatabaseValue

  /// Binds the value to parameter `index` (1-based) of `statement`.
  func bind(to statement: Statement, at index: Int32) throws
}

extension ParameterBindable {
  /// Binds ``databaseValue()``.
  public func bind(to statement: Statement, at index: Int32) throws {
    try databaseValue().bind(to: statement, at: index)
  }
}

extension DatabaseValue: ParameterBindable {
  /// The value itself.
  public func databaseValue() -> DatabaseValue { self }

  /// Binds the value with the `sqlite3_bind_*` function for its storage class. Text and blobs are
  /// copied by SQLite (`SQLITE_TRANSIENT`); an empty blob binds as a zero-length blob, not NULL.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func bind(to statement: Statement, at index: Int32) throws {
    let handle = statement.sqliteHandle
    let rc: Int32
    switch self {
    case .null:
      rc = sqlite3_bind_null(handle, index)
    case .integer(let value):
      rc = sqlite3_bind_int64(handle, index, value)
    case .real(let value):
      rc = sqlite3_bind_double(handle, index, value)
    case .text(let value):
      rc = bindText(value, handle: handle, index: index)
    case .blob(let value):
      rc = value.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress, bytes.count > 0 else {
          return sqlite3_bind_zeroblob(handle, index, 0)
        }
        return sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), transientDestructor)
      }
    }
    try statement.checkBinding(rc, at: index)
  }
}

/// Binds UTF-8 text with its exact byte length, so embedded NUL characters are kept. An empty string
/// binds as empty text, not NULL.
@inline(__always)
func bindText(_ text: String, handle: OpaquePointer, index: Int32) -> Int32 {
  var text = text
  return text.withUTF8 { bytes in
    bytes.withMemoryRebound(to: CChar.self) { chars in
      guard let base = chars.baseAddress, chars.count > 0 else {
        return sqlite3_bind_text(handle, index, "", 0, transientDestructor)
      }
      return sqlite3_bind_text64(
        handle, index, base, UInt64(chars.count), transientDestructor, UInt8(SQLITE_UTF8))
    }
  }
}

extension Optional: ParameterBindable where Wrapped: ParameterBindable {
  /// The wrapped value, or ``DatabaseValue/null``.
  public func databaseValue() throws -> DatabaseValue {
    switch self {
    case .none: .null
    case .some(let value): try value.databaseValue()
    }
  }

  public func bind(to statement: Statement, at index: Int32) throws {
    switch self {
    case .none: try statement.checkBinding(sqlite3_bind_null(statement.sqliteHandle, index), at: index)
    case .some(let value): try value.bind(to: statement, at: index)
    }
  }
}

extension Optional where Wrapped == any ParameterBindable {
  /// Binds the wrapped value, or NULL.
  @inlinable
  func bindOrNull(to statement: Statement, at index: Int32) throws {
    switch self {
    case .some(let value): try value.bind(to: statement, at: index)
    case .none: try statement.checkBinding(sqlite3_bind_null(statement.sqliteHandle, index), at: index)
    }
  }
}
