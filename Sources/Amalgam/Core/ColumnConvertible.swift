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
}

extension ColumnConvertible {
  public init(row: borrowing Row, at index: Int32) throws {
    try self.init(databaseValue: row.databaseValue(at: index))
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
