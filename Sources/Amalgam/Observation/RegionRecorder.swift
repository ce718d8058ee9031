import AmalgamSQLite

/// Records the region a closure reads on a connection, from what SQLite's authorizer reports while
/// statements are prepared: each table, restricted to the columns read (`SQLITE_READ` names them), but
/// virtual tables, which stay whole.
///
/// The recorder listens to the connection's one authorizer from its first use on, and never registers
/// it again (registering makes SQLite prepare every statement of the connection again). A closure's
/// region is made of:
/// - what the authorizer reports while the closure runs: the statements it prepares, and those SQLite
///   prepares again inside a step (after a schema change);
/// - the region of each statement prepared before the closure that ran during it (its
///   `SQLITE_STMTSTATUS_RUN` counter moved), recorded once and kept until SQLite prepares the statement
///   again or a schema may have changed. A statement seen for the first time is prepared once more from
///   its SQL, with only this recorder listening, to learn its region. A statement finalized during the
///   closure (the statement cache evicts one for each new statement once full) is looked at just before
///   it goes, so that a query among more observations than the cache holds keeps its own region rather
///   than the whole database's, which would run it again after every commit.
///
/// A table that a statement uses without naming its schema or reading a column (`SELECT count(*) FROM
/// t`) is reported by SQLite without the schema it resolved to: the recorder resolves it as SQLite
/// does (`temp`, then `main`, then the attached databases in order).
///
/// Used only on the thread using the connection.
final class RegionRecorder: ConnectionState, AuthorizerListener, StatementFinalizeListener {
  /// What the authorizer reported during one recording.
  private struct Capture {
    /// The tables read, with the lowercased names of the columns read: SQLite's fake column `""` for a
    /// table used without reading a column (a real column may have that name too: it is kept, so that
    /// such a column is never missed).
    var tables: [DatabaseRegion.Table: Set<String>] = [:]
    /// Tables named without a schema and with no column read: resolved once the statement is prepared.
    var unqualified: Set<String> = []
    var readsEverything = false
    /// The strings of the last table recorded, SQLite's own (stable while the schema is), to skip
    /// building the same table again for each of its columns.
    var lastSchema: UnsafePointer<CChar>?
    var lastName: UnsafePointer<CChar>?
    /// The regions of statements prepared before the recording that ran during it and were finalized
    /// before it ended, when known then; the SQL of the others, whose region is learned at the end.
    var finalizedRegion = DatabaseRegion()
    var finalizedSQL: [ContiguousArray<CChar>] = []
    var lastTable: DatabaseRegion.Table?
  }

  /// The region of a statement prepared before a recording, valid while SQLite has not prepared it
  /// again and no schema changed.
  private struct KnownStatement {
    var sql: ContiguousArray<CChar>
    var reprepareCount: Int32
    var region: DatabaseRegion

