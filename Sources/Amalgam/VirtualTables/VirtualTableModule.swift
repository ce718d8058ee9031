import AmalgamSQLite

/// A virtual table written in Swift: one instance per table that SQLite connects, answering its query
/// plans and opening its cursors.
///
/// Register the type with `Database.addModule(_:type:)`, then create tables with
/// `CREATE VIRTUAL TABLE name USING module(arguments)`. SQLite calls ``init(database:arguments:create:)``
/// with `create` true when the statement creates the table (`xCreate`: make persistent state once),
/// and with `create` false each time a connection opens an existing one (`xConnect`).
///
/// ```swift
/// final class Squares: VirtualTableModule {
///   required init(database: Database, arguments: [String], create: Bool) {}
///   var declaration: String { "CREATE TABLE x(n INTEGER, square INTEGER)" }
///   func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
///   func openCursor() -> any VirtualTableCursor { Cursor() }
///
///   final class Cursor: VirtualTableCursor {
///     var n: Int64 = 1
///     func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { n = 1 }
///     func next() { n += 1 }
///     var eof: Bool { n > 10 }
///     func rowid() -> Int64 { n }
///     func column(_ index: Int32) -> DatabaseValue { .integer(index == 0 ? n : n * n) }
///   }
/// }
/// try db.addModule("squares", type: Squares.self)
/// try db.execute(sql: "CREATE VIRTUAL TABLE temp.sq USING squares")
/// ```
///
/// The instance lives exactly as long as SQLite holds the table: until the connection closes, the
/// table is dropped (after ``destroy()``), or the schema is reloaded. An error thrown by any method
/// becomes the virtual table's error message, and reaches the caller as an ``SQLiteError`` with that
/// message (and the error's own code when it is an ``SQLiteError``).
///
/// A writable table also conforms to ``UpdatableVirtualTableModule``; one that takes part in
/// transactions to ``TransactionalVirtualTableModule``.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html>
public protocol VirtualTableModule {
  /// Creates (`create` true: `CREATE VIRTUAL TABLE`, SQLite's `xCreate`) or connects to (`create`
  /// false: SQLite's `xConnect`) a table.
  ///
  /// - Parameters:
  ///   - database: the connection. Keep it `weak` or `unowned` if you keep it: the connection holds the table.
  ///   - arguments: the module name, the schema name, the table name, then the `USING` arguments as
  ///     written. ``VirtualTableModuleArgument/parse(_:)`` splits the latter into names and values.
  ///   - create: true for `xCreate`, false for `xConnect`.
  ///
  /// With `create` false, SQLite calls this while it prepares a statement that names the table: the
  /// initializer may then run read-only queries on `database`, and anything else (a schema change, a
  /// write, closing) throws ``DatabaseError/readOnlyCallback(callback:sql:)``. With `create` true it runs
  /// inside `CREATE VIRTUAL TABLE` and may create the tables that keep the table's data.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xcreate_method>
  init(database: Database, arguments: [String], create: Bool) throws

  /// The `CREATE TABLE` statement that declares the table's columns (`sqlite3_declare_vtab`). The
  /// table name in it is ignored; a column marked `HIDDEN` is a parameter of a table-valued function.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/declare_vtab.html>
  var declaration: String { get }

  /// The table's options, applied with `sqlite3_vtab_config` when it is created or connected. The
  /// default is none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_config.html>
  var options: Database.VirtualTableModuleOptions { get }

  /// Deletes the table's persistent state: called for `DROP TABLE` (`xDestroy`), before the instance
  /// is released. The default does nothing.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xdestroy_method>
  func destroy() throws

  /// Chooses how to run a query (`xBestIndex`): read the constraints and ORDER BY terms of
  /// `indexInfo`, mark the constraints the plan uses, and set its cost. Return
  /// ``VirtualTableModuleBestIndexResult/constraint`` when the usable constraints allow no plan.
  ///
  /// SQLite calls it while it plans a statement: it may run read-only queries on the connection, and
  /// anything else throws ``DatabaseError/readOnlyCallback(callback:sql:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xbestindex_method>
  func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult

