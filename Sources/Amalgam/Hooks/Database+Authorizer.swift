import AmalgamSQLite

/// An action that SQLite asks the authorizer about while it prepares a statement, with its arguments.
///
/// Each case is one of SQLite's action codes (`SQLITE_CREATE_INDEX`, `SQLITE_READ`, ...); the
/// arguments are the ones SQLite documents for it. Actions on temporary objects have their own cases,
/// as in C.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_alter_table.html>
public enum AuthorizerAction: Sendable, Hashable {
  /// `SQLITE_CREATE_INDEX`: `CREATE INDEX index ON table`.
  case createIndex(index: String, table: String)
  /// `SQLITE_CREATE_TABLE`.
  case createTable(table: String)
  /// `SQLITE_CREATE_TEMP_INDEX`.
  case createTempIndex(index: String, table: String)
  /// `SQLITE_CREATE_TEMP_TABLE`.
  case createTempTable(table: String)
  /// `SQLITE_CREATE_TEMP_TRIGGER`.
  case createTempTrigger(trigger: String, table: String)
  /// `SQLITE_CREATE_TEMP_VIEW`.
  case createTempView(view: String)
  /// `SQLITE_CREATE_TRIGGER`.
  case createTrigger(trigger: String, table: String)
  /// `SQLITE_CREATE_VIEW`.
  case createView(view: String)
  /// `SQLITE_DELETE`: deleting rows from `table`.
  case delete(table: String)
  /// `SQLITE_DROP_INDEX`.
  case dropIndex(index: String, table: String)
  /// `SQLITE_DROP_TABLE`.
  case dropTable(table: String)
  /// `SQLITE_DROP_TEMP_INDEX`.
  case dropTempIndex(index: String, table: String)
  /// `SQLITE_DROP_TEMP_TABLE`.
  case dropTempTable(table: String)
  /// `SQLITE_DROP_TEMP_TRIGGER`.
  case dropTempTrigger(trigger: String, table: String)
  /// `SQLITE_DROP_TEMP_VIEW`.
  case dropTempView(view: String)
  /// `SQLITE_DROP_TRIGGER`.
  case dropTrigger(trigger: String, table: String)
  /// `SQLITE_DROP_VIEW`.
  case dropView(view: String)
  /// `SQLITE_INSERT`: inserting rows into `table`.
  case insert(table: String)
  /// `SQLITE_PRAGMA`: `PRAGMA pragma` or `PRAGMA pragma = argument`.
  case pragma(pragma: String, argument: String?)
  /// `SQLITE_READ`: reading `column` of `table`. Answering ``AuthorizerResult/ignore`` makes the column
  /// read as NULL instead of failing the statement. `column` is empty when the statement uses the table
  /// without reading a column (`SELECT count(*) FROM t`).
  case read(table: String, column: String)
  /// `SQLITE_SELECT`: a `SELECT` statement or subquery.
  case select
  /// `SQLITE_TRANSACTION`: `BEGIN`, `COMMIT` or `ROLLBACK` (the `operation`).
  case transaction(operation: String)
  /// `SQLITE_UPDATE`: updating `column` of `table`.
  case update(table: String, column: String)
  /// `SQLITE_ATTACH`: attaching the database file `filename`.
  case attach(filename: String)
  /// `SQLITE_DETACH`: detaching the schema `database`.
  case detach(database: String)
  /// `SQLITE_ALTER_TABLE`: altering `table` of schema `database`.
  case alterTable(database: String, table: String)
  /// `SQLITE_REINDEX`.
  case reindex(index: String)
  /// `SQLITE_ANALYZE`.
  case analyze(table: String)
  /// `SQLITE_CREATE_VTABLE`: creating virtual table `table` with `module`.
  case createVirtualTable(table: String, module: String)
  /// `SQLITE_DROP_VTABLE`: dropping virtual table `table` of `module`.
  case dropVirtualTable(table: String, module: String)
  /// `SQLITE_FUNCTION`: calling the SQL function `function`.
  case function(function: String)
  /// `SQLITE_SAVEPOINT`: `BEGIN` (SAVEPOINT), `RELEASE` or `ROLLBACK` (TO) the savepoint `savepoint`.
  case savepoint(operation: String, savepoint: String)
  /// `SQLITE_RECURSIVE`: a recursive common table expression.
  case recursive
  /// An action code this version of Amalgam does not know, with its two raw arguments.
  case unknown(code: Int32, argument1: String?, argument2: String?)

