#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

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
