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
/// Used only on the thread using the connection, so its fields skip the dynamic exclusivity checks that
/// would otherwise run on every row.
final class ChangeTracker: ConnectionState, TransactionListener, RowChangeListener, AuthorizerListener {
  /// The changes of one savepoint level of the open transaction (level 0: outside savepoints).
  private struct Level {
    /// The tables changed, by their number in ``ChangeTracker/tables`` (a transaction changes few).
    var tableNumbers: [Int] = []
    /// Row events held until the savepoint is released.
    var events: [DatabaseEvent] = []
  }

  private struct WeakObserver {
    weak var observer: (any TransactionObserver)?
  }

  /// The end of a transaction, held while the observers are being told about a commit (see
  /// ``isNotifying``).
  private enum Notice {
    case commit(DatabaseRegion)
    case rollback
  }

  @exclusivity(unchecked) private var isInstalled = false
  @exclusivity(unchecked) private var observers: [WeakObserver] = []
  /// The connection, for restricting what the observers do from its callbacks. Unretained: the
  /// connection keeps its states, this tracker among them, and outlives them.
  @exclusivity(unchecked) private var connection: Unretained<Connection>?
  /// Whether the observers are being told about a commit. They may write meanwhile: the end of those
  /// writes' transactions waits in ``heldNotices`` until every observer has been told, so that each one
  /// is told about the commits in their order, and the nesting never deepens.
  @exclusivity(unchecked) private var isNotifying = false
  @exclusivity(unchecked) private var heldNotices: [Notice] = []
  /// The commit checks (``Database/setCommitCheck(_:on:_:)``), in the order they were set.
  @exclusivity(unchecked) private(set) var commitChecks: [CommitCheck] = []
  /// Whether the checks ran for the commit under way (``runCommitChecks(_:)``); the commit hook takes it.
  @exclusivity(unchecked) var commitChecksRan = false
  /// The owner's observations, told on the connection's thread once each commit is done what it
  /// changed (see ``ObservationCenter``): the changed tables (the whole database after a schema
  /// change), without building a region when no observation reads them.
  @exclusivity(unchecked) var commitSink: ObservationCenter? {
    didSet { sinkIndexVersion = commitSink?.indexVersion }
  }
  /// Where ``commitSink`` publishes its index's version (valid while it is set): a commit whose table
  /// the ``interest`` cache already knows no observation reads is judged without a call to the center.
  @exclusivity(unchecked) private var sinkIndexVersion: UnsafeMutablePointer<UInt64>?

