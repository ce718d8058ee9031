import AmalgamSQLite

/// A prepared SQL statement (`sqlite3_stmt*`): bind parameters, step through rows, reset, repeat.
///
/// ```swift
/// let statement = try db.prepare(sql: "SELECT id, name FROM person WHERE age > ?")
/// try statement.bind(parameterValues: [18])
/// while let row = try statement.step() {
///   let id: Int64 = try row.value(at: 0)
///   let name: String? = try row.value(named: "name")
/// }
/// ```
///
/// Iteration always surfaces errors: use ``step()`` in a `while let` loop or ``results(_:)``. There
/// is deliberately no non-throwing `for row in statement`, which would end silently on an error.
///
/// A `Row` is a view of the statement's current row: read it before the next ``step()``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/stmt.html>
public final class Statement {
  /// The connection this statement belongs to, which the statement uses for every call.
  @usableFromInline let connection: Connection
  /// The database, kept open while the statement lives: a statement the user holds keeps its database
  /// open, as FeistyDB's do. `nil` for statements of the statement cache, which the database holds:
  /// a reference back would keep the database alive forever.
  private let database: Database?
  /// The `sqlite3_stmt*` handle, for calling SQLite's C API directly.
  public let sqliteHandle: OpaquePointer
  /// The number of columns in the result (`sqlite3_column_count`); 0 for statements that return no rows.
  /// It can change when SQLite re-prepares the statement after a schema change (`SELECT *` on an
  /// altered table).
  public var columnCount: Int { Int(sqlite3_column_count(sqliteHandle)) }
  /// The number of parameters, which is the largest parameter index (`sqlite3_bind_parameter_count`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_count.html>
  public let parameterCount: Int
  // The column-name caches below are read on every lookup by name. A statement is used by one thread
  // at a time and these are only touched inside the lookups, which call no user code, so accesses
  // never overlap: they skip the runtime exclusivity check, which would cost more than the lookup.

  /// The position of the last column found by name, from which the next lookup starts: rows are
  /// usually read column after column, so the next name is usually the next column's.
  @usableFromInline @exclusivity(unchecked) var lastColumnFoundByName = -1
  /// The statement's column names, computed once.
  @usableFromInline @exclusivity(unchecked) var columnNamesCache: [String]? {
    didSet { columnNameCount = columnNamesCache?.count ?? 0 }
  }
  /// The number of names in ``columnNamesCache`` (0 when there is none), read without touching the array.
  @usableFromInline @exclusivity(unchecked) var columnNameCount = 0
  /// Column index by name, computed on the first lookup by name.
  @exclusivity(unchecked) private var columnIndexByName: [String: Int]?
  /// SQLite's re-prepare count when the column names were cached.
  @exclusivity(unchecked) private var namesGeneration: Int32 = 0
  /// True when a lookup by name checked, since the statement last stepped to a row, that SQLite did not
  /// re-prepare it (the steps that make rows clear it): a re-prepare happens only inside a step, so
  /// the other lookups of the row skip the check.
  @usableFromInline @exclusivity(unchecked) var columnNamesVerified = false
  /// When the statement cache last handed this statement out (the cache's clock), for evicting the least
  /// recently used. Only the owning connection's cache touches it, on the connection's thread.
  @exclusivity(unchecked) var cacheLastUse: UInt64 = 0
  /// What `Codable` keeps for this statement between encodes and decodes (see ``StatementCodingState``):
  /// stored inline, since encoding or decoding a row reads it several times. Only encodes into and
  /// decodes from this statement touch it, on the statement's thread.
  @exclusivity(unchecked) var coding = StatementCodingState()
  /// Named-parameter lookup, built on the first bind by name (parameter names never change).
  @usableFromInline lazy var parameterLookup = ParameterLookup(statement: sqliteHandle, count: parameterCount)
  /// The names of the last complete bind by name in the order given, and their parameters (see
  /// ``NamedBinding``). Only binds by name on this statement touch it, on the statement's thread, and they
  /// call no user code while they read or write it.
  @usableFromInline @exclusivity(unchecked) var namedBinding = NamedBinding()

