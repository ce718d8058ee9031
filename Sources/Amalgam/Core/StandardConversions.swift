#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

// Conversions between Swift's standard types and SQLite's storage classes.
//
// Integers are stored as INTEGER (64-bit). Reading accepts INTEGER, and REAL when it holds a whole
// number in range; anything out of the target type's range throws instead of wrapping or trapping.

extension Statement {
  /// Throws when a `sqlite3_bind_*` call failed. For `SQLITE_RANGE` the error names the parameter index
  /// and the statement's parameter count, instead of SQLite's message, "column index out of range".
  @inlinable
  func checkBinding(_ rc: Int32, at index: Int32) throws {
    if rc != SQLITE_OK { throw bindingFailed(rc, at: index) }
  }

  @usableFromInline
  func bindingFailed(_ rc: Int32, at index: Int32) -> SQLiteError {
    rc & 0xff == SQLITE_RANGE ? parameterIndexOutOfRange(Int(index)) : bindFailed(rc)
  }
}

/// A fixed-width integer type stored as SQLite's 64-bit INTEGER, with range checks both ways.
public protocol DatabaseInteger: FixedWidthInteger, ParameterBindable, ColumnConvertible {}

extension DatabaseInteger {
  /// The integer as ``DatabaseValue/integer(_:)``; throws when it exceeds `Int64`'s range.
  public func databaseValue() throws -> DatabaseValue {
    guard let value = Int64(exactly: self) else {
      throw DatabaseError.unrepresentableValue(
        type: "\(Self.self)", value: "\(self)", reason: "SQLite integers are 64-bit signed; the maximum is \(Int64.max)"
      )
    }
    return .integer(value)
  }

  /// Binds the integer, checking the range only for types wider than SQLite's `Int64`.
  @inlinable
  public func bindInteger(to statement: Statement, at index: Int32) throws {
    if Self.bitWidth <= 64 && (Self.isSigned || Self.bitWidth < 64) {
      // Always fits: no check needed.
      try statement.checkBinding(
        sqlite3_bind_int64(statement.sqliteHandle, index, Int64(truncatingIfNeeded: self)), at: index)
    } else if let value = Int64(exactly: self) {
      try statement.checkBinding(sqlite3_bind_int64(statement.sqliteHandle, index, value), at: index)
    } else {
      try bindOutOfRange(to: statement, at: index)
    }
  }

  /// Binds an integer above `Int64.max`: a 64-bit unsigned one as the `Int64` with the same bits when
  /// the connection stores them so (``ValueStorage/unsignedIntegersAsBitPattern``); otherwise throws.
  @usableFromInline
  func bindOutOfRange(to statement: Statement, at index: Int32) throws {
    if !Self.isSigned, Self.bitWidth == 64, statement.connection.valueStorage.unsignedIntegersAsBitPattern {
      try statement.checkBinding(
        sqlite3_bind_int64(statement.sqliteHandle, index, Int64(truncatingIfNeeded: self)), at: index)
    } else {
      try databaseValue().bind(to: statement, at: index)
    }
  }

