import AmalgamSQLite

// FeistyDB's spellings of APIs that Amalgam names differently, so that code moved over from FeistyDB
// compiles, and the compiler's deprecation warning says what to write instead. See
// <doc:MovingFromFeistyDBSQiftOrGRDB>.

extension Statement {
  /// The first column of the first row converted to `T`; throws when there is no row. Resets the
  /// statement. This is FeistyDB's non-optional `front()`.
  ///
  /// ```swift
  /// let count: Int = try db.prepare(sql: "SELECT count(*) FROM t").front()
  /// ```
  ///
  /// The optional form, ``front(_:)``, returns `nil` when there is no row. The two are told apart by
  /// the type asked for: a non-optional type (`let n: Int = try statement.front()`) chooses this one,
  /// an optional type (`let n: Int? = try statement.front()`) or `front(Int.self)` the optional form.
  /// (This one is the disfavored overload, so that `Int?`, which both could produce, keeps meaning
  /// "`nil` when there is no row".)
  ///
  /// - Throws: ``DatabaseError/noRow(sql:)`` when there is no row; a conversion error when the value
  ///   is NULL and `T` is not optional.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @_disfavoredOverload
  public func front<T: ColumnConvertible>() throws -> T {
    try whileOpen {
      defer { sqlite3_reset(sqliteHandle) }
      guard let row = try step() else { throw DatabaseError.noRow(sql: sql) }
      return try row.value(at: 0)
    }
  }

  /// FeistyDB's name for the values of the first column: use ``column(_:as:)`` with index 0.
  ///
  /// Not a plain rename (the index is a new argument), so the compiler cannot rewrite the call: the
  /// warning says what to write.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  @available(*, deprecated, message: "write column(0) or column(0, as: T.self)")
  public func leftmostColumn<T: ColumnConvertible>(_ type: T.Type = T.self) throws -> [T] {
    try column(0, as: type)
  }
}

extension Row {
  /// FeistyDB's name for the value of the first column: use ``value(at:as:)`` with index 0.
  ///
  /// Not a plain rename (the index is a new argument), so the compiler cannot rewrite the call: the
  /// warning says what to write.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  @available(*, deprecated, message: "write value(at: 0) or value(at: 0, as: T.self)")
  public func leftmostValue<T: ColumnConvertible>(_ type: T.Type = T.self) throws -> T {
    try value(at: 0, as: type)
  }
}

extension Database {
  /// FeistyDB's name for ``addWindowFunction(_:arity:flags:_:)-(_,_,_,W.Type)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  @available(*, deprecated, renamed: "addWindowFunction(_:arity:flags:_:)")
  public func addAggregateWindowFunction<W: SQLAggregateWindowFunction>(
    _ name: String, arity: Int, flags: FunctionFlags = .default, _ type: W.Type
  ) throws {
    try addWindowFunction(name, arity: arity, flags: flags, type)
  }

  /// FeistyDB's name for ``addWindowFunction(_:arity:flags:_:)-(_,_,_,()->W)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  @available(*, deprecated, renamed: "addWindowFunction(_:arity:flags:_:)")
  public func addAggregateWindowFunction<W: SQLAggregateWindowFunction>(
    _ name: String, arity: Int, flags: FunctionFlags = .default, _ makeState: @escaping () -> W
  ) throws {
    try addWindowFunction(name, arity: arity, flags: flags, makeState)
  }
}

#if ENABLE_PREUPDATE_HOOK
  extension Database {
    /// FeistyDB's name for ``PreUpdateEvent``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    @available(*, deprecated, renamed: "PreUpdateEvent")
    public typealias PreUpdateChange = Amalgam.PreUpdateEvent
  }

  extension PreUpdateEvent {
    /// FeistyDB's name for ``databaseName``.
    @available(*, deprecated, renamed: "databaseName")
    public var database: String { databaseName }
    /// FeistyDB's name for ``tableName``.
    @available(*, deprecated, renamed: "tableName")
    public var table: String { tableName }
    /// FeistyDB's name for ``columnCount``.
    @available(*, deprecated, renamed: "columnCount")
    public var count: Int { columnCount }
  }
#endif

extension SQLiteError {
  /// FeistyDB's initializer, message first: use ``init(code:message:sql:offset:)``.
  ///
  /// Not a plain rename (the arguments swap places and the code becomes a ``ResultCode``), so the
  /// compiler cannot rewrite the call: the warning says what to write.
  ///
  /// Related SQLite documentation: <https://sqlite.org/rescode.html>
  @available(*, deprecated, message: "write SQLiteError(code: ResultCode(rawValue: code), message: message)")
  public init(_ message: String, code: Int32) {
    self.init(code: ResultCode(rawValue: code), message: message)
  }
}

extension DatabaseError {
  /// FeistyDB's `DatabaseError(_:)`: an error that is only a message (``DatabaseError/message(_:)``),
  /// which the compiler's fix-it writes. Amalgam passes any `Error`'s description on, so an error type
  /// of your own says more.
  @available(*, deprecated, renamed: "DatabaseError.message(_:)")
  public init(_ message: String) {
    self = .message(message)
  }
}
