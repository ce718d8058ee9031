/// A failure detected by Amalgam rather than by SQLite: a value that cannot be converted, a column or
/// parameter that does not exist, a closed database, SQL that is not one statement.
///
/// Each case names what it concerns (column, parameter, types) so the message says what to fix.
/// Errors that SQLite reports are ``SQLiteError``s instead.
public enum DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A stored value could not be converted to the requested Swift type.
  ///
  /// - `column`: the column's name and index (`"age" (column 2)`) when reading a row, else `nil`.
  /// - `type`: the Swift type asked for. `found`: the stored value's storage class and value.
  case conversionFailed(column: String?, type: String, found: String, reason: String)
  /// A Swift value cannot be stored (an integer out of SQLite's 64-bit range, for example).
  case unrepresentableValue(type: String, value: String, reason: String)
  /// No column of the statement has this name.
  case noSuchColumn(name: String, available: [String])
  /// A column index is outside `0 ..< count`.
  case columnIndexOutOfRange(index: Int, count: Int)
  /// The statement has no parameter with this name.
  case noSuchParameter(name: String, sql: String)
  /// A named parameter of the statement was given no value.
  case missingParameter(name: String, sql: String)
  /// Two values were given for one parameter (say, under `"id"` and `":id"`).
  case duplicateParameter(name: String, sql: String)
  /// A positional parameter (`?` or `?NNN`) was bound by name, or a name was expected.
  case unnamedParameter(index: Int, sql: String)
  /// The number of values differs from the statement's parameter count.
  case parameterCountMismatch(expected: Int, provided: Int, sql: String)
  /// The database was closed before this call.
  case databaseClosed
  /// The connection was in use by another thread. A `Database` serves one thread at a time; share one
  /// through a queue instead of across threads.
  case concurrentUse
  /// The SQL holds no statement (it is empty, or only whitespace and comments).
  case emptyStatement(sql: String)
  /// The SQL holds more than one statement where exactly one is expected; use `Database.batch(sql:)`.
  case multipleStatements(sql: String)
  /// A transaction operation was used in the wrong state (say, `transaction {}` inside a transaction).
  case transactionState(String)
  /// A `Codable` value could not be encoded into parameters or decoded from a row.
  case codingFailed(String)

  /// What went wrong, naming the column, parameter or SQL involved.
  public var description: String {
    switch self {
    case let .conversionFailed(column, type, found, reason):
      let place = column.map { " of column \($0)" } ?? ""
      return "Cannot convert \(found)\(place) to \(type): \(reason)"
    case let .unrepresentableValue(type, value, reason):
      return "Cannot store \(type) value \(value): \(reason)"
    case let .noSuchColumn(name, available):
      return "No column named \"\(name)\"; the columns are \(available.map { "\"\($0)\"" }.joined(separator: ", "))"
    case let .columnIndexOutOfRange(index, count):
      return "Column index \(index) is out of range; the statement has \(count) column(s)"
    case let .noSuchParameter(name, sql):
      return "No parameter named \"\(name)\" in \"\(sql)\""
    case let .missingParameter(name, sql):
      return "No value given for parameter \"\(name)\" in \"\(sql)\""
    case let .duplicateParameter(name, sql):
      return "Parameter \"\(name)\" of \"\(sql)\" is given more than one value"
    case let .unnamedParameter(index, sql):
      return "Parameter \(index) of \"\(sql)\" has no name; bind it by position"
    case let .parameterCountMismatch(expected, provided, sql):
      return "\"\(sql)\" takes \(expected) parameter(s) but \(provided) value(s) were given"
    case .databaseClosed:
      return "The database is closed"
    case .concurrentUse:
      return "The database connection is in use by another thread; a Database serves one thread at a time"
    case let .emptyStatement(sql):
      return "No SQL statement in \"\(sql)\""
    case let .multipleStatements(sql):
      return "More than one SQL statement in \"\(sql)\"; use batch(sql:) to run several"
    case let .transactionState(message):
      return message
    case let .codingFailed(message):
      return message
    }
  }
}