  /// Decodes SQLite's action code and its two arguments.
  init(code: Int32, _ argument1: String?, _ argument2: String?) {
    let first = argument1 ?? ""
    let second = argument2 ?? ""
    switch code {
    case SQLITE_CREATE_INDEX: self = .createIndex(index: first, table: second)
    case SQLITE_CREATE_TABLE: self = .createTable(table: first)
    case SQLITE_CREATE_TEMP_INDEX: self = .createTempIndex(index: first, table: second)
    case SQLITE_CREATE_TEMP_TABLE: self = .createTempTable(table: first)
    case SQLITE_CREATE_TEMP_TRIGGER: self = .createTempTrigger(trigger: first, table: second)
    case SQLITE_CREATE_TEMP_VIEW: self = .createTempView(view: first)
    case SQLITE_CREATE_TRIGGER: self = .createTrigger(trigger: first, table: second)
    case SQLITE_CREATE_VIEW: self = .createView(view: first)
    case SQLITE_DELETE: self = .delete(table: first)
    case SQLITE_DROP_INDEX: self = .dropIndex(index: first, table: second)
    case SQLITE_DROP_TABLE: self = .dropTable(table: first)
    case SQLITE_DROP_TEMP_INDEX: self = .dropTempIndex(index: first, table: second)
    case SQLITE_DROP_TEMP_TABLE: self = .dropTempTable(table: first)
    case SQLITE_DROP_TEMP_TRIGGER: self = .dropTempTrigger(trigger: first, table: second)
    case SQLITE_DROP_TEMP_VIEW: self = .dropTempView(view: first)
    case SQLITE_DROP_TRIGGER: self = .dropTrigger(trigger: first, table: second)
    case SQLITE_DROP_VIEW: self = .dropView(view: first)
    case SQLITE_INSERT: self = .insert(table: first)
    case SQLITE_PRAGMA: self = .pragma(pragma: first, argument: argument2)
    case SQLITE_READ: self = .read(table: first, column: second)
    case SQLITE_SELECT: self = .select
    case SQLITE_TRANSACTION: self = .transaction(operation: first)
    case SQLITE_UPDATE: self = .update(table: first, column: second)
    case SQLITE_ATTACH: self = .attach(filename: first)
    case SQLITE_DETACH: self = .detach(database: first)
    case SQLITE_ALTER_TABLE: self = .alterTable(database: first, table: second)
    case SQLITE_REINDEX: self = .reindex(index: first)
    case SQLITE_ANALYZE: self = .analyze(table: first)
    case SQLITE_CREATE_VTABLE: self = .createVirtualTable(table: first, module: second)
    case SQLITE_DROP_VTABLE: self = .dropVirtualTable(table: first, module: second)
    case SQLITE_FUNCTION: self = .function(function: second)
    case SQLITE_SAVEPOINT: self = .savepoint(operation: first, savepoint: second)
    case SQLITE_RECURSIVE: self = .recursive
    default: self = .unknown(code: code, argument1: argument1, argument2: argument2)
    }
  }
}

/// One question to the authorizer: the action, and where it comes from.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/set_authorizer.html>
public struct AuthorizerRequest: Sendable, Hashable {
  /// The action and its arguments.
  public var action: AuthorizerAction
  /// The schema concerned (`"main"`, `"temp"`, an attached database's name), when there is one.
  public var databaseName: String?
  /// The innermost trigger or view responsible for the access, or `nil` when it comes directly from
  /// the statement's own SQL.
  public var triggerOrView: String?

