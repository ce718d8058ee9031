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
/// - For the rowid tables that the owner's observations read restricted to columns or rows (see
///   ``updateDetailPlans(_:reads:version:)``), the pre-update hook, shared through
///   ``PreUpdateDispatcher``, tells which of those columns an `UPDATE` changed (old and new values
///   compared) and which rowids changed. It is installed only for what the update hook cannot tell:
///   an `UPDATE` of a planned table, and an `INSERT` into a planned table whose rowids are tracked and
///   that has a UNIQUE index (REPLACE conflict resolution may delete another row, which the update hook
///   does not report). Each such row the update hook reports must have been seen by the pre-update
///   hook just before; a row that was not (a session holds the slot, or someone replaced the callback
///   through the C handle) makes its table's change whole for the commit: a missing callback reports
///   more, never less.
///
/// Used only on the thread using the connection, so its fields skip the dynamic exclusivity checks that
/// would otherwise run on every row.
final class ChangeTracker: TransactionListener, ConnectionState, RowChangeListener, AuthorizerListener {
  /// What the tracker learns of an `UPDATE` of one table beyond "changed".
  struct DetailPlan {
    /// The table's number of columns when planned: `sqlite3_preupdate_count` must agree.
    var columnCount: Int32
    /// The columns some observation reads, by their index in the table, and their lowercased names.
    var columnIndexes: [Int32]
    var columnNames: [String]
    /// Whether some observation reads the table restricted to rowids.
    var tracksRowids: Bool
    /// Whether the table has a UNIQUE index (or a PRIMARY KEY other than its rowid): REPLACE conflict
    /// resolution of an insert can then delete a row of another rowid, which only the pre-update hook
    /// reports. Without one, the update hook tells every rowid that an insert or a delete changes.
    var hasUniqueIndex: Bool
  }

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
    /// The changes for the observers, and the detailed ones for the observations.
    case commit(DatabaseRegion, DatabaseRegion)
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
  /// Whether the last table the update hook reported needs no more detail in this transaction: it has
  /// no plan, or its change is already whole.
  @exclusivity(unchecked) private var lastTableSettled = false

  // Detail (column and rowid) tracking; see ``DetailPlan``.
  /// The plans, by table number; `nil` for a table changed as a whole.
  @exclusivity(unchecked) private var plans: [DetailPlan?] = []
  @exclusivity(unchecked) private var hasPlans = false
  @exclusivity(unchecked) private var plansTrackRowids = false
  /// The observation center's index version and the schema epoch the plans were made for: the details
  /// are used only while the index keeps that version.
  @exclusivity(unchecked) private var plansVersion = UInt64.max
  @exclusivity(unchecked) private var plansEpoch = -1
  /// What changed of each planned table since the last report, by table number (`nil`: nothing seen
  /// yet, which counts as whole once the table changed).
  @exclusivity(unchecked) private var details: [DatabaseRegion.TableRegion?] = []
  @exclusivity(unchecked) private var detailNumbers: [Int] = []
  /// The last row the pre-update hook reported (operation 0: none, or already paired with the update
  /// hook's report of it).
  @exclusivity(unchecked) private var preCode: Int32 = 0
  @exclusivity(unchecked) private var preTable = 0
  @exclusivity(unchecked) private var preRowid: Int64 = 0
  /// The table of the last row the pre-update hook reported, to skip finding its number again.
  @exclusivity(unchecked) private var preDatabaseName: UnsafePointer<CChar>?
  @exclusivity(unchecked) private var preTableName: UnsafePointer<CChar>?
  @exclusivity(unchecked) private var preTableCopy = ContiguousArray<CChar>()
  @exclusivity(unchecked) private var preTableNumber = 0
  /// Whether this tracker's pre-update callback is installed.
  @exclusivity(unchecked) private var isListeningBeforeUpdates = false
  /// Whether the pre-update callback was uninstalled for the rest of the open transaction, every table
  /// that needs it having changed as a whole (see ``pauseListeningIfNothingToLearn()``): the end of the
  /// transaction installs it again.
  @exclusivity(unchecked) private var isListeningPaused = false
  /// The tables that statements prepared since the tracker was installed update (as SQLite authorized
  /// them, triggers included): the pre-update callback, which SQLite would call for every row written,
  /// is installed only once a planned table is among them, or a planned table whose rowids are tracked
  /// and that has a UNIQUE index is among ``insertedTables``. An `UPDATE` that the authorizer did not
  /// report (a foreign-key action) is then unpaired, and changes its table as a whole.
  @exclusivity(unchecked) private var updatedTables: Set<DatabaseRegion.Table> = []
  /// The tables that statements prepared since the tracker was installed insert into (see
  /// ``updatedTables``): an insert may delete other rows by REPLACE conflict resolution.
  @exclusivity(unchecked) private var insertedTables: Set<DatabaseRegion.Table> = []