  /// FeistyDB's form of ``bestIndex(_:)-(VirtualTableIndexInfo)``, on SQLite's own
  /// `sqlite3_index_info`, so that a module written for FeistyDB compiles unchanged. A module
  /// implements one of the two: the typed form calls this one by default
  /// (``VirtualTableIndexInfo/withUnsafeRawIndexInfo(_:)``), and this one plans a full scan by default.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xbestindex_method>
  func bestIndex(_ indexInfo: inout sqlite3_index_info) throws -> VirtualTableModuleBestIndexResult

  /// Opens a cursor over the table (`xOpen`). SQLite releases it when it closes the cursor.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xopen_method>
  func openCursor() throws -> any VirtualTableCursor

  /// Renames the table (`xRename`, for `ALTER TABLE ... RENAME TO`). Throw to refuse. The default
  /// accepts the new name.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xrename_method>
  func rename(to newName: String) throws

  /// Overloads an SQL function when its first argument is a column of this table (`xFindFunction`):
  /// return the function to use for `name` called with `argumentCount` arguments, or `nil` to keep
  /// the ordinary one. The default overloads nothing. SQLite calls it while it prepares a statement:
  /// it may run read-only queries on the connection, nothing else.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xfindfunction_method>
  func findFunction(name: String, argumentCount: Int) -> VirtualTableFunction?

  /// Checks the table's content for `PRAGMA integrity_check` (`xIntegrity`): return a description of
  /// what is wrong, or `nil` when it is sound. `quick` is true for `PRAGMA quick_check`. The default
  /// finds nothing wrong.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xintegrity_method>
  func integrityCheck(schema: String, table: String, quick: Bool) throws -> String?

  /// The suffixes of the module's shadow tables (`xShadowName`): a module that stores a table's data in
  /// ordinary tables named `<table>_<suffix>` (as FTS5 does with `_data`, `_idx`, ...) lists the
  /// suffixes here, and SQLite then treats those tables as shadow tables: read-only to ordinary SQL when
  /// ``DatabaseConfigFlag/defensive`` is on, so that only the module writes them. Compared ignoring
  /// ASCII case. The default is none. A process can register at most 64 different lists (SQLite gives
  /// the function no module pointer, so each list needs a C function of its own); registering a module
  /// past that throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xshadowname_method>
  static var shadowTableSuffixes: [String] { get }
}

extension VirtualTableModule {
  /// No options.
  public var options: Database.VirtualTableModuleOptions { [] }

  /// Calls the FeistyDB form, ``bestIndex(_:)-(sqlite3_index_info)``, with SQLite's struct.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xbestindex_method>
  public func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
    try indexInfo.withUnsafeRawIndexInfo { raw in try bestIndex(&raw.pointee) }
  }

  /// A full scan: the plan SQLite starts from. Implement this or the typed
  /// ``bestIndex(_:)-(VirtualTableIndexInfo)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xbestindex_method>
  public func bestIndex(_ indexInfo: inout sqlite3_index_info) throws -> VirtualTableModuleBestIndexResult { .ok }

  /// Does nothing.
  public func destroy() throws {}
  /// Accepts the new name.
  public func rename(to newName: String) throws {}
  /// Overloads nothing.
  public func findFunction(name: String, argumentCount: Int) -> VirtualTableFunction? { nil }
  /// Finds nothing wrong.
  public func integrityCheck(schema: String, table: String, quick: Bool) throws -> String? { nil }
  /// None.
  public static var shadowTableSuffixes: [String] { [] }
}

/// A virtual table that exists in every schema under the module's own name, without `CREATE VIRTUAL
/// TABLE` (an eponymous virtual table): the shape of a table-valued function such as
/// `SELECT * FROM generate_series(1, 10)`, whose `HIDDEN` columns receive the arguments.
///
/// Register it with ``Database/addModule(_:type:eponymousOnly:)``. Unless `eponymousOnly` is true,
/// `CREATE VIRTUAL TABLE ... USING` also works, and calls ``init(database:arguments:)`` too.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#eponymous_virtual_tables>
public protocol EponymousVirtualTableModule: VirtualTableModule {
  /// Connects to the table. `arguments` are the module name, the schema name and the table name (the
  /// module's name), then any `USING` arguments of a `CREATE VIRTUAL TABLE`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xconnect_method>
  init(database: Database, arguments: [String]) throws
}

