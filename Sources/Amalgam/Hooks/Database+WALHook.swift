import AmalgamSQLite

extension Database {
  /// Calls `hook` after each transaction commits to a database in WAL mode, with the schema written
  /// (`"main"` or an attached database's name) and the number of pages now in its write-ahead log.
  ///
  /// ```swift
  /// try db.setWALHook { databaseName, pageCount in
  ///   if pageCount > 2_000 { checkpointSoon(databaseName) }
  /// }
  /// ```
  ///
  /// **Registering a WAL hook turns off automatic checkpointing**: SQLite's automatic checkpoint is
  /// itself a WAL hook, which this one replaces. Without checkpoints, the write-ahead log grows without
  /// bound, so run `PRAGMA wal_checkpoint` (from the hook or elsewhere) yourself. ``removeWALHook()``
  /// restores automatic checkpointing; `PRAGMA wal_autocheckpoint = N` also does, but it silently
  /// replaces this hook.
  ///
  /// The hook runs after the commit has released its lock, so it may use the database, for example to
  /// checkpoint. Registering again replaces the previous closure, which is released, as it is by
  /// ``removeWALHook()`` and when the database closes.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_hook.html>
  public func setWALHook(_ hook: @escaping (_ databaseName: String, _ pageCount: Int) -> Void) throws {
    try installHook(HookBox(hook), in: .wal) { handle, userData in
      sqlite3_wal_hook(
        handle,
        { userData, _, databaseName, pageCount in
          guard let userData else { return SQLITE_OK }
          HookBox<(String, Int) -> Void>.from(userData).callback(hookString(databaseName) ?? "", Int(pageCount))
          return SQLITE_OK
        }, userData)
    }
  }

  /// Removes the hook registered with ``setWALHook(_:)``, releases its closure, and turns automatic
  /// checkpointing back on at SQLite's default of 1000 pages (`sqlite3_wal_autocheckpoint`), except on a
  /// connection whose checkpoints are left to a replication tool (``WALCheckpointing/leftToReplicator``),
  /// which stays without automatic checkpoints.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_autocheckpoint.html>
  public func removeWALHook() throws {
    try installHook(HookBox<(String, Int) -> Void>?.none, in: .wal) { handle, _ in
      if checkpointsLeftToReplicator {
        sqlite3_wal_hook(handle, nil, nil)
      } else {
        sqlite3_wal_autocheckpoint(handle, 1000)
      }
    }
  }
}
