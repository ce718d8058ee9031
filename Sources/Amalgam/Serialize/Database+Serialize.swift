#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
import AmalgamSQLite

extension Database {
  /// The bytes of the database `schema`, exactly as SQLite would write its file
  /// (`sqlite3_serialize`).
  ///
  /// ```swift
  /// let image = try db.serialize()
  /// let copy = try Database()
  /// try copy.deserialize(image)
  /// ```
  ///
  /// The returned `Data` owns the buffer that SQLite made: the bytes are copied once, from the pages.
  /// For in-memory databases, ``withSerializedBytes(schema:_:)`` reads them without any copy.
  ///
  /// - Parameter schema: `"main"`, `"temp"` or an attached database's name.
  /// - Throws: ``SQLiteError`` when the schema does not exist, memory runs out, or another connection's
  ///   lock keeps SQLite from reading it (`SQLITE_BUSY`); ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/serialize.html>
  public func serialize(schema: String = "main") throws -> Data {
    try requireSchema(schema)
    var size: Int64 = 0
    let bytes = try connection.withHandle { sqlite3_serialize($0, schema, &size, 0) }
    guard let bytes else {
      try checkNoSerializedBytes(schema: schema, size: size)
      return Data()
    }
    return Data(bytesNoCopy: bytes, count: Int(size), deallocator: .custom { pointer, _ in sqlite3_free(pointer) })
  }

  /// Runs `body` with the bytes of the database `schema` as SQLite would write its file, without
  /// copying them when the database lives in contiguous memory (one made by ``deserialize(_:schema:readOnly:resizable:maximumSize:)``,
  /// `SQLITE_SERIALIZE_NOCOPY`); other databases are serialized into a buffer freed after `body`.
  ///
  /// ```swift
  /// let checksum = try db.withSerializedBytes { bytes in
  ///   bytes.reduce(0) { $0 &+ Int($1) }
  /// }
  /// ```
  ///
  /// The bytes are valid only during `body`: never keep the buffer, copy what you need. Meanwhile
  /// the connection runs read-only queries only, so that nothing can move or free the bytes: writes,
  /// `DETACH`, changes to `PRAGMA query_only`, ``close()``, ``deserialize(_:schema:readOnly:resizable:maximumSize:)``
  /// and using the connection as a backup's destination throw ``DatabaseError/readOnlyCallback(callback:sql:)``.
  ///
  /// - Throws: as ``serialize(schema:)``, and whatever `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/serialize.html>
  public func withSerializedBytes<T>(schema: String = "main", _ body: (UnsafeRawBufferPointer) throws -> T) throws
    -> T
  {
    try requireSchema(schema)
    // Statements of the library's own: the user's trace handler and authorizer do not hear of them.
    let wasQueryOnly = try connection.runningOwnStatements {
      let wasQueryOnly = try prepare(sql: "PRAGMA query_only").front(Bool.self) ?? false
      try execute(sql: "PRAGMA query_only = ON")
      return wasQueryOnly
    }
    defer {
      if !wasQueryOnly && isOpen {
        try? connection.runningOwnStatements { try execute(sql: "PRAGMA query_only = OFF") }
      }
    }
    var size: Int64 = 0
    let flags = UInt32(SQLITE_SERIALIZE_NOCOPY)
    let box = connection
    if let bytes = try box.withHandle({ sqlite3_serialize($0, schema, &size, flags) }) {
      return try box.restricting(.serializedBytesBody) {
        try body(UnsafeRawBufferPointer(start: bytes, count: Int(size)))
      }
    }
    let copy = try box.withHandle { sqlite3_serialize($0, schema, &size, 0) }
    guard let copy else {
      try checkNoSerializedBytes(schema: schema, size: size)
      return try box.restricting(.serializedBytesBody) { try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }
    defer { sqlite3_free(copy) }
    return try box.restricting(.serializedBytesBody) { try body(UnsafeRawBufferPointer(start: copy, count: Int(size))) }
  }

  /// Replaces the database `schema` of this connection with an in-memory database holding `bytes`, a
  /// database file's content such as ``serialize(schema:)`` returns (`sqlite3_deserialize`).
  ///
  /// ```swift
  /// let db = try Database()
  /// try db.deserialize(image, readOnly: true)
  /// ```
  ///
  /// The bytes are copied into memory that SQLite owns and frees when the schema is closed or replaced.
  /// Bytes that do not start with SQLite's file header throw at once; a damaged image whose header looks
  /// right is found when first read, where statements throw ``ResultCode/corrupt`` or
  /// ``ResultCode/notADatabase``. An empty `bytes` gives an empty database. The image of a WAL-mode
  /// database (from a file in WAL mode) is read as a rollback-journal one: memory has no WAL.
  ///
  /// - Parameters:
  ///   - bytes: the database image.
  ///   - schema: `"main"`, `"temp"` or an attached database's name; its previous content is dropped.
  ///   - readOnly: refuse writes (`SQLITE_DESERIALIZE_READONLY`); they fail with ``ResultCode/readOnly``.
  ///   - resizable: let the database grow as rows are added (`SQLITE_DESERIALIZE_RESIZEABLE`); otherwise
  ///     a write that needs more pages fails with ``ResultCode/full``.
  ///   - maximumSize: with `resizable`, the size in bytes the database may grow to
  ///     (`SQLITE_FCNTL_SIZE_LIMIT`); `nil` keeps SQLite's default limit.
  /// - Throws: ``SQLiteError`` with ``ResultCode/notADatabase`` for bytes that are not a database,
  ///   SQLite's error when the schema does not exist or is in use by a statement or transaction;
  ///   ``DatabaseError/readOnlyCallback(callback:sql:)`` inside ``withSerializedBytes(schema:_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/deserialize.html>
  public func deserialize(
    _ bytes: some Collection<UInt8>, schema: String = "main", readOnly: Bool = false, resizable: Bool = true,
    maximumSize: Int? = nil
  ) throws {
    let handle = try sqliteHandle
    let header = Array("SQLite format 3\0".utf8)
    if !bytes.isEmpty && !bytes.starts(with: header) {
      throw SQLiteError(
        code: .notADatabase, message: "The bytes are not an SQLite database: they do not start with its file header")
    }
    let count = bytes.count
    let buffer = sqlite3_malloc64(UInt64(Swift.max(count, 1)))
    guard let buffer else {
      throw SQLiteError(code: .noMemory, message: "Out of memory copying a \(count)-byte database image")
    }
    let destination = UnsafeMutableRawBufferPointer(start: buffer, count: count)
    if bytes.withContiguousStorageIfAvailable({ destination.copyMemory(from: UnsafeRawBufferPointer($0)) }) == nil {
      _ = destination.initializeMemory(as: UInt8.self, from: bytes)
    }
    // An image of a WAL-mode database says so in its file format bytes (18 and 19 are 2), and an
    // in-memory database cannot have a WAL: every statement would fail with SQLITE_CANTOPEN. Mark the
    // copy as a rollback-journal database, as SQLite's documentation advises.
    if count >= 20 && destination[18] == 2 && destination[19] == 2 {
      destination[18] = 1
      destination[19] = 1
    }
    var flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE)
    if readOnly { flags |= UInt32(SQLITE_DESERIALIZE_READONLY) }
    if resizable && !readOnly { flags |= UInt32(SQLITE_DESERIALIZE_RESIZEABLE) }
    // With FREEONCLOSE, SQLite frees the buffer even when it fails; when the connection refuses the
    // call, SQLite never sees the buffer.
    let rc: Int32
    do {
      rc = try connection.withHandle {
        sqlite3_deserialize($0, schema, buffer.assumingMemoryBound(to: UInt8.self), Int64(count), Int64(count), flags)
      }
    } catch {
      sqlite3_free(buffer)
      throw error
    }
    try check(rc)
    if let maximumSize, resizable {
      var limit = Int64(Swift.max(maximumSize, count))
      let limitRC = sqlite3_file_control(handle, schema, SQLITE_FCNTL_SIZE_LIMIT, &limit)
      try check(limitRC)
    }
  }

