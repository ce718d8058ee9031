import AmalgamSQLite

// Everyday fetches: one call from SQL and arguments to Swift values. Each prepares its SQL through the
// statement cache (`cachedStatement(sql:)`) and resets the statement and clears its bindings before
// returning, whether it succeeded or threw.
//
// The rule every API that runs SQL text follows (see `StatementArguments`): `sql:` then `arguments:`.
// Reading one value: `fetchOne` (nil for no row or NULL) and `fetchValue` (a missing row throws) from SQL
// text, on a `Database` or any `DatabaseReader`; `Statement.front` on a statement already prepared
// (FeistyDB's spelling); `Row.value(at:)` and `Row.value(named:)` inside a loop over rows.

extension Database {
  /// Runs `body` with the cached statement for `sql`, bound to `arguments` (`nil`: `body` binds); resets
  /// the statement and clears its bindings afterwards.
  @usableFromInline
  func withStatement<R>(sql: String, arguments: StatementArguments?, _ body: (Statement) throws -> R) throws -> R {
    // Every user of a cached statement through `cachedStatementKeepingBindings` binds all its parameters
    // (or throws), so there is nothing to clear on the way in; the bindings are cleared on the way out so
    // that the fetch's arguments are not kept.
    // All of it holding the connection: the cache, the binds and the reset touch the connection too.
    try connection.holding {
      let statement = try cachedStatementKeepingBindings(sql: sql)
      defer {
        sqlite3_reset(statement.sqliteHandle)
        sqlite3_clear_bindings(statement.sqliteHandle)
      }
      try arguments?.bind(to: statement)
      return try body(statement)
    }
  }
}

// MARK: - Values

extension Database {
  /// The first column of the first row converted to `T`, or `nil` when there is no row or the value is
  /// NULL.
  ///
  /// ```swift
  /// let best = try db.fetchOne(Int.self, sql: "SELECT max(score) FROM player")  // Int?
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchOne<T: ColumnConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> T? {
    try withStatement(sql: sql, arguments: arguments) { statement in
      guard let row = try statement.step() else { return nil }
      return try row.value(at: 0, as: T?.self)
    }
  }

  /// The first column of the first row converted to `T`; unlike `fetchOne(_:sql:arguments:)`
  /// a missing row is an error.
  ///
  /// ```swift
  /// let count = try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player")
  /// ```
  ///
  /// - Throws: ``DatabaseError/noRow(sql:)`` when there is no row; a conversion error for NULL unless
  ///   `T` is optional.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchValue<T: ColumnConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> T {
    try withStatement(sql: sql, arguments: arguments) { statement in
      guard let row = try statement.step() else { throw DatabaseError.noRow(sql: sql) }
      return try row.value(at: 0, as: T.self)
    }
  }

  /// The first column of every row converted to `T` (ask for an optional type to accept NULL).
  ///
  /// ```swift
  /// let names = try db.fetchAll(String.self, sql: "SELECT name FROM player ORDER BY name")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchAll<T: ColumnConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> [T] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var values: [T] = []
      try statement.results { row in values.append(try row.value(at: 0, as: T.self)) }
      return values
    }
  }

  /// See `fetchOne(_:sql:arguments:)`; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchOne<T: ColumnConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> T? {
    try fetchOne(type, sql: literal.sql, arguments: literal.statementArguments())
  }

  /// See ``fetchValue(_:sql:arguments:)``; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchValue<T: ColumnConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> T {
    try fetchValue(type, sql: literal.sql, arguments: literal.statementArguments())
  }

  /// See `fetchAll(_:sql:arguments:)`; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T: ColumnConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> [T] {
    try fetchAll(type, sql: literal.sql, arguments: literal.statementArguments())
  }
}

// MARK: - Rows

extension Database {
  /// The first row, copied out, or `nil` when there is none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchRow(sql: String, arguments: StatementArguments = []) throws -> FetchedRow? {
    try withStatement(sql: sql, arguments: arguments) { statement in
      try statement.step().map { try FetchedRow($0) }
    }
  }

  /// Every row, copied out.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchRows(sql: String, arguments: StatementArguments = []) throws -> [FetchedRow] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var rows: [FetchedRow] = []
      let names = statement.columnNames
      try statement.results { row in rows.append(FetchedRow(columnNames: names, values: try row.values())) }
      return rows
    }
  }

  /// See ``fetchRow(sql:arguments:)``; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchRow(literal: SQLLiteral) throws -> FetchedRow? {
    try fetchRow(sql: literal.sql, arguments: literal.statementArguments())
  }

  /// See ``fetchRows(sql:arguments:)``; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchRows(literal: SQLLiteral) throws -> [FetchedRow] {
    try fetchRows(sql: literal.sql, arguments: literal.statementArguments())
  }
}

// MARK: - RowConvertible values

