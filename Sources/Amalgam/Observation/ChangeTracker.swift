import AmalgamSQLite

/// What a connection's transactions change, table by table, for its ``TransactionObserver``s and for
/// the observations of the queue or pool that owns the connection.
///
/// It sees every write of the connection, whatever made it, through three connection-level callbacks
/// that it shares with the user's own: the update hook (each row of a rowid table), the authorizer
/// (what each statement writes, as SQLite prepares it) and the commit and rollback hooks.
/// - Rowid tables are reported row by row. The authorizer answers `SQLITE_IGNORE` for `DELETE`, which
///   makes SQLite delete rows one by one rather than by the truncate optimisation (which reports none),
///   except for the `DELETE` that SQLite authorizes as part of a `DROP TABLE`, `DROP VIEW` or dropping
///   a virtual table, which `SQLITE_IGNORE` would silently skip.
/// - A table that a statement writes but that the update hook has never reported (a `WITHOUT ROWID`
///   table, or one not yet written) is a suspect: it is reported with every commit that changed rows.
/// - A statement that changes the schema makes its transaction's changes ``DatabaseRegion/fullDatabase``.
///
/// Used only on the thread using the connection.
final class ChangeTracker: ConnectionState, TransactionListener, RowChangeListener, AuthorizerListener {
  /// The changes of one savepoint level of the open transaction (level 0: outside savepoints).
  private struct Level {
    var tables: Set<DatabaseRegion.Table> = []
    /// Row events held until the savepoint is released.
    var events: [DatabaseEvent] = []
  }

  private struct WeakObserver {
    weak var observer: (any TransactionObserver)?
  }

  private var isInstalled = false
  private var observers: [WeakObserver] = []
  /// Told, on the connection's thread once each commit is done, what it changed: the owner's
  /// observations (see ``ObservationCenter``).
  var commitSink: ((DatabaseRegion) -> Void)?

  private var levels = [Level()]
  private var schemaChanged = false
  private var rowsChanged = false
  /// What the transactions that committed changed, until ``transactionDidCommit(on:)`` reports it.
  private var committed = DatabaseRegion()
  private var committedRowsChanged = false
  /// `sqlite3_total_changes64` when the last commit was reported: a commit that moved it wrote rows.
  private var totalChanges: Int64 = 0
  /// Tables that statements write and that the update hook never reported.
  private var suspects: Set<DatabaseRegion.Table> = []
  /// Tables the update hook reported: rowid tables, whose rows it always reports.
  private var rowidTables: Set<DatabaseRegion.Table> = []
  /// The table of the last row the update hook reported, to skip building its key again.
  private var lastDatabaseName: UnsafePointer<CChar>?
  private var lastTableName: UnsafePointer<CChar>?
  private var lastTableCopy = ContiguousArray<CChar>()
  private var lastTable: DatabaseRegion.Table?
  private var lastTableRecorded = false
  /// The table of the `DROP TABLE` SQLite is authorizing: its `DELETE` must not be ignored.
  private var droppingTable: String?

  init() {}

  /// The tracker of `connection`, installed on its callbacks.
  static func installed(on connection: Connection, _ handle: OpaquePointer) -> ChangeTracker {
    let tracker = connection.state(ChangeTracker.self)
    tracker.install(connection, handle)
    return tracker
  }

  private func install(_ connection: Connection, _ handle: OpaquePointer) {
    guard !isInstalled else { return }
    isInstalled = true
    totalChanges = sqlite3_total_changes64(handle)
    connection.addTransactionListener(self)
    UpdateHookDispatcher.on(connection, handle).listener = self
    let authorizer = AuthorizerDispatcher.on(connection, handle)
    authorizer.addListener(self)
    // Makes SQLite prepare the existing statements again before they next run, under this listener.
    authorizer.register(handle)
  }

  /// Leaves the connection's callbacks once nothing uses the tracker.
  func uninstallIfUnused(_ connection: Connection, _ handle: OpaquePointer) {
    observers.removeAll { $0.observer == nil }
    guard isInstalled, observers.isEmpty, commitSink == nil else { return }
    isInstalled = false
    connection.removeTransactionListener(self)
    if let dispatcher = UpdateHookDispatcher.existing(on: connection) {
      dispatcher.listener = nil
      dispatcher.uninstallIfUnused(connection, handle)
    }
    if let dispatcher = AuthorizerDispatcher.existing(on: connection) {
      dispatcher.removeListener(self)
      if dispatcher.listeners.isEmpty && dispatcher.userAuthorizer == nil {
        dispatcher.uninstallIfUnused(connection, handle)
      } else {
        dispatcher.register(handle)
      }
    }
    reset()
    suspects = []
    rowidTables = []
    forgetLastTable()
  }

  func addObserver(_ observer: any TransactionObserver) {
    observers.removeAll { $0.observer == nil }
    guard !observers.contains(where: { $0.observer === observer }) else { return }
    observers.append(WeakObserver(observer: observer))
  }

  func removeObserver(_ observer: any TransactionObserver) {
    observers.removeAll { $0.observer == nil || $0.observer === observer }
  }

  func connectionDidClose() {
    observers = []
    commitSink = nil
    isInstalled = false
  }

  // MARK: Rows

