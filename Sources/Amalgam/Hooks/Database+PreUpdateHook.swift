#if ENABLE_PREUPDATE_HOOK
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// A row about to be inserted, updated or deleted, as seen by the pre-update hook: the operation,
  /// the table, the rowids, and the column values before and after the change.
  ///
  /// The values are read from SQLite on demand, so they are only available while the hook runs: reading
  /// one afterwards throws `SQLITE_MISUSE`. Copy what you need (``oldValues()``, ``newValues()``)
  /// inside the hook.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
  public struct PreUpdateEvent {
    /// Whether the row is being inserted, updated or deleted. A write through an incremental BLOB
    /// handle (`sqlite3_blob_write`) is reported as a delete with a ``blobWriteColumn``.
    public let operation: DatabaseEvent.Operation
    /// The schema holding the table: `"main"`, `"temp"`, or the name of an attached database.
    public let databaseName: String
    /// The table whose row is changing.
    public let tableName: String
    /// The rowid before the change, for an update or delete of a rowid table; `nil` for an insert.
    /// Undefined for a `WITHOUT ROWID` table.
    public let oldRowid: Int64?
    /// The rowid after the change, for an insert or update of a rowid table; `nil` for a delete.
    /// Undefined for a `WITHOUT ROWID` table.
    public let newRowid: Int64?
    /// The number of columns in the row (`sqlite3_preupdate_count`).
    public let columnCount: Int
    /// 0 for a change made directly by a statement, 1 for a change made by a trigger, 2 by a trigger
    /// fired by a trigger, and so on (`sqlite3_preupdate_depth`).
    public let depth: Int
    /// The column being written when the change is an incremental BLOB write (`sqlite3_blob_write`),
    /// else `nil` (`sqlite3_preupdate_blobwrite`).
    public let blobWriteColumn: Int?

    /// What happens to the row, with its rowids: FeistyDB's name and form of ``operation``,
    /// ``oldRowid`` and ``newRowid`` together.
    ///
    /// ```swift
    /// if case .update(let old, let new) = event.changeType, old != new { print("rowid changed") }
    /// ```
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    public enum ChangeType: Hashable, Sendable {
      /// A row is inserted, with this rowid.
      case insert(Int64)
      /// A row is deleted; it had this rowid.
      case delete(Int64)
      /// A row is updated: its rowid before the change, and after it.
      case update(Int64, Int64)
    }

    /// What happens to the row, with its rowids (FeistyDB's `changeType`). The rowids are undefined
    /// for a `WITHOUT ROWID` table, as ``oldRowid`` and ``newRowid`` are.
    public var changeType: ChangeType {
      switch operation {
      case .insert: .insert(newRowid ?? 0)
      case .delete: .delete(oldRowid ?? 0)
      case .update: .update(oldRowid ?? 0, newRowid ?? 0)
      }
    }

    /// Valid while the hook runs.
    /// The connection in its hook, and the hook's call: the values can be read only during it.
    let handle: OpaquePointer?
    let token: CallbackToken

    /// The value of column `index` (0-based) before the change, for an update or a delete
    /// (`sqlite3_preupdate_old`).
    ///
    /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)``; ``SQLiteError`` with
    ///   `SQLITE_MISUSE` for an insert (there is no old row) or after the hook returned.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    public func oldValue(at index: Int) throws -> DatabaseValue {
      guard operation != .insert else {
        throw SQLiteError(code: .misuse, message: "An inserted row has no old values")
      }
      return try value(at: index, sqlite3_preupdate_old)
    }

    /// The value of column `index` (0-based) after the change, for an insert or an update
    /// (`sqlite3_preupdate_new`).
    ///
    /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)``; ``SQLiteError`` with
    ///   `SQLITE_MISUSE` for a delete (there is no new row) or after the hook returned.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    public func newValue(at index: Int) throws -> DatabaseValue {
      guard operation != .delete else {
        throw SQLiteError(code: .misuse, message: "A deleted row has no new values")
      }
      return try value(at: index, sqlite3_preupdate_new)
    }

    /// Every column's value before the change. See ``oldValue(at:)``.
    public func oldValues() throws -> [DatabaseValue] {
      try (0..<columnCount).map(oldValue(at:))
    }

    /// Every column's value after the change. See ``newValue(at:)``.
    public func newValues() throws -> [DatabaseValue] {
      try (0..<columnCount).map(newValue(at:))
    }

    private func value(
      at index: Int, _ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    ) throws -> DatabaseValue {
      try token.check("the values of a pre-update event")
      guard index >= 0 && index < columnCount else {
        throw DatabaseError.columnIndexOutOfRange(index: index, count: columnCount)
      }
      var value: OpaquePointer?
      let rc = read(handle, Int32(index), &value)
      guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: handle) }
      guard let value else { return .null }
      return try DatabaseValue(strictSQLiteValue: value)
    }
  }

  extension Database {
    /// Calls `hook` before each row is inserted, updated or deleted, with the row's values before and
    /// after the change. Needs the `ENABLE_PREUPDATE_HOOK` trait (on by default).
    ///
    /// ```swift
    /// db.setPreUpdateHook { event in
    ///   if event.operation == .update, let old = try? event.oldValues(), let new = try? event.newValues() {
    ///     print(event.tableName, old, "→", new)
    ///   }
    /// }
    /// ```
    ///
    /// Unlike the update hook, it fires for `WITHOUT ROWID` tables and for rows deleted by the truncate
    /// optimisation, and reports changes made by triggers with their ``PreUpdateEvent/depth``. It does not
    /// fire for virtual tables or internal tables such as `sqlite_sequence`.
    ///
    /// The hook must not use this database. Registering again replaces the previous closure, which is
    /// released, as it is by ``removePreUpdateHook()`` and when the database closes.
    ///
    /// SQLite has one pre-update hook slot per connection, and sessions (`sqlite3session_*`) use it to
    /// record changes: the two cannot be active on one connection at once. While a session is attached,
    /// this method leaves the session's hook in place rather than silently stopping it from recording:
    /// it registers nothing, writes the reason to SQLite's error log (``SQLiteLog``) with
    /// `SQLITE_MISUSE`, and returns false. It also returns false, registering nothing, on a closed
    /// database. Both are mistakes in the program, not in its input, so the method does not throw, as
    /// FeistyDB's does not: code moved from FeistyDB compiles unchanged.
    ///
    /// - Returns: true when `hook` is registered.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    @discardableResult
    public func setPreUpdateHook(_ hook: @escaping (PreUpdateEvent) -> Void) -> Bool {
      if let owner = connection.existingState(HookRegistry.self)?.slots[.preUpdate], !(owner is PreUpdateDispatcher) {
        SQLiteLog.write(
          "The pre-update hook is in use by a session on this connection; delete the session first",
          code: .misuse)
        return false
      }
      do {
        try connection.withHandle { handle in
          let box = HookBox(hook)
          box.connection = Unretained(connection)
          box.restriction = HookSlot.preUpdate.restriction
          PreUpdateDispatcher.on(connection, handle)?.userHook = box
        }
        return true
      } catch {
        return false  // the database is closed: there is nothing to hook
      }
    }

    /// Removes the hook registered with ``setPreUpdateHook(_:)`` and releases its closure. Does nothing
    /// when there is none, when a session (not a hook) holds the pre-update slot, or when the database
    /// is closed (closing released the hook).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    public func removePreUpdateHook() {
      guard let dispatcher = PreUpdateDispatcher.existing(on: connection), dispatcher.userHook != nil else { return }
      try? connection.withHandle { handle in
        dispatcher.userHook = nil
        dispatcher.uninstallIfUnused(connection, handle)
      }
    }

    /// True while SQLite's single pre-update hook slot is taken, by ``setPreUpdateHook(_:)`` or by a
    /// session.
    ///
    /// The contract for code that installs its own pre-update callback (sessions do, through
    /// `sqlite3session_create`): check this first and refuse with an error when it is true, then keep
    /// an object of your own in the `HookRegistry`'s `.preUpdate` slot for as
    /// long as the callback is installed, and remove it when it is uninstalled. ``setPreUpdateHook(_:)``
    /// then refuses too, so the two never silently overwrite each other.
    var isPreUpdateHookInUse: Bool {
      switch connection.existingState(HookRegistry.self)?.slots[.preUpdate] {
      case nil: false
      case let dispatcher as PreUpdateDispatcher: dispatcher.userHook != nil
      default: true
      }
    }
  }

  /// Told about each row that the pre-update hook reports, with SQLite's own strings (valid only during
  /// the call): the way a capability (observation) sees the values of changing rows without taking the
  /// user's pre-update hook. It may read the row through `sqlite3_preupdate_*` on `handle`, and must
  /// not use the connection otherwise. The listener must be a ``ConnectionState`` of the connection:
  /// the dispatcher does not keep it.
  protocol PreUpdateListener: AnyObject {
    func rowWillChange(
      _ handle: OpaquePointer, _ code: Int32, databaseName: UnsafePointer<CChar>, tableName: UnsafePointer<CChar>,
      oldRowid: Int64, newRowid: Int64)
    /// A session took the connection's pre-update slot: the listener is not called any more, and its
    /// dispatcher is gone.
    func preUpdateHookWasTaken()
  }

  /// The one pre-update hook SQLite keeps per connection, shared by the user's closure and an internal
  /// listener; it sits in the ``HookSlot/preUpdate`` slot while either is set. A session needs the slot
  /// for itself (`sqlite3session_create` chains the previous callback's argument as a session): the
  /// dispatcher leaves it to the session while only the listener uses it (``yieldToSession(_:_:)``).
  final class PreUpdateDispatcher {
    // Unchecked: read on every row, only by the thread using the connection.
    @exclusivity(unchecked) var userHook: HookBox<(PreUpdateEvent) -> Void>?
    /// Unowned: the listener is a state of the same connection, which outlives this dispatcher (see
    /// ``UpdateHookDispatcher/listener``).
    @exclusivity(unchecked) unowned(unsafe) var listener: (any PreUpdateListener)?

    private init() {}

    static func existing(on connection: Connection) -> PreUpdateDispatcher? {
      connection.existingState(HookRegistry.self)?.slots[.preUpdate] as? PreUpdateDispatcher
    }

    /// The dispatcher of `connection`, registered with SQLite on first use; `nil` while a session holds
    /// the slot.
    static func on(_ connection: Connection, _ handle: OpaquePointer) -> PreUpdateDispatcher? {
      let registry = connection.state(HookRegistry.self)
      switch registry.slots[.preUpdate] {
      case let dispatcher as PreUpdateDispatcher: return dispatcher
      case nil: break
      default: return nil
      }
      let dispatcher = PreUpdateDispatcher()
      sqlite3_preupdate_hook(
        handle,
        { userData, connection, code, databaseName, tableName, oldRowid, newRowid in
          guard let userData, let connection, let databaseName, let tableName else { return }
          Unretained<PreUpdateDispatcher>(opaque: userData).object.dispatch(
            connection, code, databaseName, tableName, oldRowid, newRowid)
        }, Unretained(dispatcher).opaque)
      registry.slots[.preUpdate] = dispatcher
      return dispatcher
    }

    /// Unregisters the hook and releases the dispatcher once neither the user nor a listener needs it.
    func uninstallIfUnused(_ connection: Connection, _ handle: OpaquePointer) {
      guard userHook == nil, listener == nil else { return }
      sqlite3_preupdate_hook(handle, nil, nil)
      connection.existingState(HookRegistry.self)?.slots[.preUpdate] = nil
    }

    /// Leaves the slot empty for a session about to be created, telling the listener. Only while the
    /// user's hook is not set: a session then refuses to start.
    func yieldToSession(_ connection: Connection, _ handle: OpaquePointer) {
      sqlite3_preupdate_hook(handle, nil, nil)
      connection.existingState(HookRegistry.self)?.slots[.preUpdate] = nil
      let listener = listener
      self.listener = nil
      listener?.preUpdateHookWasTaken()
    }

    private func dispatch(
      _ handle: OpaquePointer, _ code: Int32, _ databaseName: UnsafePointer<CChar>,
      _ tableName: UnsafePointer<CChar>, _ oldRowid: Int64, _ newRowid: Int64
    ) {
      listener?.rowWillChange(
        handle, code, databaseName: databaseName, tableName: tableName, oldRowid: oldRowid, newRowid: newRowid)
      guard let box = userHook, let operation = DatabaseEvent.Operation(code: code) else { return }
      box.scope.run { token in
        let blobWriteColumn = sqlite3_preupdate_blobwrite(handle)
        let event = PreUpdateEvent(
          operation: operation, databaseName: String(cString: databaseName), tableName: String(cString: tableName),
          oldRowid: operation == .insert ? nil : oldRowid,
          newRowid: operation == .delete ? nil : newRowid,
          columnCount: Int(sqlite3_preupdate_count(handle)),
          depth: Int(sqlite3_preupdate_depth(handle)),
          blobWriteColumn: blobWriteColumn >= 0 ? Int(blobWriteColumn) : nil,
          handle: handle, token: token)
        box.call { $0(event) }
      }
    }
  }
#endif
