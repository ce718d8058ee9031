import AmalgamSQLite

extension Database {
  /// Calls `handler` when a table is locked by another connection, to decide whether to wait and try
  /// again (return `true`) or to give up, in which case the statement fails with ``ResultCode/busy``
  /// (return `false`).
  ///
  /// ```swift
  /// try db.setBusyHandler { retryCount in
  ///   guard retryCount < 5 else { return false }
  ///   usleep(10_000 << UInt32(retryCount))   // back off: 10 ms, 20 ms, 40 ms, ...
  ///   return true
  /// }
  /// ```
  ///
  /// `retryCount` is the number of times the handler has already been called for the same lock: 0 the
  /// first time. SQLite may skip the handler and fail at once when waiting could deadlock.
  ///
  /// A connection has one busy handler, which ``setBusyTimeout(_:)`` also uses: setting a busy timeout
  /// (or `PRAGMA busy_timeout`) replaces the handler, and setting a handler replaces the timeout. The
  /// handler must not use or close this database. Registering again replaces the previous closure,
  /// which is released, as it is by ``removeBusyHandler()`` and when the database closes.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_handler.html>
  public func setBusyHandler(_ handler: @escaping (_ retryCount: Int) -> Bool) throws {
    try installHook(HookBox(handler), in: .busy) { handle, userData in
      sqlite3_busy_handler(
        handle,
        { userData, retryCount in
          guard let userData else { return 0 }
          return HookBox<(Int) -> Bool>.from(userData).call { $0(Int(retryCount)) } ? 1 : 0
        }, userData)
    }
  }

  /// Removes the busy handler registered with ``setBusyHandler(_:)`` and releases its closure: a locked
  /// table then fails at once with ``ResultCode/busy``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_handler.html>
  public func removeBusyHandler() throws {
    try installHook(HookBox<(Int) -> Bool>?.none, in: .busy) { handle, _ in
      sqlite3_busy_handler(handle, nil, nil)
    }
  }

  /// How long SQLite retries a locked database before failing with `SQLITE_BUSY`, in seconds
  /// (`sqlite3_busy_timeout`), rounded up to whole milliseconds. Zero, the default, fails at once;
  /// `.infinity` (or any timeout of 24.8 days or more) waits the longest SQLite can, `Int32.max`
  /// milliseconds.
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/misuse`` for a negative or NaN timeout, which is not a
  ///   duration (SQLite would silently read it as zero); ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_timeout.html>
  public func setBusyTimeout(_ seconds: Double) throws {
    guard seconds >= 0 else {
      throw SQLiteError(
        code: .misuse, message: "A busy timeout is zero or more seconds, not \(seconds)")
    }
    let handle = try sqliteHandle
    let milliseconds: Int32
    if seconds == 0 {
      milliseconds = 0
    } else if seconds * 1000 >= Double(Int32.max) {
      milliseconds = Int32.max
    } else {
      milliseconds = Int32((seconds * 1000).rounded(.up))
    }
    try check(sqlite3_busy_timeout(handle, milliseconds))
    // The timeout replaces any busy handler in SQLite: release that handler's closure too.
    connection.existingState(HookRegistry.self)?.slots[.busy] = nil
  }
}