  /// Creates a request from its parts.
  public init(action: AuthorizerAction, databaseName: String?, triggerOrView: String?) {
    self.action = action
    self.databaseName = databaseName
    self.triggerOrView = triggerOrView
  }
}

/// The authorizer's answer.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_deny.html>
public enum AuthorizerResult: Sendable, Hashable {
  /// Allow the action (`SQLITE_OK`).
  case allow
  /// Refuse the action: preparing the statement fails with `SQLITE_AUTH`, "not authorized"
  /// (`SQLITE_DENY`).
  case deny
  /// Disallow the action without failing the statement (`SQLITE_IGNORE`). For ``AuthorizerAction/read(table:column:)``
  /// the column reads as NULL, which hides individual columns; for ``AuthorizerAction/delete(table:)``
  /// the rows are still deleted, one by one instead of by the truncate optimisation.
  case ignore

  var code: Int32 {
    switch self {
    case .allow: SQLITE_OK
    case .deny: SQLITE_DENY
    case .ignore: SQLITE_IGNORE
    }
  }
}

extension Database {
  /// Calls `authorizer` for each action of each statement while it is being prepared, to allow, deny
  /// or ignore it. Use it to run SQL from an untrusted source with fewer rights.
  ///
  /// ```swift
  /// try db.setAuthorizer { request in
  ///   switch request.action {
  ///   case .delete, .dropTable: .deny
  ///   case .read(table: "person", column: "email"): .ignore   // reads as NULL
  ///   default: .allow
  ///   }
  /// }
  /// ```
  ///
  /// A denied statement fails to prepare with `SQLITE_AUTH` ("not authorized"). Statements are checked
  /// when they are prepared, not when they run, so registering, replacing or removing the authorizer
  /// makes SQLite prepare cached statements again. The authorizer must not use this database.
  /// Registering again replaces the previous closure, which is released, as it is by
  /// ``removeAuthorizer()`` and when the database closes.
  ///
  /// The authorizer is asked about the statements the application prepares (and those SQLite prepares
  /// for them). It is not asked about the few that Amalgam prepares for its own bookkeeping (value
  /// observation learning which tables are virtual or a file's data version, a session checking a table),
  /// as SQLite does not ask it about the statements it runs itself: denying `sqlite_schema` to the
  /// application leaves those features working.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/set_authorizer.html>
  public func setAuthorizer(_ authorizer: @escaping (AuthorizerRequest) -> AuthorizerResult) throws {
    try connection.withHandle { handle in
      let dispatcher = AuthorizerDispatcher.on(connection, handle)
      dispatcher.userAuthorizer = authorizer
      // Registering again makes SQLite prepare the cached statements again, under the new closure.
      dispatcher.register(handle)
    }
  }

  /// Removes the authorizer registered with ``setAuthorizer(_:)`` and releases its closure: every
  /// action is allowed again.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/set_authorizer.html>
  public func removeAuthorizer() throws {
    try connection.withHandle { handle in
      guard let dispatcher = AuthorizerDispatcher.existing(on: connection) else { return }
      dispatcher.userAuthorizer = nil
      if dispatcher.listeners.isEmpty {
        dispatcher.uninstallIfUnused(connection, handle)
      } else {
        dispatcher.register(handle)
      }
    }
  }
}

/// Told about each action SQLite authorizes while it prepares a statement, with SQLite's own strings
/// (valid only during the call): the way a capability (observation) learns what statements read and
/// write without taking the user's authorizer. It answers `SQLITE_OK`, or `SQLITE_IGNORE` for an action
/// it needs done another way (a `DELETE` done row by row rather than by the truncate optimisation);
/// the user's `.deny` always wins.
protocol AuthorizerListener: AnyObject {
  func authorize(
    _ code: Int32, _ argument1: UnsafePointer<CChar>?, _ argument2: UnsafePointer<CChar>?,
    databaseName: UnsafePointer<CChar>?, triggerOrView: UnsafePointer<CChar>?
  ) -> Int32
}