  @exclusivity(unchecked) private var levels = [Level()]
  @exclusivity(unchecked) private var schemaChanged = false
  @exclusivity(unchecked) private var rowsChanged = false
  /// What the transactions that committed changed, until ``transactionDidCommit(on:)`` reports it: table
  /// numbers, or the whole database after a schema change.
  @exclusivity(unchecked) private var committedTables: [Int] = []
  @exclusivity(unchecked) private var committedSchemaChange = false
  /// Every table seen, numbered in order, so that a row costs no hashing of its table's name.
  @exclusivity(unchecked) private var tables: [DatabaseRegion.Table] = []
  @exclusivity(unchecked) private var tableNumbers: [DatabaseRegion.Table: Int] = [:]
  /// Which tables the owner's observations read, as far as the center last said.
  @exclusivity(unchecked) private var interest = ObservationCenter.InterestCache()
  @exclusivity(unchecked) private var committedRowsChanged = false
  /// `sqlite3_total_changes64` when the last commit was reported: a commit that moved it wrote rows.
  @exclusivity(unchecked) private var totalChanges: Int64 = 0
  /// Tables that statements write and that the update hook never reported.
  @exclusivity(unchecked) private var suspects: Set<DatabaseRegion.Table> = []
  /// Tables the update hook reported: rowid tables, whose rows it always reports.
  @exclusivity(unchecked) private var rowidTables: Set<DatabaseRegion.Table> = []
  /// The table of the last row the update hook reported, to skip building its key again.
  @exclusivity(unchecked) private var lastDatabaseName: UnsafePointer<CChar>?
  @exclusivity(unchecked) private var lastTableName: UnsafePointer<CChar>?
  @exclusivity(unchecked) private var lastTableCopy = ContiguousArray<CChar>()
  @exclusivity(unchecked) private var lastTable: Int?
  @exclusivity(unchecked) private var lastTableRecorded = false
  /// The table of the `DROP TABLE` SQLite authorized last: the `DELETE` authorized right after it
  /// must not be ignored.
  @exclusivity(unchecked) private var droppingTable: String?

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
    self.connection = Unretained(connection)
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
    guard isInstalled, observers.isEmpty, commitSink == nil, commitChecks.isEmpty else { return }
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
    heldNotices = []
    commitChecks = []
    commitSink = nil
    isInstalled = false
  }

  // MARK: Rows

  func rowDidChange(
    _ code: Int32, databaseName: UnsafePointer<CChar>, tableName: UnsafePointer<CChar>, rowid: Int64
  ) {
    rowsChanged = true
    let number: Int
    if let lastTable, databaseName == lastDatabaseName, tableName == lastTableName,
      isCopy(lastTableCopy, of: tableName)
    {
      number = lastTable
      if lastTableRecorded && observers.isEmpty { return }
    } else {
      let table = DatabaseRegion.Table(schema: String(cString: databaseName), name: String(cString: tableName))
      number = self.number(of: table)
      lastTableCopy.removeAll(keepingCapacity: true)
      var character = tableName
      while character.pointee != 0 {
        lastTableCopy.append(character.pointee)
        character += 1
      }
      lastTableCopy.append(0)
      lastDatabaseName = databaseName
      lastTableName = tableName
      lastTable = number
      if suspects.remove(table) != nil || !rowidTables.contains(table) { rowidTables.insert(table) }
    }
    let level = levels.count - 1
    if !levels[level].tableNumbers.contains(number) { levels[level].tableNumbers.append(number) }
    lastTableRecorded = true
    guard !observers.isEmpty, let operation = DatabaseEvent.Operation(code: code) else { return }
    let event = DatabaseEvent(
      operation: operation, databaseName: tables[number].schema, tableName: String(cString: tableName),
      rowid: rowid)
    if levels.count > 1 {
      levels[level].events.append(event)
    } else {
      tell(event)
    }
  }

  private func number(of table: DatabaseRegion.Table) -> Int {
    if let number = tableNumbers[table] { return number }
    tables.append(table)
    tableNumbers[table] = tables.count - 1
    return tables.count - 1
  }

  /// The region of the tables numbered `numbers`, or of the whole database.
  private func region(_ numbers: [Int], schemaChanged: Bool) -> DatabaseRegion {
    schemaChanged ? .fullDatabase : DatabaseRegion(tables: Set(numbers.map { tables[$0] }))
  }

  /// Tells the observers about a row event. They must not use the connection: SQLite is in the middle
  /// of a statement.
  private func tell(_ event: DatabaseEvent) {
    for entry in observers {
      guard let observer = entry.observer,
        observer.observedRegion.contains(table: event.tableName, schema: event.databaseName)
      else { continue }
      if let connection {
        connection.withObject { $0.restricting(.transactionObserver) { observer.databaseDidChange(event) } }
      } else {
        observer.databaseDidChange(event)
      }
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
    // SQLite authorizes a dropped table's DELETE right after the DROP itself; when the user's authorizer
    // refuses the DROP, no DELETE follows, and the next DELETE of the table must still be ignored.
    let dropping = droppingTable
    droppingTable = nil
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
      if dropping == table.name { return SQLITE_OK }
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
    if !commitChecks.isEmpty {
      if commitChecksRan {
        commitChecksRan = false
      } else if let handle = connection.handle,
        let check = commitChecks.first(where: { $0.region.intersects(pendingChanges(handle)) })
      {
        connection.pendingCallbackError = (
          SQLITE_CONSTRAINT,
          "the commit check \"\(check.name)\" cannot run before a commit that SQLite makes on its own (a statement "
            + "outside a transaction, COMMIT run as SQL): write in transaction { }, or end with commit()"
        )
        return .rollback
      }
    }
    if levels.count > 1 {
      for level in levels.dropFirst() { level.events.forEach(tell) }
    }
    if !observers.isEmpty {
      var numbers: [Int] = []
      for level in levels { numbers += level.tableNumbers }
      let changes = region(numbers, schemaChanged: schemaChanged)
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
    }
    if levels.count == 1, committedTables.isEmpty {
      // One transaction since the last report (the common case): its tables, as they are.
      swap(&committedTables, &levels[0].tableNumbers)
    } else {
      for index in levels.indices {
        for number in levels[index].tableNumbers where !committedTables.contains(number) {
          committedTables.append(number)
        }
      }
    }
    committedSchemaChange = committedSchemaChange || schemaChanged
    committedRowsChanged = committedRowsChanged || rowsChanged
    reset()
    return .commit
  }

  func transactionDidRollback(on connection: Connection) {
    commitChecksRan = false
    empty(&committedTables)
    committedSchemaChange = false
    committedRowsChanged = false
    totalChanges = connection.handle.map { sqlite3_total_changes64($0) } ?? totalChanges
    reset()
    guard !observers.isEmpty else { return }
    if isNotifying {
      heldNotices.append(.rollback)
    } else {
      tellRollback(connection)
    }
  }

  private func tellRollback(_ connection: Connection) {
    for entry in observers {
      guard let observer = entry.observer else { continue }
      connection.restricting(.transactionObserver) { observer.databaseDidRollback() }
    }
  }

  func transactionDidCommit(on connection: Connection) {
    // SQLite counts a statement's changes once it ends, after the commit hook: here, not there.
    let total = connection.handle.map { sqlite3_total_changes64($0) } ?? totalChanges
    let wroteRows = total != totalChanges || committedRowsChanged
    totalChanges = total
    committedRowsChanged = false
    let withSuspects = wroteRows && !suspects.isEmpty
    if observers.isEmpty, !isNotifying, !withSuspects, !committedSchemaChange, commitSink != nil {
      // The common case: the center looks each changed table up, and builds a region only if an
      // observation reads one of them. Nothing here can commit again.
      defer { empty(&committedTables) }
      guard !committedTables.isEmpty else { return }
      if let sinkIndexVersion, interest.version == amalgam_load_relaxed(sinkIndexVersion),
        interest.answer(committedTables) == false
      {
        return
      }
      if let commitSink, commitSink.concerns(committedTables, of: tables, cache: &interest) {
        commitSink.report(region(committedTables, schemaChanged: false))
      }
      return
    }
    // Forgotten before anyone is told: an observer may commit again from here.
    var changes = region(committedTables, schemaChanged: committedSchemaChange)
    empty(&committedTables)
    committedSchemaChange = false
    if withSuspects { changes.formUnion(DatabaseRegion(tables: suspects)) }
    guard !changes.isEmpty else { return }
    if isNotifying {
      heldNotices.append(.commit(changes))
      return
    }
    isNotifying = true
    defer { isNotifying = false }
    tellCommit(changes)
    // What the observers' own writes reported meanwhile, in order (which may hold more).
    while !heldNotices.isEmpty {
      switch heldNotices.removeFirst() {
      case .commit(let changes): tellCommit(changes)
      case .rollback: tellRollback(connection)
      }
    }
  }

  /// Tells the observers, then the owner's observations, that a commit changed `changes`. The
  /// observers may use the connection: the commit is done.
  private func tellCommit(_ changes: DatabaseRegion) {
    for entry in observers {
      guard let observer = entry.observer, observer.observedRegion.intersects(changes) else { continue }
      observer.databaseDidCommit(changes: changes)
    }
    commitSink?.report(changes)
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
    for number in level.tableNumbers where !levels[levels.count - 1].tableNumbers.contains(number) {
      levels[levels.count - 1].tableNumbers.append(number)
    }
    if levels.count > 1 {
      levels[levels.count - 1].events += level.events
    } else {
      level.events.forEach(tell)
    }
  }

  // MARK: Commit checks

  func setCommitCheck(_ check: CommitCheck) {
    if let index = commitChecks.firstIndex(where: { $0.name == check.name }) {
      commitChecks[index] = check
    } else {
      commitChecks.append(check)
    }
  }

  func removeCommitCheck(named name: String) {
    commitChecks.removeAll { $0.name == name }
  }

  /// What the open transaction changed so far (more than that when unsure).
  private func pendingChanges(_ handle: OpaquePointer) -> DatabaseRegion {
    var numbers: [Int] = []
    for level in levels { numbers += level.tableNumbers }
    var changes = region(numbers, schemaChanged: schemaChanged)
    if !suspects.isEmpty, rowsChanged || sqlite3_total_changes64(handle) != totalChanges {
      changes.formUnion(DatabaseRegion(tables: suspects))
    }
    return changes
  }

  /// Runs the checks whose region the open transaction changed, on `db`, before Amalgam commits it;
  /// the commit that follows is then let through.
  func runCommitChecks(_ db: Database) throws {
    commitChecksRan = false
    guard let handle = db.connection.handle, sqlite3_get_autocommit(handle) == 0 else { return }
    let changes = pendingChanges(handle)
    for check in commitChecks where check.region.intersects(changes) {
      try check.body(db)
    }
    commitChecksRan = true
  }

  private func reset() {
    if levels.count == 1 {
      empty(&levels[0].tableNumbers)
      if !levels[0].events.isEmpty { levels[0].events.removeAll(keepingCapacity: true) }
    } else {
      levels = [Level()]
    }
    schemaChanged = false
    rowsChanged = false
    lastTableRecorded = false
  }
}

/// Whether `copy` (NUL-terminated) holds the bytes of `text`: the table name SQLite passed before, the
/// same for the same table (SQLite passes its own copy of the name), in a few instructions per byte.
private func isCopy(_ copy: ContiguousArray<CChar>, of text: UnsafePointer<CChar>) -> Bool {
  copy.withUnsafeBufferPointer { copy in
    for index in copy.indices {
      guard copy[index] == text[index] else { return false }
      if copy[index] == 0 { return true }
    }
    return false
  }
}

/// Empties `numbers`, keeping its storage: for the one or two elements of a commit, cheaper than
/// `removeAll(keepingCapacity:)`, which goes through the generic range replacement.
private func empty(_ numbers: inout [Int]) {
  while !numbers.isEmpty { numbers.removeLast() }
}

extension RestrictedCallback {
  static let transactionObserver = RestrictedCallback("transaction observer", may: .nothing)
}
