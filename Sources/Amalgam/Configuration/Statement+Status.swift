import AmalgamSQLite

/// A performance counter of a prepared statement (`SQLITE_STMTSTATUS_*`). Read with
/// ``Statement/status(_:reset:)``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_stmtstatus_counter.html>
public enum StatementStatus: Int32, CaseIterable, Sendable, Hashable {
  /// Steps forward in a full table scan (`SQLITE_STMTSTATUS_FULLSCAN_STEP`). A large number suggests a
  /// missing index.
  case fullscanStep = 1
  /// Sort operations (`SQLITE_STMTSTATUS_SORT`). A non-zero value suggests an index could avoid the sort.
  case sort = 2
  /// Rows inserted into automatic indexes (`SQLITE_STMTSTATUS_AUTOINDEX`). A non-zero value suggests a
  /// permanent index would help.
  case autoindex = 3
  /// Virtual-machine operations run (`SQLITE_STMTSTATUS_VM_STEP`): the work the statement did.
  /// Undefined beyond `Int32.max`.
  case vmStep = 4
  /// Times the statement was prepared again after a schema change, or because a bound value could
  /// change its plan (`SQLITE_STMTSTATUS_REPREPARE`).
  case reprepare = 5
  /// Times the statement ran: each cycle of one or more steps then a reset counts once
  /// (`SQLITE_STMTSTATUS_RUN`).
  case run = 6
  /// Times a Bloom filter found a row, so the join step ran as usual (`SQLITE_STMTSTATUS_FILTER_MISS`;
  /// SQLite's names for this counter and the next are the reverse of what one might guess).
  case filterMiss = 7
  /// Times a join step was skipped because a Bloom filter found no row (`SQLITE_STMTSTATUS_FILTER_HIT`).
  case filterHit = 8
  /// Bytes of heap used by the statement (`SQLITE_STMTSTATUS_MEMUSED`; not a counter, never reset).
  case memoryUsed = 99
}

extension Statement {
  /// A performance counter of this statement (`sqlite3_stmt_status`).
  ///
  /// ```swift
  /// let statement = try db.prepare(sql: "SELECT * FROM person WHERE email = ?")
  /// try statement.bind(parameterValues: ["ada@example.com"]).execute()
  /// if statement.status(.fullscanStep) > 0 { print("consider an index on email") }
  /// ```
  ///
  /// - Parameters:
  ///   - counter: the counter to read.
  ///   - reset: set the counter back to zero afterwards.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_status.html>
  public func status(_ counter: StatementStatus, reset: Bool = false) -> Int {
    Int(sqlite3_stmt_status(sqliteHandle, counter.rawValue, reset ? 1 : 0))
  }
}
