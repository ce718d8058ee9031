/// A type built straight from a row by reading its columns: the fast alternative to `Decodable` for
/// values fetched often, accepted by every fetch method.
///
/// ```swift
/// struct Player: RowConvertible {
///   var id: Int64
///   var name: String
///   var score: Int?
///   init(row: borrowing Row) throws {
///     id = try row.value(at: 0)
///     name = try row.value(at: 1)
///     score = try row.value(at: 2)
///   }
/// }
/// let players = try db.fetchAll(Player.self, sql: "SELECT id, name, score FROM player")
/// ```
///
/// `init(row:)` reads the current row; it must not keep the row. Reading by index is the fastest;
/// reading by name (`row.value(named: "name")`) costs one string comparison per column when the
/// columns come in the order read.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
public protocol RowConvertible {
  /// Creates a value from the current row of a statement.
  init(row: borrowing Row) throws
}

extension Statement {
  /// Every row converted with `T.init(row:)`, then resets the statement.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchAll<T: RowConvertible>(_ type: T.Type = T.self) throws -> [T] {
    var values: [T] = []
    try results { row in values.append(try T(row: row)) }
    return values
  }

  /// The first row converted with `T.init(row:)`, or `nil` when there is none; resets the statement.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchOne<T: RowConvertible>(_ type: T.Type = T.self) throws -> T? {
    defer { _ = try? reset() }
    guard let row = try step() else { return nil }
    return try T(row: row)
  }
}
