#if ENABLE_STMT_SCANSTATUS
  import AmalgamSQLite

  /// What one element of a statement's query plan did when the statement ran: how often its loop ran,
  /// how many rows it visited, and what the planner expected (trait `ENABLE_STMT_SCANSTATUS`). Read with
  /// ``Statement/scanStatus(allElements:)``.
  ///
  /// The counters are those of the runs since the statement was prepared or since
  /// ``Statement/resetScanStatus()``. A counter SQLite does not keep for an element is `nil`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_scanstatus.html>
  public struct ScanStatus: Sendable, Hashable {
    /// The element's id, unique within the statement: the first column of `EXPLAIN QUERY PLAN`
    /// (`SQLITE_SCANSTAT_SELECTID`).
    public var id: Int
    /// The id of the element this one is part of, or 0 for a top-level element: the second column of
    /// `EXPLAIN QUERY PLAN` (`SQLITE_SCANSTAT_PARENTID`).
    public var parentID: Int
    /// The table or index the loop reads (`SQLITE_SCANSTAT_NAME`); `nil` for an element that reads none.
    public var name: String?
    /// The element's `EXPLAIN QUERY PLAN` text, such as `SCAN t` or `SEARCH t USING INDEX t_x (x=?)`
    /// (`SQLITE_SCANSTAT_EXPLAIN`).
    public var explanation: String?
    /// How many times the loop started (`SQLITE_SCANSTAT_NLOOP`).
    public var loopCount: Int64?
    /// How many rows the loop visited over all its runs (`SQLITE_SCANSTAT_NVISIT`).
    public var visitedRowCount: Int64?
    /// The planner's estimate of the rows each run of the loop outputs (`SQLITE_SCANSTAT_EST`). When the
    /// estimate is right, it is close to ``visitedRowCount`` / ``loopCount``.
    public var estimatedRowCount: Double?
    /// Processor cycles spent in the element, by the time-stamp counter (`SQLITE_SCANSTAT_NCYCLE`);
    /// `nil` where SQLite does not measure them (most elements, and most processors).
    public var cycleCount: Int64?

    /// Creates an entry; ``Statement/scanStatus(allElements:)`` makes them.
    public init(
      id: Int, parentID: Int, name: String?, explanation: String?, loopCount: Int64?, visitedRowCount: Int64?,
      estimatedRowCount: Double?, cycleCount: Int64?
    ) {
      self.id = id
      self.parentID = parentID
      self.name = name
      self.explanation = explanation
      self.loopCount = loopCount
      self.visitedRowCount = visitedRowCount
      self.estimatedRowCount = estimatedRowCount
      self.cycleCount = cycleCount
    }
  }

  extension Statement {
    /// What each loop of the statement's query plan did in the runs so far (`sqlite3_stmt_scanstatus_v2`,
    /// trait `ENABLE_STMT_SCANSTATUS`): compare ``ScanStatus/visitedRowCount`` with the planner's
    /// ``ScanStatus/estimatedRowCount`` to find a plan built on wrong statistics, or a full scan that
    /// visits far more rows than it returns.
    ///
    /// ```swift
    /// let statement = try db.prepare(sql: "SELECT * FROM t WHERE x > 10")
    /// try statement.execute()
    /// for loop in statement.scanStatus() {
    ///   print(loop.explanation ?? "?", loop.loopCount ?? 0, loop.visitedRowCount ?? 0)
    /// }
    /// ```
    ///
    /// - Parameter allElements: `false` (the default) for the loops only (the `SCAN` and `SEARCH` lines
    ///   of `EXPLAIN QUERY PLAN`); `true` for every element of the plan, such as sorters and subqueries
    ///   (`SQLITE_SCANSTAT_COMPLEX`).
    /// - Returns: one entry per element, in plan order; empty for a statement that has no loop.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_scanstatus.html>
    public func scanStatus(allElements: Bool = false) -> [ScanStatus] {
      let flags = allElements ? SQLITE_SCANSTAT_COMPLEX : 0
      var entries: [ScanStatus] = []
      var index: Int32 = 0
      while true {
        var id: Int32 = 0
        // A non-zero result means the index is past the last element.
        guard sqlite3_stmt_scanstatus_v2(sqliteHandle, index, SQLITE_SCANSTAT_SELECTID, flags, &id) == 0 else {
          break
        }
        var parentID: Int32 = 0
        _ = sqlite3_stmt_scanstatus_v2(sqliteHandle, index, SQLITE_SCANSTAT_PARENTID, flags, &parentID)
        entries.append(
          ScanStatus(
            id: Int(id), parentID: Int(parentID),
            name: text(index, SQLITE_SCANSTAT_NAME, flags), explanation: text(index, SQLITE_SCANSTAT_EXPLAIN, flags),
            loopCount: counter(index, SQLITE_SCANSTAT_NLOOP, flags),
            visitedRowCount: counter(index, SQLITE_SCANSTAT_NVISIT, flags),
            estimatedRowCount: estimate(index, flags), cycleCount: counter(index, SQLITE_SCANSTAT_NCYCLE, flags)))
        index += 1
      }
      return entries
    }

    /// Sets the counters that ``scanStatus(allElements:)`` reads back to zero
    /// (`sqlite3_stmt_scanstatus_reset`, trait `ENABLE_STMT_SCANSTATUS`), to measure the next runs alone.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_scanstatus_reset.html>
    public func resetScanStatus() {
      sqlite3_stmt_scanstatus_reset(sqliteHandle)
    }

    /// A 64-bit scan-status counter; `nil` when SQLite reports it unavailable (-1) or fails.
    private func counter(_ index: Int32, _ operation: Int32, _ flags: Int32) -> Int64? {
      var value: Int64 = -1
      guard sqlite3_stmt_scanstatus_v2(sqliteHandle, index, operation, flags, &value) == 0, value >= 0 else {
        return nil
      }
      return value
    }

    /// The planner's row estimate; `nil` when SQLite reports it unavailable.
    private func estimate(_ index: Int32, _ flags: Int32) -> Double? {
      var value: Double = -1
      guard sqlite3_stmt_scanstatus_v2(sqliteHandle, index, SQLITE_SCANSTAT_EST, flags, &value) == 0, value >= 0
      else { return nil }
      return value
    }

    /// A scan-status string, copied out of the statement (which owns it).
    private func text(_ index: Int32, _ operation: Int32, _ flags: Int32) -> String? {
      var value: UnsafePointer<CChar>?
      guard sqlite3_stmt_scanstatus_v2(sqliteHandle, index, operation, flags, &value) == 0, let value else {
        return nil
      }
      return String(cString: value)
    }
  }
#endif
