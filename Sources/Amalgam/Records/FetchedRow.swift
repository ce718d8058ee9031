/// A row copied out of a statement: its column names and values, valid after the statement moves on.
/// What ``Database/fetchRow(sql:arguments:)`` and ``Database/fetchRows(sql:arguments:)`` return.
///
/// ```swift
/// if let row = try db.fetchRow(sql: "SELECT id, name FROM player WHERE id = ?", arguments: [1]) {
///   let name: String = try row.value(named: "name")
///   let id = row[0]   // DatabaseValue
/// }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
public struct FetchedRow: Hashable, Sendable, CustomStringConvertible {
  /// The column names, in order (shared by every row of one fetch).
  public let columnNames: [String]
  /// The values, in column order.
  public let values: [DatabaseValue]

  /// Creates a row from its column names and values.
  public init(columnNames: [String], values: [DatabaseValue]) {
    self.columnNames = columnNames
    self.values = values
  }

  /// Copies the current row of a statement.
  public init(_ row: borrowing Row) throws {
    columnNames = row.statement.columnNames
    values = try row.values()
  }

  /// The number of columns.
  public var count: Int { values.count }

  /// The value of column `index` (0-based) as stored; `.null` outside the row.
  public subscript(index: Int) -> DatabaseValue {
    values.indices.contains(index) ? values[index] : .null
  }

  /// The value of the column named `name` (compared ignoring ASCII case), or `nil` for no such column.
  public subscript(name: String) -> DatabaseValue? {
    columnIndex(named: name).map { values[$0] }
  }

  /// The value of column `index` converted to `T`; ask for an optional type to read NULL as `nil`.
  ///
  /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)`` or a conversion error.
  public func value<T: ColumnConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
    guard values.indices.contains(index) else {
      throw DatabaseError.columnIndexOutOfRange(index: index, count: values.count)
    }
    do {
      return try T(databaseValue: values[index])
    } catch let DatabaseError.conversionFailed(nil, type, found, reason) {
      throw DatabaseError.conversionFailed(
        column: "\"\(columnNames[index])\" (column \(index))", type: type, found: found, reason: reason)
    }
  }

  /// The value of the column named `name` converted to `T`.
  ///
  /// - Throws: ``DatabaseError/noSuchColumn(name:available:)`` or a conversion error.
  public func value<T: ColumnConvertible>(named name: String, as type: T.Type = T.self) throws -> T {
    guard let index = columnIndex(named: name) else {
      throw DatabaseError.noSuchColumn(name: name, available: columnNames)
    }
    return try value(at: index, as: type)
  }

  /// The values by column name (the first column wins when two share a name).
  public var dictionary: [String: DatabaseValue] {
    var result: [String: DatabaseValue] = [:]
    for (name, value) in zip(columnNames, values) where result[name] == nil { result[name] = value }
    return result
  }

  /// `[name: value, ...]`.
  public var description: String {
    "[" + zip(columnNames, values).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
  }

  private func columnIndex(named name: String) -> Int? {
    columnNames.firstIndex(of: name) ?? columnNames.firstIndex { $0.caseInsensitiveASCIIEquals(name) }
  }
}