/// The one authorizer SQLite keeps per connection, shared by the user's closure and internal
/// listeners; it sits in the ``HookSlot/authorizer`` slot while any is set.
final class AuthorizerDispatcher {
  var userAuthorizer: ((AuthorizerRequest) -> AuthorizerResult)?
  private(set) var listeners: [any AuthorizerListener] = []
  /// While set, the only one asked: a listener that prepares a statement to learn about it, which
  /// neither the user's authorizer nor the other listeners should hear of.
  var soleListener: (any AuthorizerListener)?
  private let connection: Unretained<Connection>

  private init(connection: Connection) {
    self.connection = Unretained(connection)
  }

  static func existing(on connection: Connection) -> AuthorizerDispatcher? {
    connection.existingState(HookRegistry.self)?.slots[.authorizer] as? AuthorizerDispatcher
  }

  /// The dispatcher of `connection`, registered with SQLite on first use.
  static func on(_ connection: Connection, _ handle: OpaquePointer) -> AuthorizerDispatcher {
    if let dispatcher = existing(on: connection) { return dispatcher }
    let dispatcher = AuthorizerDispatcher(connection: connection)
    dispatcher.register(handle)
    connection.state(HookRegistry.self).slots[.authorizer] = dispatcher
    return dispatcher
  }

  /// Hands SQLite the callback. Registering an authorizer, even the same one again, makes SQLite
  /// prepare every statement of the connection again before it next runs, so the listeners see them.
  func register(_ handle: OpaquePointer) {
    sqlite3_set_authorizer(
      handle,
      { userData, code, argument1, argument2, databaseName, triggerOrView in
        guard let userData else { return SQLITE_OK }
        return Unretained<AuthorizerDispatcher>(opaque: userData).object.authorize(
          code, argument1, argument2, databaseName, triggerOrView)
      }, Unretained(self).opaque)
  }

  func addListener(_ listener: any AuthorizerListener) {
    guard !listeners.contains(where: { $0 === listener }) else { return }
    listeners.append(listener)
  }

  func removeListener(_ listener: any AuthorizerListener) {
    listeners.removeAll { $0 === listener }
  }

  /// Unregisters the authorizer and releases the dispatcher once neither the user nor a listener
  /// needs it.
  func uninstallIfUnused(_ connection: Connection, _ handle: OpaquePointer) {
    guard userAuthorizer == nil, listeners.isEmpty else { return }
    sqlite3_set_authorizer(handle, nil, nil)
    connection.existingState(HookRegistry.self)?.slots[.authorizer] = nil
  }

  private func authorize(
    _ code: Int32, _ argument1: UnsafePointer<CChar>?, _ argument2: UnsafePointer<CChar>?,
    _ databaseName: UnsafePointer<CChar>?, _ triggerOrView: UnsafePointer<CChar>?
  ) -> Int32 {
    if let soleListener {
      return soleListener.authorize(
        code, argument1, argument2, databaseName: databaseName, triggerOrView: triggerOrView)
    }
    var answer = SQLITE_OK
    for listener in listeners
    where listener.authorize(
      code, argument1, argument2, databaseName: databaseName, triggerOrView: triggerOrView) == SQLITE_IGNORE
    {
      answer = SQLITE_IGNORE
    }
    guard let userAuthorizer else { return answer }
    let request = AuthorizerRequest(
      action: AuthorizerAction(code: code, hookString(argument1), hookString(argument2)),
      databaseName: hookString(databaseName), triggerOrView: hookString(triggerOrView))
    let user = connection.withObject { $0.restricting(.authorizer) { userAuthorizer(request) } }
    return user == .allow ? answer : user.code
  }
}
