#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// Rebases local changes over remote changes that were applied with conflicts, so that the local
  /// changes keep the conflict resolutions when they are sent on (`sqlite3_rebaser`).
  ///
  /// ```swift
  /// // On a replica that has local changes `local`, apply the remote changes:
  /// let rebaseData = try db.apply(remote) { _ in .replace }
  /// let rebaser = try Rebaser()
  /// try rebaser.configure(rebaseData)
  /// let toSend = try rebaser.rebase(local)
  /// ```
  ///
  /// A rebaser is used by one thread at a time.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/rebaser.html>
  public final class Rebaser {
    private let handle: OpaquePointer

    /// Creates a rebaser (`sqlite3rebaser_create`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3rebaser_create.html>
    public init() throws {
      var handle: OpaquePointer?
      let rc = sqlite3rebaser_create(&handle)
      guard rc == SQLITE_OK, let handle else { throw sessionError(rc) }
      self.handle = handle
    }

    deinit {
      sqlite3rebaser_delete(handle)
    }

    /// The error for `rc` from the rebaser, which gives only a code: `SQLITE_ERROR` means a patchset.
    private static func error(_ rc: Int32) -> any Error {
      guard rc == SQLITE_ERROR else { return sessionError(rc) }
      return SQLiteError(
        code: .error,
        message: "A patchset cannot be rebased or used as rebase data: a rebaser takes changesets, and rebase "
          + "data as apply returns it")
    }

    /// Adds the conflict resolutions recorded in rebase data returned by
    /// ``Database/apply(_:options:tableFilter:onConflict:)`` (`sqlite3rebaser_configure`). Call it once
    /// per remote changeset applied.
    ///
    /// - Throws: ``SQLiteError``: `SQLITE_CORRUPT` for corrupt rebase data, `SQLITE_ERROR` for a patchset.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3rebaser_configure.html>
    public func configure(_ rebaseData: Data) throws {
      let size = try cInt(count: rebaseData.count)
      _ = try ChangesetValidator.validate(rebaseData)
      let rc = rebaseData.withUnsafeBytes { bytes in
        sqlite3rebaser_configure(handle, size, bytes.baseAddress)
      }
      if rc != SQLITE_OK { throw Self.error(rc) }
    }

    /// The changeset rebased over the configured resolutions (`sqlite3rebaser_rebase`).
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` for corrupt or truncated input (SQLite 3.53.4's
    ///   rebaser alone would return the changes before a truncated one), `SQLITE_ERROR` for a patchset.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3rebaser_rebase.html>
    public func rebase(_ changeset: Changeset) throws -> Changeset {
      let size = try cInt(count: changeset.data.count)
      _ = try ChangesetValidator.validate(changeset.data)
      var count: Int32 = 0
      var output: UnsafeMutableRawPointer?
      let rc = changeset.data.withUnsafeBytes { bytes in
        sqlite3rebaser_rebase(handle, size, bytes.baseAddress, &count, &output)
      }
      let data = takeSQLiteBuffer(output, count: count)
      if rc != SQLITE_OK { throw Self.error(rc) }
      return Changeset(uncheckedData: data)
    }

    /// Rebases a streamed changeset into `output` (`sqlite3rebaser_rebase_strm`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3rebaser_rebase.html>
    public func rebase(
      _ input: @escaping ChangesetInputStream, to output: @escaping ChangesetOutputStream
    ) throws {
      let source = StreamContext(input: input)
      let sink = StreamContext(output: output)
      try withStreams([source, sink], error: Self.error) {
        sqlite3rebaser_rebase_strm(
          handle, StreamContext.inputCallback, source.pointer, StreamContext.outputCallback, sink.pointer)
      }
    }
  }
#endif