  /// Prepares `sql`, which must hold exactly one statement.
  ///
  /// - Parameters:
  ///   - database: the connection to prepare the statement on.
  ///   - sql: the statement's SQL text.
  ///   - persistent: hint that the statement will be reused many times
  ///     (`SQLITE_PREPARE_PERSISTENT`), as the statement cache does.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/prepare.html>
  public convenience init(database: Database, sql: String, persistent: Bool = false) throws {
    try self.init(database: database, sql: sql, persistent: persistent, keepsDatabaseOpen: true)
  }

  /// Prepares `sql`; a statement that will live in the statement cache does not keep its database open.
  init(database: Database, sql: String, persistent: Bool, keepsDatabaseOpen: Bool) throws {
    if let offset = sql.utf8.firstIndex(of: 0) {
      throw DatabaseError.nulCharacterInSQL(sql: sql, offset: sql.utf8.distance(from: sql.utf8.startIndex, to: offset))
    }
    let flags = UInt32(persistent ? SQLITE_PREPARE_PERSISTENT : 0)
    let box = database.connection
    // Everything holding the connection, the error message and the finalization of a refused statement
    // included: another thread's call could replace the message, or race the finalization.
    let handle: OpaquePointer = try box.withHandle(running: nil) { sqlite in
      // A commit made through the C handle completed before this statement: its listeners hear of it first.
      box.finishCommitIfNeeded()
      var handle: OpaquePointer?
      let rc = sql.withCString { text in
        var tail: UnsafePointer<CChar>?
        let rc = sqlite3_prepare_v3(sqlite, text, -1, flags, &handle, &tail)
        // Anything after the first statement must be empty, whitespace or comments: SQLite prepares
        // those to no statement. Anything else is a second statement, whether or not it compiles now (it
        // may use a table the first one creates, which a "no such table" error would hide).
        guard rc == SQLITE_OK, let rest = tail, rest.pointee != 0 else { return rc }
        var extra: OpaquePointer?
        let extraRC = sqlite3_prepare_v3(sqlite, rest, -1, 0, &extra, nil)
        sqlite3_finalize(extra)
        return extra != nil || extraRC != SQLITE_OK ? SQLITE_MISUSE : SQLITE_OK  // MISUSE: multipleStatements below
      }
      if rc == SQLITE_MISUSE, handle != nil {
        sqlite3_finalize(handle)
        throw DatabaseError.multipleStatements(sql: sql)
      }
      guard rc == SQLITE_OK else {
        let error = box.error(rc, sql: sql)
        sqlite3_finalize(handle)
        throw error
      }
      guard let handle else { throw DatabaseError.emptyStatement(sql: sql) }
      if let restrictedCallback = box.restrictedCallback {
        do {
          try restrictedCallback.check(handle)
        } catch {
          sqlite3_finalize(handle)
          throw error
        }
      }
      return handle
    }
    self.connection = box
    self.database = keepsDatabaseOpen ? database : nil
    self.sqliteHandle = handle
    self.parameterCount = Int(sqlite3_bind_parameter_count(handle))
  }

  deinit {
    // Holding the connection: a statement released on one thread while another thread runs SQLite on
    // the same connection is finalized by the next claim instead.
    connection.finalize(sqliteHandle)
  }

  /// Checks a bind or reset result code.
  @inlinable
  func check(_ rc: Int32) throws {
    if rc != SQLITE_OK { throw bindFailed(rc) }
  }

  @usableFromInline
  func bindFailed(_ rc: Int32) -> SQLiteError {
    connection.error(rc, sql: sql)
  }

