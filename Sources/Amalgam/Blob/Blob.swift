#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// An open BLOB: reads and writes one value of a table in place, at byte offsets, without loading it
/// whole (`sqlite3_blob`).
///
/// Store a large value in pieces by reserving its size with ``ZeroBlob`` (SQL `zeroblob(n)`) and
/// writing chunks into it, then read it back the same way:
///
/// ```swift
/// try db.execute(sql: "CREATE TABLE file(id INTEGER PRIMARY KEY, content BLOB)")
/// try db.execute(sql: "INSERT INTO file(content) VALUES (?)", parameterValues: [ZeroBlob(count: 1 << 20)])
/// let blob = try db.openBlob(table: "file", column: "content", rowid: db.lastInsertRowid, writable: true)
/// let chunk = [UInt8](repeating: 7, count: 65536)
/// for offset in stride(from: 0, to: blob.count, by: chunk.count) {
///   try blob.write(chunk, at: offset)
/// }
/// var buffer = [UInt8](repeating: 0, count: 65536)
/// try buffer.withUnsafeMutableBytes { try blob.read(into: $0, at: 0) }
/// try blob.close()
/// ```
///
/// A blob cannot change size: writes only replace bytes, and reads and writes past ``count`` throw.
/// When its row is changed or deleted by any statement, the blob expires: later reads and writes throw
/// ``SQLiteError`` with ``ResultCode/abort``, and so does ``reopen(rowid:)``; open a new blob to see
/// the row as it is now.
///
/// The blob keeps its connection's handle; closing the database makes its calls throw
/// ``DatabaseError/databaseClosed``. Like a ``Database``, it serves one thread at a time.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/blob.html>
///
/// ## Topics
///
/// ### Opening and closing
///
/// - ``Database/openBlob(schema:table:column:rowid:writable:)``
/// - ``reopen(rowid:)``
/// - ``close()``
/// - ``isOpen``
/// - ``isWritable``
///
/// ### Reading and writing
///
/// - ``count``
/// - ``read(into:at:)``
/// - ``read(count:at:)``
/// - ``write(_:at:)-(UnsafeRawBufferPointer,_)``
/// - ``write(_:at:)-([UInt8],_)``
public final class Blob {
  /// The `sqlite3_blob*`, or `nil` once closed.
  private var handle: OpaquePointer?
  private let connection: Connection
  /// The schema and table of the value, for observations: a write through the blob is reported to
  /// neither of the hooks they listen to.
  private let schema: String
  private let table: String
  /// True when opened for writing; writes to a read-only blob fail with ``ResultCode/readOnly``.
  public let isWritable: Bool
  /// The size in bytes of the row's value, read when the blob was opened or reopened.
  private var size: Int

  init(
    database: Database, schema: String, table: String, column: String, rowid: Int64, writable: Bool
  ) throws {
    connection = database.connection
    isWritable = writable
    self.schema = schema
    self.table = table
    try SQLiteError.checkNoNUL(schema, "schema name")
    try SQLiteError.checkNoNUL(table, "table name")
    try SQLiteError.checkNoNUL(column, "column name")
    var blob: OpaquePointer?
    let rc = try connection.withHandle { sqlite in
      sqlite3_blob_open(sqlite, schema, table, column, rowid, writable ? 1 : 0, &blob)
    }
    guard rc == SQLITE_OK, let blob else {
      let error = connection.error(rc)
      sqlite3_blob_close(blob)
      throw error
    }
    handle = blob
    size = Int(sqlite3_blob_bytes(blob))
  }

  deinit {
    if let handle { sqlite3_blob_close(handle) }
  }

  /// True until ``close()``.
  public var isOpen: Bool { handle != nil }

  /// The value's size in bytes (`sqlite3_blob_bytes`); 0 once closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_bytes.html>
  public var count: Int { handle == nil ? 0 : size }

