#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// What ``Changeset`` and ``Patchset`` have in common: bytes in SQLite's changeset format that can be
  /// read operation by operation, concatenated, merged in a ``Changegroup`` and applied to a database.
  ///
  /// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
  public protocol ChangesetProtocol: Sendable, Hashable {
    /// The bytes, exactly as SQLite writes and reads them.
    var data: Data { get }
    /// Checks bytes in SQLite's format, reading each record once as SQLite's iterator
    /// (`sqlite3changeset_next`) would, and wraps them.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT`, naming the byte offset, when the bytes are
    ///   corrupt or truncated.
    init(data: Data) throws
  }

  extension ChangesetProtocol {
    /// Reads the bytes of a file written by ``write(toFile:)`` (or by any tool that writes SQLite's
    /// changeset format, such as `sqldiff --changeset`).
    ///
    /// - Throws: the file system's error when the file cannot be read; ``SQLiteError`` with
    ///   `SQLITE_CORRUPT` when its bytes are corrupt or truncated.
    public init(contentsOfFile path: String) throws {
      try self.init(data: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes the bytes to a file, replacing it.
    ///
    /// - Throws: the file system's error when the file cannot be written.
    public func write(toFile path: String) throws {
      try data.write(to: URL(fileURLWithPath: path))
    }

    /// True when there are no bytes, hence no operation.
    public var isEmpty: Bool { data.isEmpty }

    /// Every operation, copied into Swift values, in the order SQLite stores them (grouped by table).
    /// To read a large value one operation at a time, use ``ChangesetReader``.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` when the bytes are corrupt or truncated.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_next.html>
    public func operations() throws -> [ChangesetOperation] {
      let reader = try ChangesetReader(self)
      var operations: [ChangesetOperation] = []
      while let operation = try reader.next() { operations.append(operation) }
      return operations
    }

    /// Joins two values into one that has the effect of applying `self`, then `other`
    /// (`sqlite3changeset_concat`). For many values, a ``Changegroup`` is faster.
    ///
    /// - Throws: ``SQLiteError``: `SQLITE_CORRUPT` for corrupt input, `SQLITE_SCHEMA` when the two
    ///   record one table with different columns.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_concat.html>
    public func concatenated(with other: Self) throws -> Self {
      let left = try cInt(count: data.count)
      let right = try cInt(count: other.data.count)
      _ = try ChangesetValidator.validate(data)
      _ = try ChangesetValidator.validate(other.data)
      var count: Int32 = 0
      var output: UnsafeMutableRawPointer?
      let rc = data.withUnsafeBytes { a in
        other.data.withUnsafeBytes { b in
          sqlite3changeset_concat(
            left, UnsafeMutableRawPointer(mutating: a.baseAddress), right,
            UnsafeMutableRawPointer(mutating: b.baseAddress), &count, &output)
        }
      }
      let bytes = takeSQLiteBuffer(output, count: count)
      if rc == SQLITE_ERROR {
        throw SQLiteError(code: .error, message: "A changeset and a patchset cannot be concatenated")
      }
      if rc == SQLITE_SCHEMA {
        throw SQLiteError(
          code: .schema,
          message: "The two changesets record a table with other columns, or another primary key, in each")
      }
      if rc != SQLITE_OK { throw sessionError(rc) }
      return try Self(data: bytes)
    }

    /// The concatenation of two values: `try a + b` is ``concatenated(with:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_concat.html>
    public static func + (lhs: Self, rhs: Self) throws -> Self {
      try lhs.concatenated(with: rhs)
    }

    /// Concatenates two streamed inputs into `output` without holding either in memory
    /// (`sqlite3changeset_concat_strm`). See ``concatenated(with:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_concat.html>
    public static func concatenate(
      _ first: @escaping ChangesetInputStream, _ second: @escaping ChangesetInputStream,
      to output: @escaping ChangesetOutputStream
    ) throws {
      let a = StreamContext(input: first)
      let b = StreamContext(input: second)
      let out = StreamContext(output: output)
      try withStreams([a, b, out]) {
        sqlite3changeset_concat_strm(
          StreamContext.inputCallback, a.pointer, StreamContext.inputCallback, b.pointer,
          StreamContext.outputCallback, out.pointer)
      }
    }
  }

  /// A changeset: the rows a ``Session`` saw inserted, updated and deleted, with their values before
  /// and after, as bytes that can be stored, sent, inverted, merged and applied to another database.
  ///
  /// ```swift
  /// let changeset = try session.changeset()
  /// for operation in try changeset.operations() {
  ///   print(operation.operation, operation.table, operation.newValues)
  /// }
  /// try replica.apply(changeset)
  /// ```
  ///
  /// A changeset is a value: copying it copies the bytes (lazily, as `Data` does), and it is `Sendable`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_changeset.html>
  public struct Changeset: ChangesetProtocol {
    /// The bytes, in SQLite's changeset format.
    public let data: Data

    /// Checks changeset bytes (from a file, the network...) and wraps them.
    ///
    /// ```swift
    /// let changeset = try Changeset(data: received)  // throws SQLITE_CORRUPT for damaged bytes
    /// ```
    ///
    /// The check reads every record once, as SQLite's iterator (`sqlite3changeset_next`) does, without
    /// copying: about as long as ``operations()`` takes to walk the bytes, without building its values.
    /// Changesets that Amalgam gets from SQLite (``Session/changeset()``, ``Changegroup``,
    /// ``inverted()``) are not checked again.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT`, naming the byte offset, when the bytes are
    ///   corrupt or truncated.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/changeset_iter.html>
    public init(data: Data) throws {
      _ = try ChangesetValidator.validate(data)
      self.data = data
    }

    /// Wraps bytes that SQLite wrote, without checking them again.
    init(uncheckedData data: Data) {
      self.data = data
    }

    /// The changeset that undoes this one: inserts become deletes, deletes become inserts, and updates
    /// swap their old and new values (`sqlite3changeset_invert`). Applying a changeset, then its
    /// inverse, leaves a database as it was.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` when the bytes are corrupt or truncated.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_invert.html>
    public func inverted() throws -> Changeset {
      let size = try cInt(count: data.count)
      _ = try ChangesetValidator.validate(data, inverting: true)
      var count: Int32 = 0
      var output: UnsafeMutableRawPointer?
      let rc = data.withUnsafeBytes { bytes in
        sqlite3changeset_invert(size, bytes.baseAddress, &count, &output)
      }
      let inverted = takeSQLiteBuffer(output, count: count)
      if rc != SQLITE_OK { throw sessionError(rc) }
      return Changeset(uncheckedData: inverted)
    }

    /// Inverts a streamed changeset into `output`. See ``inverted()``.
    ///
    /// Unlike the other streaming APIs, this one holds the whole changeset in memory: SQLite 3.53.4's
    /// streamed inversion (`sqlite3changeset_invert_strm`), like its one-piece form, skips records by
    /// their declared lengths without checking them, so corrupt input makes it read outside its buffer.
    /// The input is read whole, checked and inverted by ``inverted()``, and written to `output` in
    /// chunks of 64 KiB.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` for corrupt input, `SQLITE_MISUSE` when `input`
    ///   returns a count outside its buffer, and any error `input` or `output` throws.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_invert.html>
    public static func invert(
      _ input: @escaping ChangesetInputStream, to output: @escaping ChangesetOutputStream
    ) throws {
      let chunkSize = 64 * 1024
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
      defer { buffer.deallocate() }
      var data = Data()
      while true {
        let count = try input(buffer)
        if count == 0 { break }
        guard count > 0 && count <= buffer.count else {
          throw SQLiteError(
            code: .misuse, message: "changeset input stream returned \(count) bytes for a \(buffer.count)-byte buffer")
        }
        data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
      }
      let inverted = try Changeset(uncheckedData: data).inverted()  // inverted() checks the bytes
      try inverted.data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let end = Swift.min(offset + chunkSize, bytes.count)
          try output(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
          offset = end
        }
      }
    }
  }

  /// A patchset: a compact changeset that keeps only the primary key of deleted rows and only the new
  /// values of updated ones. Smaller, but it cannot be inverted, and conflicts are detected on the
  /// primary key alone.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_patchset.html>
  public struct Patchset: ChangesetProtocol {
    /// The bytes, in SQLite's patchset format.
    public let data: Data

    /// Checks patchset bytes and wraps them. See ``Changeset/init(data:)``.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT`, naming the byte offset, when the bytes are
    ///   corrupt or truncated.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/changeset_iter.html>
    public init(data: Data) throws {
      _ = try ChangesetValidator.validate(data)
      self.data = data
    }

    /// Wraps bytes that SQLite wrote, without checking them again.
    init(uncheckedData data: Data) {
      self.data = data
    }
  }

  /// A byte count as the `int` that SQLite's session functions take.
  func cInt(count: Int) throws -> Int32 {
    guard let value = Int32(exactly: count) else {
      throw SQLiteError(
        code: .tooBig, message: "A changeset of \(count) bytes is too large; use the streaming functions")
    }
    return value
  }
#endif
