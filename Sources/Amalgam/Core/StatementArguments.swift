/// The values for a statement's parameters: positional (an array literal, for `?` and `?NNN`) or named
/// (a dictionary literal, for `:name`, `@name` and `$name`, kept in the order written).
///
/// ```swift
/// let names = try db.fetchAll(String.self, sql: "SELECT name FROM player WHERE score > ?", arguments: [10])
/// let best = try db.fetchOne(Int.self, sql: "SELECT max(score) FROM player WHERE team = :team",
///                            arguments: ["team": "red"])
/// ```
///
/// This is how every API that runs SQL text takes the values of its parameters: `sql:` then `arguments:`
/// (``Database/execute(sql:arguments:)``, `fetchOne`, `fetchAll`, `fetchValue`, `fetchRow(s)`, ...), and
/// ``Statement/bind(arguments:)`` for a prepared statement. FeistyDB's spellings (`parameterValues:` for
/// positional values, `parameters:` for named ones) stay, and do the same.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
public struct StatementArguments: ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
  enum Values {
    case positional([(any ParameterBindable)?])
    case named([(key: String, value: (any ParameterBindable)?)])
    /// The values interpolated into an ``SQLLiteral``: the statement's parameters must be exactly the
    /// `?` that the interpolations wrote.
    case interpolated([(any ParameterBindable)?])
  }

  let values: Values

  /// Positional values: `values[0]` binds parameter 1, and so on.
  public init(_ values: [(any ParameterBindable)?]) {
    self.values = .positional(values)
  }

  /// The values interpolated into an ``SQLLiteral``, in order.
  init(interpolated values: [(any ParameterBindable)?]) {
    self.values = .interpolated(values)
  }

  /// Named values; names may carry their prefix (`":id"`) or not (`"id"`).
  public init(named values: [(key: String, value: (any ParameterBindable)?)]) {
    self.values = .named(values)
  }

  /// Positional values from an array literal: `[1, "two", nil]`.
  public init(arrayLiteral elements: (any ParameterBindable)?...) {
    self.values = .positional(elements)
  }

  /// Named values from a dictionary literal: `["id": 1, "name": "Ada"]`.
  public init(dictionaryLiteral elements: (String, (any ParameterBindable)?)...) {
    self.values = .named(elements.map { (key: $0.0, value: $0.1) })
  }

  /// Binds the values to `statement`.
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` for positional values
  ///   whose count differs from the statement's, and the errors of
  ///   ``Statement/bind(parameters:)-(KeyValuePairs<String,(ParameterBindable)?>)`` for named ones.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func bind(to statement: Statement) throws {
    switch values {
    case .positional(let values): try statement.bind(parameterValues: values)
    case .named(let pairs): try statement.bind(parameters: pairs)
    case .interpolated(let values):
      try Self.checkInterpolatedParameters(of: statement, valueCount: values.count)
      try statement.bind(parameterValues: values)
    }
  }

  /// Throws ``DatabaseError/literalWithOwnParameter(sql:parameter:)`` when `statement`, made from an
  /// ``SQLLiteral`` with interpolated values, has a parameter that no interpolation wrote: a named or
  /// numbered one (`?NNN` shares its number with an interpolated value's `?`), or more `?` than values.
  static func checkInterpolatedParameters(of statement: Statement, valueCount: Int) throws {
    let count = statement.parameterCount
    // An interpolation writes a bare `?`, which has no name.
    for index in 0..<count {
      if let name = statement.parameterName(at: index + 1) {
        throw DatabaseError.literalWithOwnParameter(sql: statement.sql, parameter: "\"\(name)\"")
      }
    }
    if count > valueCount {
      throw DatabaseError.literalWithOwnParameter(
        sql: statement.sql, parameter: "\"?\" (\(count) parameters, \(valueCount) interpolated values)")
    }
  }
}

extension Statement {
  /// Binds `arguments` (positional or named) to the statement's parameters; the way every API that runs
  /// SQL takes its arguments (see ``StatementArguments``).
  ///
  /// ```swift
  /// let statement = try db.prepare(sql: "SELECT name FROM player WHERE score > :score")
  /// let names = try statement.bind(arguments: ["score": 10]).column(0, as: String.self)
  /// ```
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` for positional values
  ///   whose count differs from the statement's, and the errors of
  ///   ``Statement/bind(parameters:)-(KeyValuePairs<String,(ParameterBindable)?>)`` for named ones.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @discardableResult
  public func bind(arguments: StatementArguments) throws -> Statement {
    try arguments.bind(to: self)
    return self
  }
}
