import AmalgamSQLite

/// File controls: settings and facts of the file that holds one schema, passed to its VFS
/// (`sqlite3_file_control`).
///
/// Each method takes the schema (`"main"`, `"temp"` or an attached name) whose file it addresses. A
/// failure throws an ``SQLiteError``: ``ResultCode/error`` for a schema that is not open, and
/// ``ResultCode/notFound`` when the file's VFS does not know the control (an in-memory database has no
/// file, so most controls are not found there). The connection's own error (`sqlite3_errmsg`) reports
/// the same message (`sqlite3_set_errmsg`), for code that reads it through ``sqliteHandle``.
extension Database {
  /// Whether the WAL and shared-memory files stay on disk when the last connection closes
  /// (`SQLITE_FCNTL_PERSIST_WAL`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlpersistwal>
  public func isWALPersistent(schema: String = "main") throws -> Bool {
    var value: Int32 = -1
    try fileControl(SQLITE_FCNTL_PERSIST_WAL, "SQLITE_FCNTL_PERSIST_WAL", schema: schema, &value)
    return value != 0
  }

  /// Keeps the WAL and shared-memory files on disk when the last connection closes, or deletes them
  /// (the default) (`SQLITE_FCNTL_PERSIST_WAL`). Keeping them lets processes that cannot write to the
  /// database's directory read a WAL database.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlpersistwal>
  public func setWALPersistent(_ persistent: Bool, schema: String = "main") throws {
    var value: Int32 = persistent ? 1 : 0
    try fileControl(SQLITE_FCNTL_PERSIST_WAL, "SQLITE_FCNTL_PERSIST_WAL", schema: schema, &value)
  }

  /// Whether the file system is taken to be "powersafe overwrite": a power loss while writing one
  /// sector leaves the other sectors intact (`SQLITE_FCNTL_POWERSAFE_OVERWRITE`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/psow.html>
  public func isPowersafeOverwrite(schema: String = "main") throws -> Bool {
    var value: Int32 = -1
    try fileControl(SQLITE_FCNTL_POWERSAFE_OVERWRITE, "SQLITE_FCNTL_POWERSAFE_OVERWRITE", schema: schema, &value)
    return value != 0
  }

  /// Sets whether the file system is taken to be "powersafe overwrite"
  /// (`SQLITE_FCNTL_POWERSAFE_OVERWRITE`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/psow.html>
  public func setPowersafeOverwrite(_ powersafe: Bool, schema: String = "main") throws {
    var value: Int32 = powersafe ? 1 : 0
    try fileControl(SQLITE_FCNTL_POWERSAFE_OVERWRITE, "SQLITE_FCNTL_POWERSAFE_OVERWRITE", schema: schema, &value)
  }

  /// Makes the file grow and shrink in steps of `bytes` (`SQLITE_FCNTL_CHUNK_SIZE`): fewer, larger
  /// allocations, less fragmentation for a database that grows steadily. Zero or less goes back to
  /// growing page by page.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlchunksize>
  public func setChunkSize(_ bytes: Int, schema: String = "main") throws {
    var value = Int32(clamping: Swift.max(bytes, 0))
    try fileControl(SQLITE_FCNTL_CHUNK_SIZE, "SQLITE_FCNTL_CHUNK_SIZE", schema: schema, &value)
  }

  /// Tells the VFS how large the file is about to grow, so that it may allocate the space at once
  /// (`SQLITE_FCNTL_SIZE_HINT`): before a large import, for example.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlsizehint>
  public func setSizeHint(_ bytes: Int64, schema: String = "main") throws {
    var value = bytes
    try fileControl(SQLITE_FCNTL_SIZE_HINT, "SQLITE_FCNTL_SIZE_HINT", schema: schema, &value)
  }

  /// A number that changes whenever the schema's file changes, by this connection or any other,
  /// including other processes (`SQLITE_FCNTL_DATA_VERSION`). Compare two readings to tell whether
  /// cached query results are stale. Unlike `PRAGMA data_version`, it also changes for this
  /// connection's own writes.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntldataversion>
  public func dataVersion(schema: String = "main") throws -> UInt32 {
    var value: UInt32 = 0
    try fileControl(SQLITE_FCNTL_DATA_VERSION, "SQLITE_FCNTL_DATA_VERSION", schema: schema, &value)
    return value
  }