  /// Runs `body` holding the open connection (binding, resetting): see ``Connection/holdingOpen(_:)``.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` once the database is closed, and
  ///   ``DatabaseError/concurrentUse`` while another thread uses the connection.
  @inlinable @inline(__always)
  func whileOpen<R>(_ body: () throws -> R) throws -> R {
    try connection.holdingOpen(body)
  }

  /// Throws ``DatabaseError/databaseClosed`` once the database is closed: a check before work that calls
  /// SQLite inside ``whileOpen(_:)`` or ``Connection/withHandle(_:)``, which check again while holding it.
  func checkOpen() throws {
    if connection.handle == nil { throw DatabaseError.databaseClosed }
  }
}

// MARK: - SQL and metadata

extension Statement {
  /// The SQL text the statement was prepared from (`sqlite3_sql`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/expanded_sql.html>
  public var sql: String { String(cString: sqlite3_sql(sqliteHandle)) }

  /// The SQL with the current parameter values substituted (`sqlite3_expanded_sql`), for logging.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/expanded_sql.html>
  public var expandedSQL: String? {
    takeSQLiteString(sqlite3_expanded_sql(sqliteHandle))
  }

  #if ENABLE_NORMALIZE
    /// The SQL with literals replaced by `?` and keywords normalised (`sqlite3_normalized_sql`), for
    /// grouping statements in logs. Needs the `ENABLE_NORMALIZE` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/expanded_sql.html>
    public var normalizedSQL: String? {
      sqlite3_normalized_sql(sqliteHandle).map { String(cString: $0) }
    }
  #endif

  /// True when the statement does not write to the database (`sqlite3_stmt_readonly`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_readonly.html>
  public var isReadOnly: Bool { sqlite3_stmt_readonly(sqliteHandle) != 0 }

  /// True while the statement has been stepped but not run to completion or reset (`sqlite3_stmt_busy`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_busy.html>
  public var isBusy: Bool { sqlite3_stmt_busy(sqliteHandle) != 0 }

  /// The name of parameter `index` (1-based) with its prefix, such as `":name"`; `nil` for `?`
  /// (`sqlite3_bind_parameter_name`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_name.html>
  public func parameterName(at index: Int) -> String? {
    guard let index = Int32(exactly: index) else { return nil }
    return sqlite3_bind_parameter_name(sqliteHandle, index).map { String(cString: $0) }
  }

