import AmalgamSQLite

/// A status counter's current value and its highest value since it was last reset.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/status.html>
public struct StatusValue: Sendable, Hashable {
  /// The current value.
  public var current: Int
  /// The highest value since the counter was last reset. Some counters keep no high-water mark and
  /// report 0 here; others report only a high-water mark (their documentation says which).
  public var highwater: Int

  /// Creates a status value from its parts.
  public init(current: Int, highwater: Int) {
    self.current = current
    self.highwater = highwater
  }
}

/// A status counter of one connection (`SQLITE_DBSTATUS_*`): memory used by its caches, schema and
/// statements, page-cache hits and misses, lookaside use. Read with ``Database/status(_:reset:)``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbstatus_options.html>
public enum DatabaseStatus: Int32, CaseIterable, Sendable, Hashable {
  /// Lookaside slots in use (`SQLITE_DBSTATUS_LOOKASIDE_USED`).
  case lookasideUsed = 0
  /// Bytes of heap used by the page caches (`SQLITE_DBSTATUS_CACHE_USED`; no high-water mark).
  case cacheUsed = 1
  /// Bytes of heap used by the schemas (`SQLITE_DBSTATUS_SCHEMA_USED`; no high-water mark).
  case schemaUsed = 2
  /// Bytes of heap and lookaside used by prepared statements (`SQLITE_DBSTATUS_STMT_USED`; no
  /// high-water mark).
  case statementUsed = 3
  /// Allocations served from lookaside memory (`SQLITE_DBSTATUS_LOOKASIDE_HIT`; high-water mark only).
  case lookasideHit = 4
  /// Allocations too large for lookaside (`SQLITE_DBSTATUS_LOOKASIDE_MISS_SIZE`; high-water mark only).
  case lookasideMissSize = 5
  /// Allocations that found lookaside full (`SQLITE_DBSTATUS_LOOKASIDE_MISS_FULL`; high-water mark only).
  case lookasideMissFull = 6
  /// Page-cache hits (`SQLITE_DBSTATUS_CACHE_HIT`).
  case cacheHit = 7
  /// Page-cache misses (`SQLITE_DBSTATUS_CACHE_MISS`).
  case cacheMiss = 8
  /// Pages written to disk, to the WAL in WAL mode (`SQLITE_DBSTATUS_CACHE_WRITE`).
  case cacheWrite = 9
  /// Zero when every foreign-key constraint is satisfied, non-zero while deferred ones are not
  /// (`SQLITE_DBSTATUS_DEFERRED_FKS`).
  case deferredForeignKeys = 10
  /// As ``cacheUsed``, with a cache shared between connections divided among them
  /// (`SQLITE_DBSTATUS_CACHE_USED_SHARED`).
  case cacheUsedShared = 11
  /// Pages written to disk in the middle of a transaction because the cache was full
  /// (`SQLITE_DBSTATUS_CACHE_SPILL`).
  case cacheSpill = 12
  /// Bytes written to temporary files that could have stayed in memory
  /// (`SQLITE_DBSTATUS_TEMPBUF_SPILL`).
  case temporaryBufferSpill = 13
}

/// A process-wide status counter of SQLite (`SQLITE_STATUS_*`): memory and page-cache use. Read with
/// ``SQLite/status(_:reset:)``.
///
/// The memory counters need memory statistics, which the `DEFAULT_MEMSTATUS_0` trait (on by
/// default, for speed) turns off: they then read 0.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_status_malloc_count.html>
public enum SQLiteStatus: Int32, CaseIterable, Sendable, Hashable {
  /// Bytes of memory allocated by SQLite (`SQLITE_STATUS_MEMORY_USED`).
  case memoryUsed = 0
  /// Pages used in the page-cache memory given with `SQLITE_CONFIG_PAGECACHE`
  /// (`SQLITE_STATUS_PAGECACHE_USED`).
  case pageCacheUsed = 1
  /// Bytes of page-cache allocations that did not fit that memory (`SQLITE_STATUS_PAGECACHE_OVERFLOW`).
  case pageCacheOverflow = 2
  /// The largest allocation requested, in bytes (`SQLITE_STATUS_MALLOC_SIZE`; high-water mark only).
  case mallocSize = 5
  /// The deepest parser stack (`SQLITE_STATUS_PARSER_STACK`; only in builds with parser tracking).
  case parserStack = 6
  /// The largest page-cache allocation, in bytes (`SQLITE_STATUS_PAGECACHE_SIZE`; high-water mark only).
  case pageCacheSize = 7
  /// Separate memory allocations outstanding (`SQLITE_STATUS_MALLOC_COUNT`).
  case mallocCount = 9
}

extension Database {
  /// A status counter of this connection (`sqlite3_db_status64`).
  ///
  /// ```swift
  /// let cache = try db.status(.cacheUsed).current              // bytes
  /// let hits = try db.status(.cacheHit, reset: true).current   // then start counting again
  /// ```
  ///
  /// - Parameters:
  ///   - counter: the counter to read.
  ///   - reset: set the counter (or its high-water mark) back to its current value afterwards,
  ///     as SQLite documents for each counter.
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_status.html>
  public func status(_ counter: DatabaseStatus, reset: Bool = false) throws -> StatusValue {
    var current: Int64 = 0
    var highwater: Int64 = 0
    let rc = try connection.withHandle {
      sqlite3_db_status64($0, counter.rawValue, &current, &highwater, reset ? 1 : 0)
    }
    try check(rc)
    return StatusValue(current: Int(current), highwater: Int(highwater))
  }
}

extension SQLite {
  /// A process-wide status counter of SQLite (`sqlite3_status64`).
  ///
  /// ```swift
  /// let largest = try SQLite.status(.mallocSize).highwater
  /// ```
  ///
  /// - Parameters:
  ///   - counter: the counter to read.
  ///   - reset: set the high-water mark back to the current value afterwards.
  /// - Throws: ``SQLiteError`` if SQLite does not know the counter.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/status.html>
  public static func status(_ counter: SQLiteStatus, reset: Bool = false) throws -> StatusValue {
    var current: Int64 = 0
    var highwater: Int64 = 0
    let rc = sqlite3_status64(counter.rawValue, &current, &highwater, reset ? 1 : 0)
    guard rc == SQLITE_OK else { throw SQLiteError(code: ResultCode(rawValue: rc)) }
    return StatusValue(current: Int(current), highwater: Int(highwater))
  }
}
