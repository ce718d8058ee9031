#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// The arguments of one call to an application-defined SQL function (`sqlite3_value**`), read in place.
///
/// Arguments are a collection of ``DatabaseValue``s, and offer cheaper reads that build no
/// `DatabaseValue`: typed conversions, SQLite's own numeric conversions, and the bytes of a TEXT or BLOB
/// argument without copying them.
///
/// ```swift
/// try db.addFunction("byte_sum", arity: 1) { arguments, context in
///   let sum = arguments.withUnsafeBytes(at: 0) { bytes in bytes.reduce(0) { $0 + Int64($1) } }
///   context.setResult(.integer(sum))
/// }
/// ```
///
/// Arguments are valid only during the call that receives them. Arguments kept after the function
/// returned (stored in a variable or an array) never reach SQLite again: ``value(at:as:)`` throws
/// ``DatabaseError/callbackValueExpired(_:)``, and the non-throwing readers return what they return for
/// NULL. Copy values out during the call instead. See
/// <doc:CustomFunctionsAndHooks#Values-valid-only-during-a-callback>.
///
/// Reading TEXT as UTF-8 (in a UTF-16 database, or a number read as text) and reading a zero-filled
/// BLOB make SQLite allocate. When that allocation fails, the throwing reader ``value(at:as:)`` throws
/// an ``SQLiteError`` with code ``ResultCode/noMemory``; the non-throwing readers return empty text or
/// bytes, and the call then fails with `SQLITE_NOMEM` once the function returns, whatever result it
/// set, so that no result computed from the missing value reaches SQL.
///
/// Indexes run from 0 to ``count`` - 1. An index out of range does not trap: ``value(at:as:)`` throws
/// an ``SQLiteError`` with code ``ResultCode/range``, and the subscript and the non-throwing readers
/// read it as NULL (the subscript gives ``DatabaseValue/null``, ``int64(at:)`` 0, ``text(at:)`` `nil`).
/// A function registered with a fixed arity always gets that many arguments; a variadic function
/// should check ``count``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
///
/// ## Topics
///
/// ### Reading arguments
///
/// - ``count``
/// - ``subscript(_:)``
/// - ``value(at:as:)``
/// - ``isNull(at:)``
/// - ``int64(at:)``
/// - ``double(at:)``
/// - ``text(at:)``
/// - ``withUnsafeBytes(at:_:)``
/// - ``subtype(at:)``
/// - ``isValid``
/// - ``isBoundParameter(at:)``
/// - ``numericValue(at:)``
/// - ``pointer(at:as:typeName:)``
///
/// ### C API
///
/// - ``sqliteValue(at:)``
public struct FunctionArguments: RandomAccessCollection {
  /// SQLite's `argv`.
  @usableFromInline let values: UnsafeMutablePointer<OpaquePointer?>?

  /// The call these arguments belong to.
  @usableFromInline let token: CallbackToken

  /// The number of arguments of this call.
  public let count: Int

  @usableFromInline init(count: Int32, values: UnsafeMutablePointer<OpaquePointer?>?, token: CallbackToken) {
    self.count = values == nil ? 0 : Int(Swift.max(count, 0))
    self.values = values
    self.token = token
  }

  /// True while the function call that received these arguments is running; false once it returned.
  public var isValid: Bool { token.isActive }

  /// 0: the first argument's index.
  public var startIndex: Int { 0 }
  /// ``count``: one past the last argument's index.
  public var endIndex: Int { count }

  /// The `sqlite3_value*` of argument `index`, for calling SQLite's C API directly; `nil` for an index
  /// out of range, and once the call has returned. Use it only during the call.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value.html>
  @inlinable
  public func sqliteValue(at index: Int) -> OpaquePointer? {
    guard index >= 0 && index < count, token.isActive, let values else { return nil }
    return values[index]
  }

