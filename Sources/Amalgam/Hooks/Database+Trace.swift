import AmalgamSQLite

/// The kinds of event a trace handler receives: pass a combination to
/// ``Database/setTraceHandler(for:_:)``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_trace.html>
public struct TraceEventMask: OptionSet, Sendable, Hashable {
  /// The raw `SQLITE_TRACE_*` bits.
  public let rawValue: UInt32

  /// Creates a mask from `SQLITE_TRACE_*` bits.
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// A statement starts running, as do each trigger it fires and the trigger's statements
  /// (`SQLITE_TRACE_STMT`).
  public static let statement = TraceEventMask(rawValue: UInt32(SQLITE_TRACE_STMT))
  /// A statement finished, with how long it ran (`SQLITE_TRACE_PROFILE`).
  public static let profile = TraceEventMask(rawValue: UInt32(SQLITE_TRACE_PROFILE))
  /// A statement produced a row (`SQLITE_TRACE_ROW`).
  public static let row = TraceEventMask(rawValue: UInt32(SQLITE_TRACE_ROW))
  /// The connection closed (`SQLITE_TRACE_CLOSE`).
  public static let close = TraceEventMask(rawValue: UInt32(SQLITE_TRACE_CLOSE))
  /// Every kind of event.
  public static let all: TraceEventMask = [.statement, .profile, .row, .close]
}

/// An event reported to a trace handler.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_trace.html>
public enum TraceEvent: Sendable, Hashable {
  /// A statement started running (``TraceEventMask/statement``).
  ///
  /// - `sql`: the statement's SQL as prepared. A trigger is reported as it runs by a comment naming it
  ///   (`"-- TRIGGER name"`) and then one comment per statement of its body (`"-- INSERT INTO ..."`).
  /// - `expandedSQL`: the SQL with the bound parameter values in place of the parameters, as
  ///   `sqlite3_expanded_sql` gives it (the comment itself for a trigger; `nil` if SQLite could not
  ///   expand it, for example because it would exceed the length limit).
  case statement(sql: String, expandedSQL: String?)
  /// A statement finished running, `nanoseconds` after it started (approximately)
  /// (``TraceEventMask/profile``).
  case profile(sql: String, nanoseconds: Int64)
  /// A statement produced a row (``TraceEventMask/row``).
  case row(sql: String)
  /// The connection closed (``TraceEventMask/close``).
  case close

  /// Decodes one `sqlite3_trace_v2` callback; `nil` for an event this version does not know.
  init?(code: UInt32, subject: UnsafeMutableRawPointer?, detail: UnsafeMutableRawPointer?) {
    let statement = OpaquePointer(subject)
    func statementSQL() -> String {
      guard let statement, let text = sqlite3_sql(statement) else { return "" }
      return String(cString: text)
    }
    switch Int32(code) {
    case SQLITE_TRACE_STMT:
      let sql = detail.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? statementSQL()
      if sql.hasPrefix("--") || Self.carriesASecret(sql) {
        self = .statement(sql: sql, expandedSQL: sql)
      } else {
        self = .statement(sql: sql, expandedSQL: takeSQLiteString(sqlite3_expanded_sql(statement)))
      }
    case SQLITE_TRACE_PROFILE:
      let nanoseconds = detail.map { $0.load(as: Int64.self) } ?? 0
      self = .profile(sql: statementSQL(), nanoseconds: nanoseconds)
    case SQLITE_TRACE_ROW:
      self = .row(sql: statementSQL())
    case SQLITE_TRACE_CLOSE:
      self = .close
    default:
      return nil
    }
  }
}

extension Database {
  /// Calls `handler` for each event of the kinds in `mask`: statements starting (with their expanded
  /// SQL), statements finishing (with their duration), rows, and the connection closing.
  ///
  /// ```swift
  /// try db.setTraceHandler(for: [.statement, .profile]) { event in
  ///   switch event {
  ///   case .statement(_, let expandedSQL): print("SQL:", expandedSQL ?? "?")
  ///   case .profile(let sql, let nanoseconds): print(sql, "took", nanoseconds, "ns")
  ///   default: break
  ///   }
  /// }
  /// ```
  ///
  /// The handler sees the statements the application runs, with the triggers and statements SQLite runs
  /// for them, and the transactions that Amalgam's queues and observations open around them; not the
  /// few statements Amalgam runs for its own bookkeeping (value observation learning which tables are
  /// virtual or a file's data version, a session checking a table), as SQLite does not trace the
  /// statements it runs itself.
  ///
  /// The handler must not use this database. A database has one trace handler: registering again
  /// replaces the previous closure and mask, and the closure is released by ``removeTraceHandler()`` and
  /// when the database closes (after the ``TraceEvent/close`` event).
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/trace_v2.html>
  public func setTraceHandler(for mask: TraceEventMask = .all, _ handler: @escaping (TraceEvent) -> Void) throws {
    guard !mask.isEmpty else {
      try removeTraceHandler()
      return
    }
    try installHook(HookBox(handler), in: .trace) { handle, userData in
      sqlite3_trace_v2(handle, mask.rawValue, traceCallback, userData)
      connection.state(HookRegistry.self).traceMask = mask.rawValue
    }
  }

  /// Removes the trace handler registered with ``setTraceHandler(for:_:)`` and releases its closure.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/trace_v2.html>
  public func removeTraceHandler() throws {
    try installHook(HookBox<(TraceEvent) -> Void>?.none, in: .trace) { handle, _ in
      sqlite3_trace_v2(handle, 0, nil, nil)
      connection.state(HookRegistry.self).traceMask = 0
    }
  }
}

/// SQLite's trace callback for every trace handler; its user data is the handler's `HookBox`.
let traceCallback:
  @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?)
    -> Int32 = { code, userData, subject, detail in
      guard let userData, let event = TraceEvent(code: code, subject: subject, detail: detail) else { return 0 }
      HookBox<(TraceEvent) -> Void>.from(userData).callback(event)
      return 0
    }

/// The prefix of the SQL of a statement that carries a secret (a key) in a bound value: a trace reports
/// it without its values, as written.
let redactedParametersMarker = "/* amalgam: parameters redacted */"

extension TraceEvent {
  /// Whether `sql` binds a secret (only Amalgam's own `ATTACH ... KEY ?` does, with the ENCRYPTION trait).
  static func carriesASecret(_ sql: String) -> Bool {
    #if ENCRYPTION
      return sql.hasPrefix(redactedParametersMarker)
    #else
      return false
    #endif
  }
}
