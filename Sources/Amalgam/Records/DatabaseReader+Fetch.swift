// The everyday fetches of `Database`, through a queue, a read queue or a pool: each runs in one read
// transaction (`read(_:)`), blocking the calling thread until done. Inside `read`, `write` or
// `sync` closures, call the `Database` methods instead.

extension DatabaseReader {
  /// See `fetchOne(_:sql:arguments:)`, run through `read(_:)`.
  ///
  /// ```swift
  /// let best = try queue.fetchOne(Int.self, sql: "SELECT max(score) FROM player")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchOne<T: ColumnConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> T? {
    try read { try $0.fetchOne(type, sql: sql, arguments: arguments) }
  }

  /// See ``Database/fetchValue(_:sql:arguments:)``, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchValue<T: ColumnConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> T {
    try read { try $0.fetchValue(type, sql: sql, arguments: arguments) }
  }

  /// See `fetchAll(_:sql:arguments:)`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T: ColumnConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> [T] {
    try read { try $0.fetchAll(type, sql: sql, arguments: arguments) }
  }

  /// See ``Database/fetchRows(sql:arguments:)``, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchRows(sql: String, arguments: StatementArguments = []) throws -> [FetchedRow] {
    try read { try $0.fetchRows(sql: sql, arguments: arguments) }
  }

  /// See ``Database/fetchRow(sql:arguments:)``, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchRow(sql: String, arguments: StatementArguments = []) throws -> FetchedRow? {
    try read { try $0.fetchRow(sql: sql, arguments: arguments) }
  }

  /// Every row converted with `T.init(row:)`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T: RowConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> [T] {
    try read { try $0.fetchAll(type, sql: sql, arguments: arguments) }
  }

  /// The first row converted with `T.init(row:)`, or `nil`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchOne<T: RowConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> T? {
    try read { try $0.fetchOne(type, sql: sql, arguments: arguments) }
  }

  /// Every row decoded into `T`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func fetchAll<T: Decodable>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = [], decoder: RowDecoder = RowDecoder()
  ) throws -> [T] {
    try read { try $0.fetchAll(type, sql: sql, arguments: arguments, decoder: decoder) }
  }

  /// The first row decoded into `T`, or `nil`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func fetchOne<T: Decodable>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = [], decoder: RowDecoder = RowDecoder()
  ) throws -> T? {
    try read { try $0.fetchOne(type, sql: sql, arguments: arguments, decoder: decoder) }
  }

  /// See `fetchOne(_:literal:)`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchOne<T: ColumnConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> T? {
    try read { try $0.fetchOne(type, literal: literal) }
  }

  /// See `fetchAll(_:literal:)`, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T: ColumnConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> [T] {
    try read { try $0.fetchAll(type, literal: literal) }
  }

  /// See ``Database/fetchAll(_:literal:decoder:)``, run through `read(_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func fetchAll<T: Decodable>(
    _ type: T.Type = T.self, literal: SQLLiteral, decoder: RowDecoder = RowDecoder()
  ) throws -> [T] {
    try read { try $0.fetchAll(type, literal: literal, decoder: decoder) }
  }
}