  /// The bytes at the end of each page that SQLite leaves for extensions such as checksums or
  /// encryption (`SQLITE_FCNTL_RESERVE_BYTES`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html>
  public func reservedBytesPerPage(schema: String = "main") throws -> Int {
    var value: Int32 = -1
    try fileControl(SQLITE_FCNTL_RESERVE_BYTES, "SQLITE_FCNTL_RESERVE_BYTES", schema: schema, &value)
    return Int(value)
  }

  /// Asks for `bytes` (0 through 255) at the end of each page to be left for extensions
  /// (`SQLITE_FCNTL_RESERVE_BYTES`). It takes effect when the database is created or rebuilt by `VACUUM`.
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/range`` for a value outside 0 through 255.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html>
  public func setReservedBytesPerPage(_ bytes: Int, schema: String = "main") throws {
    guard (0...255).contains(bytes) else {
      throw SQLiteError(code: .range, message: "A page reserves 0 through 255 bytes, not \(bytes)")
    }
    var value = Int32(bytes)
    try fileControl(SQLITE_FCNTL_RESERVE_BYTES, "SQLITE_FCNTL_RESERVE_BYTES", schema: schema, &value)
  }

  /// The names of the VFS stack that opened the schema's file, outermost first, separated by `/`
  /// (`SQLITE_FCNTL_VFSNAME`): `"unix"` for an ordinary file on Linux or macOS.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlvfsname>
  public func vfsName(schema: String = "main") throws -> String {
    var name: UnsafeMutablePointer<CChar>?
    try fileControl(SQLITE_FCNTL_VFSNAME, "SQLITE_FCNTL_VFSNAME", schema: schema, &name)
    return takeSQLiteString(name) ?? ""
  }

  /// Whether the schema's file was renamed or deleted since it was opened (`SQLITE_FCNTL_HAS_MOVED`):
  /// writes would then go to a file that no path names.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntlhasmoved>
  public func fileHasMoved(schema: String = "main") throws -> Bool {
    var value: Int32 = 0
    try fileControl(SQLITE_FCNTL_HAS_MOVED, "SQLITE_FCNTL_HAS_MOVED", schema: schema, &value)
    return value != 0
  }

  /// Sends any file control to the VFS of the schema's file (`sqlite3_file_control`), for the controls
  /// that have no method here or that a custom VFS defines.
  ///
  /// - Parameters:
  ///   - operation: the control's code (`SQLITE_FCNTL_...`).
  ///   - schema: the schema whose file receives it.
  ///   - argument: what the control reads or writes: it must point to the type and size the control
  ///     expects, for as long as the call runs; a wrong one is undefined behaviour.
  /// - Throws: as the other file controls: ``ResultCode/error`` for a schema that is not open,
  ///   ``ResultCode/notFound`` when the VFS does not know the control, or the control's own error.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/file_control.html>
  public func unsafeFileControl(_ operation: Int32, schema: String = "main", argument: UnsafeMutableRawPointer?)
    throws
  {
    try fileControl(operation, "file control \(operation)", schema: schema, argument)
  }

  /// Runs a file control; a failure sets the connection's error to a message that says what failed.
  private func fileControl(
    _ operation: Int32, _ name: @autoclosure () -> String, schema: String, _ argument: UnsafeMutableRawPointer?
  ) throws {
    let rc = try connection.withHandle { handle in
      let rc = sqlite3_file_control(handle, schema, operation, argument)
      if rc != SQLITE_OK {
        // sqlite3_file_control leaves the connection's message as it was: set one that fits.
        let message: String
        if rc == SQLITE_ERROR && sqlite3_db_filename(handle, schema) == nil {
          message = "No open database schema named \"\(schema)\""
        } else if rc == SQLITE_NOTFOUND {
          message = "The file of schema \"\(schema)\" does not support \(name())"
        } else {
          message = "\(name()) failed on schema \"\(schema)\": \(String(cString: sqlite3_errstr(rc)))"
        }
        sqlite3_set_errmsg(handle, rc, message)
      }
      return rc
    }
    try check(rc)
  }
}
