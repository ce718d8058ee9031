import AmalgamSQLite

/// SQLite's error log, routed to a Swift closure: the warnings and errors SQLite reports as they
/// happen, such as SQL that fails to prepare, a statement that aborts, a database file that had to be
/// recovered or an index that was found corrupt.
///
/// ```swift
/// try SQLiteLog.setHandler { code, message in
///   print("SQLite [\(code.rawValue)] \(message)")   // SQLite [1] no such table: missing in "SELECT ..."
/// }
/// ```
///
/// The log is process-wide: one handler serves every connection. Amalgam installs its C callback with
/// `sqlite3_config(SQLITE_CONFIG_LOG)` once per process, the first time a handler is set (SQLite
/// accepts this option at any time, even with databases open); after that, ``setHandler(_:)`` and
/// ``removeHandler()`` only swap the Swift closure, under a lock. Code that calls
/// `sqlite3_config(SQLITE_CONFIG_LOG)` itself replaces Amalgam's callback for good.
///
/// The handler may be called on any thread, concurrently, and while SQLite holds internal locks: it
/// must be quick and must not call into SQLite (no database use), as SQLite requires.
///
/// Related SQLite documentation: <https://sqlite.org/errlog.html>
public enum SQLiteLog {
  /// Receives SQLite's result code for the event (``ResultCode/warning``, ``ResultCode/notice``, an
  /// error code) and the message.
  public typealias Handler = @Sendable (_ code: ResultCode, _ message: String) -> Void

  /// The current handler. Guarded by `amalgam_log_lock()` / `amalgam_log_unlock()`, a process-wide
  /// mutex in the C target.
  nonisolated(unsafe) private static var handler: Handler?

  /// The result of installing the C callback, done once, the first time a handler is set.
  private static let installation: Int32 = amalgam_config_log(
    { _, code, message in
      SQLiteLog.dispatch(code: code, message: message)
    }, nil)

  /// Routes SQLite's error log to `handler`, replacing any previous handler.
  ///
  /// - Throws: ``SQLiteError`` if SQLite refuses to install the log callback (`SQLITE_MISUSE`; SQLite
  ///   3.53.4 accepts it at any time).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_config_covering_index_scan.html>
  public static func setHandler(_ handler: @escaping Handler) throws {
    guard installation == SQLITE_OK else {
      throw SQLiteError(
        code: ResultCode(rawValue: installation),
        message: "SQLite refused to install the error-log callback (sqlite3_config(SQLITE_CONFIG_LOG))")
    }
    amalgam_log_lock()
    self.handler = handler
    amalgam_log_unlock()
  }

  /// Stops routing SQLite's error log to the handler set with ``setHandler(_:)``, and releases it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/errlog.html>
  public static func removeHandler() {
    amalgam_log_lock()
    let previous = handler
    handler = nil
    amalgam_log_unlock()
    // Released outside the lock, in case releasing the closure logs.
    _ = previous
  }

  /// Writes `message` to SQLite's error log with `code` (`sqlite3_log`), as SQLite's own messages are:
  /// the handler receives it like any other.
  ///
  /// ```swift
  /// SQLiteLog.write("cache rebuilt", code: .notice)
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/log.html>
  public static func write(_ message: String, code: ResultCode = .notice) {
    amalgam_log(code.rawValue, message)
  }

  /// Called by SQLite, on any thread, for each log message.
  private static func dispatch(code: Int32, message: UnsafePointer<CChar>?) {
    amalgam_log_lock()
    let current = handler
    amalgam_log_unlock()
    guard let current else { return }
    current(ResultCode(rawValue: code), message.map { String(cString: $0) } ?? "")
  }
}
