/// SQL written as a string literal in which each interpolated value becomes a bound parameter, never
/// SQL text, so no value can change the statement.
///
/// ```swift
/// let score = 1000, id = 42
/// try db.execute(literal: "UPDATE player SET score = \(score) WHERE id = \(id)")
/// // runs "UPDATE player SET score = ? WHERE id = ?" with 1000 and 42 bound
///
/// let table = "player", column = "name"
/// let names = try db.fetchAll(String.self, literal: """
///   SELECT \(identifier: column) FROM \(identifier: table) WHERE id IN (\(values: [1, 2, 3]))
///   """)
/// ```
///
/// - `\(value)`: any ``ParameterBindable`` value (optionals bind NULL), bound as a parameter.
/// - `\(identifier: name)`: a table or column name, quoted as an SQL identifier (`"na""me"`).
/// - `\(values: collection)`: a comma-separated list of parameters, for `IN (...)`.
/// - `\(sql: text)`: SQL text inserted as is. Use it only for text your program wrote.
/// - `\(literal)`: another `SQLLiteral`, with its parameters.
///
/// A literal that interpolates values must not also hold parameters of its own (`?`, `?1`, `:name`):
/// SQLite numbers both kinds together, so `"SELECT \(5) AS a, ?1 AS b"` would bind 5 to both. Using
/// such a literal throws ``DatabaseError/literalWithOwnParameter(sql:parameter:)``. (A literal made
/// with ``init(sql:arguments:)`` binds its arguments to its own parameters, by position.)
///
/// A literal is accepted by ``Database/execute(literal:)``, ``Database/prepare(literal:)`` and every
/// fetch method (`fetchOne(_:literal:)`, `fetchAll(_:literal:)`, ...).
///
/// Related SQLite documentation: <https://sqlite.org/lang_expr.html#parameters>
public struct SQLLiteral: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The SQL text, with a `?` for each bound value.
  public private(set) var sql: String
  /// The bound values, in the order of their `?` in ``sql``.
  public private(set) var arguments: [DatabaseValue]
  /// A value that could not be converted when it was interpolated: thrown when the literal is used.
  private var failure: String?
  /// True when values were interpolated, so that every parameter must be one of their `?`.
  private var interpolatesValues = false

  /// Creates a literal from SQL text with no interpolated values.
  public init(stringLiteral value: String) {
    sql = value
    arguments = []
  }

  /// Creates a literal from SQL text with `?` parameters and their values.
  public init(sql: String, arguments: [DatabaseValue] = []) {
    self.sql = sql
    self.arguments = arguments
  }

  /// Creates a literal from its interpolation.
  public init(stringInterpolation: StringInterpolation) {
    sql = stringInterpolation.sql
    arguments = stringInterpolation.arguments
    failure = stringInterpolation.failure
    interpolatesValues = stringInterpolation.interpolatesValues
  }

  /// The SQL text and its values, for logging.
  public var description: String {
    arguments.isEmpty ? sql : "\(sql) with \(arguments.map(\.description).joined(separator: ", "))"
  }

  /// Appends another literal and its values.
  public mutating func append(_ other: SQLLiteral) {
    sql += other.sql
    arguments += other.arguments
    if failure == nil { failure = other.failure }
    interpolatesValues = interpolatesValues || other.interpolatesValues
  }

  /// Appends two literals.
  public static func + (lhs: SQLLiteral, rhs: SQLLiteral) -> SQLLiteral {
    var result = lhs
    result.append(rhs)
    return result
  }

  /// The values as statement arguments, or the error of a value that could not be converted.
  func statementArguments() throws -> StatementArguments {
    if let failure { throw DatabaseError.codingFailed(failure) }
    return interpolatesValues ? StatementArguments(interpolated: arguments) : StatementArguments(arguments)
  }

  /// Builds an ``SQLLiteral`` from a string literal's parts.
  public struct StringInterpolation: StringInterpolationProtocol {
    var sql = ""
    var arguments: [DatabaseValue] = []
    var failure: String?
    var interpolatesValues = false

    /// Reserves room for the literal text.
    public init(literalCapacity: Int, interpolationCount: Int) {
      sql.reserveCapacity(literalCapacity + interpolationCount)
      arguments.reserveCapacity(interpolationCount)
    }

    /// Appends SQL text from the literal itself.
    public mutating func appendLiteral(_ literal: String) {
      sql += literal
    }

    /// Appends a bound parameter for `value`.
    public mutating func appendInterpolation<Value: ParameterBindable>(_ value: Value) {
      sql += "?"
      interpolatesValues = true
      arguments.append(convert(value))
    }

    /// Appends a bound parameter for `value`, or NULL.
    public mutating func appendInterpolation(_ value: (any ParameterBindable)?) {
      sql += "?"
      interpolatesValues = true
      if let value {
        arguments.append(convert(value))
      } else {
        arguments.append(.null)
      }
    }

    /// Appends a comma-separated list of bound parameters, one per value: for `IN (...)`. An empty
    /// collection appends `NULL`, so that `x IN (NULL)` matches no row.
    public mutating func appendInterpolation<Values: Sequence>(values: Values)
    where Values.Element: ParameterBindable {
      interpolatesValues = true
      var first = true
      for value in values {
        sql += first ? "?" : ", ?"
        first = false
        arguments.append(convert(value))
      }
      if first { sql += "NULL" }
    }

    /// Appends `name` quoted as an SQL identifier: `"name"`, with inner double quotes doubled.
    public mutating func appendInterpolation(identifier name: String) {
      sql += SQLLiteral.quote(identifier: name)
    }

    /// Appends SQL text as is. Never pass text that came from outside the program.
    public mutating func appendInterpolation(sql text: String) {
      sql += text
    }

    /// Appends another literal and its values.
    public mutating func appendInterpolation(_ literal: SQLLiteral) {
      sql += literal.sql
      arguments += literal.arguments
      if failure == nil { failure = literal.failure }
      interpolatesValues = interpolatesValues || literal.interpolatesValues
    }

    private mutating func convert(_ value: some ParameterBindable) -> DatabaseValue {
      do {
        return try value.databaseValue()
      } catch {
        if failure == nil { failure = "Cannot bind the value interpolated at \"\(sql)\": \(error)" }
        return .null
      }
    }
  }

  /// `name` quoted as an SQL identifier: `"name"`, with inner double quotes doubled.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_keywords.html>
  public static func quote(identifier name: String) -> String {
    "\"" + name.replacing("\"", with: "\"\"") + "\""
  }
}

extension Database {
  /// Prepares a statement from an ``SQLLiteral`` and binds its values.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/prepare.html>
  public func prepare(literal: SQLLiteral) throws -> Statement {
    let statement = try prepare(sql: literal.sql)
    try literal.statementArguments().bind(to: statement)
    return statement
  }

  /// Runs one statement written as an ``SQLLiteral`` to completion, through the statement cache.
  ///
  /// ```swift
  /// try db.execute(literal: "UPDATE player SET score = \(score) WHERE id = \(id)")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func execute(literal: SQLLiteral) throws {
    try withStatement(sql: literal.sql, arguments: literal.statementArguments()) { try $0.execute() }
  }
}