extension Database {
  /// The first row converted with `T.init(row:)`, or `nil` when there is none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchOne<T: RowConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> T? {
    try withStatement(sql: sql, arguments: arguments) { statement in
      guard let row = try statement.step() else { return nil }
      return try T(row: row)
    }
  }

  /// Every row converted with `T.init(row:)`.
  ///
  /// ```swift
  /// let players = try db.fetchAll(Player.self, sql: "SELECT id, name, score FROM player")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func fetchAll<T: RowConvertible>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = []
  ) throws -> [T] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var values: [T] = []
      try statement.results { row in values.append(try T(row: row)) }
      return values
    }
  }

  /// See `fetchOne(_:sql:arguments:)`; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchOne<T: RowConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> T? {
    try fetchOne(type, sql: literal.sql, arguments: literal.statementArguments())
  }

  /// See `fetchAll(_:sql:arguments:)`; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T: RowConvertible>(_ type: T.Type = T.self, literal: SQLLiteral) throws -> [T] {
    try fetchAll(type, sql: literal.sql, arguments: literal.statementArguments())
  }
}

// MARK: - Decodable values

extension Database {
  /// The first row decoded into `T` (see ``RowDecoder``), or `nil` when there is none. A type that is
  /// also ``RowConvertible`` or ``ColumnConvertible`` is read through those instead.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  @inlinable
  public func fetchOne<T: Decodable>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = [], decoder: RowDecoder = RowDecoder()
  ) throws -> T? {
    try withStatement(sql: sql, arguments: arguments) { statement in
      guard let row = try statement.step() else { return nil }
      return try decoder.decode(T.self, from: row)
    }
  }

  /// Every row decoded into `T` (see ``RowDecoder``).
  ///
  /// ```swift
  /// struct Player: Decodable { var id: Int64; var name: String }
  /// let players = try db.fetchAll(Player.self, sql: "SELECT * FROM player WHERE score > ?", arguments: [10])
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  @inlinable
  public func fetchAll<T: Decodable>(
    _ type: T.Type = T.self, sql: String, arguments: StatementArguments = [], decoder: RowDecoder = RowDecoder()
  ) throws -> [T] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var values: [T] = []
      try statement.results { row in values.append(try decoder.decode(T.self, from: row)) }
      return values
    }
  }

  /// See ``fetchOne(_:sql:arguments:decoder:)``; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func fetchOne<T: Decodable>(
    _ type: T.Type = T.self, literal: SQLLiteral, decoder: RowDecoder = RowDecoder()
  ) throws -> T? {
    try fetchOne(type, sql: literal.sql, arguments: literal.statementArguments(), decoder: decoder)
  }

  /// See ``fetchAll(_:sql:arguments:decoder:)``; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func fetchAll<T: Decodable>(
    _ type: T.Type = T.self, literal: SQLLiteral, decoder: RowDecoder = RowDecoder()
  ) throws -> [T] {
    try fetchAll(type, sql: literal.sql, arguments: literal.statementArguments(), decoder: decoder)
  }
}

// MARK: - Dictionaries

extension Database {
  /// A dictionary from the first column to the second: `SELECT id, name FROM player` gives
  /// `[id: name]`. A key met twice keeps the value of its last row.
  ///
  /// ```swift
  /// let names = try db.fetchDictionary(Int64.self, String.self, sql: "SELECT id, name FROM player")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchDictionary<Key: ColumnConvertible & Hashable, Value: ColumnConvertible>(
    _ keyType: Key.Type, _ valueType: Value.Type, sql: String, arguments: StatementArguments = []
  ) throws -> [Key: Value] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var result: [Key: Value] = [:]
      try statement.results { row in result[try row.value(at: 0)] = try row.value(at: 1, as: Value.self) }
      return result
    }
  }

  /// Every row converted with `Value.init(row:)`, keyed by the column named `keyColumn`. A key met twice
  /// keeps the value of its last row.
  ///
  /// ```swift
  /// let byID = try db.fetchDictionary(keyColumn: "id", Int64.self, Player.self, sql: "SELECT * FROM player")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchDictionary<Key: ColumnConvertible & Hashable, Value: RowConvertible>(
    keyColumn: String, _ keyType: Key.Type, _ valueType: Value.Type, sql: String,
    arguments: StatementArguments = []
  ) throws -> [Key: Value] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      let keyIndex = try statement.columnIndex(named: keyColumn)
      var result: [Key: Value] = [:]
      try statement.results { row in result[try row.value(at: keyIndex)] = try Value(row: row) }
      return result
    }
  }

  /// Every row decoded into `Value`, keyed by the column named `keyColumn`. A key met twice keeps the
  /// value of its last row.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func fetchDictionary<Key: ColumnConvertible & Hashable, Value: Decodable>(
    keyColumn: String, _ keyType: Key.Type, _ valueType: Value.Type, sql: String,
    arguments: StatementArguments = [], decoder: RowDecoder = RowDecoder()
  ) throws -> [Key: Value] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      let keyIndex = try statement.columnIndex(named: keyColumn)
      var result: [Key: Value] = [:]
      try statement.results { row in
        result[try row.value(at: keyIndex)] = try decoder.decode(Value.self, from: row)
      }
      return result
    }
  }
}