  /// The 1-based index of the parameter named `name` (with its prefix, such as `":id"`), or `nil`
  /// (`sqlite3_bind_parameter_index`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  public func parameterIndex(named name: String) -> Int? {
    let index = sqlite3_bind_parameter_index(sqliteHandle, name)
    return index == 0 ? nil : Int(index)
  }

  /// The names of the result columns (`sqlite3_column_name`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_name.html>
  public var columnNames: [String] {
    let generation = sqlite3_stmt_status(sqliteHandle, SQLITE_STMTSTATUS_REPREPARE, 0)
    if let columnNamesCache, namesGeneration == generation { return columnNamesCache }
    // First use, or SQLite re-prepared the statement (after a schema change): the columns may differ.
    let names = (0..<Int32(columnCount)).map { index in
      sqlite3_column_name(sqliteHandle, index).map { String(cString: $0) } ?? ""
    }
    columnNamesCache = names
    columnIndexByName = nil
    lastColumnFoundByName = -1
    namesGeneration = generation
    return names
  }

  /// The name of column `index` (0-based).
  ///
  /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_name.html>
  public func columnName(at index: Int) throws -> String {
    guard index >= 0 && index < columnCount else {
      throw DatabaseError.columnIndexOutOfRange(index: index, count: columnCount)
    }
    return columnNames[index]
  }

  /// The 0-based index of the column named `name`. Names compare case-insensitively, as in SQL;
  /// when two columns share a name, the first wins.
  ///
  /// - Throws: ``DatabaseError/noSuchColumn(name:available:)``.
  public func columnIndex(named name: String) throws -> Int {
    // Most lookups ask for the column after the previous one: check it before hashing the name.
    // (Reading the cache in place, without binding the array, avoids reference counting per lookup.)
    if namesGeneration == sqlite3_stmt_status(sqliteHandle, SQLITE_STMTSTATUS_REPREPARE, 0),
      let count = columnNamesCache?.count, count > 0
    {
      let guess = lastColumnFoundByName + 1 < count ? lastColumnFoundByName + 1 : 0
      if columnNamesCache?[guess] == name {
        lastColumnFoundByName = guess
        return guess
      }
    }
    _ = columnNames  // refreshes the caches after a re-prepare
    let index = try columnIndexByName?[name] ?? slowColumnIndex(named: name)
    lastColumnFoundByName = index
    return index
  }

  /// Brings the name caches up to date for the current row: after the step that made it, checks once
  /// whether SQLite re-prepared the statement (``columnNames``, without returning the names).
  func refreshColumnNames() {
    if columnNamesVerified, columnNamesCache != nil { return }
    if columnNamesCache == nil || namesGeneration != sqlite3_stmt_status(sqliteHandle, SQLITE_STMTSTATUS_REPREPARE, 0) {
      _ = columnNames
    }
    columnNamesVerified = true
  }

  /// ``columnIndex(named:)`` for a ``Row``: checks whether SQLite re-prepared the statement once per
  /// row, not once per lookup. Inlined into the caller: when the name is that of the column after the
  /// last one found (rows are usually read column after column, and equal literals compare in a few
  /// instructions), a lookup costs one comparison and no call.
  @inlinable @inline(__always)
  func columnIndexInRow(named name: String) throws -> Int {
    if columnNamesVerified {
      var guess = lastColumnFoundByName &+ 1
      if guess >= columnNameCount { guess = 0 }
      if guess < columnNameCount, columnNamesCache?[guess] == name {
        lastColumnFoundByName = guess
        return guess
      }
    }
    return try columnIndexInRowAfterRefresh(named: name)
  }

  /// ``columnIndexInRow(named:)`` away from the inlined path: the first lookup of a row, or another name.
  @usableFromInline
  func columnIndexInRowAfterRefresh(named name: String) throws -> Int {
    refreshColumnNames()
    return try columnIndexInCurrentRow(named: name)
  }

  /// ``columnIndex(named:)`` for a caller that refreshed ``columnNames`` since the statement last
  /// stepped (the decoder, once per row): compares the column after the last one found, without
  /// re-checking whether SQLite re-prepared the statement.
  @inline(__always)
  func columnIndexInCurrentRow(named name: String) throws -> Int {
    if let count = columnNamesCache?.count {
      var guess = lastColumnFoundByName &+ 1
      if guess >= count { guess = 0 }
      if columnNamesCache?[guess] == name {
        lastColumnFoundByName = guess
        return guess
      }
    }
    return try columnIndex(named: name)
  }

  private func slowColumnIndex(named name: String) throws -> Int {
    let names = columnNames
    var map = columnIndexByName ?? [:]
    if map.isEmpty {
      for (index, columnName) in names.enumerated().reversed() { map[columnName] = index }
    }
    // An exact match is found above; otherwise compare as SQL does, ignoring ASCII case.
    let index =
      map[name]
      ?? names.firstIndex { $0.caseInsensitiveASCIIEquals(name) }
    columnIndexByName = map
    guard let index else { throw DatabaseError.noSuchColumn(name: name, available: names) }
    columnIndexByName?[name] = index
    return index
  }

  /// The declared type of column `index` in its table's schema (`sqlite3_column_decltype`), or `nil`
  /// for an expression.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_decltype.html>
  public func declaredType(ofColumn index: Int) throws -> String? {
    _ = try columnName(at: index)
    return sqlite3_column_decltype(sqliteHandle, Int32(index)).map { String(cString: $0) }
  }
}

