extension Database {
  /// Copies this database into `destination`, replacing its content: an online backup, in one call
  /// (`sqlite3_backup_init`, `sqlite3_backup_step`, `sqlite3_backup_finish`).
  ///
  /// ```swift
  /// let source = try Database(path: "/path/to/data.db")
  /// let copy = try Database(path: "/path/to/copy.db")
  /// try source.backup(to: copy)
  ///
  /// // In steps of 100 pages, with progress; answering false stops it.
  /// try source.backup(to: copy, pagesPerStep: 100) { progress in
  ///   print(progress.fractionCompleted)
  ///   return true
  /// }
  /// ```
  ///
  /// Other connections may use the source between steps; when one of them writes it, SQLite starts
  /// the copy over, so the destination always ends as one consistent state of the source. A step that
  /// finds the source or destination locked (`SQLITE_BUSY`, `SQLITE_LOCKED`) is tried again after
  /// `busyPause`, for as long as the longer of the two connections' busy timeouts
  /// (``setBusyTimeout(_:)``); after that, or at once when neither has one, the backup ends with that
  /// error. To copy a database into memory, pass an in-memory `destination`; to restore, swap the two.
  ///
  /// - Parameters:
  ///   - destination: the connection to copy into; another connection than this one.
  ///   - sourceSchema: the database of this connection to copy: `"main"`, `"temp"` or an attached name.
  ///   - destinationSchema: the database of `destination` to replace.
  ///   - pagesPerStep: pages copied per step; -1 (the default) copies all pages in one step, holding
  ///     the source's read lock meanwhile.
  ///   - busyPause: seconds to wait before retrying a busy or locked step.
  ///   - progress: called after each step with the pages remaining and in total; return `false` to
  ///     stop. Errors it throws stop the backup and reach the caller.
  /// - Throws: ``SQLiteError`` from SQLite (``ResultCode/busy`` once the busy timeouts have passed, and
  ///   ``ResultCode/misuse`` at once when `destination` is the source's own file opened again);
  ///   `CancellationError` when `progress` answers `false` or the calling task is cancelled;
  ///   ``SQLiteError`` with ``ResultCode/interrupt`` when this connection is interrupted. A backup that
  ///   stops early leaves `destination` as it was before.
  ///
  /// Related SQLite documentation: <https://sqlite.org/backup.html>
  public func backup(
    to destination: Database, sourceSchema: String = "main", destinationSchema: String = "main",
    pagesPerStep: Int = -1, busyPause: Double = 0.01, progress: ((BackupProgress) throws -> Bool)? = nil
  ) throws {
    let backup = try DatabaseBackup(from: self, schema: sourceSchema, to: destination, schema: destinationSchema)
    try backup.run(pagesPerStep: pagesPerStep, busyPause: busyPause, sourceDatabase: self) { step in
      try progress?(step) ?? true
    }
  }

  /// Copies this database into `destination` as an asynchronous sequence that copies `pagesPerStep`
  /// pages each time it is asked for its next element, and returns the progress after that step.
  ///
  /// ```swift
  /// for try await progress in source.backupSteps(to: copy, pagesPerStep: 100) {
  ///   print("\(progress.remainingPageCount) of \(progress.totalPageCount) pages to go")
  /// }
  /// ```
  ///
  /// The sequence ends after the step that completes the backup. Leaving the loop early, or the task's
  /// cancellation (which throws `CancellationError`), abandons the backup and leaves `destination` as
  /// it was. A busy or locked step is tried again after `busyPause` seconds, a pause in which the task
  /// is suspended rather than blocked, for as long as the longer of the two connections' busy timeouts;
  /// then the sequence throws that error.
  ///
  /// Related SQLite documentation: <https://sqlite.org/backup.html>
  public func backupSteps(
    to destination: Database, sourceSchema: String = "main", destinationSchema: String = "main",
    pagesPerStep: Int = 100, busyPause: Double = 0.01
  ) -> BackupSteps {
    BackupSteps(
      source: self, destination: destination, sourceSchema: sourceSchema, destinationSchema: destinationSchema,
      pagesPerStep: pagesPerStep, busyPause: busyPause)
  }
}

/// The steps of an online backup as an asynchronous sequence of progress values: see
/// ``Database/backupSteps(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:)``.
///
/// Related SQLite documentation: <https://sqlite.org/backup.html>
public struct BackupSteps: AsyncSequence {
  /// Each element is the progress after one step.
  public typealias Element = BackupProgress

  let source: Database
  let destination: Database
  let sourceSchema: String
  let destinationSchema: String
  let pagesPerStep: Int
  let busyPause: Double

  /// Returns an iterator that starts a new backup at its first step.
  public func makeAsyncIterator() -> Iterator {
    Iterator(steps: self)
  }

  /// Runs one step of the backup each time it is asked for an element.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupstep>
  public struct Iterator: AsyncIteratorProtocol {
    let steps: BackupSteps
    var backup: DatabaseBackup?
    var isDone = false

    /// Runs the next step and returns the progress after it, or `nil` once the backup is complete.
    ///
    /// - Throws: ``SQLiteError`` from SQLite, `CancellationError` when the task is cancelled.
    public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> BackupProgress? {
      guard !isDone else { return nil }
      do {
        if backup == nil {
          backup = try DatabaseBackup(
            from: steps.source, schema: steps.sourceSchema, to: steps.destination, schema: steps.destinationSchema)
        }
        guard let backup else { return nil }
        var busy = BusyRetry()
        while true {
          try Task.checkCancellation()
          do {
            let finished = try backup.step(pages: steps.pagesPerStep)
            if finished { isDone = true }
            return backup.progress
          } catch let error as SQLiteError where error.code == .busy || error.code == .locked {
            try busy.retry(after: error, backup: backup)
            try await Task.sleep(nanoseconds: UInt64(Swift.max(0, Swift.min(steps.busyPause, 4000)) * 1e9))
          }
        }
      } catch {
        isDone = true
        try? backup?.finish()
        throw error
      }
    }

    /// Runs the next step; see ``next(isolation:)``.
    public mutating func next() async throws -> BackupProgress? {
      try await next(isolation: nil)
    }
  }
}
