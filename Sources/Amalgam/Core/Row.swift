#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// The current row of a ``Statement``: typed reads by column index or name.
///
/// ```swift
/// while let row = try statement.step() {
///   let id: Int64 = try row.value(at: 0)             // non-optional: NULL throws
///   let name: String? = try row.value(named: "name") // optional: NULL reads as nil
///   let raw: DatabaseValue = try row[1]
///   let same = try row.name                          // by column name, as a DatabaseValue
/// }
/// ```
///
/// A row reads the statement's current row, so read it before the statement steps again;
/// ``values()`` copies the values out.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
@dynamicMemberLookup
public struct Row {
  /// The statement whose current row this is.
  public let statement: Statement
  /// The statement's `sqlite3_stmt*`, copied out so that reading a column touches no reference count.
  @usableFromInline let sqliteHandle: OpaquePointer
  /// The number of columns.
  public let count: Int

  @inlinable
  init(statement: Statement) {
    self.statement = statement
    self.sqliteHandle = statement.sqliteHandle
    self.count = Int(sqlite3_column_count(statement.sqliteHandle))
  }

  /// Checks a 0-based column index and converts it to SQLite's type.
  @inlinable
  func position(_ index: Int) throws -> Int32 {
    guard index >= 0 && index < count else { throw columnIndexOutOfRange(index) }
    return Int32(truncatingIfNeeded: index)
  }

  @usableFromInline
  func columnIndexOutOfRange(_ index: Int) -> DatabaseError {
    .columnIndexOutOfRange(index: index, count: count)
  }

