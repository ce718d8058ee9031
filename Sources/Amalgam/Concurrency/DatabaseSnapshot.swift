#if ENABLE_SNAPSHOT
  import AmalgamSQLite

  /// A recorded state of a WAL database (`sqlite3_snapshot`): a read transaction can be opened on it
  /// later, from any connection to the same file, to see the database exactly as it was then.
  ///
  /// ```swift
  /// let snapshot = try pool.read { db in try db.takeSnapshot() }
  /// try await pool.write { db in try db.execute(sql: "DELETE FROM note") }
  /// let countThen = try pool.read(at: snapshot) { db in
  ///   try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
  /// }
  /// ```
  ///
  /// Snapshots compare by age (`sqlite3_snapshot_cmp`): `older < newer`, and equal snapshots record the
  /// same commit. Only snapshots of the same database file compare meaningfully, and only while the
  /// WAL file they were taken from exists.
  ///
  /// A snapshot stays openable until a checkpoint copies later commits over it into the database file;
  /// opening it then fails with ``ResultCode/errorSnapshot``. A read transaction open on the snapshot
  /// (``DatabaseReadQueue/beginReadTransaction(at:)``, or the one `takeSnapshot` ran in) keeps it
  /// valid while it lasts. Needs the `ENABLE_SNAPSHOT` trait (on by default).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot.html>
  public final class DatabaseSnapshot: Comparable, @unchecked Sendable {
    // @unchecked Sendable: the sqlite3_snapshot is never modified after sqlite3_snapshot_get fills it;
    // SQLite only reads it (sqlite3_snapshot_open, sqlite3_snapshot_cmp) until deinit frees it.
    let pointer: UnsafeMutablePointer<sqlite3_snapshot>

    fileprivate init(pointer: UnsafeMutablePointer<sqlite3_snapshot>) {
      self.pointer = pointer
    }

    deinit {
      sqlite3_snapshot_free(pointer)
    }

    /// True when both snapshots record the same commit (`sqlite3_snapshot_cmp` is 0).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_cmp.html>
    public static func == (lhs: DatabaseSnapshot, rhs: DatabaseSnapshot) -> Bool {
      sqlite3_snapshot_cmp(lhs.pointer, rhs.pointer) == 0
    }

    /// True when `lhs` records an older state than `rhs` (`sqlite3_snapshot_cmp` is negative).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_cmp.html>
    public static func < (lhs: DatabaseSnapshot, rhs: DatabaseSnapshot) -> Bool {
      sqlite3_snapshot_cmp(lhs.pointer, rhs.pointer) < 0
    }
  }

  extension ResultCode {
    /// `SQLITE_ERROR_SNAPSHOT`: the snapshot can no longer be opened, a checkpoint overwrote it.
    public static let errorSnapshot = ResultCode(rawValue: SQLITE_ERROR | (3 << 8))
  }

  extension Database {
    /// Records the state that the open transaction reads (`sqlite3_snapshot_get`).
    ///
    /// Call it inside a transaction: in a `read { }` closure, or after `begin()`. If the transaction has
    /// not read yet, this starts its read, so the snapshot is the latest commit.
    ///
    /// ```swift
    /// let snapshot = try pool.read { db in try db.takeSnapshot() }
    /// ```
    ///
    /// - Parameter schema: `"main"`, or the name of an attached database.
    /// - Throws: ``DatabaseError/transactionState(_:)`` outside a transaction; ``SQLiteError``
    ///   (`SQLITE_ERROR`) when the database is not in WAL mode, this connection has written in the
    ///   transaction, or no transaction was ever written to the current WAL file.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_get.html>
    public func takeSnapshot(schema: String = "main") throws -> DatabaseSnapshot {
      guard !isInAutocommitMode else {
        throw DatabaseError.transactionState(
          "takeSnapshot() needs an open transaction: call it inside read { } or after begin()")
      }
      var snapshot: UnsafeMutablePointer<sqlite3_snapshot>?
      let rc = try connection.withHandle { sqlite3_snapshot_get($0, schema, &snapshot) }
      guard rc == SQLITE_OK, let snapshot else {
        throw SQLiteError(
          code: ResultCode(rawValue: rc == SQLITE_OK ? SQLITE_ERROR : rc),
          message: "Cannot take a snapshot of \"\(schema)\": it must be a WAL database with at least one "
            + "commit in its WAL file, in a transaction that has not written (\(ResultCode(rawValue: rc)))")
      }
      return DatabaseSnapshot(pointer: snapshot)
    }

    /// Moves the open transaction to `snapshot` (`sqlite3_snapshot_open`): its reads see the database as
    /// it was when the snapshot was taken.
    ///
    /// Call it right after `begin()`, before the transaction reads; the pools and read queues do this
    /// for you in `read(at:)`.
    ///
    /// - Throws: ``SQLiteError`` with ``ResultCode/errorSnapshot`` when a checkpoint has overwritten the
    ///   snapshot, or `SQLITE_ERROR` outside a transaction or while a statement is running.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func openSnapshot(_ snapshot: DatabaseSnapshot, schema: String = "main") throws {
      let rc = try connection.withHandle { sqlite3_snapshot_open($0, schema, snapshot.pointer) }
      try check(rc)
    }
  }
#endif