  /// Argument `index` as stored. TEXT that is not valid UTF-8 is repaired (invalid bytes become
  /// U+FFFD); use ``withUnsafeBytes(at:_:)`` for its exact bytes, or ``value(at:as:)``, which throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public subscript(index: Int) -> DatabaseValue {
    guard let value = sqliteValue(at: index) else { return .null }
    if let copied = DatabaseValue.copied(value) { return copied }
    token.recordOutOfMemory()
    return sqlite3_value_type(value) == SQLITE_BLOB ? .blob(Data()) : .text("")
  }

  /// Argument `index` converted to `T` with Amalgam's strict conversions, as a row column is: ask for
  /// an optional type to accept NULL; a value that does not convert throws. TEXT that is not valid
  /// UTF-8 throws when read as `String`.
  ///
  /// ```swift
  /// let count: Int = try arguments.value(at: 0)
  /// let label: String? = try arguments.value(at: 1)
  /// ```
  ///
  /// - Throws: ``DatabaseError/conversionFailed(column:type:found:reason:)``, or an ``SQLiteError`` with
  ///   code ``ResultCode/range`` for an index out of range. Thrown from a function, either becomes the
  ///   SQL error of the statement.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  @inlinable
  public func value<T: ColumnConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
    guard index >= 0 && index < count else { throw indexOutOfRange(index) }
    guard token.isActive, let values, let value = values[index] else { throw expired() }
    return try T(sqliteValue: value)
  }

  /// The error for arguments read after their call returned.
  @usableFromInline
  func expired() -> DatabaseError {
    .callbackValueExpired("the arguments of an SQL function call")
  }

  @usableFromInline
  func indexOutOfRange(_ index: Int) -> SQLiteError {
    SQLiteError(
      code: .range, message: "Argument index \(index) is out of range; the function received \(count) argument(s)")
  }

  /// True when argument `index` is NULL (also for an index out of range, and after the call).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  @inlinable
  public func isNull(at index: Int) -> Bool {
    guard let value = sqliteValue(at: index) else { return true }
    return sqlite3_value_type(value) == SQLITE_NULL
  }

  /// Argument `index` as a 64-bit integer, converted by SQLite's own rules (`sqlite3_value_int64`):
  /// NULL is 0, REAL is truncated, TEXT is read up to its first non-digit. Never throws; use
  /// ``value(at:as:)`` for a checked conversion.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  @inlinable
  public func int64(at index: Int) -> Int64 {
    guard let value = sqliteValue(at: index) else { return 0 }
    return sqlite3_value_int64(value)
  }

  /// Argument `index` as a `Double`, converted by SQLite's own rules (`sqlite3_value_double`): NULL is
  /// 0.0, TEXT is read as far as it is a number.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  @inlinable
  public func double(at index: Int) -> Double {
    guard let value = sqliteValue(at: index) else { return 0 }
    return sqlite3_value_double(value)
  }

  /// Argument `index` as text, converted by SQLite's own rules (`sqlite3_value_text`): numbers become
  /// their SQL text, a BLOB's bytes are read as UTF-8, NULL is `nil`. Invalid UTF-8 is repaired.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public func text(at index: Int) -> String? {
    guard let value = sqliteValue(at: index), sqlite3_value_type(value) != SQLITE_NULL else { return nil }
    if let text = Self.text(of: value) { return text }
    token.recordOutOfMemory()
    return ""
  }

  /// Calls `body` with the bytes of argument `index`, in place, without copying them: the UTF-8 of
  /// TEXT, the bytes of a BLOB, SQLite's text form of a number, nothing for NULL (and for an index out
  /// of range, or after the call). The buffer is valid only inside `body`.
  ///
  /// ```swift
  /// let checksum = arguments.withUnsafeBytes(at: 0) { bytes in bytes.reduce(0, &+) }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public func withUnsafeBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    let empty = UnsafeRawBufferPointer(start: nil, count: 0)
    guard let value = sqliteValue(at: index) else { return try body(empty) }
    let type = sqlite3_value_type(value)
    if type == SQLITE_NULL { return try body(empty) }
    // Ask for the pointer first, then the length: the length is that of the representation just made.
    let start: UnsafeRawPointer? =
      type == SQLITE_BLOB ? sqlite3_value_blob(value) : UnsafeRawPointer(sqlite3_value_text(value))
    guard let start else {
      // No bytes: an empty BLOB, or SQLite ran out of memory (converting to UTF-8 text, which never
      // gives NULL otherwise, or expanding a zero-filled BLOB, whose length is then not 0). Do not read
      // a text's length, which would convert again.
      if type != SQLITE_BLOB || sqlite3_value_bytes(value) > 0 { token.recordOutOfMemory() }
      return try body(empty)
    }
    let count = Int(sqlite3_value_bytes(value))
    return try body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
  }

  /// The subtype of argument `index` (`sqlite3_value_subtype`): ``FunctionContext/jsonSubtype`` (74,
  /// `"J"`) for JSON made by SQLite's JSON functions, 0 for none. Register the function with
  /// ``FunctionFlags/subtype`` to read it reliably.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_subtype.html>
  @inlinable
  public func subtype(at index: Int) -> UInt32 {
    guard let value = sqliteValue(at: index) else { return 0 }
    return sqlite3_value_subtype(value)
  }

  /// True when argument `index` is a bound parameter (`?`, `:name`) of the statement, passed unchanged
  /// (`sqlite3_value_frombind`); false for a column value, an expression or a literal.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public func isBoundParameter(at index: Int) -> Bool {
    guard let value = sqliteValue(at: index) else { return false }
    return sqlite3_value_frombind(value) != 0
  }

  /// Argument `index` with SQLite's numeric affinity applied (`sqlite3_value_numeric_type`): TEXT that
  /// looks like a number becomes ``DatabaseValue/integer(_:)`` or ``DatabaseValue/real(_:)``; other
  /// values are returned as they are. NULL for an index out of range and after the call.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public func numericValue(at index: Int) -> DatabaseValue {
    guard let value = sqliteValue(at: index) else { return .null }
    switch sqlite3_value_numeric_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    default: return self[index]
    }
  }

  /// For callbacks that report a result code rather than set a result (a virtual table's filter and
  /// update): throws `SQLITE_NOMEM` when a non-throwing reader met an allocation failure during the call.
  func throwIfOutOfMemory() throws {
    if token.ranOutOfMemory {
      throw SQLiteError(code: .noMemory, message: "Out of memory converting an argument of the call")
    }
  }

  /// The UTF-8 text of a value that is not NULL, with one copy into the string; `nil` when SQLite ran
  /// out of memory converting it to UTF-8.
  static func text(of value: OpaquePointer) -> String? {
    // NULL: SQLite ran out of memory converting the value to UTF-8. Reading the length would convert
    // again, and a length without bytes would trap.
    guard let bytes = sqlite3_value_text(value) else { return nil }
    let count = Int(sqlite3_value_bytes(value))
    return String(utf8: bytes, count: count)
  }
}