  /// The value of column `index` (0-based) converted to `T`. Ask for an optional type to read NULL
  /// as `nil`; a non-optional type throws on NULL.
  ///
  /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)``, or
  ///   ``DatabaseError/conversionFailed(column:type:found:reason:)`` naming the column and types.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  @inlinable @inline(__always)
  public func value<T: ColumnConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
    let position = try position(index)
    // 64-bit integers, the most common column type, are read here: in the caller's specialization the
    // type test folds away and the read is inlined, where the conformance's witness would be a call.
    if T.self == Int64.self || (T.self == Int.self && Int.bitWidth == 64) {
      let column = amalgam_column_integer(sqliteHandle, position)
      if column.type == SQLITE_INTEGER { return unsafeBitCast(column.value, to: T.self) }
    }
    do {
      return try T(row: self, at: position)
    } catch {
      throw naming(error, column: index)
    }
  }

  /// Adds the column to a conversion error that does not name one yet.
  @usableFromInline
  func naming(_ error: any Error, column index: Int) -> any Error {
    guard case let DatabaseError.conversionFailed(nil, type, found, reason) = error else { return error }
    return DatabaseError.conversionFailed(column: columnLabel(index), type: type, found: found, reason: reason)
  }

  /// The value of the column named `name` converted to `T`. See ``value(at:as:)``.
  ///
  /// - Throws: ``DatabaseError/noSuchColumn(name:available:)`` for an unknown name.
  @inlinable @inline(__always)
  public func value<T: ColumnConvertible>(named name: String, as type: T.Type = T.self) throws -> T {
    try value(at: statement.columnIndexInRow(named: name), as: type)
  }

  /// Calls `body` with the bytes of column `index` (0-based) where SQLite holds them, without copying:
  /// a BLOB's bytes, a TEXT's UTF-8 bytes (without the terminating NUL, and as stored, valid UTF-8 or
  /// not), or `nil` for NULL. SQLite converts an INTEGER or REAL column to its text in place (as
  /// `sqlite3_column_text` does) and `body` gets that text. The fastest way to read a blob or a text:
  /// no `Data`, `String` or array is made.
  ///
  /// The buffer is valid only while `body` runs: SQLite frees or reuses it when the statement steps or
  /// resets, or when the column is read as another type. Copy out what you keep.
  ///
  /// ```swift
  /// let sum = try row.withUnsafeBytes(at: 1) { bytes in bytes?.reduce(0) { $0 &+ Int($1) } ?? 0 }
  /// ```
  ///
  /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)``, ``SQLiteError`` with
  ///   `SQLITE_NOMEM` when SQLite could not convert the value, or what `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  @inlinable
  public func withUnsafeBytes<Result>(
    at index: Int, _ body: (UnsafeRawBufferPointer?) throws -> Result
  ) throws -> Result {
    let position = try position(index)
    var bytes: UnsafeRawPointer?
    var count: Int32 = 0
    switch amalgam_column_bytes(sqliteHandle, position, &bytes, &count) {
    case SQLITE_NULL:
      return try body(nil)
    case SQLITE_BLOB, SQLITE_TEXT:
      // An empty blob has no pointer; any other missing pointer is a failed allocation.
      if bytes == nil, count > 0 { throw SQLiteError(code: .noMemory) }
    default:
      // A number's text is never empty: no pointer means SQLite could not allocate it.
      guard let text = sqlite3_column_text(sqliteHandle, position) else { throw SQLiteError(code: .noMemory) }
      bytes = UnsafeRawPointer(text)
      count = sqlite3_column_bytes(sqliteHandle, position)
    }
    return try body(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
  }

  /// True when column `index` holds NULL (`sqlite3_column_type`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  public func isNull(at index: Int) throws -> Bool {
    sqlite3_column_type(sqliteHandle, try position(index)) == SQLITE_NULL
  }

  /// The value of column `index` as stored.
  public subscript(index: Int) -> DatabaseValue {
    get throws { try value(at: index) }
  }

  /// The value of the column named `name` as stored.
  public subscript(name: String) -> DatabaseValue {
    get throws { try value(named: name) }
  }

  /// The value of a column by name, as a property: `try row.name`.
  public subscript(dynamicMember name: String) -> DatabaseValue {
    get throws { try value(named: name) }
  }

  /// Every column's value, in order: a copy that outlives the row.
  public func values() throws -> [DatabaseValue] {
    var values: [DatabaseValue] = []
    values.reserveCapacity(count)
    for index in 0..<count { values.append(try self[index]) }
    return values
  }

  /// Every column's value by column name.
  public func dictionary() throws -> [String: DatabaseValue] {
    var result: [String: DatabaseValue] = [:]
    for (index, name) in statement.columnNames.enumerated() where result[name] == nil {
      result[name] = try self[index]
    }
    return result
  }

  /// `"name" (column 2)`, for error messages.
  func columnLabel(_ index: Int) -> String {
    let names = statement.columnNames
    return index < names.count ? "\"\(names[index])\" (column \(index))" : "\(index)"
  }

  /// Reads column `position` as stored. Text that is not valid UTF-8 throws, naming the column; read it
  /// as `Data` to get its bytes.
  @usableFromInline
  func databaseValue(at position: Int32) throws -> DatabaseValue {
    let handle = sqliteHandle
    switch sqlite3_column_type(handle, position) {
    case SQLITE_INTEGER:
      return .integer(sqlite3_column_int64(handle, position))
    case SQLITE_FLOAT:
      return .real(sqlite3_column_double(handle, position))
    case SQLITE_TEXT:
      // NULL for TEXT means SQLite ran out of memory making the UTF-8 text (it converts UTF-16, and
      // adds a terminator); then the length must not be read, as it may convert again and succeed.
      guard let bytes = sqlite3_column_text(handle, position) else {
        throw SQLiteError(code: .noMemory, message: "Out of memory reading column \(position) as UTF-8 text")
      }
      let count = Int(sqlite3_column_bytes(handle, position))
      guard let text = String.validatingUTF8(UnsafeBufferPointer(start: bytes, count: count)) else {
        throw DatabaseError.conversionFailed(
          column: nil, type: "String", found: "TEXT of \(count) bytes", reason: "the text is not valid UTF-8")
      }
      return .text(text)
    case SQLITE_BLOB:
      let bytes = sqlite3_column_blob(handle, position)
      let count = Int(sqlite3_column_bytes(handle, position))
      guard let bytes, count > 0 else { return .blob(Data()) }
      return .blob(Data(bytes: bytes, count: count))
    default:
      return .null
    }
  }

  /// The bytes of a TEXT or BLOB column, without converting them.
  func withUnsafeBytes<R>(at position: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    let handle = sqliteHandle
    let start: UnsafeRawPointer? =
      sqlite3_column_type(handle, position) == SQLITE_TEXT
      ? UnsafeRawPointer(sqlite3_column_text(handle, position))
      : sqlite3_column_blob(handle, position)
    let count = Int(sqlite3_column_bytes(handle, position))
    return try body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
  }
}

extension String {
  /// True when every byte is below 0x80; checks eight bytes at a time.
  static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    var index = 0
    var high: UInt64 = 0
    while index + 8 <= bytes.count {
      high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      index += 8
    }
    while index < bytes.count {
      high |= UInt64(bytes[index])
      index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
  }

  /// Creates a string from `count` UTF-8 bytes at `bytes`, or returns `nil` if they are not valid
  /// UTF-8 (or `bytes` is nil while `count` is not zero: SQLite ran out of memory).
  @usableFromInline
  static func validatingUTF8(_ bytes: UnsafeRawPointer?, count: Int) -> String? {
    guard let bytes else { return count == 0 ? "" : nil }
    return validatingUTF8(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: count))
  }

  /// Creates a string from UTF-8 bytes, or returns `nil` if they are not valid UTF-8. Embedded NUL
  /// characters are kept.
  static func validatingUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    if bytes.isEmpty { return "" }
    // ASCII, the common case, is valid UTF-8: skip the generic validating initializer, which is
    // several times slower than decoding.
    if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      return String(validating: bytes, as: UTF8.self)
    }
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    loop: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput: break loop
      case .error: return nil
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