    /// Whether the region still describes `statement`: the same SQL, not prepared again since.
    func isValid(for statement: OpaquePointer) -> Bool {
      guard sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0) == reprepareCount,
        let text = sqlite3_sql(statement)
      else { return false }
      return isCopy(sql, of: text)
    }
  }

  private var isListening = false
  @exclusivity(unchecked) private var capture: Capture?
  /// The regions of statements, by `sqlite3_stmt`; emptied whenever a schema may have changed.
  private var known: [OpaquePointer: KnownStatement] = [:]
  /// Each statement's `SQLITE_STMTSTATUS_RUN` counter when the recording started.
  private var runCounts: [OpaquePointer: Int32] = [:]
  /// The schema epoch that ``known``, ``resolved`` and ``virtualTables`` belong to.
  private var epoch = -1
  /// The schema each unqualified table name resolves to (`nil`: no table has that name).
  private var resolved: [String: DatabaseRegion.Table?] = [:]
  /// The virtual tables of each schema.
  private var virtualTables: [String: Set<String>] = [:]
  /// The rows that the statement executions of the recordings under way read (see ``PinnedRowids``).
  private let rowids = PinnedRowids()

  init() {}

  /// Counts the changes of schema that may make a known region wrong, process-wide: any schema change
  /// seen (a `CREATE`, `DROP`, `ALTER`, `ATTACH` or `DETACH` prepared on a recording connection, a
  /// commit whose changes are the whole database). Over-counting only costs preparing statements again.
  private static let schemaEpoch = LockedState(0)

  /// The count of schema changes seen so far (see ``schemaMayHaveChanged()``).
  static var currentSchemaEpoch: Int { schemaEpoch.withLock { $0 } }

  /// Tells every recorder that the tables a statement resolves to may have changed.
  static func schemaMayHaveChanged() {
    schemaEpoch.withLock { $0 &+= 1 }
  }

  /// Runs `body` on `db`, and returns its value with the region it read.
  static func record<T>(_ db: Database, _ body: () throws -> T) throws -> (T, DatabaseRegion) {
    let connection = db.connection
    let recorder = connection.state(RegionRecorder.self)
    let handle = try connection.withHandle { handle in
      if !recorder.isListening {
        AuthorizerDispatcher.on(connection, handle).addListener(recorder)
        recorder.isListening = true
      }
      return handle
    }
    recorder.forgetIfSchemaChanged()
    recorder.takeRunCounts(handle)
    let outer = recorder.capture
    recorder.capture = Capture()
    let outerListener = connection.finalizeListener
    connection.finalizeListener = recorder
    recorder.rowids.begin(handle)
    let value: T
    do {
      value = try body()
    } catch {
      connection.finalizeListener = outerListener
      _ = recorder.rowids.end()
      recorder.capture = outer
      throw error
    }
    connection.finalizeListener = outerListener
    let rowids = recorder.rowids.end()
    let captured = recorder.capture ?? Capture()
    recorder.capture = outer
    let region = try recorder.region(of: captured, db, handle)
    return (value, rowids.isVoid ? region : region.restrictingRows(rowids.pinned))
  }

  /// Stops listening to the connection's authorizer, which is unregistered if nothing else uses it.
  static func stopListening(on connection: Connection) {
    guard let recorder = connection.existingState(RegionRecorder.self), recorder.isListening,
      let handle = connection.handle
    else { return }
    recorder.isListening = false
    recorder.known = [:]
    guard let dispatcher = AuthorizerDispatcher.existing(on: connection) else { return }
    dispatcher.removeListener(recorder)
    dispatcher.uninstallIfUnused(connection, handle)
  }

  private func forgetIfSchemaChanged() {
    let current = Self.schemaEpoch.withLock { $0 }
    guard current != epoch else { return }
    epoch = current
    known.removeAll(keepingCapacity: true)
    resolved = [:]
    virtualTables = [:]
  }

  private func takeRunCounts(_ handle: OpaquePointer) {
    runCounts.removeAll(keepingCapacity: true)
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
      runCounts[current] = sqlite3_stmt_status(current, SQLITE_STMTSTATUS_RUN, 0)
      statement = sqlite3_next_stmt(handle, current)
    }
  }

  /// The region of a recording: what it captured, and the regions of the statements prepared before it
  /// that ran during it.
  private func region(of captured: Capture, _ db: Database, _ handle: OpaquePointer) throws -> DatabaseRegion {
    guard !captured.readsEverything else { return .fullDatabase }
    var region = try resolve(captured, db, handle)
    region.formUnion(captured.finalizedRegion)
    for sql in captured.finalizedSQL {
      let statementRegion = try sql.withUnsafeBufferPointer { sql in
        guard let text = sql.baseAddress else { return DatabaseRegion.fullDatabase }
        return try regionOfStatement(text, db, handle)
      }
      region.formUnion(statementRegion)
    }
    var unknown: [OpaquePointer] = []
    var survivors = 0
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
      statement = sqlite3_next_stmt(handle, current)
      guard let runs = runCounts[current] else { continue }
      survivors += 1
      guard sqlite3_stmt_status(current, SQLITE_STMTSTATUS_RUN, 0) != runs else { continue }
      if let known = known[current], known.isValid(for: current) {
        region.formUnion(known.region)
      } else {
        unknown.append(current)
      }
    }
    // A statement prepared before the recording was finalized during it (the statement cache evicted
    // it): whether it ran first is unknown.
    if survivors != runCounts.count { return .fullDatabase }
    for statement in unknown {
      guard let sql = sqlite3_sql(statement) else { return .fullDatabase }
      let statementRegion = try regionOfStatement(sql, db, handle)
      known[statement] = KnownStatement(
        sql: copyCString(sql), reprepareCount: sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0),
        region: statementRegion)
      region.formUnion(statementRegion)
    }
    if known.count > 2 * runCounts.count + 16 {
      known = known.filter { runCounts[$0.key] != nil }
    }
    return region
  }

  /// The region of `sql`, prepared once more with only this recorder listening (the user's authorizer
  /// is not asked again).
  private func regionOfStatement(
    _ sql: UnsafePointer<CChar>, _ db: Database, _ handle: OpaquePointer
  ) throws -> DatabaseRegion {
    guard let dispatcher = AuthorizerDispatcher.existing(on: db.connection) else { return .fullDatabase }
    let outer = capture
    capture = Capture()
    dispatcher.soleListener = self
    var copy: OpaquePointer?
    let rc = sqlite3_prepare_v3(handle, sql, -1, 0, &copy, nil)
    sqlite3_finalize(copy)
    dispatcher.soleListener = nil
    let captured = capture ?? Capture()
    capture = outer
    guard rc == SQLITE_OK, !captured.readsEverything else { return .fullDatabase }
    return try resolve(captured, db, handle)
  }

  /// The region of what was captured: unqualified names resolved, virtual tables marked and whole
  /// (what SQLite reads of them is up to the module), the other tables restricted to the columns read.
  private func resolve(_ captured: Capture, _ db: Database, _ handle: OpaquePointer) throws -> DatabaseRegion {
    var columns = captured.tables
    for name in captured.unqualified {
      if let table = resolve(name, handle) { columns[table, default: []].insert("") }
    }
    var marked: Set<DatabaseRegion.Table> = []
    var restrictions: [DatabaseRegion.Table: DatabaseRegion.TableRegion] = [:]
    for (table, read) in columns {
      if try virtualTables(of: table.schema, db).contains(table.name) {
        marked.insert(table)
      } else {
        restrictions[table] = DatabaseRegion.TableRegion(columns: read)
      }
    }
    return DatabaseRegion(tables: Set(columns.keys), virtualTables: marked, restrictions: restrictions)
  }

  /// The table that SQLite resolves the unqualified `name` to: the first schema holding a table of
  /// that name, in SQLite's search order (`temp`, `main`, then attached databases). `nil` when none
  /// does (the name is a view's, whose tables are reported on their own, or a subquery's).
  private func resolve(_ name: String, _ handle: OpaquePointer) -> DatabaseRegion.Table? {
    if let known = resolved[name] { return known }
    var found: DatabaseRegion.Table?
    var index: Int32 = 0
    while found == nil, let schema = sqlite3_db_name(handle, index < 2 ? index ^ 1 : index) {
      if sqlite3_table_column_metadata(handle, schema, name, nil, nil, nil, nil, nil, nil) == SQLITE_OK {
        found = DatabaseRegion.Table(schema: String(cString: schema), name: name)
      }
      index += 1
    }
    resolved[name] = found
    return found
  }

  /// The names of the virtual tables of `schema`, read once per schema change (a query of the library's
  /// own, which neither the user's trace handler nor authorizer hears of).
  private func virtualTables(of schema: String, _ db: Database) throws -> Set<String> {
    if let names = virtualTables[schema] { return names }
    let names = try db.connection.runningOwnStatements {
      try db.prepare(
        sql: "SELECT name FROM \(quoteIdentifier(schema)).sqlite_schema "
          + "WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
      ).column(0, as: String.self)
    }
    let set = Set(names.map { $0.lowercased() })
    virtualTables[schema] = set
    return set
  }

  func authorize(
    _ code: Int32, _ argument1: UnsafePointer<CChar>?, _ argument2: UnsafePointer<CChar>?,
    databaseName: UnsafePointer<CChar>?, triggerOrView: UnsafePointer<CChar>?
  ) -> Int32 {
    switch code {
    case SQLITE_READ:
      guard capture != nil, let argument1 else { return SQLITE_OK }
      if let databaseName {
        let table: DatabaseRegion.Table
        if argument1 == capture?.lastName, databaseName == capture?.lastSchema, let last = capture?.lastTable {
          table = last
        } else {
          table = DatabaseRegion.Table(schema: String(cString: databaseName), name: String(cString: argument1))
          capture?.lastSchema = databaseName
          capture?.lastName = argument1
          capture?.lastTable = table
        }
        let column = argument2.map { String(cString: $0).lowercased() } ?? ""
        capture?.tables[table, default: []].insert(column)
      } else {
        // SQLite names no schema for a table it uses without reading a column, unless the SQL did.
        capture?.unqualified.insert(String(cString: argument1).lowercased())
      }
    case SQLITE_PRAGMA:
      // What a pragma reads is unknown: the query depends on every table.
      if capture != nil { capture?.readsEverything = true }
    case SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
      SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
      SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
      SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW,
      SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE, SQLITE_DROP_VTABLE, SQLITE_ATTACH, SQLITE_DETACH:
      Self.schemaMayHaveChanged()
    default:
      break
    }
    return SQLITE_OK
  }

  /// A statement goes during a recording: if it was prepared before the recording and ran during it,
  /// its region is part of the recording's (see ``region(of:_:_:)``, which would otherwise find it
  /// missing and make the region the whole database).
  func statementWillFinalize(_ statement: OpaquePointer) {
    let knownRegion = known.removeValue(forKey: statement)
    guard capture != nil, let runs = runCounts.removeValue(forKey: statement),
      sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_RUN, 0) != runs
    else { return }
    if let knownRegion, knownRegion.isValid(for: statement) {
      capture?.finalizedRegion.formUnion(knownRegion.region)
    } else if let sql = sqlite3_sql(statement) {
      capture?.finalizedSQL.append(copyCString(sql))
    } else {
      capture?.readsEverything = true
    }
  }

  func unregisterCallbacks(_ handle: OpaquePointer) {
    rowids.stop(handle)
  }

  func connectionDidClose() {
    capture = nil
    isListening = false
    known = [:]
    runCounts = [:]
  }
}

/// A copy of a C string, with its terminating NUL.
func copyCString(_ text: UnsafePointer<CChar>) -> ContiguousArray<CChar> {
  var copy = ContiguousArray<CChar>()
  copyCString(text, into: &copy)
  return copy
}

/// Replaces the contents of `copy` with `text` and its NUL, keeping the storage `copy` already has.
func copyCString(_ text: UnsafePointer<CChar>, into copy: inout ContiguousArray<CChar>) {
  copy.removeAll(keepingCapacity: true)
  var character = text
  while character.pointee != 0 {
    copy.append(character.pointee)
    character += 1
  }
  copy.append(0)
}