  func rowDidChange(
    _ code: Int32, databaseName: UnsafePointer<CChar>, tableName: UnsafePointer<CChar>, rowid: Int64
  ) {
    rowsChanged = true
    let table: DatabaseRegion.Table
    if let lastTable, databaseName == lastDatabaseName, tableName == lastTableName,
      lastTableCopy.withUnsafeBufferPointer({ sqlite3_stricmp($0.baseAddress, tableName) }) == 0
    {
      table = lastTable
      if lastTableRecorded && observers.isEmpty { return }
    } else {
      table = DatabaseRegion.Table(schema: String(cString: databaseName), name: String(cString: tableName))
      lastTableCopy.removeAll(keepingCapacity: true)
      var character = tableName
      while character.pointee != 0 {
        lastTableCopy.append(character.pointee)
        character += 1
      }
      lastTableCopy.append(0)
      lastDatabaseName = databaseName
      lastTableName = tableName
      lastTable = table
      if suspects.remove(table) != nil || !rowidTables.contains(table) { rowidTables.insert(table) }
    }
    levels[levels.count - 1].tables.insert(table)
    lastTableRecorded = true
    guard !observers.isEmpty, let operation = DatabaseEvent.Operation(code: code) else { return }
    let event = DatabaseEvent(
      operation: operation, databaseName: table.schema, tableName: String(cString: tableName), rowid: rowid)
    if levels.count > 1 {
      levels[levels.count - 1].events.append(event)
    } else {
      tell(event)
    }
  }

  private func tell(_ event: DatabaseEvent) {
    for entry in observers {
      guard let observer = entry.observer,
        observer.observedRegion.contains(table: event.tableName, schema: event.databaseName)
      else { continue }
      observer.databaseDidChange(event)
    }
  }

  private func forgetLastTable() {
    lastTable = nil
    lastDatabaseName = nil
    lastTableName = nil
    lastTableRecorded = false
  }

  // MARK: Statements

  func authorize(
    _ code: Int32, _ argument1: UnsafePointer<CChar>?, _ argument2: UnsafePointer<CChar>?,
    databaseName: UnsafePointer<CChar>?, triggerOrView: UnsafePointer<CChar>?
  ) -> Int32 {
    switch code {
    case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
      guard let argument1 else { return SQLITE_OK }
      let name = String(cString: argument1)
      if isSchemaTable(name) {
        schemaChanged = true
        return SQLITE_OK
      }
      let table = DatabaseRegion.Table(schema: databaseName.map { String(cString: $0) } ?? "main", name: name)
      if !rowidTables.contains(table) { suspects.insert(table) }
      guard code == SQLITE_DELETE else { return SQLITE_OK }
      if droppingTable == table.name {
        droppingTable = nil
        return SQLITE_OK
      }
      return SQLITE_IGNORE
    case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
      // SQLite then authorizes a DELETE of the same table or view: ignoring it would skip the DROP.
      schemaChanged = true
      droppingTable = argument1.map { String(cString: $0).lowercased() }
      // The table may come back under the same name, WITHOUT ROWID or not.
      forgetLastTable()
      rowidTables = []
      return SQLITE_OK
    case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
      SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
      SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TRIGGER,
      SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE:
      schemaChanged = true
      forgetLastTable()
      return SQLITE_OK
    default:
      return SQLITE_OK
    }
  }

  private func isSchemaTable(_ name: String) -> Bool {
    switch name.lowercased() {
    case "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema": true
    default: false
    }
  }

  // MARK: Transactions

  func transactionWillCommit(on connection: Connection) -> CommitDecision {
    var changes = DatabaseRegion()
    for level in levels { changes.formUnion(DatabaseRegion(tables: level.tables)) }
    if schemaChanged { changes = .fullDatabase }
    for level in levels.dropFirst() { level.events.forEach(tell) }
    for entry in observers {
      guard let observer = entry.observer, observer.observedRegion.intersects(changes) else { continue }
      do {
        try connection.restricting(.transactionObserver) { try observer.databaseWillCommit() }
      } catch {
        connection.pendingCallbackError = (
          SQLITE_CONSTRAINT, "a transaction observer refused the commit: \(callbackErrorMessage(error))"
        )
        return .rollback
      }
    }
    committed.formUnion(changes)
    committedRowsChanged = committedRowsChanged || rowsChanged
    reset()
    return .commit
  }

  func transactionDidRollback(on connection: Connection) {
    committed = DatabaseRegion()
    committedRowsChanged = false
    totalChanges = connection.handle.map { sqlite3_total_changes64($0) } ?? totalChanges
    reset()
    for entry in observers {
      guard let observer = entry.observer else { continue }
      connection.restricting(.transactionObserver) { observer.databaseDidRollback() }
    }
  }

  func transactionDidCommit(on connection: Connection) {
    var changes = committed
    committed = DatabaseRegion()
    // SQLite counts a statement's changes once it ends, after the commit hook: here, not there.
    let total = connection.handle.map { sqlite3_total_changes64($0) } ?? totalChanges
    if total != totalChanges || committedRowsChanged { changes.formUnion(DatabaseRegion(tables: suspects)) }
    totalChanges = total
    committedRowsChanged = false
    guard !changes.isEmpty else { return }
    for entry in observers {
      guard let observer = entry.observer, observer.observedRegion.intersects(changes) else { continue }
      observer.databaseDidCommit(changes: changes)
    }
    commitSink?(changes)
  }

  func savepointDidBegin(on connection: Connection) {
    levels.append(Level())
    lastTableRecorded = false
  }

  func savepointDidEnd(on connection: Connection, rolledBack: Bool) {
    guard levels.count > 1 else { return }
    let level = levels.removeLast()
    lastTableRecorded = false
    guard !rolledBack else { return }
    levels[levels.count - 1].tables.formUnion(level.tables)
    if levels.count > 1 {
      levels[levels.count - 1].events += level.events
    } else {
      level.events.forEach(tell)
    }
  }

  private func reset() {
    levels = [Level()]
    schemaChanged = false
    rowsChanged = false
    lastTableRecorded = false
  }
}

extension RestrictedCallback {
  static let transactionObserver = RestrictedCallback("transaction observer", may: .nothing)
}