  /// Runs `body` with the open blob, holding the connection for the calling thread.
  private func withBlob<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
    guard let handle else { throw DatabaseError.databaseClosed }
    return try connection.withHandle { _ in try body(handle) }
  }

  /// Checks that `length` bytes at `offset` lie inside the value.
  private func checkRange(offset: Int, length: Int, _ verb: String) throws {
    guard offset >= 0, length >= 0, offset <= size, length <= size - offset else {
      throw SQLiteError(
        code: .error,
        message: "Cannot \(verb) \(length) byte(s) at offset \(offset) of a \(size)-byte blob: past the end")
    }
  }

  /// Copies `buffer.count` bytes, starting at byte `offset` of the value, into `buffer`
  /// (`sqlite3_blob_read`): no other copy is made.
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/error`` when the range runs past the end of the
  ///   value, with ``ResultCode/abort`` when the row has changed since the blob was opened;
  ///   ``DatabaseError/databaseClosed`` when the blob or its database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_read.html>
  public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int = 0) throws {
    try withBlob { blob in
      try checkRange(offset: offset, length: buffer.count, "read")
      guard let base = buffer.baseAddress, buffer.count > 0 else { return }
      let rc = sqlite3_blob_read(blob, base, Int32(buffer.count), Int32(offset))
      if rc != SQLITE_OK { throw connection.error(rc) }
    }
  }

  /// Reads `count` bytes starting at byte `offset` into a new array.
  ///
  /// - Throws: as ``read(into:at:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_read.html>
  public func read(count: Int, at offset: Int = 0) throws -> [UInt8] {
    try withBlob { _ in try checkRange(offset: offset, length: count, "read") }
    return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
      initialized = count
    }
  }

  /// Writes `bytes` over the value starting at byte `offset` (`sqlite3_blob_write`). The value keeps
  /// its size.
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/readOnly`` for a blob not opened writable, with
  ///   ``ResultCode/error`` when the range runs past the end of the value, with ``ResultCode/abort``
  ///   when the row has changed since the blob was opened; ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_write.html>
  public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) throws {
    try withBlob { blob in
      guard isWritable else {
        throw SQLiteError(code: .readOnly, message: "The blob was opened read-only; open it with writable: true")
      }
      try checkRange(offset: offset, length: bytes.count, "write")
      guard let base = bytes.baseAddress, bytes.count > 0 else { return }
      let rc = sqlite3_blob_write(blob, base, Int32(bytes.count), Int32(offset))
      if rc != SQLITE_OK { throw connection.error(rc) }
      connection.existingState(ChangeTracker.self)?.blobDidWrite(schema: schema, table: table)
    }
  }

  /// Writes `bytes` over the value starting at byte `offset`; see
  /// ``write(_:at:)-(UnsafeRawBufferPointer,_)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_write.html>
  public func write(_ bytes: [UInt8], at offset: Int = 0) throws {
    try bytes.withUnsafeBytes { try write($0, at: offset) }
  }

  /// Points the blob at the same column of another row (`sqlite3_blob_reopen`), faster than opening a
  /// new one.
  ///
  /// - Throws: ``SQLiteError`` when the row does not exist or its value is not a blob or text, and with
  ///   ``ResultCode/abort`` when the blob has expired. After a failure the blob is unusable: every
  ///   later call throws; close it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_reopen.html>
  public func reopen(rowid: Int64) throws {
    try withBlob { blob in
      let rc = sqlite3_blob_reopen(blob, rowid)
      if rc != SQLITE_OK {
        size = 0
        throw connection.error(rc)
      }
      size = Int(sqlite3_blob_bytes(blob))
    }
  }

  /// Closes the blob (`sqlite3_blob_close`). Calling it again does nothing; other calls then throw
  /// ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_close.html>
  public func close() throws {
    guard let handle else { return }
    self.handle = nil
    let rc = sqlite3_blob_close(handle)
    if rc != SQLITE_OK { throw connection.error(rc) }
  }
}

extension Database {
  /// Opens the value of `column` in the row `rowid` of `table` for incremental reading, or writing with
  /// `writable` (`sqlite3_blob_open`).
  ///
  /// ```swift
  /// let blob = try db.openBlob(table: "file", column: "content", rowid: 1)
  /// let header = try blob.read(count: 16, at: 0)
  /// ```
  ///
  /// - Parameters:
  ///   - schema: `"main"`, `"temp"` or the name of an attached database.
  ///   - table: a rowid table (not a view, nor a `WITHOUT ROWID` table).
  ///   - column: a column holding a blob or text; not an indexed or primary-key column when writing.
  ///   - rowid: the row.
  ///   - writable: open for writing; reads are allowed either way.
  /// - Throws: ``SQLiteError`` when the table, column or row does not exist, the value is not a blob or
  ///   text, or, with `writable`, the column cannot be written in place or the database is read-only.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/blob_open.html>
  public func openBlob(
    schema: String = "main", table: String, column: String, rowid: Int64, writable: Bool = false
  ) throws -> Blob {
    try Blob(database: self, schema: schema, table: table, column: column, rowid: rowid, writable: writable)
  }
}