extension EponymousVirtualTableModule {
  /// Calls ``EponymousVirtualTableModule/init(database:arguments:)``: an eponymous table has no
  /// persistent state to create.
  public init(database: Database, arguments: [String], create: Bool) throws {
    try self.init(database: database, arguments: arguments)
  }
}

/// How a writable virtual table's change resolves a conflict: the `OR` clause of the statement, or
/// the `ON CONFLICT` of the constraint (`sqlite3_vtab_on_conflict`).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_on_conflict.html>
public enum VirtualTableConflictMode: Sendable, Hashable {
  /// `ROLLBACK`.
  case rollback
  /// `IGNORE`: skip the row and go on.
  case ignore
  /// `FAIL`.
  case fail
  /// `ABORT`, the default.
  case abort
  /// `REPLACE`: replace the conflicting row.
  case replace

  init(code: Int32) {
    switch code {
    case SQLITE_ROLLBACK: self = .rollback
    case SQLITE_IGNORE: self = .ignore
    case SQLITE_FAIL: self = .fail
    case SQLITE_REPLACE: self = .replace
    default: self = .abort
    }
  }
}

/// A virtual table that SQL can change (`xUpdate`): INSERT, UPDATE and DELETE reach these methods.
///
/// The values of a row are ``FunctionArguments``, one per declared column (hidden columns included),
/// valid only during the call. In an UPDATE, a column that the statement does not set, and that the
/// cursor's ``VirtualTableCursor/column(_:context:)`` left unset because
/// ``FunctionContext/isUnchangedColumn`` was true, reads as unchanged
/// (``FunctionArguments/isUnchanged(at:)``).
///
/// To refuse a change, throw: an ``SQLiteError`` with code ``ResultCode/constraint`` makes it a
/// constraint failure that `OR IGNORE` / `OR REPLACE` handle.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xupdate_method>
public protocol UpdatableVirtualTableModule: VirtualTableModule {
  /// Inserts a row. `rowid` is the one the statement gave, or `nil` to choose one. Returns the new
  /// row's rowid (ignored for a `WITHOUT ROWID` table).
  func insert(rowid: Int64?, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws -> Int64

  /// Updates row `rowid`; `newRowid` differs from it when the statement changes the rowid.
  func update(rowid: Int64, newRowid: Int64, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws

  /// Deletes row `rowid`.
  func delete(rowid: Int64, onConflict: VirtualTableConflictMode) throws
}

/// A virtual table that takes part in transactions and savepoints. Every method defaults to doing
/// nothing.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xbegin_method>
public protocol TransactionalVirtualTableModule: VirtualTableModule {
  /// A transaction starts (`xBegin`).
  func begin() throws
  /// First phase of a commit (`xSync`): throw to make the commit fail and roll back.
  func sync() throws
  /// The transaction commits (`xCommit`).
  func commit() throws
  /// The transaction rolls back (`xRollback`).
  func rollback() throws
  /// Savepoint `level` starts (`xSavepoint`); levels count from 0 in the transaction.
  func savepoint(_ level: Int32) throws
  /// Savepoint `level` and those inside it are released (`xRelease`).
  func release(_ level: Int32) throws
  /// The transaction goes back to the state when savepoint `level` started (`xRollbackTo`).
  func rollback(to level: Int32) throws
}

extension TransactionalVirtualTableModule {
  /// Does nothing.
  public func begin() throws {}
  /// Does nothing.
  public func sync() throws {}
  /// Does nothing.
  public func commit() throws {}
  /// Does nothing.
  public func rollback() throws {}
  /// Does nothing.
  public func savepoint(_ level: Int32) throws {}
  /// Does nothing.
  public func release(_ level: Int32) throws {}
  /// Does nothing.
  public func rollback(to level: Int32) throws {}
}

/// A cursor over a virtual table: positioned by ``filter(_:indexNumber:indexName:)-(FunctionArguments,_,_)``,
/// moved by ``next()`` until ``eof``, read by ``column(_:context:)`` and ``rowid()``.
///
/// Implement one `filter` and one `column`: the `[DatabaseValue]` / `DatabaseValue` forms are simple;
/// the ``FunctionArguments`` / ``FunctionContext`` forms read the arguments in place (and IN lists
/// all at once, ``FunctionArguments/inListValues(at:)``) and write results without building a
/// `DatabaseValue`. The cursor is released when SQLite closes it.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xfilter_method>
public protocol VirtualTableCursor {
  /// Starts a scan (`xFilter`) with the values of the constraints the plan used, in the positions
  /// the plan gave them, and the plan's ``VirtualTableIndexInfo/indexNumber`` and
  /// ``VirtualTableIndexInfo/indexName``. The default reads the arguments into values and calls the
  /// `[DatabaseValue]` form.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xfilter_method>
  func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) throws

  /// Starts a scan with the constraint values copied into an array. The default throws: implement
  /// this or the ``FunctionArguments`` form.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xfilter_method>
  func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) throws

