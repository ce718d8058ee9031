import AmalgamSQLite

/// The transaction state of a schema of a connection (`sqlite3_txn_state`).
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/txn_state.html>
public enum TransactionState: Sendable, Hashable, Comparable {
  /// No transaction is open on the schema (`SQLITE_TXN_NONE`).
  case none
  /// A read transaction is open: the schema has been read but not written (`SQLITE_TXN_READ`).
  case read
  /// A write transaction is open: the schema has been written (`SQLITE_TXN_WRITE`).
  case write
}

extension Database {
  /// The transaction state of the schema `schema` (`"main"`, `"temp"`, an attached name), or of the most
  /// advanced of all schemas when `schema` is `nil` (`sqlite3_txn_state`).
  ///
  /// ```swift
  /// try db.execute(sql: "BEGIN")
  /// _ = try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
  /// // db.transactionState() == .read
  /// ```
  ///
  /// - Throws: ``DatabaseError/databaseClosed``; ``SQLiteError`` with code ``ResultCode/error`` for a
  ///   schema that does not exist.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/txn_state.html>
  public func transactionState(schema: String? = nil) throws -> TransactionState {
    let state = sqlite3_txn_state(try sqliteHandle, schema)
    switch state {
    case SQLITE_TXN_NONE: return .none
    case SQLITE_TXN_READ: return .read
    case SQLITE_TXN_WRITE: return .write
    default:
      throw SQLiteError(code: .error, message: "No database schema named \"\(schema ?? "")\"")
    }
  }

  /// The names of the connection's schemas, in order: `"main"`, `"temp"`, then the attached databases
  /// (`sqlite3_db_name`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_name.html>
  public var schemaNames: [String] {
    guard let openHandle else { return [] }
    var names: [String] = []
    var index: Int32 = 0
    while let name = sqlite3_db_name(openHandle, index) {
      names.append(String(cString: name))
      index += 1
    }
    return names
  }

  /// Writes the dirty pages of every schema's page cache to disk without committing
  /// (`sqlite3_db_cacheflush`), freeing memory held by a large open write transaction.
  ///
  /// - Throws: ``SQLiteError`` (``ResultCode/busy`` when another connection's lock prevents it).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_cacheflush.html>
  public func flushCache() throws {
    try check(try connection.withHandle { sqlite3_db_cacheflush($0) })
  }

  /// Frees as much memory as possible from this connection's caches (`sqlite3_db_release_memory`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_release_memory.html>
  public func releaseMemory() throws {
    try check(try connection.withHandle { sqlite3_db_release_memory($0) })
  }
}

extension SQLite {
  /// Asks SQLite to free up to `bytes` bytes of heap memory held by caches of every connection
  /// (`sqlite3_release_memory`); returns the number of bytes freed. Frees nothing unless SQLite is
  /// compiled with `SQLITE_ENABLE_MEMORY_MANAGEMENT`, which no trait sets: use
  /// ``Database/releaseMemory()`` for one connection.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/release_memory.html>
  @discardableResult
  public static func releaseMemory(_ bytes: Int) -> Int {
    Int(sqlite3_release_memory(Int32(clamping: bytes)))
  }

  /// The soft heap limit in bytes (`sqlite3_soft_heap_limit64`): above it SQLite frees cache memory
  /// before allocating more. 0 means no limit. Process-wide.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/hard_heap_limit64.html>
  public static var softHeapLimit: Int64 {
    get { sqlite3_soft_heap_limit64(-1) }
    set { sqlite3_soft_heap_limit64(max(newValue, 0)) }
  }

  /// The hard heap limit in bytes (`sqlite3_hard_heap_limit64`): an allocation that would exceed it
  /// fails with `SQLITE_NOMEM`. 0 means no limit. Process-wide.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/hard_heap_limit64.html>
  public static var hardHeapLimit: Int64 {
    get { sqlite3_hard_heap_limit64(-1) }
    set { sqlite3_hard_heap_limit64(max(newValue, 0)) }
  }

  /// `count` bytes from SQLite's pseudo-random number generator (`sqlite3_randomness`), the one that
  /// `random()` and `randomblob()` use. Not for cryptography.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/randomness.html>
  public static func randomBytes(count: Int) -> [UInt8] {
    let count = max(count, 0)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { sqlite3_randomness(Int32(clamping: buffer.count), base) }
    }
    return bytes
  }
}

extension Database {
  /// The value of the query parameter `name` of the URI the schema was opened with
  /// (`file:data.db?cache=private&mode=ro`), or `nil` when it has none (`sqlite3_uri_parameter`).
  /// A parameter without `=value` reads as an empty string.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/uri_boolean.html>
  public func uriParameter(_ name: String, schema: String = "main") -> String? {
    guard let openHandle, let file = sqlite3_db_filename(openHandle, schema),
      let value = sqlite3_uri_parameter(file, name)
    else { return nil }
    return String(cString: value)
  }

  /// The query parameter `name` read as a boolean (`sqlite3_uri_boolean`): `1`, `yes`, `true`, `on` are
  /// true, `0`, `no`, `false`, `off` false; `defaultValue` when it is absent or anything else.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/uri_boolean.html>
  public func uriBoolean(_ name: String, default defaultValue: Bool, schema: String = "main") -> Bool {
    guard let openHandle, let file = sqlite3_db_filename(openHandle, schema) else { return defaultValue }
    return sqlite3_uri_boolean(file, name, defaultValue ? 1 : 0) != 0
  }

  /// The query parameter `name` read as a 64-bit integer (`sqlite3_uri_int64`); `defaultValue` when it
  /// is absent or not an integer.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/uri_boolean.html>
  public func uriInteger(_ name: String, default defaultValue: Int64, schema: String = "main") -> Int64 {
    guard let openHandle, let file = sqlite3_db_filename(openHandle, schema) else { return defaultValue }
    return sqlite3_uri_int64(file, name, defaultValue)
  }

  /// The names of the URI's query parameters, in order (`sqlite3_uri_key`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/uri_boolean.html>
  public func uriParameterNames(schema: String = "main") -> [String] {
    guard let openHandle, let file = sqlite3_db_filename(openHandle, schema) else { return [] }
    var names: [String] = []
    var index: Int32 = 0
    while let key = sqlite3_uri_key(file, index) {
      names.append(String(cString: key))
      index += 1
    }
    return names
  }
}
