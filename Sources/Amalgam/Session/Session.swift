#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// Records the changes made to tables of one database of a connection, to produce a ``Changeset``
  /// or ``Patchset`` (`sqlite3_session`). Needs the `ENABLE_SESSION` trait (on by default).
  ///
  /// ```swift
  /// let session = try Session(database: db)
  /// try session.attach()                      // every table (or attach("notes"))
  /// try db.execute(sql: "INSERT INTO notes(id, body) VALUES (1, 'hello')")
  /// let changeset = try session.changeset()
  /// try replica.apply(changeset)
  /// ```
  ///
  /// Only tables with a declared `PRIMARY KEY` are recorded, unless ``setOption(_:enabled:)`` turns on
  /// ``Option/rowidTables``. A session records from its creation until it is released, or until the
  /// database closes: after that, its calls throw ``DatabaseError/databaseClosed``.
  ///
  /// Sessions use SQLite's single pre-update hook slot of the connection: several sessions can share
  /// it, but while one exists `Database.setPreUpdateHook(_:)` registers nothing and returns false
  /// (logging `SQLITE_MISUSE`), and creating a session while a pre-update hook is set throws
  /// `SQLITE_MISUSE`.
  ///
  /// A session keeps its database alive and, like it, is used by one thread at a time.
  ///
  /// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
  ///
  /// ## Topics
  ///
  /// ### Recording
  ///
  /// - ``init(database:schema:)``
  /// - ``attach(_:)``
  /// - ``setTableFilter(_:)``
  /// - ``setOption(_:enabled:)``
  /// - ``Option``
  /// - ``isEnabled``
  /// - ``setEnabled(_:)``
  /// - ``isIndirect``
  /// - ``setIndirect(_:)``
  /// - ``diff(fromSchema:table:)``
  ///
  /// ### Output
  ///
  /// - ``changeset()``
  /// - ``patchset()``
  /// - ``writeChangeset(to:)``
  /// - ``writePatchset(to:)``
  /// - ``isEmpty``
  /// - ``memoryUsed``
  /// - ``changesetSize``
  public final class Session {
    /// An option of ``setOption(_:enabled:)`` (`sqlite3session_object_config`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/c_session_objconfig_rowid.html>
    public enum Option: Sendable, Hashable {
      /// Keep track of the size of the changeset the session would produce, so that ``changesetSize``
      /// can report it (`SQLITE_SESSION_OBJCONFIG_SIZE`).
      case sizeTracking
      /// Record rowid tables that have no declared primary key too, with the rowid as an extra first
      /// column (`SQLITE_SESSION_OBJCONFIG_ROWID`).
      case rowidTables

      var code: Int32 {
        switch self {
        case .sizeTracking: SQLITE_SESSION_OBJCONFIG_SIZE
        case .rowidTables: SQLITE_SESSION_OBJCONFIG_ROWID
        }
      }
    }

    /// The database whose changes are recorded; kept alive by the session.
    public let database: Database
    /// The schema recorded: `"main"`, `"temp"` or an attached database's name.
    public let schema: String
    /// The `sqlite3_session*`, or `nil` once deleted.
    private var handle: OpaquePointer?
    /// The table filter SQLite calls when ``attach(_:)`` attached every table, which it holds a raw
    /// pointer to: it leaves out shadow tables, then asks the filter of ``setTableFilter(_:)``.
    private let tableFilter: SessionTableFilter

    /// Starts a session on `schema` of `database` (`sqlite3session_create`). It records nothing until a
    /// table is attached with ``attach(_:)``.
    ///
    /// - Throws: ``DatabaseError/databaseClosed``; ``SQLiteError`` with `SQLITE_MISUSE` while a
    ///   pre-update hook is set on the connection, or SQLite's error.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_create.html>
    public init(database: Database, schema: String = "main") throws {
      self.database = database
      self.schema = schema
      let box = database.connection
      let registry: SessionRegistry
      // Observations listen to the slot through a dispatcher, which leaves it to the session (they fall
      // back to table-level changes meanwhile); the user's own pre-update hook does not.
      var dispatcherToLeave: PreUpdateDispatcher?
      switch box.existingState(HookRegistry.self)?.slots[.preUpdate] {
      case let existing as SessionRegistry: registry = existing
      case nil: registry = SessionRegistry()
      case let dispatcher as PreUpdateDispatcher where dispatcher.userHook == nil:
        dispatcherToLeave = dispatcher
        registry = SessionRegistry()
      default:
        throw SQLiteError(
          code: .misuse,
          message: "The pre-update hook is set on this connection; remove it before creating a session")
      }
      let tableFilter = SessionTableFilter(connection: box, schema: schema)
      self.tableFilter = tableFilter
      handle = try box.withHandle { connection in
        dispatcherToLeave?.yieldToSession(box, connection)
        var session: OpaquePointer?
        let rc = sqlite3session_create(connection, schema, &session)
        guard rc == SQLITE_OK, let session else { throw sessionError(rc, on: database) }
        return session
      }
      registry.sessions.append(WeakSession(self))
      box.state(HookRegistry.self).slots[.preUpdate] = registry
    }

    deinit {
      delete()
    }

    /// Deletes the SQLite session and, with the last one, frees the connection's pre-update slot.
    fileprivate func delete() {
      guard let session = handle else { return }
      handle = nil
      sqlite3session_delete(session)
      let box = database.connection
      guard let registry = box.existingState(HookRegistry.self)?.slots[.preUpdate] as? SessionRegistry else { return }
      registry.sessions.removeAll { $0.session == nil || $0.session === self }
      if registry.sessions.isEmpty { box.existingState(HookRegistry.self)?.slots[.preUpdate] = nil }
    }

    /// Runs `body` with the session and the connection, holding the connection for the calling thread.
    private func withSession<T>(_ body: (OpaquePointer, OpaquePointer) throws -> T) throws -> T {
      try database.connection.withHandle { connection in
        guard let handle else { throw DatabaseError.databaseClosed }
        return try body(handle, connection)
      }
    }

    /// Starts recording changes to `table`, or to every table of the schema when `table` is `nil`,
    /// including tables created later (`sqlite3session_attach`). Attaching a table twice does nothing.
    ///
    /// Every table, with `nil`, leaves out the shadow tables of virtual tables (such as FTS5's
    /// `x_data`, `x_idx`, `x_content`, `x_docsize` and `x_config`, the tables `pragma_table_list`
    /// reports with type `shadow`): the virtual table maintains them, so a replica's own virtual table
    /// (filled by its triggers, or by the content table it indexes) would conflict with their changes.
    /// SQLite's `sqlite3session_attach(session, NULL)` records them too; Amalgam leaves them out with
    /// the session's table filter. Attach a shadow table by name to record it anyway.
    ///
    /// - Throws: ``DatabaseError/databaseClosed`` or SQLite's error.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_attach.html>
    public func attach(_ table: String? = nil) throws {
      try withSession { session, _ in
        // Installing a filter also turns on recording every table, as attaching `NULL` does.
        if table == nil { sqlite3session_table_filter(session, SessionTableFilter.callback, tableFilter.userData) }
        let rc = sqlite3session_attach(session, table)
        if rc != SQLITE_OK { throw sessionError(rc, on: database) }
      }
    }

    /// With every table attached (``attach(_:)`` with `nil`), records only the tables for which `filter`
    /// returns true (`sqlite3session_table_filter`). The filter is asked once per table, the first
    /// time it changes; it must not use the database. Shadow tables are left out before it is asked.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_table_filter.html>
    public func setTableFilter(_ filter: @escaping (_ table: String) -> Bool) throws {
      try withSession { session, _ in
        tableFilter.userFilter = filter
        sqlite3session_table_filter(session, SessionTableFilter.callback, tableFilter.userData)
      }
    }

    /// Turns an option on or off (`sqlite3session_object_config`). Options must be set before the
    /// first table is attached.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_MISUSE` after a table was attached.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_object_config.html>
    public func setOption(_ option: Option, enabled: Bool) throws {
      try withSession { session, _ in
        var value: Int32 = enabled ? 1 : 0
        let rc = sqlite3session_object_config(session, option.code, &value)
        if rc != SQLITE_OK {
          throw SQLiteError(
            code: ResultCode(rawValue: rc),
            message: rc == SQLITE_MISUSE ? "Session options must be set before a table is attached" : nil)
        }
      }
    }

    /// True while the session records changes (`sqlite3session_enable`); false once deleted.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_enable.html>
    public var isEnabled: Bool {
      (try? withSession { session, _ in sqlite3session_enable(session, -1) != 0 }) ?? false
    }

    /// Pauses (`false`) or resumes (`true`) recording (`sqlite3session_enable`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_enable.html>
    public func setEnabled(_ enabled: Bool) throws {
      try withSession { session, _ in _ = sqlite3session_enable(session, enabled ? 1 : 0) }
    }

    /// True while changes are recorded as indirect (`sqlite3session_indirect`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_indirect.html>
    public var isIndirect: Bool {
      (try? withSession { session, _ in sqlite3session_indirect(session, -1) != 0 }) ?? false
    }

    /// Marks the changes recorded from now on as indirect (`true`) or direct (`false`)
    /// (`sqlite3session_indirect`). See ``ChangesetOperation/isIndirect``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_indirect.html>
    public func setIndirect(_ indirect: Bool) throws {
      try withSession { session, _ in _ = sqlite3session_indirect(session, indirect ? 1 : 0) }
    }

    /// True when no change has been recorded (`sqlite3session_isempty`). A row changed and then changed
    /// back still counts as a change until the changeset is produced.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_isempty.html>
    public var isEmpty: Bool {
      (try? withSession { session, _ in sqlite3session_isempty(session) != 0 }) ?? true
    }

    /// The bytes of heap memory the session uses (`sqlite3session_memory_used`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_memory_used.html>
    public var memoryUsed: Int {
      (try? withSession { session, _ in Int(sqlite3session_memory_used(session)) }) ?? 0
    }

    /// The size in bytes of the changeset ``changeset()`` would produce (`sqlite3session_changeset_size`);
    /// 0 unless ``Option/sizeTracking`` was turned on before the first table was attached.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_changeset_size.html>
    public var changesetSize: Int {
      (try? withSession { session, _ in Int(sqlite3session_changeset_size(session)) }) ?? 0
    }

    /// Records, as if they had just been made, the changes that would turn `table` in the attached
    /// database `fromSchema` into the same table in this session's schema (`sqlite3session_diff`).
    /// The table is attached if it was not; both tables must have the same columns and primary key.
    ///
    /// ```swift
    /// try db.execute(sql: "ATTACH 'old.db' AS old")
    /// try session.diff(fromSchema: "old", table: "notes")
    /// let changes = try session.changeset()   // turns old.notes into main.notes
    /// ```
    ///
    /// - Throws: ``SQLiteError`` with SQLite's message: `SQLITE_SCHEMA` when the tables differ, or when
    ///   either schema lacks the table.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_diff.html>
    public func diff(fromSchema: String, table: String) throws {
      // SQLite returns success, having recorded nothing, for a table this session's schema lacks.
      let columns = try database.connection.runningOwnStatements {
        try database.prepare(sql: "SELECT count(*) FROM pragma_table_xinfo(?, ?)")
          .bind(parameterValues: [table, schema]).front(Int.self)
      }
      if (columns ?? 0) == 0 { throw SQLiteError(code: .schema, message: "no such table: \(schema).\(table)") }
      try attach(table)
      try withSession { session, _ in
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3session_diff(session, fromSchema, table, &message)
        let text = takeSQLiteString(message)
        if rc != SQLITE_OK {
          if let text { throw SQLiteError(code: ResultCode(rawValue: rc), message: text) }
          throw sessionError(rc, on: database)
        }
      }
    }

    /// The changes recorded so far, as a changeset (`sqlite3session_changeset`). Recording goes on.
    ///
    /// - Throws: ``DatabaseError/databaseClosed``; ``SQLiteError`` with `SQLITE_SCHEMA` when a recorded
    ///   table was dropped, lost a column or changed its primary key since; or SQLite's error.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_changeset.html>
    public func changeset() throws -> Changeset {
      Changeset(uncheckedData: try output(sqlite3session_changeset))
    }

    /// The changes recorded so far, as a patchset (`sqlite3session_patchset`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_patchset.html>
    public func patchset() throws -> Patchset {
      Patchset(uncheckedData: try output(sqlite3session_patchset))
    }

    private func output(
      _ produce: (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?)
        -> Int32
    ) throws -> Data {
      try withSession { session, _ in
        var count: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let rc = produce(session, &count, &bytes)
        let data = takeSQLiteBuffer(bytes, count: count)
        if rc != SQLITE_OK { throw outputError(rc) }
        return data
      }
    }

    /// The error for `rc` from `sqlite3session_changeset` and its siblings, which set no message for
    /// the schema change that stops them.
    private func outputError(_ rc: Int32) -> any Error {
      sessionError(
        rc, on: database,
        message: rc == SQLITE_SCHEMA
          ? "A table this session recorded was dropped, lost a column or changed its primary key since its "
            + "changes were recorded; they can no longer be written as a changeset" : nil)
    }

    /// Writes the changeset to `output` in chunks, without building it in memory
    /// (`sqlite3session_changeset_strm`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_changeset.html>
    public func writeChangeset(to output: @escaping ChangesetOutputStream) throws {
      try stream(output, sqlite3session_changeset_strm)
    }

    /// Writes the patchset to `output` in chunks (`sqlite3session_patchset_strm`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_patchset.html>
    public func writePatchset(to output: @escaping ChangesetOutputStream) throws {
      try stream(output, sqlite3session_patchset_strm)
    }

    private func stream(
      _ output: @escaping ChangesetOutputStream,
      _ produce: (
        OpaquePointer?, (@convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int32) -> Int32)?,
        UnsafeMutableRawPointer?
      ) -> Int32
    ) throws {
      let sink = StreamContext(output: output)
      try withSession { session, _ in
        try withStreams([sink], error: outputError) {
          produce(session, StreamContext.outputCallback, sink.pointer)
        }
      }
    }
  }

  /// The table filter of a session (`sqlite3session_table_filter`), which SQLite asks about each table
  /// the first time it changes, when every table is attached.
  final class SessionTableFilter {
    /// The connection, to look up the table; it outlives the session's `sqlite3_session*`.
    private let connection: Connection
    /// The schema the session records.
    private let schema: String
    /// The filter of `Session.setTableFilter`, asked after shadow tables are left out.
    var userFilter: ((String) -> Bool)?

    init(connection: Connection, schema: String) {
      self.connection = connection
      self.schema = schema
    }

    /// The C user data, which does not retain the filter: the session does.
    var userData: UnsafeMutableRawPointer { Unretained(self).opaque }

    static let callback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32 = {
      userData, table in
      guard let userData, let table else { return 1 }
      let filter = Unretained<SessionTableFilter>(opaque: userData).object
      if filter.isShadowTable(table) { return 0 }
      return filter.userFilter.map { $0(String(cString: table)) ? 1 : 0 } ?? 1
    }

    /// True when `pragma_table_list` reports `table` as a shadow table. SQLite calls the filter while
    /// it records a change, and then reads the table's columns with a statement of its own; this
    /// query reads the schema the same way. If it fails, the table is recorded.
    private func isShadowTable(_ table: UnsafePointer<CChar>) -> Bool {
      guard let handle = connection.handle else { return false }
      return runningOwnStatements(on: handle) { isShadowTable(table, handle) }
    }

    private func isShadowTable(_ table: UnsafePointer<CChar>, _ handle: OpaquePointer) -> Bool {
      var statement: OpaquePointer?
      let sql = "SELECT 1 FROM pragma_table_list(?1) WHERE schema = ?2 COLLATE NOCASE AND type = 'shadow'"
      guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return false }
      defer { sqlite3_finalize(statement) }
      guard sqlite3_bind_text(statement, 1, table, -1, transientDestructor) == SQLITE_OK,
        sqlite3_bind_text(statement, 2, schema, -1, transientDestructor) == SQLITE_OK
      else { return false }
      return sqlite3_step(statement) == SQLITE_ROW
    }
  }

  /// A weak reference to a session, so that the registry does not keep sessions alive.
  struct WeakSession {
    weak var session: Session?
    init(_ session: Session) { self.session = session }
  }

  /// The object that holds a connection's pre-update slot while sessions exist (see
  /// `Database.isPreUpdateHookInUse`), and deletes them before the connection closes, since a session
  /// must not outlive its `sqlite3*`.
  final class SessionRegistry: ConnectionCloseObserver {
    var sessions: [WeakSession] = []

    func connectionWillClose() {
      for session in sessions.compactMap(\.session) { session.delete() }
      sessions.removeAll()
    }
  }
#endif
