#if !OMIT_PROGRESS_CALLBACK
  import AmalgamSQLite

  /// What a progress handler decides about the statement that is running.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
  public enum ProgressDecision: Sendable, Hashable {
    /// Keep running.
    case `continue`
    /// Stop the statement: it fails with `SQLITE_INTERRUPT` ("interrupted").
    case interrupt
  }

  extension Database {
    /// Calls `handler` about every `instructions` virtual-machine instructions while a statement runs
    /// (and sometimes while a complex statement is prepared), so that a long query can report progress
    /// or be cancelled. Needs the progress callback, which the `OMIT_PROGRESS_CALLBACK` trait removes.
    ///
    /// ```swift
    /// let deadline = ContinuousClock.now + .seconds(2)
    /// try db.setProgressHandler(every: 1_000) {
    ///   ContinuousClock.now < deadline ? .continue : .interrupt
    /// }
    /// ```
    ///
    /// Returning ``ProgressDecision/interrupt`` makes the running statement fail with
    /// ``ResultCode/interrupt``. The handler must not use this database. Registering again replaces the
    /// previous closure, which is released, as it is by ``removeProgressHandler()`` and when the
    /// database closes.
    ///
    /// - Parameters:
    ///   - instructions: the approximate number of instructions between calls, at least 1.
    ///   - handler: returns whether the running statement continues or is interrupted.
    /// - Throws: ``SQLiteError`` with `SQLITE_RANGE` when `instructions` is less than 1;
    ///   ``DatabaseError/databaseClosed`` when the database is closed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
    public func setProgressHandler(every instructions: Int, _ handler: @escaping () -> ProgressDecision) throws {
      guard instructions >= 1 else {
        throw SQLiteError(
          code: .range, message: "The progress handler's period must be at least 1 instruction, not \(instructions)")
      }
      let period = Int32(clamping: instructions)
      try installHook(HookBox(handler), in: .progress) { handle, userData in
        sqlite3_progress_handler(
          handle, period,
          { userData in
            guard let userData else { return 0 }
            return HookBox<() -> ProgressDecision>.from(userData).call { $0() } == .continue ? 0 : 1
          }, userData)
      }
    }

    /// Removes the progress handler registered with ``setProgressHandler(every:_:)`` and releases its
    /// closure.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
    public func removeProgressHandler() throws {
      try installHook(HookBox<() -> ProgressDecision>?.none, in: .progress) { handle, _ in
        sqlite3_progress_handler(handle, 0, nil, nil)
      }
    }
  }
#endif
