extension DatabaseReader {
  /// Copies the database into `destination` from inside a read, blocking: an online backup of one
  /// consistent state of the database (the read transaction's), while a pool's writer goes on.
  ///
  /// ```swift
  /// let copy = try Database(path: "/path/to/copy.db")
  /// try pool.backup(to: copy)
  /// ```
  ///
  /// See ``Database/backup(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:progress:)`` for
  /// the parameters and errors.
  ///
  /// Related SQLite documentation: <https://sqlite.org/backup.html>
  public func backup(
    to destination: Database, sourceSchema: String = "main", destinationSchema: String = "main",
    pagesPerStep: Int = -1, busyPause: Double = 0.01, progress: ((BackupProgress) throws -> Bool)? = nil
  ) throws {
    try read { source in
      try source.backup(
        to: destination, sourceSchema: sourceSchema, destinationSchema: destinationSchema,
        pagesPerStep: pagesPerStep, busyPause: busyPause, progress: progress)
    }
  }

  /// Copies the database into the database of another queue or pool, blocking: a read of this one
  /// feeds a backup into the other's writer connection.
  ///
  /// ```swift
  /// let copy = try DatabaseQueue(path: "/path/to/copy.db")
  /// try queue.backup(to: copy)
  /// ```
  ///
  /// - Throws: ``ConcurrencyError/reentrantAccess`` when `destination` is this queue or pool (or is
  ///   called from inside one of `destination`'s closures), and the errors of
  ///   ``Database/backup(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:progress:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/backup.html>
  public func backup(
    to destination: some DatabaseWriter, sourceSchema: String = "main", destinationSchema: String = "main",
    pagesPerStep: Int = -1, busyPause: Double = 0.01, progress: ((BackupProgress) throws -> Bool)? = nil
  ) throws {
    if (destination as AnyObject) === self { throw ConcurrencyError.reentrantAccess }
    try read { source in
      try destination.sync { target in
        try source.backup(
          to: target, sourceSchema: sourceSchema, destinationSchema: destinationSchema,
          pagesPerStep: pagesPerStep, busyPause: busyPause, progress: progress)
      }
    }
  }

  /// Copies the database into the database of another queue or pool without blocking the calling
  /// task. Cancelling the task stops the backup at the next step, leaves `destination` as it was, and
  /// throws `CancellationError`.
  ///
  /// ```swift
  /// try await pool.backup(to: copy, pagesPerStep: 256) { progress in
  ///   print(progress)
  ///   return true
  /// }
  /// ```
  ///
  /// `progress` runs on the source connection's queue after each step: keep it short.
  ///
  /// Related SQLite documentation: <https://sqlite.org/backup.html>
  public func backup(
    to destination: some DatabaseWriter, sourceSchema: String = "main", destinationSchema: String = "main",
    pagesPerStep: Int = -1, busyPause: Double = 0.01,
    progress: (@Sendable (BackupProgress) throws -> Bool)? = nil
  ) async throws {
    if (destination as AnyObject) === self { throw ConcurrencyError.reentrantAccess }
    // The read runs on a dispatch queue, outside the task: a cancellation reaches it as an interrupt of
    // the source connection, which the backup checks between steps.
    try await read { source in
      try destination.sync { target in
        try source.backup(
          to: target, sourceSchema: sourceSchema, destinationSchema: destinationSchema,
          pagesPerStep: pagesPerStep, busyPause: busyPause, progress: progress)
      }
    }
  }
}