  /// Reads INTEGER, or REAL holding a whole number; throws when the value does not fit in `Self`.
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .integer(let value):
      guard let converted = Self(exactly: value) else {
        throw DatabaseError.cannotConvert(
          databaseValue, to: Self.self, "\(value) is outside \(Self.self)'s range \(Self.min)...\(Self.max)")
      }
      self = converted
    case .real(let value):
      guard let converted = Self(exactly: value) else {
        throw DatabaseError.cannotConvert(
          databaseValue, to: Self.self, "\(value) is not a whole number in \(Self.self)'s range")
      }
      self = converted
    default:
      throw DatabaseError.cannotConvert(databaseValue, to: Self.self)
    }
  }

  /// Reads an INTEGER column without a second call for the storage class; other classes go through
  /// ``ColumnConvertible/init(databaseValue:)`` (which accepts whole REALs and throws for the rest).
  @inlinable
  public init(integerColumnOf row: borrowing Row, at index: Int32) throws {
    let column = amalgam_column_integer(row.sqliteHandle, index)
    if column.type == SQLITE_INTEGER, let converted = Self(exactly: column.value) {
      self = converted
      return
    }
    try self.init(otherColumnOf: row, at: index)
  }

  /// Reads a column that is not an INTEGER in range: a negative INTEGER as a 64-bit unsigned integer
  /// with the same bits when the connection stores them so
  /// (``ValueStorage/unsignedIntegersAsBitPattern``), anything else as
  /// ``ColumnConvertible/init(databaseValue:)`` does.
  @usableFromInline
  init(otherColumnOf row: borrowing Row, at index: Int32) throws {
    if !Self.isSigned, Self.bitWidth == 64, sqlite3_column_type(row.sqliteHandle, index) == SQLITE_INTEGER,
      row.statement.connection.valueStorage.unsignedIntegersAsBitPattern
    {
      self = Self(truncatingIfNeeded: sqlite3_column_int64(row.sqliteHandle, index))
      return
    }
    try self.init(databaseValue: row.databaseValue(at: index))
  }

  /// Reads an INTEGER `sqlite3_value` directly; other storage classes as ``ColumnConvertible/init(databaseValue:)``.
  @inlinable
  public init(integerValue value: OpaquePointer) throws {
    if sqlite3_value_type(value) == SQLITE_INTEGER, let converted = Self(exactly: sqlite3_value_int64(value)) {
      self = converted
      return
    }
    try self.init(databaseValue: DatabaseValue(strictSQLiteValue: value))
  }
}

extension Int: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension Int8: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension Int16: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension Int32: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension Int64: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension UInt: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension UInt8: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension UInt16: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension UInt32: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}
extension UInt64: DatabaseInteger {
  // Concrete witnesses (not the protocol extension's defaults) let callers specialise and inline them.
  @inlinable public init(row: borrowing Row, at index: Int32) throws { try self.init(integerColumnOf: row, at: index) }
  @inlinable public func bind(to statement: Statement, at index: Int32) throws {
    try bindInteger(to: statement, at: index)
  }
  @inlinable public init(sqliteValue value: OpaquePointer) throws { try self.init(integerValue: value) }
}

extension Double: ParameterBindable, ColumnConvertible {
  /// The number as ``DatabaseValue/real(_:)``. SQLite stores NaN as NULL.
  public func databaseValue() -> DatabaseValue { .real(self) }

  @inlinable
  public func bind(to statement: Statement, at index: Int32) throws {
    try statement.checkBinding(sqlite3_bind_double(statement.sqliteHandle, index, self), at: index)
  }

  /// Reads REAL or INTEGER (converted to the nearest `Double`).
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .real(let value): self = value
    case .integer(let value): self = Double(value)
    default: throw DatabaseError.cannotConvert(databaseValue, to: Double.self)
    }
  }

  @inlinable
  public init(sqliteValue value: OpaquePointer) throws {
    switch sqlite3_value_type(value) {
    case SQLITE_FLOAT: self = sqlite3_value_double(value)
    case SQLITE_INTEGER: self = Double(sqlite3_value_int64(value))
    default: try self.init(databaseValue: DatabaseValue(strictSQLiteValue: value))
    }
  }

  @inlinable
  public init(row: borrowing Row, at index: Int32) throws {
    let column = amalgam_column_real(row.sqliteHandle, index)
    switch column.type {
    case SQLITE_FLOAT, SQLITE_INTEGER: self = column.value
    default: try self.init(databaseValue: row.databaseValue(at: index))
    }
  }
}

extension Float: ParameterBindable, ColumnConvertible {
  /// The number as ``DatabaseValue/real(_:)`` (exactly: every `Float` is a `Double`). Infinities are
  /// stored as such; SQLite stores NaN as NULL, as it does for `Double`.
  public func databaseValue() -> DatabaseValue { .real(Double(self)) }

