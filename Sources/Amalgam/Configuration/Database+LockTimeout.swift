#if ENABLE_SETLK_TIMEOUT
  import AmalgamSQLite

  extension Database {
    /// How long a lock on a WAL database waits for another process to release it, in seconds, with the
    /// operating system's blocking locks (`sqlite3_setlk_timeout`, trait `ENABLE_SETLK_TIMEOUT`).
    ///
    /// A busy timeout (``setBusyTimeout(_:)``) polls: it sleeps and retries, so a waiting connection may
    /// miss the moment the lock is free and, under contention, wait far longer than needed. A blocking
    /// lock is handed over as soon as its holder releases it. SQLite uses blocking locks for WAL
    /// databases only, on a connection that has already read the database, and only where the VFS
    /// implements them: SQLite's Windows VFS does; its `unix` VFS (Linux, macOS) in this version of
    /// SQLite does not wait (its blocking call is a placeholder), so there a lock that is taken fails with
    /// ``ResultCode/busy`` and the busy timeout, if any, retries as usual. A custom VFS may implement
    /// blocking locks through `SQLITE_FCNTL_LOCK_TIMEOUT`.
    ///
    /// ```swift
    /// try db.setBusyTimeout(5)       // rollback-journal databases, and the fallback
    /// try db.setLockTimeout(5)       // WAL databases: blocking locks
    /// ```
    ///
    /// ``setBusyTimeout(_:)`` sets both timeouts: call this one after it to give them different values.
    ///
    /// - Parameters:
    ///   - seconds: the longest wait, rounded up to whole milliseconds; zero or less (or NaN) turns
    ///     blocking locks off; `.infinity` waits for as long as the operating system allows.
    ///   - blockOnConnect: also wait, rather than fail with ``ResultCode/busy``, when a new connection
    ///     opens a WAL database while the last connection of another process is checkpointing and deleting
    ///     the WAL file on close (`SQLITE_SETLK_BLOCK_ON_CONNECT`).
    /// - Throws: ``DatabaseError/databaseClosed``, or SQLite's error.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/setlk_timeout.html>
    public func setLockTimeout(_ seconds: Double, blockOnConnect: Bool = false) throws {
      let milliseconds: Int32
      if seconds == .infinity {
        milliseconds = -1
      } else if seconds.isNaN || seconds <= 0 {
        milliseconds = 0
      } else if seconds * 1000 >= Double(Int32.max) {
        milliseconds = Int32.max
      } else {
        milliseconds = Int32((seconds * 1000).rounded(.up))
      }
      let flags = blockOnConnect ? SQLITE_SETLK_BLOCK_ON_CONNECT : 0
      let rc = try connection.withHandle { handle in sqlite3_setlk_timeout(handle, milliseconds, flags) }
      try check(rc)
    }
  }
#endif