  /// Writes a compacted copy of the database `schema` to a new file at `path` (`VACUUM INTO`): a
  /// consistent snapshot without unused pages, in one call, while other connections go on.
  ///
  /// ```swift
  /// try db.vacuum(into: "/path/to/compact-copy.db")
  /// ```
  ///
  /// - Throws: ``SQLiteError`` when the file already exists and is not empty (`SQLITE_NOTADB` when it is
  ///   not a database, with a message that names it), cannot be created, or when called inside a
  ///   transaction.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html#vacuuminto>
  public func vacuum(into path: String, schema: String = "main") throws {
    let quotedSchema = "\"" + schema.replacing("\"", with: "\"\"") + "\""
    let sql = "VACUUM \(quotedSchema) INTO ?"
    do {
      try execute(sql: sql, parameterValues: [path])
    } catch let error as SQLiteError where error.code == .notADatabase && Self.isNonEmptyFile(path) {
      // SQLite's bare "file is not a database" would read as if this database were the one at fault.
      throw SQLiteError(
        code: error.extendedCode,
        message: "file is not a database: the destination \(path) already exists and is not a database; "
          + "VACUUM INTO writes a new file, or an empty one",
        sql: sql)
    }
  }

  /// Whether a file at `path` can be read and holds at least one byte.
  private static func isNonEmptyFile(_ path: String) -> Bool {
    guard let file = fopen(path, "rb") else { return false }
    defer { fclose(file) }
    return fgetc(file) != EOF
  }

  /// Throws unless a NULL from `sqlite3_serialize` (copying, with `size` as it set it) means an empty
  /// image. SQLite answers NULL for an empty database (size 0) and for a schema it has not opened yet
  /// ("temp" before its first table: size -1, and no B-tree), but also when it could not read the page
  /// count (a lock held by another connection, no memory: size -1 too) or allocate the copy (the size).
  private func checkNoSerializedBytes(schema: String, size: Int64) throws {
    if size == 0 { return }
    if size < 0 {
      let rc = try connection.withHandle { handle -> Int32? in
        // SQLITE_FCNTL_FILE_POINTER fails only where the schema has no B-tree: not opened yet.
        var file: UnsafeMutablePointer<sqlite3_file>?
        if sqlite3_file_control(handle, schema, SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK { return nil }
        return sqlite3_errcode(handle)
      }
      guard let rc else { return }
      if rc != SQLITE_OK { throw error(rc) }
      throw SQLiteError(code: .noMemory, message: "Out of memory serializing database \(schema)")
    }
    throw SQLiteError(code: .noMemory, message: "Out of memory serializing a \(size)-byte database")
  }

  /// Throws SQLite's "unknown database" error for a schema this connection does not have.
  private func requireSchema(_ schema: String) throws {
    let handle = try sqliteHandle
    var index: Int32 = 0
    while let name = sqlite3_db_name(handle, index) {
      if sqlite3_stricmp(name, schema) == 0 { return }
      index += 1
    }
    throw SQLiteError(code: .error, message: "unknown database \(schema)")
  }
}