extension String {
  func caseInsensitiveASCIIEquals(_ other: String) -> Bool {
    guard utf8.count == other.utf8.count else { return false }
    return zip(utf8, other.utf8).allSatisfy { a, b in
      a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7a)
    }
  }
}

// MARK: - Binding

extension Statement {
  /// Binds `value` to parameter `index` (1-based); `nil` binds NULL.
  ///
  /// - Throws: ``SQLiteError`` with `SQLITE_RANGE` for an index out of range, or a conversion error.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind(value: (any ParameterBindable)?, toParameter index: Int) throws -> Statement {
    return try whileOpen {
      guard index >= 1, index <= parameterCount else { throw parameterIndexOutOfRange(index) }
      try value.bindOrNull(to: self, at: Int32(truncatingIfNeeded: index))
      return self
    }
  }

  /// Binds each value to the parameter at its position: `bind(1, "two", 3.0)` binds parameters 1 to 3.
  /// The values' types are known at compile time, so nothing is boxed; calls with two to twelve values use
  /// overloads of fixed arity, which Swift specialises fully.
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` unless there is exactly
  ///   one value per parameter.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<each Value: ParameterBindable>(_ values: repeat each Value) throws -> Statement {
    var count = 0
    for _ in repeat each values { count += 1 }
    guard count == parameterCount else { throw parameterCountMismatch(count) }
    return try whileOpen {
      var position: Int32 = 0
      for value in repeat each values {
        position += 1
        try value.bind(to: self, at: position)
      }
      return self
    }
  }

  /// Binds one value of a concrete type: no existential box, the conversion is chosen at compile time.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<T: ParameterBindable>(value: T, toParameter index: Int) throws -> Statement {
    return try whileOpen {
      guard index >= 1, index <= parameterCount else { throw parameterIndexOutOfRange(index) }
      try value.bind(to: self, at: Int32(truncatingIfNeeded: index))
      return self
    }
  }

  @usableFromInline
  func parameterIndexOutOfRange(_ index: Int) -> SQLiteError {
    SQLiteError(
      code: .range,
      message: "Parameter index \(index) is out of range; the statement has \(parameterCount) parameter(s)",
      sql: sql)
  }

  /// Binds `value` to the parameter named `name` (`":id"`, or `"id"` for any of `:id`, `@id`, `$id`).
  ///
  /// - Throws: ``DatabaseError/noSuchParameter(name:sql:)`` when the statement has no such parameter.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @discardableResult
  public func bind(value: (any ParameterBindable)?, toParameter name: String) throws -> Statement {
    guard let index = parameterIndex(resolving: name) else {
      throw DatabaseError.noSuchParameter(name: name, sql: sql)
    }
    return try bind(value: value, toParameter: Int(index))
  }

  /// Binds values to the parameters by position: `values[0]` to parameter 1, and so on.
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` unless there is exactly
  ///   one value per parameter.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind(parameterValues values: [(any ParameterBindable)?]) throws -> Statement {
    guard values.count == parameterCount else { throw parameterCountMismatch(values.count) }
    return try whileOpen {
      // Through the buffer each existential is bound in place: iterating the array would copy each one.
      try values.withUnsafeBufferPointer { values in
        for index in values.indices {
          let position = Int32(truncatingIfNeeded: index + 1)
          if try values[index]?.bind(to: self, at: position) == nil {
            try check(sqlite3_bind_null(sqliteHandle, position))
          }
        }
      }
      return self
    }
  }

  @usableFromInline
  func parameterCountMismatch(_ provided: Int) -> DatabaseError {
    .parameterCountMismatch(expected: parameterCount, provided: provided, sql: sql)
  }

  /// Binds values to named parameters. Keys may carry the prefix (`":id"`) or not (`"id"`).
  ///
  /// ```swift
  /// try statement.bind(parameters: ["name": "Ada", "born": 1815]).execute()
  /// ```
  ///
  /// A literal argument is kept in the order written (no hashing), and a name given twice throws
  /// instead of trapping as a `Dictionary` literal would. Any sequence of name/value pairs, such as a
  /// `[String: (any ParameterBindable)?]`, is accepted too.
  ///
  /// - Throws: ``DatabaseError/noSuchParameter(name:sql:)`` for a key the statement lacks,
  ///   ``DatabaseError/duplicateParameter(name:sql:)`` for two keys naming one parameter,
  ///   ``DatabaseError/missingParameter(name:sql:)`` for a parameter given no value, and
  ///   ``DatabaseError/unnamedParameter(index:sql:)`` if the statement also has `?` parameters.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @discardableResult
  public func bind(parameters: KeyValuePairs<String, (any ParameterBindable)?>) throws -> Statement {
    return try whileOpen {
      // A call site's literal gives the same names in the same order every time: when they are those of
      // the last complete bind by name (``namedBinding``), each costs one comparison. Each pair is copied
      // out once (a copy goes through runtime metadata: the value is an existential).
      let count = parameters.count
      // No pairs at all are checked in full: an empty list is also what a statement remembers before its
      // first bind by name.
      if count > 0, count == namedBinding.count {
        var remembered = true
        for position in 0..<count {
          let pair = parameters[position]
          guard namedBinding.isName(pair.key, at: position) else {
            remembered = false
            break
          }
          try pair.value.bindOrNull(to: self, at: namedBinding.indexes[position])
        }
        if remembered { return self }
      }
      try rememberNamedBinding(parameters.map(\.key))
      for (position, pair) in parameters.enumerated() {
        try pair.value.bindOrNull(to: self, at: namedBinding.indexes[position])
      }
      return self
    }
  }

  /// Binds values to named parameters from any sequence of name/value pairs, such as a dictionary.
  /// See ``bind(parameters:)-(KeyValuePairs<String,(ParameterBindable)?>)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @discardableResult @_disfavoredOverload
  public func bind<Pairs: Sequence>(parameters: Pairs) throws -> Statement
  where Pairs.Element == (key: String, value: (any ParameterBindable)?) {
    try bindNamed(parameters)
    return self
  }

  /// Binds values to named parameters, each given as a `(name, value)` pair: the fastest way to bind by
  /// name, since each value's type is known at compile time and nothing is boxed or hashed. Names may
  /// carry the prefix (`":id"`) or not (`"id"`). The statement remembers the names of its last complete
  /// bind by name: binding the same names in the same order again (as a call site does) compares each
  /// name once and resolves nothing. Calls with two to twelve pairs use overloads of fixed arity, which
  /// Swift specialises fully (see `Statement+FixedArity.swift`).
  ///
  /// ```swift
  /// try statement.bind(named: ("name", "Ada"), ("born", 1815)).execute()
  /// ```
  ///
  /// - Throws: as ``bind(parameters:)-(KeyValuePairs<String,(ParameterBindable)?>)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<each Value: ParameterBindable>(named pairs: repeat (String, each Value)) throws -> Statement {
    return try whileOpen {
      // The names of a call site come the same, in the same order, every time: when they are those of the
      // last complete bind by name, their parameters are known and each name costs one comparison.
      var position = 0
      var remembered = true
      for pair in repeat each pairs {
        if remembered, let index = namedBinding.index(at: position, ifNamed: pair.0) {
          try pair.1.bind(to: self, at: index)
        } else {
          remembered = false
        }
        position &+= 1
      }
      // No pairs at all are checked in full (an empty list is also what a statement remembers before
      // its first bind by name): the statement may have parameters that need a value.
      if remembered, position > 0, position == namedBinding.count { return self }
      var names: [String] = []
      for pair in repeat each pairs { names.append(pair.0) }
      try rememberNamedBinding(names)
      position = 0
      for pair in repeat each pairs {
        try pair.1.bind(to: self, at: namedBinding.indexes[position])
        position &+= 1
      }
      return self
    }
  }

  /// Resolves the names of a bind by name, given in this order, and remembers them with their parameters
  /// in ``namedBinding``.
  ///
  /// - Throws: ``DatabaseError/noSuchParameter(name:sql:)``, ``DatabaseError/duplicateParameter(name:sql:)``,
  ///   ``DatabaseError/missingParameter(name:sql:)`` or ``DatabaseError/unnamedParameter(index:sql:)``.
  @usableFromInline
  func rememberNamedBinding(_ names: [String]) throws {
    var resolver = NamedParameterResolver(statement: self)
    var binding = NamedBinding()
    for name in names { binding.append(name, try resolver.resolve(name)) }
    try resolver.finish()
    namedBinding = binding
  }

  /// Binds a sequence of name/value pairs.
  private func bindNamed<Pairs: Sequence>(_ pairs: Pairs) throws
  where Pairs.Element == (key: String, value: (any ParameterBindable)?) {
    try whileOpen {
      var resolver = NamedParameterResolver(statement: self)
      for (name, value) in pairs {
        try value.bindOrNull(to: self, at: resolver.resolve(name))
      }
      try resolver.finish()
    }
  }

  /// The 1-based index of the parameter named `name`, with or without its prefix: the exact name first,
  /// then `:name`, `@name`, `$name` in that order. Names are read from SQLite once; lookups in the
  /// statement's parameter order compare one name each, others hash the name once.
  func parameterIndex(resolving name: String) -> Int32? {
    parameterLookup.index(of: name, hint: 0)
  }

  /// Sets every parameter back to NULL (`sqlite3_clear_bindings`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/clear_bindings.html>
  @discardableResult
  public func clearBindings() throws -> Statement {
    return try whileOpen {
      try check(sqlite3_clear_bindings(sqliteHandle))
      return self
    }
  }
}