  override init() {}

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
    connection.addTransactionListener(ChangeTracker.self)
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
    dropPlans()
    stopListeningBeforeUpdates(connection, handle)
    resetDetails()
    updatedTables = []
    insertedTables = []
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
    isListeningBeforeUpdates = false
    dropPlans()
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
      if lastTableRecorded && lastTableSettled && observers.isEmpty { return }
    } else {
      let table = DatabaseRegion.Table(schema: String(cString: databaseName), name: String(cString: tableName))
      number = self.number(of: table)
      copyCString(tableName, into: &lastTableCopy)
      lastDatabaseName = databaseName
      lastTableName = tableName
      lastTable = number
      lastTableSettled = false
      if suspects.remove(table) != nil || !rowidTables.contains(table) { rowidTables.insert(table) }
    }
    let level = levels.count - 1
    if !levels[level].tableNumbers.contains(number) { levels[level].tableNumbers.append(number) }
    lastTableRecorded = true
    if !lastTableSettled { lastTableSettled = noteDetail(code, number, rowid) }
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

  /// A value of `table` in `schema` was changed through `sqlite3_blob_write`, which neither the update
  /// hook nor the authorizer reports: the table changed as a whole, in the open transaction (which
  /// commits at the latest when the blob is closed).
  func blobDidWrite(schema: String, table: String) {
    guard isInstalled else { return }
    rowsChanged = true
    let number = self.number(of: DatabaseRegion.Table(schema: schema, name: table))
    let level = levels.count - 1
    if !levels[level].tableNumbers.contains(number) { levels[level].tableNumbers.append(number) }
    if number < details.count {
      if details[number] == nil { detailNumbers.append(number) }
      details[number] = .whole
    }
  }

  private func number(ifKnown table: DatabaseRegion.Table) -> Int? {
    tableNumbers[table]
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
    lastTableSettled = false
    preDatabaseName = nil
    preTableName = nil
    preCode = 0
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
      if code == SQLITE_UPDATE, updatedTables.insert(table).inserted { listenBeforeUpdatesIfNeeded() }
      if code == SQLITE_INSERT, insertedTables.insert(table).inserted { listenBeforeUpdatesIfNeeded() }
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
      dropPlans()
      return SQLITE_OK
    case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
      SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
      SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TRIGGER,
      SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE:
      schemaChanged = true
      forgetLastTable()
      dropPlans()
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

  override func transactionWillCommit(on connection: Connection) -> CommitDecision {
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

  override func transactionDidRollback(on connection: Connection) {
    resumeListeningIfPaused()
    commitChecksRan = false
    empty(&committedTables)
    committedSchemaChange = false
    committedRowsChanged = false
    totalChanges = connection.handle.map { sqlite3_total_changes64($0) } ?? totalChanges
    reset()
    resetDetails()
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

  override func transactionDidCommit(on connection: Connection) {
    resumeListeningIfPaused()
    // SQLite counts a statement's changes once it ends, after the commit hook: here, not there.
    let total = connection.handle.map { sqlite3_total_changes64($0) } ?? totalChanges
    let wroteRows = total != totalChanges || committedRowsChanged
    totalChanges = total
    committedRowsChanged = false
    let withSuspects = wroteRows && !suspects.isEmpty
    commitSink?.writerDidCommit()
    if observers.isEmpty, !isNotifying, !withSuspects, !committedSchemaChange, commitSink != nil {
      // The common case: the center looks each changed table up, and builds a region only if an
      // observation reads one of them. Nothing here can commit again.
      defer {
        empty(&committedTables)
        resetDetails()
      }
      guard !committedTables.isEmpty else { return }
      if let sinkIndexVersion, interest.version == amalgam_load_relaxed(sinkIndexVersion),
        interest.answer(committedTables) == false
      {
        return
      }
      if let commitSink, commitSink.concerns(committedTables, of: tables, cache: &interest) {
        commitSink.report(detailedRegion(committedTables))
      }
      return
    }
    // Forgotten before anyone is told: an observer may commit again from here.
    var changes = region(committedTables, schemaChanged: committedSchemaChange)
    // The observers' regions are theirs, which the plans do not know: they are told of whole tables.
    var detailed = committedSchemaChange ? changes : detailedRegion(committedTables)
    empty(&committedTables)
    resetDetails()
    committedSchemaChange = false
    if withSuspects {
      changes.formUnion(DatabaseRegion(tables: suspects))
      detailed.formUnion(DatabaseRegion(tables: suspects))
    }
    guard !changes.isEmpty else { return }
    if isNotifying {
      heldNotices.append(.commit(changes, detailed))
      return
    }
    isNotifying = true
    defer { isNotifying = false }
    tellCommit(changes, detailed)
    // What the observers' own writes reported meanwhile, in order (which may hold more).
    while !heldNotices.isEmpty {
      switch heldNotices.removeFirst() {
      case .commit(let changes, let detailed): tellCommit(changes, detailed)
      case .rollback: tellRollback(connection)
      }
    }
  }

  /// Tells the observers that a commit changed `changes`, then the owner's observations that it changed
  /// `detailed` (the same tables, restricted to the columns and rows that changed where the plans
  /// say). The observers may use the connection: the commit is done.
  private func tellCommit(_ changes: DatabaseRegion, _ detailed: DatabaseRegion) {
    for entry in observers {
      guard let observer = entry.observer, observer.observedRegion.intersects(changes) else { continue }
      observer.databaseDidCommit(changes: changes)
    }
    commitSink?.report(detailed)
  }

  override func savepointDidBegin(on connection: Connection) {
    levels.append(Level())
    lastTableRecorded = false
    lastTableSettled = false
  }

  override func savepointDidEnd(on connection: Connection, rolledBack: Bool) {
    guard levels.count > 1 else { return }
    let level = levels.removeLast()
    lastTableRecorded = false
    lastTableSettled = false
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
    lastTableSettled = false
  }
}

// MARK: - Columns and rowids

extension ChangeTracker {
  /// Notes what the update hook reported of a row of the table numbered `number`, against what the
  /// pre-update hook reported just before; returns whether the table needs no more detail in this
  /// transaction.
  ///
  /// A delete that the pre-update hook did not report is noted from the update hook alone, and so is
  /// an insert into a table without a UNIQUE index (whose inserts delete no other row by REPLACE, so
  /// that the update hook tells every rowid changed): the pre-update callback, which makes SQLite
  /// build a context for every row written, is then not needed for them. An unpaired insert into a
  /// table with a UNIQUE index may have deleted rows unseen, and an unpaired update may have moved a
  /// row or changed any column: its table's change is whole.
  fileprivate func noteDetail(_ code: Int32, _ number: Int, _ rowid: Int64) -> Bool {
    // One copy of the plan (reading two of its fields through the optional would copy it twice).
    guard hasPlans, number < plans.count, let plan = plans[number] else { return true }
    let tracksRowids = plan.tracksRowids
    let paired = preCode == code && preTable == number && preRowid == rowid
    preCode = 0
    var detail: DatabaseRegion.TableRegion
    if let held = details[number] {
      detail = held
      // Taken out, so that its sets are changed in place, not copied at each row.
      details[number] = nil
    } else {
      detail = DatabaseRegion.TableRegion(columns: [], rowids: tracksRowids ? [] : nil)
      detailNumbers.append(number)
    }
    if paired {
      // An inserted or deleted row: the set of rows changed (its rowid was noted before).
      if code != SQLITE_UPDATE { detail.columns = nil }
    } else if code == SQLITE_DELETE || (code == SQLITE_INSERT && !plan.hasUniqueIndex) {
      detail.columns = nil
      if tracksRowids, detail.rowids != nil {
        detail.rowids?.insert(rowid)
        if (detail.rowids?.count ?? 0) > Self.mostRowidsTracked { detail.rowids = nil }
      }
    } else {
      // Not seen by the pre-update hook: what changed is unknown.
      detail = .whole
    }
    let settled = detail.columns == nil && (detail.rowids == nil || !tracksRowids)
    details[number] = detail
    if settled && isListeningBeforeUpdates { pauseListeningIfNothingToLearn() }
    return settled
  }

  /// Uninstalls the pre-update callback until the open transaction ends when every planned table that
  /// needs it (see ``listenBeforeUpdatesIfNeeded()``) changed as a whole since the last report: SQLite
  /// would otherwise build the callback's context for every row the transaction still writes, for
  /// nothing. Called from the update hook, after the pre-update callback returned. A statement
  /// prepared meanwhile that needs the callback installs it again; a row the callback misses meanwhile
  /// is unpaired, which changes its table as a whole.
  private func pauseListeningIfNothingToLearn() {
    for number in plans.indices {
      guard let plan = plans[number] else { continue }
      let table = tables[number]
      guard
        updatedTables.contains(table) || (plan.tracksRowids && plan.hasUniqueIndex && insertedTables.contains(table))
      else { continue }
      guard number < details.count, let detail = details[number], detail.columns == nil,
        detail.rowids == nil || !plan.tracksRowids
      else { return }
    }
    guard let connection = connection?.object, let handle = connection.handle else { return }
    stopListeningBeforeUpdates(connection, handle)
    isListeningPaused = true
  }

  /// Installs the pre-update callback again once the transaction that paused it ended.
  fileprivate func resumeListeningIfPaused() {
    guard isListeningPaused else { return }
    isListeningPaused = false
    listenBeforeUpdatesIfNeeded()
  }

  /// Past this many rowids, a table's change counts every row.
  static var mostRowidsTracked: Int { 4096 }

  /// The region of the tables numbered `numbers`, each restricted to what changed of it where a plan
  /// says, or whole.
  fileprivate func detailedRegion(_ numbers: [Int]) -> DatabaseRegion {
    let region = DatabaseRegion(tables: Set(numbers.map { tables[$0] }))
    guard !detailNumbers.isEmpty, let sinkIndexVersion, plansVersion == amalgam_load_relaxed(sinkIndexVersion)
    else { return region }
    var restrictions: [DatabaseRegion.Table: DatabaseRegion.TableRegion] = [:]
    for number in numbers where number < details.count {
      if let detail = details[number], !detail.isWhole { restrictions[tables[number]] = detail }
    }
    guard !restrictions.isEmpty else { return region }
    return DatabaseRegion(tables: region.tables, restrictions: restrictions)
  }

  fileprivate func resetDetails() {
    guard !detailNumbers.isEmpty else { return }
    for number in detailNumbers where number < details.count { details[number] = nil }
    detailNumbers.removeAll(keepingCapacity: true)
  }

  /// Forgets the plans (the schema may have changed): every table is changed as a whole until
  /// ``updateDetailPlans(_:reads:version:)`` makes them again.
  fileprivate func dropPlans() {
    guard hasPlans || !plans.isEmpty else { return }
    plans = []
    hasPlans = false
    plansTrackRowids = false
    plansVersion = .max
    for number in detailNumbers where number < details.count { details[number] = .whole }
  }

  /// Makes the plans again when the observations' index changed `version` (read before `reads` is
  /// called: plans made from reads newer than it are only judged stale) or a schema may have
  /// changed: for each table in `reads` (what the observations read of the tables they read
  /// restricted to columns or rows), the columns to compare, unless the table is changed as a whole (a
  /// `WITHOUT ROWID` or virtual table, a table with generated columns, or a build without the
  /// pre-update hook). Called on the connection, between its closures.
  /// Whether ``updateDetailPlans(_:reads:version:)`` may change anything for the index's `version`:
  /// when no observation read a table restricted to columns or rows at this version, a schema change
  /// cannot make plans out of nothing (the common case costs no lock).
  @inline(__always)
  func plansMayChange(version: UInt64) -> Bool {
    #if ENABLE_PREUPDATE_HOOK
      version != plansVersion || hasPlans
    #else
      false
    #endif
  }

  func updateDetailPlans(
    _ handle: OpaquePointer, reads: () -> [DatabaseRegion.Table: DatabaseRegion.TableRegion], version: UInt64
  ) {
    #if ENABLE_PREUPDATE_HOOK
      if !plansMayChange(version: version) { return }
      guard let connection = connection?.object else { return }
      let epoch = RegionRecorder.currentSchemaEpoch
      if version == plansVersion && epoch == plansEpoch {
        // A session may have left the slot since it took it.
        listenBeforeUpdatesIfNeeded()
        return
      }
      // Reading the schema inside an open transaction would take the file's shared lock until it ends
      // (another process could not commit meanwhile): the plans wait for the transaction's end, and
      // until then the details of old plans go unused (their version differs).
      guard sqlite3_get_autocommit(handle) != 0 else { return }
      // Details gathered under the old plans may lack columns the new ones compare.
      for number in detailNumbers where number < details.count { details[number] = .whole }
      plans = []
      hasPlans = false
      plansTrackRowids = false
      plansVersion = version
      plansEpoch = epoch
      for (table, read) in reads() where !read.isWhole {
        guard let plan = makePlan(table, read, connection, handle) else { continue }
        let number = self.number(of: table)
        if plans.count <= number { plans += Array(repeating: nil, count: number + 1 - plans.count) }
        plans[number] = plan
        hasPlans = true
        plansTrackRowids = plansTrackRowids || plan.tracksRowids
      }
      if plans.count > details.count { details += Array(repeating: nil, count: plans.count - details.count) }
      if hasPlans {
        listenBeforeUpdatesIfNeeded()
      } else {
        stopListeningBeforeUpdates(connection, handle)
      }
    #endif
  }

  /// Installs the pre-update callback when a plan needs it: a statement updates a planned table, or
  /// inserts into a planned table whose rowids are tracked and whose UNIQUE index lets REPLACE delete
  /// other rows. Called between closures, and from the authorizer while SQLite prepares an `UPDATE` or
  /// an `INSERT` (before the statement can run).
  fileprivate func listenBeforeUpdatesIfNeeded() {
    #if ENABLE_PREUPDATE_HOOK
      // Called after every closure: the common answers cost no reference counting.
      guard hasPlans, !isListeningBeforeUpdates,
        (!updatedTables.isEmpty && updatedTables.contains(where: { plan(of: $0) != nil }))
          || (plansTrackRowids && !insertedTables.isEmpty
            && insertedTables.contains(where: {
              guard let plan = plan(of: $0) else { return false }
              return plan.tracksRowids && plan.hasUniqueIndex
            })),
        let connection = connection?.object, let handle = connection.handle
      else { return }
      guard let dispatcher = PreUpdateDispatcher.on(connection, handle) else { return }
      dispatcher.listener = self
      isListeningBeforeUpdates = true
      isListeningPaused = false
    #endif
  }

  /// The plan of `table`, if it has one.
  private func plan(of table: DatabaseRegion.Table) -> DetailPlan? {
    guard let number = number(ifKnown: table), number < plans.count else { return nil }
    return plans[number]
  }

  fileprivate func stopListeningBeforeUpdates(_ connection: Connection, _ handle: OpaquePointer) {
    #if ENABLE_PREUPDATE_HOOK
      guard isListeningBeforeUpdates else { return }
      isListeningBeforeUpdates = false
      preCode = 0
      guard let dispatcher = PreUpdateDispatcher.existing(on: connection) else { return }
      dispatcher.listener = nil
      dispatcher.uninstallIfUnused(connection, handle)
    #endif
  }
}

#if ENABLE_PREUPDATE_HOOK
  extension ChangeTracker: PreUpdateListener {
    func rowWillChange(
      _ handle: OpaquePointer, _ code: Int32, databaseName: UnsafePointer<CChar>, tableName: UnsafePointer<CChar>,
      oldRowid: Int64, newRowid: Int64
    ) {
      // An insert needs nothing from here unless rowids are tracked: the update hook reports every
      // insert. Not every delete: those made by REPLACE conflict resolution are reported only here, and
      // pairing the insert that follows them tells that this callback saw them.
      guard hasPlans, code != SQLITE_INSERT || plansTrackRowids else { return }
      let number: Int
      if databaseName == preDatabaseName, tableName == preTableName, isCopy(preTableCopy, of: tableName) {
        number = preTableNumber
      } else {
        number = self.number(
          of: DatabaseRegion.Table(schema: String(cString: databaseName), name: String(cString: tableName)))
        copyCString(tableName, into: &preTableCopy)
        preDatabaseName = databaseName
        preTableName = tableName
        preTableNumber = number
      }
      guard number < plans.count, plans[number] != nil else { return }
      if details[number]?.isWhole == true {
        // Nothing more to learn of the table: pairing this row with the update hook's report tells nothing.
        preCode = 0
        return
      }
      guard let plan = plans[number] else { return }
      preCode = code
      preTable = number
      preRowid = code == SQLITE_DELETE ? oldRowid : newRowid
      var detail = details[number] ?? DatabaseRegion.TableRegion(columns: [], rowids: plan.tracksRowids ? [] : nil)
      if details[number] == nil {
        detailNumbers.append(number)
      } else {
        // Taken out, so that its sets are changed in place, not copied at each row.
        details[number] = nil
      }
      if plan.tracksRowids, detail.rowids != nil {
        detail.rowids?.insert(preRowid)
        if code == SQLITE_UPDATE, oldRowid != newRowid { detail.rowids?.insert(oldRowid) }
        if (detail.rowids?.count ?? 0) > Self.mostRowidsTracked { detail.rowids = nil }
      }
      if code != SQLITE_UPDATE || oldRowid != newRowid {
        // A row inserted or deleted (by REPLACE conflict resolution too, which the update hook does
        // not report), or moved to another rowid: the set of rows changed.
        detail.columns = nil
      } else if detail.columns != nil {
        if sqlite3_preupdate_count(handle) != plan.columnCount {
          detail.columns = nil
        } else {
          for (index, column) in plan.columnIndexes.enumerated()
          where detail.columns?.contains(plan.columnNames[index]) == false && !isUnchanged(column, handle) {
            detail.columns?.insert(plan.columnNames[index])
          }
        }
      }
      details[number] = detail
    }

    func preUpdateHookWasTaken() {
      isListeningBeforeUpdates = false
      preCode = 0
    }
  }

  /// Whether column `column` of the row the pre-update hook reports keeps its value: the same type and
  /// bytes before and after. Any error counts as a change.
  private func isUnchanged(_ column: Int32, _ handle: OpaquePointer) -> Bool {
    var old: OpaquePointer?
    var new: OpaquePointer?
    guard sqlite3_preupdate_old(handle, column, &old) == SQLITE_OK,
      sqlite3_preupdate_new(handle, column, &new) == SQLITE_OK, let old, let new
    else { return false }
    let type = sqlite3_value_type(old)
    guard type == sqlite3_value_type(new) else { return false }
    switch type {
    case SQLITE_NULL:
      return true
    case SQLITE_INTEGER:
      return sqlite3_value_int64(old) == sqlite3_value_int64(new)
    case SQLITE_FLOAT:
      return sqlite3_value_double(old).bitPattern == sqlite3_value_double(new).bitPattern
    case SQLITE_TEXT:
      // The text first, then its size, as SQLite asks.
      let oldBytes = UnsafeRawPointer(sqlite3_value_text(old))
      let newBytes = UnsafeRawPointer(sqlite3_value_text(new))
      return sameBytes(oldBytes, sqlite3_value_bytes(old), newBytes, sqlite3_value_bytes(new))
    default:
      let oldBytes = sqlite3_value_blob(old)
      let newBytes = sqlite3_value_blob(new)
      return sameBytes(oldBytes, sqlite3_value_bytes(old), newBytes, sqlite3_value_bytes(new))
    }
  }

  private func sameBytes(_ old: UnsafeRawPointer?, _ oldCount: Int32, _ new: UnsafeRawPointer?, _ newCount: Int32)
    -> Bool
  {
    guard oldCount == newCount else { return false }
    guard oldCount > 0 else { return true }
    guard let old, let new else { return false }
    return UnsafeRawBufferPointer(start: old, count: Int(oldCount)).elementsEqual(
      UnsafeRawBufferPointer(start: new, count: Int(newCount)))
  }

  /// The plan for `table`, which the observations read as `read`; `nil` when it must change as a whole.
  private func makePlan(
    _ table: DatabaseRegion.Table, _ read: DatabaseRegion.TableRegion, _ connection: Connection,
    _ handle: OpaquePointer
  ) -> ChangeTracker.DetailPlan? {
    let schema = quoteIdentifier(table.schema)
    let name = "'" + table.name.replacing("'", with: "''") + "'"
    // The library's own statements: neither the user's authorizer nor trace handler hears of them.
    return connection.runningOwnStatements { readPlan(read, schema: schema, name: name, handle) }
  }

  /// ``makePlan(_:_:_:_:)`` from the table's list entry and columns (`schema` and `name` quoted).
  private func readPlan(
    _ read: DatabaseRegion.TableRegion, schema: String, name: String, _ handle: OpaquePointer
  ) -> ChangeTracker.DetailPlan? {
    guard
      let kind = rows(
        handle, "PRAGMA \(schema).table_list(\(name))",
        { statement in
          (
            sqlite3_column_text(statement, 2).map { String(cString: $0) } ?? "",
            Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 4))
          )
        }
      ).first, kind.0 == "table", kind.1 == 0
    else { return nil }
    let columns = rows(handle, "PRAGMA \(schema).table_xinfo(\(name))") { statement in
      (
        Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 0)),
        sqlite3_column_text(statement, 1).map { String(cString: $0).lowercased() },
        Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 6))
      )
    }
    // Generated columns depend on others, which the authorizer does not report as read.
    guard !columns.isEmpty, !columns.contains(where: { $0.2 != 0 || $0.1 == nil }) else { return nil }
    var plan = ChangeTracker.DetailPlan(
      columnCount: Int32(columns.count), columnIndexes: [], columnNames: [], tracksRowids: read.rowids != nil,
      hasUniqueIndex: hasUniqueIndex(handle, "PRAGMA \(schema).index_list(\(name))"))
    for (index, name, _) in columns where read.columns?.contains(name ?? "") ?? true {
      plan.columnIndexes.append(index)
      plan.columnNames.append(name ?? "")
    }
    return plan
  }

  /// Whether the `PRAGMA index_list` statement `sql` lists a UNIQUE index (SQLite makes one for a
  /// PRIMARY KEY other than the rowid, and for a UNIQUE constraint); `true` on any error, which then
  /// costs only precision.
  private func hasUniqueIndex(_ handle: OpaquePointer, _ sql: String) -> Bool {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return true }
    defer { sqlite3_finalize(statement) }
    var code = sqlite3_step(statement)
    while code == SQLITE_ROW {
      if sqlite3_column_int64(statement, 2) != 0 { return true }
      code = sqlite3_step(statement)
    }
    return code != SQLITE_DONE
  }

  /// The rows of `sql`, each made by `row`; empty on any error.
  private func rows<T>(_ handle: OpaquePointer, _ sql: String, _ row: (OpaquePointer) -> T?) -> [T] {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return [] }
    defer { sqlite3_finalize(statement) }
    var result: [T] = []
    while sqlite3_step(statement) == SQLITE_ROW {
      guard let value = row(statement) else { return [] }
      result.append(value)
    }
    return result
  }
#endif

/// Whether `copy` (NUL-terminated) holds the bytes of `text`: the table name SQLite passed before, the
/// same for the same table (SQLite passes its own copy of the name), in a few instructions per byte.
func isCopy(_ copy: ContiguousArray<CChar>, of text: UnsafePointer<CChar>) -> Bool {
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
