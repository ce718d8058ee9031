import AmalgamSQLite

/// What a commit hook decides about the transaction that is committing.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
public enum CommitDecision: Sendable, Hashable {
  /// Let the commit proceed.
  case commit
  /// Turn the commit into a rollback: the `COMMIT` (or the statement that would have committed
  /// automatically) fails with `SQLITE_CONSTRAINT_COMMITHOOK`.
  case rollback
}

/// A row inserted, updated or deleted, as reported by the update hook.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
public struct DatabaseEvent: Sendable, Hashable {
  /// The kind of change made to a row.
  public enum Operation: Sendable, Hashable {
    /// `INSERT` (`SQLITE_INSERT`).
    case insert
    /// `UPDATE` (`SQLITE_UPDATE`).
    case update
    /// `DELETE` (`SQLITE_DELETE`).
    case delete

    /// The operation for SQLite's `SQLITE_INSERT`, `SQLITE_UPDATE` or `SQLITE_DELETE` code.
    init?(code: Int32) {
      switch code {
      case SQLITE_INSERT: self = .insert
      case SQLITE_UPDATE: self = .update
      case SQLITE_DELETE: self = .delete
      default: return nil
      }
    }
  }

  /// Whether the row was inserted, updated or deleted.
  public var operation: Operation
  /// The schema holding the table: `"main"`, `"temp"`, or the name of an attached database.
  public var databaseName: String
  /// The table whose row changed.
  public var tableName: String
  /// The rowid of the row: after the change for an insert or update, before it for a delete.
  public var rowid: Int64

  /// Creates an event from its parts.
  public init(operation: Operation, databaseName: String, tableName: String, rowid: Int64) {
    self.operation = operation
    self.databaseName = databaseName
    self.tableName = tableName
    self.rowid = rowid
  }
}

extension ResultCode {
  /// `SQLITE_CONSTRAINT_COMMITHOOK`: a commit hook turned the commit into a rollback.
  public static let constraintCommitHook = ResultCode(rawValue: SQLITE_CONSTRAINT | (2 << 8))
}

// MARK: - Commit and rollback hooks

extension Database {
  /// The user's commit and rollback hooks, listening to the connection's transactions.
  private func userTransactionHooks() -> UserTransactionHooks {
    let hooks = connection.state(UserTransactionHooks.self)
    connection.addTransactionListener(UserTransactionHooks.self)
    return hooks
  }

  /// Calls `hook` each time a transaction is about to commit; returning ``CommitDecision/rollback``
  /// vetoes the commit.
  ///
  /// A vetoed commit is rolled back, and the statement that was committing (an explicit `COMMIT`, or
  /// any statement in autocommit mode) fails with ``ResultCode/constraintCommitHook``. The rollback
  /// hook, if any, is then called too.
  ///
  /// ```swift
  /// try db.setCommitHook { allowWrites ? .commit : .rollback }
  /// ```
  ///
  /// The hook must not use this database: SQLite forbids running statements on the connection from
  /// inside it. A database has one commit hook: registering again replaces the previous closure, which
  /// is released, as it is by ``removeCommitHook()`` and when the database closes.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func setCommitHook(_ hook: @escaping () -> CommitDecision) throws {
    try connection.withHandle { _ in userTransactionHooks().commitHook = hook }
  }

  /// Removes the commit hook registered with ``setCommitHook(_:)`` and releases its closure. Does
  /// nothing when there is none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func removeCommitHook() throws {
    try connection.withHandle { _ in userTransactionHooks().commitHook = nil }
  }

  /// Calls `hook` each time a transaction rolls back: an explicit `ROLLBACK`, a statement that fails
  /// and rolls back its transaction, a commit vetoed by the commit hook, and (although SQLite's
  /// documentation says otherwise) closing the database with a transaction open. `ROLLBACK TO` a
  /// savepoint, which keeps the transaction open, does not call it.
  ///
  /// ```swift
  /// try db.setRollbackHook { print("rolled back") }
  /// ```
  ///
  /// The hook must not use this database. Registering again replaces the previous closure.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func setRollbackHook(_ hook: @escaping () -> Void) throws {
    try connection.withHandle { _ in userTransactionHooks().rollbackHook = hook }
  }

  /// Removes the rollback hook registered with ``setRollbackHook(_:)`` and releases its closure.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func removeRollbackHook() throws {
    try connection.withHandle { _ in userTransactionHooks().rollbackHook = nil }
  }
}

// MARK: - Update hook