  /// Reads REAL or INTEGER, rounded to the nearest `Float`; an infinite REAL reads as an infinity, and a
  /// finite value too large for `Float` throws rather than becoming one.
  public init(databaseValue: DatabaseValue) throws {
    let double: Double
    switch databaseValue {
    case .real(let real): double = real
    case .integer(let integer): double = Double(integer)
    default: throw DatabaseError.cannotConvert(databaseValue, to: Float.self)
    }
    let value = Float(double)
    if value.isInfinite && double.isFinite {
      throw DatabaseError.cannotConvert(databaseValue, to: Float.self, "\(double) is outside Float's range")
    }
    self = value
  }
}

extension Bool: ParameterBindable, ColumnConvertible {
  /// `true` as 1 and `false` as 0, like SQL's `TRUE` and `FALSE`.
  public func databaseValue() -> DatabaseValue { .integer(self ? 1 : 0) }

  /// Reads INTEGER: 0 is `false`, any other integer `true` (SQLite's truth rule).
  public init(databaseValue: DatabaseValue) throws {
    guard case .integer(let value) = databaseValue else {
      throw DatabaseError.cannotConvert(databaseValue, to: Bool.self)
    }
    self = value != 0
  }
}

extension String: ParameterBindable, ColumnConvertible {
  /// The string as ``DatabaseValue/text(_:)``.
  public func databaseValue() -> DatabaseValue { .text(self) }

  public func bind(to statement: Statement, at index: Int32) throws {
    try statement.checkBinding(bindText(self, handle: statement.sqliteHandle, index: index), at: index)
  }

  /// Reads TEXT. Other storage classes throw rather than being converted to text.
  public init(databaseValue: DatabaseValue) throws {
    guard case .text(let value) = databaseValue else {
      throw DatabaseError.cannotConvert(databaseValue, to: String.self)
    }
    self = value
  }

  /// Reads TEXT with its exact byte length (embedded NUL characters are kept). Text that is not valid
  /// UTF-8 throws; read such a column as `Data` to get its bytes.
  @inlinable
  public init(row: borrowing Row, at index: Int32) throws {
    var bytes: UnsafeRawPointer?
    var count: Int32 = 0
    if amalgam_column_bytes(row.sqliteHandle, index, &bytes, &count) == SQLITE_TEXT {
      // No bytes for TEXT: SQLite ran out of memory converting it to UTF-8 (see Row.databaseValue).
      guard bytes != nil else {
        throw SQLiteError(code: .noMemory, message: "Out of memory reading column \(index) as UTF-8 text")
      }
      if let text = String.validatingUTF8(bytes, count: Int(count)) {
        self = text
        return
      }
    }
    try self.init(databaseValue: row.databaseValue(at: index))
  }
}

extension Array: ParameterBindable where Element == UInt8 {
  /// The bytes as ``DatabaseValue/blob(_:)``.
  public func databaseValue() -> DatabaseValue { .blob(Data(self)) }

  public func bind(to statement: Statement, at index: Int32) throws {
    let handle = statement.sqliteHandle
    let rc = withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress, bytes.count > 0 else { return sqlite3_bind_zeroblob(handle, index, 0) }
      return sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), transientDestructor)
    }
    try statement.checkBinding(rc, at: index)
  }
}

extension Array: ColumnConvertible where Element == UInt8 {
  /// Reads BLOB, or the UTF-8 bytes of TEXT.
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .blob(let data): self = [UInt8](data)
    case .text(let text): self = Array(text.utf8)
    default: throw DatabaseError.cannotConvert(databaseValue, to: [UInt8].self)
    }
  }

  public init(row: borrowing Row, at index: Int32) throws {
    switch sqlite3_column_type(row.sqliteHandle, index) {
    case SQLITE_BLOB, SQLITE_TEXT: self = row.withUnsafeBytes(at: index) { [UInt8]($0) }
    default: try self.init(databaseValue: row.databaseValue(at: index))
    }
  }
}