  /// Moves to the next row (`xNext`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xnext_method>
  func next() throws

  /// True when the cursor has moved past the last row (`xEof`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xeof_method>
  var eof: Bool { get }

  /// The rowid of the current row (`xRowid`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xrowid_method>
  func rowid() throws -> Int64

  /// Writes column `index` of the current row to `context` (`xColumn`), the same result writer that
  /// SQL functions use. The default calls ``column(_:)`` and sets its value. Leaving the result unset
  /// gives NULL, or "unchanged" when ``FunctionContext/isUnchangedColumn`` is true.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xcolumn_method>
  func column(_ index: Int32, context: FunctionContext) throws

  /// Column `index` of the current row. The default throws: implement this or the
  /// ``FunctionContext`` form.
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xcolumn_method>
  func column(_ index: Int32) throws -> DatabaseValue
}

extension VirtualTableCursor {
  /// Copies the arguments into values and calls the `[DatabaseValue]` form.
  public func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) throws {
    try filter(Array(arguments), indexNumber: indexNumber, indexName: indexName)
  }

  /// Throws: the cursor implements no `filter`.
  public func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) throws {
    throw SQLiteError(code: .error, message: "\(type(of: self)) implements no filter(_:indexNumber:indexName:)")
  }

  /// Sets the value of ``column(_:)``.
  public func column(_ index: Int32, context: FunctionContext) throws {
    context.setResult(try column(index))
  }

  /// Throws: the cursor implements no `column`.
  public func column(_ index: Int32) throws -> DatabaseValue {
    throw SQLiteError(code: .error, message: "\(type(of: self)) implements no column(_:)")
  }
}

/// What ``VirtualTableModule/bestIndex(_:)-(VirtualTableIndexInfo)`` concluded.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#return_value>
public enum VirtualTableModuleBestIndexResult: Sendable {
  /// The plan in the index info is usable.
  case ok
  /// The usable constraints allow no plan (`SQLITE_CONSTRAINT`): SQLite tries another combination,
  /// and fails with "no query solution" if none works.
  case constraint
}

/// A function that a virtual table substitutes for an SQL function whose first argument is one of
/// its columns (see ``VirtualTableModule/findFunction(name:argumentCount:)``).
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xfindfunction_method>
public struct VirtualTableFunction {
  /// A constraint operator code for ``VirtualTableIndexInfo``, from 150 (`SQLITE_INDEX_CONSTRAINT_FUNCTION`)
  /// to 255: when set, `WHERE f(column, value)` reaches
  /// ``VirtualTableModule/bestIndex(_:)-(VirtualTableIndexInfo)`` as a constraint with operator
  /// ``VirtualTableIndexInfo/Operator/function(_:)``. `nil` for an ordinary overload.
  public var constraintOperator: UInt8?

  /// Computes the result, as the general form of ``Database/addFunction(_:arity:flags:_:)-(_,_,_,(FunctionArguments,FunctionContext)->Void)``.
  public var body: (_ arguments: FunctionArguments, _ context: FunctionContext) throws -> Void