extension Database {
  /// Calls `hook` for each row that an `INSERT`, `UPDATE` or `DELETE` changes in a rowid table.
  ///
  /// ```swift
  /// try db.setUpdateHook { event in
  ///   print(event.operation, event.tableName, event.rowid)   // insert person 1
  /// }
  /// ```
  ///
  /// As SQLite documents, the hook is not called for `WITHOUT ROWID` tables, for internal tables such
  /// as `sqlite_sequence`, for rows deleted by the truncate optimisation (`DELETE FROM t` without a
  /// `WHERE` clause and without triggers), nor for rows replaced by an `ON CONFLICT REPLACE`. Changes
  /// are reported while the statement runs, before its transaction commits (even if it later rolls back).
  ///
  /// The hook must not use this database. Registering again replaces the previous closure.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
  public func setUpdateHook(_ hook: @escaping (DatabaseEvent) -> Void) throws {
    try connection.withHandle { handle in UpdateHookDispatcher.on(connection, handle).userHook = hook }
  }

  /// Removes the update hook registered with ``setUpdateHook(_:)`` and releases its closure.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
  public func removeUpdateHook() throws {
    try connection.withHandle { handle in
      guard let dispatcher = UpdateHookDispatcher.existing(on: connection) else { return }
      dispatcher.userHook = nil
      dispatcher.uninstallIfUnused(connection, handle)
    }
  }
}

/// Told about each row that the update hook reports, with SQLite's own strings (valid only during the
/// call): the way a capability (observation) sees row changes without taking the user's update hook.
/// The listener must be a ``ConnectionState`` of the connection: the dispatcher does not keep it.
protocol RowChangeListener: AnyObject {
  func rowDidChange(
    _ code: Int32, databaseName: UnsafePointer<CChar>, tableName: UnsafePointer<CChar>, rowid: Int64)
}

/// The one update hook SQLite keeps per connection, shared by the user's closure and an internal
/// listener; it sits in the ``HookSlot/update`` slot while either is set.
final class UpdateHookDispatcher {
  // Unchecked: read on every row, only by the thread using the connection.
  @exclusivity(unchecked) var userHook: ((DatabaseEvent) -> Void)?
  /// Unowned: the listener is a state of the same connection (see ``ConnectionState``), which keeps its
  /// states as long as it lives, so it outlives this dispatcher; a row then costs no reference counting.
  @exclusivity(unchecked) unowned(unsafe) var listener: (any RowChangeListener)?
  private let connection: Unretained<Connection>

  private init(connection: Connection) {
    self.connection = Unretained(connection)
  }

  static func existing(on connection: Connection) -> UpdateHookDispatcher? {
    connection.existingState(HookRegistry.self)?.slots[.update] as? UpdateHookDispatcher
  }

  /// The dispatcher of `connection`, registered with SQLite on first use.
  static func on(_ connection: Connection, _ handle: OpaquePointer) -> UpdateHookDispatcher {
    if let dispatcher = existing(on: connection) { return dispatcher }
    let dispatcher = UpdateHookDispatcher(connection: connection)
    sqlite3_update_hook(
      handle,
      { userData, code, databaseName, tableName, rowid in
        guard let userData, let databaseName, let tableName else { return }
        Unretained<UpdateHookDispatcher>(opaque: userData).withObject {
          $0.dispatch(code, databaseName, tableName, rowid)
        }
      }, Unretained(dispatcher).opaque)
    connection.state(HookRegistry.self).slots[.update] = dispatcher
    return dispatcher
  }

  /// Unregisters the hook and releases the dispatcher once neither the user nor a listener needs it.
  func uninstallIfUnused(_ connection: Connection, _ handle: OpaquePointer) {
    guard userHook == nil, listener == nil else { return }
    sqlite3_update_hook(handle, nil, nil)
    connection.existingState(HookRegistry.self)?.slots[.update] = nil
  }

  private func dispatch(
    _ code: Int32, _ databaseName: UnsafePointer<CChar>, _ tableName: UnsafePointer<CChar>, _ rowid: Int64
  ) {
    listener?.rowDidChange(code, databaseName: databaseName, tableName: tableName, rowid: rowid)
    guard let userHook, let operation = DatabaseEvent.Operation(code: code) else { return }
    let event = DatabaseEvent(
      operation: operation, databaseName: String(cString: databaseName), tableName: String(cString: tableName),
      rowid: rowid)
    connection.withObject { $0.restricting(.updateHook) { userHook(event) } }
  }
}
