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
    /// Wraps bytes in SQLite's format. Nothing is checked until the bytes are read: a corrupt or
    /// truncated value throws ``SQLiteError`` with `SQLITE_CORRUPT` when it is iterated or applied.
    init(data: Data)
  }

  extension ChangesetProtocol {
    /// Reads the bytes of a file written by ``write(toFile:)`` (or by any tool that writes SQLite's
    /// changeset format, such as `sqldiff --changeset`).
    ///
    /// - Throws: the file system's error when the file cannot be read.
    public init(contentsOfFile path: String) throws {
      self.init(data: try Data(contentsOf: URL(fileURLWithPath: path)))
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
      return Self(data: bytes)
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

    /// Wraps changeset bytes (from ``Session/changeset()``, a file, the network...). Nothing is checked
    /// until the bytes are read.
    public init(data: Data) {
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
      return Changeset(data: inverted)
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
      let inverted = try Changeset(data: data).inverted()
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

    /// Wraps patchset bytes. Nothing is checked until the bytes are read.
    public init(data: Data) {
      self.data = data
    }
  }

  /// One row change read from a changeset or patchset, copied into Swift values: it stays valid after
  /// the iteration that produced it.
  ///
  /// `oldValues` and `newValues` have one element per column of the table (in the changeset's column
  /// order; for a rowid table recorded without a primary key, column 0 is the rowid). An element is
  /// `nil` when the changeset holds no value for that column, which is not the same as SQL NULL
  /// (`.null`): an update records old and new values only for the columns it changed (and the primary
  /// key's old values); a patchset's delete records only the primary key.
  ///
  /// TEXT that is not valid UTF-8 is valid in SQLite, but a Swift `String` cannot hold it: such a
  /// value is given as ``DatabaseValue/blob(_:)`` of its exact bytes, and its column is listed in
  /// ``oldNonUTF8TextColumns`` or ``newNonUTF8TextColumns``, so that the bytes and their storage class
  /// both survive (``Changegroup/add(_:)-(ChangesetOperation)`` writes such a column back as TEXT).
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_op.html>
  public struct ChangesetOperation: Sendable, Hashable {
    /// The table the row belongs to.
    public var table: String
    /// Whether the row was inserted, updated or deleted.
    public var operation: DatabaseEvent.Operation
    /// True for a change made by a trigger or foreign-key action, or recorded while the session was
    /// indirect (``Session/setIndirect(_:)``).
    public var isIndirect: Bool
    /// The number of columns of the table as recorded.
    public var columnCount: Int
    /// The indices of the primary-key columns (`sqlite3changeset_pk`).
    public var primaryKeyColumns: [Int]
    /// The values before the change, one per column; empty for an insert. `nil` means "not recorded".
    public var oldValues: [DatabaseValue?]
    /// The values after the change, one per column; empty for a delete. `nil` means "not recorded"
    /// (for an update: the column did not change).
    public var newValues: [DatabaseValue?]
    /// The indices, in ascending order, of the ``oldValues`` that are TEXT which is not valid UTF-8,
    /// given as ``DatabaseValue/blob(_:)`` of the text's bytes. Usually empty.
    public var oldNonUTF8TextColumns: [Int]
    /// The indices, in ascending order, of the ``newValues`` that are TEXT which is not valid UTF-8,
    /// given as ``DatabaseValue/blob(_:)`` of the text's bytes. Usually empty.
    public var newNonUTF8TextColumns: [Int]

    /// Creates an operation, for example to add to a ``Changegroup`` with ``Changegroup/add(_:)-(ChangesetOperation)``.
    /// A column listed in `oldNonUTF8TextColumns` or `newNonUTF8TextColumns` must hold a
    /// ``DatabaseValue/blob(_:)``, whose bytes are the TEXT value.
    public init(
      table: String, operation: DatabaseEvent.Operation, isIndirect: Bool = false, columnCount: Int,
      primaryKeyColumns: [Int], oldValues: [DatabaseValue?], newValues: [DatabaseValue?],
      oldNonUTF8TextColumns: [Int] = [], newNonUTF8TextColumns: [Int] = []
    ) {
      self.table = table
      self.operation = operation
      self.isIndirect = isIndirect
      self.columnCount = columnCount
      self.primaryKeyColumns = primaryKeyColumns
      self.oldValues = oldValues
      self.newValues = newValues
      self.oldNonUTF8TextColumns = oldNonUTF8TextColumns
      self.newNonUTF8TextColumns = newNonUTF8TextColumns
    }

    /// Copies the current change of a changeset iterator.
    init(iterator: OpaquePointer) throws {
      var tableName: UnsafePointer<CChar>?
      var columns: Int32 = 0
      var code: Int32 = 0
      var indirect: Int32 = 0
      var rc = sqlite3changeset_op(iterator, &tableName, &columns, &code, &indirect)
      guard rc == SQLITE_OK else { throw sessionError(rc) }
      guard let operation = DatabaseEvent.Operation(code: code) else {
        throw sessionError(SQLITE_CORRUPT, message: "The changeset holds an unknown operation \(code)")
      }
      var primaryKey: UnsafeMutablePointer<UInt8>?
      var primaryKeyCount: Int32 = 0
      rc = sqlite3changeset_pk(iterator, &primaryKey, &primaryKeyCount)
      guard rc == SQLITE_OK else { throw sessionError(rc) }
      let count = Int(max(columns, 0))
      var keys: [Int] = []
      if let primaryKey {
        for index in 0..<min(count, Int(primaryKeyCount)) where primaryKey[index] != 0 { keys.append(index) }
      }
      self.table = hookString(tableName) ?? ""
      self.operation = operation
      self.isIndirect = indirect != 0
      self.columnCount = count
      self.primaryKeyColumns = keys
      (oldValues, oldNonUTF8TextColumns) =
        operation == .insert ? ([], []) : try Self.values(iterator, count, sqlite3changeset_old)
      (newValues, newNonUTF8TextColumns) =
        operation == .delete ? ([], []) : try Self.values(iterator, count, sqlite3changeset_new)
    }

    /// Reads `count` values with `read` (`sqlite3changeset_old`, `_new` or `_conflict`): each value, or
    /// `nil` when it is not recorded, and the columns whose TEXT is not valid UTF-8.
    static func values(
      _ iterator: OpaquePointer, _ count: Int,
      _ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    ) throws -> (values: [DatabaseValue?], nonUTF8TextColumns: [Int]) {
      var values: [DatabaseValue?] = []
      var nonUTF8TextColumns: [Int] = []
      values.reserveCapacity(count)
      for column in 0..<count {
        var value: OpaquePointer?
        let rc = read(iterator, Int32(column), &value)
        guard rc == SQLITE_OK else { throw sessionError(rc) }
        guard let value else {
          values.append(nil)
          continue
        }
        let (read, isNonUTF8Text) = try DatabaseValue.changesetValue(value)
        values.append(read)
        if isNonUTF8Text { nonUTF8TextColumns.append(column) }
      }
      return (values, nonUTF8TextColumns)
    }
  }

  extension DatabaseValue {
    /// Reads a value of a changeset without failing on any value SQLite accepts: TEXT that is not valid
    /// UTF-8, which a `String` cannot hold, is `.blob` of its bytes with `isNonUTF8Text` true.
    static func changesetValue(_ value: OpaquePointer) throws -> (value: DatabaseValue, isNonUTF8Text: Bool) {
      guard sqlite3_value_type(value) == SQLITE_TEXT else {
        return (try DatabaseValue(strictSQLiteValue: value), false)
      }
      // NULL for TEXT: SQLite ran out of memory; do not read the length then.
      guard let bytes = sqlite3_value_text(value) else {
        throw SQLiteError(code: .noMemory, message: "Out of memory reading a changeset value as text")
      }
      let text = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
      if let string = String.validatingUTF8(text) { return (.text(string), false) }
      return (.blob(Data(buffer: text)), true)
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

  /// Reads a changeset or patchset one operation at a time (`sqlite3changeset_start_v2`,
  /// `sqlite3changeset_next`), from bytes in memory or from a stream, so that a changeset larger than
  /// memory can be inspected.
  ///
  /// ```swift
  /// let reader = try ChangesetReader(changeset)
  /// while let operation = try reader.next() { print(operation) }
  /// ```
  ///
  /// Each operation is copied into Swift values. A reader is used by one thread at a time.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_start.html>
  public final class ChangesetReader {
    private let iterator: ChangesetIterator
    private var isFinished = false

    /// Reads `changeset`; with `inverted`, reads the operations of its inverse
    /// (`SQLITE_CHANGESETSTART_INVERT`).
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` when the bytes are corrupt or truncated (they are
    ///   checked whole before the first read), `SQLITE_MISUSE` for a patchset read `inverted`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_start.html>
    public init(_ changeset: some ChangesetProtocol, inverted: Bool = false) throws {
      let size = try cInt(count: changeset.data.count)
      _ = try ChangesetValidator.validate(changeset.data, inverting: inverted)
      iterator = ChangesetIterator(copying: changeset.data, size: size, inverted: inverted)
      if iterator.startCode != SQLITE_OK { throw sessionError(iterator.startCode) }
    }

    /// Reads a changeset or patchset from `input` as it is needed (`sqlite3changeset_start_v2_strm`).
    /// The bytes are checked as they are read: ``next()`` throws `SQLITE_CORRUPT` where they stop making
    /// sense.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_start.html>
    public init(from input: @escaping ChangesetInputStream, inverted: Bool = false) throws {
      let stream = StreamContext(input: input, inverting: inverted)
      iterator = ChangesetIterator(stream: stream, inverted: inverted)
      if let error = stream.error { throw error }
      if iterator.startCode != SQLITE_OK { throw sessionError(iterator.startCode) }
    }

    /// The next operation, or `nil` after the last one.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` when the bytes are corrupt or truncated (later
    ///   calls return `nil`), or the error the input stream threw.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_next.html>
    public func next() throws -> ChangesetOperation? {
      guard let handle = iterator.handle, !isFinished else { return nil }
      let rc = iterator.next()
      if rc == SQLITE_ROW { return try ChangesetOperation(iterator: handle) }
      isFinished = true
      if let error = iterator.stream?.error { throw error }
      if rc == SQLITE_DONE { return nil }
      throw sessionError(rc)
    }
  }
#endif