  /// Creates an overload.
  public init(
    constraintOperator: UInt8? = nil,
    _ body: @escaping (_ arguments: FunctionArguments, _ context: FunctionContext) throws -> Void
  ) {
    self.constraintOperator = constraintOperator
    self.body = body
  }
}

/// One argument of `CREATE VIRTUAL TABLE ... USING module(arguments)`: `name = value`, or a bare word.
///
/// ```swift
/// let parsed = VirtualTableModuleArgument.parse(arguments)   // ["m", "main", "t", "size=10", "'x y'"]
/// // [(name: "size", value: "10"), (name: nil, value: "x y")]
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xcreate_method>
public struct VirtualTableModuleArgument: Sendable, Hashable {
  /// The argument as written, trimmed of spaces.
  public var text: String
  /// The name before `=`, or `nil` when the argument has no `=`.
  public var name: String?
  /// The value after `=` (or the whole argument), without the quotes of an SQL string or identifier.
  public var value: String

  /// Creates an argument.
  public init(text: String, name: String?, value: String) {
    self.text = text
    self.name = name
    self.value = value
  }

  /// Parses the `USING` arguments: skips the module, schema and table names that SQLite passes first.
  public static func parse(_ arguments: [String]) -> [VirtualTableModuleArgument] {
    arguments.dropFirst(3).map { raw in
      let text = trimmed(raw)
      if let equals = text.firstIndex(of: "="), !isQuote(text.first) {
        let name = trimmed(String(text[..<equals]))
        let value = trimmed(String(text[text.index(after: equals)...]))
        return VirtualTableModuleArgument(text: text, name: unquoted(name), value: unquoted(value))
      }
      return VirtualTableModuleArgument(text: text, name: nil, value: unquoted(text))
    }
  }

  static func trimmed(_ text: String) -> String {
    let characters = Substring(text).drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    var end = characters.endIndex
    while end > characters.startIndex {
      let before = characters.index(before: end)
      let c = characters[before]
      guard c == " " || c == "\t" || c == "\n" || c == "\r" else { break }
      end = before
    }
    return String(characters[..<end])
  }

  static func isQuote(_ character: Character?) -> Bool {
    character == "'" || character == "\"" || character == "`" || character == "["
  }

  /// Removes SQL quotes ('text', "identifier", `identifier`, [identifier]) and undoubles quotes inside.
  static func unquoted(_ text: String) -> String {
    guard let first = text.first, text.count >= 2, isQuote(first), let last = text.last else { return text }
    let close: Character = first == "[" ? "]" : first
    guard last == close else { return text }
    let inner = String(text.dropFirst().dropLast())
    return first == "[" ? inner : inner.replacingOccurrences(of: String([first, first]), with: String(first))
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var result = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound]
      result += replacement
      rest = rest[range.upperBound...]
    }
    return result + rest
  }
}

extension Database {
  /// Options of a virtual table, set with `sqlite3_vtab_config` when it is created or connected.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_vtab_constraint_support.html>
  public struct VirtualTableModuleOptions: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: Int

    /// Creates options from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The table's ``UpdatableVirtualTableModule`` methods honour the conflict mode: a constraint
    /// error they throw under `OR IGNORE`/`OR REPLACE` does not abort the statement
    /// (`SQLITE_VTAB_CONSTRAINT_SUPPORT`).
    public static let constraintSupport = VirtualTableModuleOptions(rawValue: 1 << 0)
    /// The table is safe to use from triggers and views in untrusted schemas (`SQLITE_VTAB_INNOCUOUS`).
    public static let innocuous = VirtualTableModuleOptions(rawValue: 1 << 2)
    /// The table may be used only from top-level SQL, not from triggers or views (`SQLITE_VTAB_DIRECTONLY`).
    public static let directOnly = VirtualTableModuleOptions(rawValue: 1 << 3)
    /// The table reads every attached schema, so a statement using it locks them all
    /// (`SQLITE_VTAB_USES_ALL_SCHEMAS`).
    public static let usesAllSchemas = VirtualTableModuleOptions(rawValue: 1 << 4)
  }
}