// MARK: - Running

extension Statement {
  /// Advances to the next row and returns it, or `nil` when there are no more rows (`sqlite3_step`).
  ///
  /// ```swift
  /// while let row = try statement.step() { ... }
  /// ```
  ///
  /// The returned ``Row`` reads the current row: use it before the next call.
  /// After an error, the statement is reset and can run again.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable @inline(__always)
  public func step() throws -> Row? {
    let rc = try connection.withHandle(running: sqliteHandle) { _ in
      let rc = sqlite3_step(sqliteHandle)
      // Still holding the connection: a commit this step completed is reported on this thread, and a
      // failed step is reset before another thread can use the connection.
      if rc == SQLITE_DONE { connection.finishCommitIfNeeded() } else if rc != SQLITE_ROW { throw stepFailed(rc) }
      return rc
    }
    if rc == SQLITE_ROW {
      columnNamesVerified = false  // this step may have re-prepared the statement
      return Row(statement: self)
    }
    return nil
  }

  /// The error for a failed step; resets the statement so it can run again. Called holding the connection.
  @usableFromInline
  func stepFailed(_ rc: Int32) -> SQLiteError {
    let error = connection.error(rc, sql: sql)
    sqlite3_reset(sqliteHandle)
    return error
  }

  /// Runs the statement to completion, discarding rows, then resets it so it can run again.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func execute() throws {
    try whileOpen {
      while try step() != nil {}
      sqlite3_reset(sqliteHandle)
    }
  }

  /// Calls `body` with each row, then resets the statement. An error from SQLite or from `body`
  /// stops the iteration and is thrown.
  ///
  /// The fastest way to scan: the connection is claimed for this thread once for the whole scan rather
  /// than once per row, and one ``Row`` serves every row (it reads the current row), so a row costs no
  /// atomic operation beyond SQLite's own. `body` may use the database (nested queries); closing it from
  /// `body` ends the scan with ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  @inlinable
  public func results(_ body: (Row) throws -> Void) throws {
    try connection.withHandle(running: sqliteHandle) { _ in
      // Reset holding the connection (a reset can end a transaction), also when `body` throws.
      defer { sqlite3_reset(sqliteHandle) }
      var rc = sqlite3_step(sqliteHandle)
      guard rc == SQLITE_ROW else {
        if rc == SQLITE_DONE {
          connection.finishCommitIfNeeded()
          return
        }
        throw stepFailed(rc)
      }
      // Made after the first step: a re-prepare (after a schema change) happens there and may change the
      // number of columns; later steps never re-prepare. A constant, so passing it costs no retain.
      columnNamesVerified = false
      let row = Row(statement: self)
      repeat {
        try body(row)
        // `body` may have closed the database: a closed connection's statements must not step.
        guard connection.handle != nil else { throw DatabaseError.databaseClosed }
        rc = sqlite3_step(sqliteHandle)
      } while rc == SQLITE_ROW
      if rc != SQLITE_DONE { throw stepFailed(rc) }
      connection.finishCommitIfNeeded()
    }
  }

  /// Resets the statement so it can run again; bindings are kept (`sqlite3_reset`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/reset.html>
  @discardableResult
  public func reset() throws -> Statement {
    return try whileOpen {
      try check(sqlite3_reset(sqliteHandle))
      return self
    }
  }

  /// The values of the first row, or `nil` when there is none. Resets the statement.
  public func firstRow() throws -> [DatabaseValue]? {
    try whileOpen {
      defer { sqlite3_reset(sqliteHandle) }
      return try step()?.values()
    }
  }

  /// The first column of the first row converted to `T`, or `nil` when there is no row or the value is
  /// NULL. Resets the statement.
  ///
  /// ```swift
  /// let count: Int? = try db.prepare(sql: "SELECT count(*) FROM t").front()
  /// ```
  @inlinable
  public func front<T: ColumnConvertible>(_ type: T.Type = T.self) throws -> T? {
    try whileOpen {
      defer { sqlite3_reset(sqliteHandle) }
      guard let row = try step() else { return nil }
      return try row.value(at: 0) as T?
    }
  }

  /// Every value of column `index`, converted to `T` (use an optional type to accept NULL). Resets.
  public func column<T: ColumnConvertible>(_ index: Int, as type: T.Type = T.self) throws -> [T] {
    var values: [T] = []
    try results { row in values.append(try row.value(at: index)) }
    return values
  }

  /// The values of the given columns, one array per *column* (as in FeistyDB): `columns([0, 2])[1]`
  /// holds every row's value of column 2. Resets. For one array per row, use ``rows(columns:)``.
  public func columns<Indexes: Collection, T: ColumnConvertible>(
    _ indexes: Indexes, as type: T.Type = T.self
  ) throws -> [[T]] where Indexes.Element == Int {
    var columns = [[T]](repeating: [], count: indexes.count)
    try results { row in
      for (position, index) in indexes.enumerated() { columns[position].append(try row.value(at: index)) }
    }
    return columns
  }

  /// The values of the given columns as stored, one array per *column*. Resets.
  public func columns<Indexes: Collection>(_ indexes: Indexes) throws -> [[DatabaseValue]]
  where Indexes.Element == Int {
    try columns(indexes, as: DatabaseValue.self)
  }

  /// The values of the given columns, one array per *row*: `rows(columns: [0, 2])[1]` holds the second
  /// row's values of columns 0 and 2. Resets. For one array per column, use ``columns(_:)``.
  public func rows(columns indexes: [Int]) throws -> [[DatabaseValue]] {
    var rows: [[DatabaseValue]] = []
    try results { row in rows.append(try indexes.map { try row[$0] }) }
    return rows
  }

  /// Every row's values. Resets.
  public func allRows() throws -> [[DatabaseValue]] {
    var rows: [[DatabaseValue]] = []
    try results { row in rows.append(try row.values()) }
    return rows
  }
}
