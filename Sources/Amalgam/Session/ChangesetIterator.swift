#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// SQLite's iterator over the changes of a changeset or patchset (`sqlite3_changeset_iter`), read
  /// from bytes in memory or from a stream: the one place that starts, steps and finalizes it, for
  /// ``ChangesetReader`` and ``Changegroup/add(from:)``. It speaks in SQLite's result codes, so that each
  /// caller keeps its own errors.
  final class ChangesetIterator {
    /// SQLite's iterator; `nil` when starting failed.
    let handle: OpaquePointer?
    /// The result of starting: `SQLITE_OK`, or why SQLite refused.
    let startCode: Int32
    /// The stream being read, kept alive while SQLite may call it.
    let stream: StreamContext?
    /// The bytes being read, owned here because SQLite reads them in place.
    private let buffer: UnsafeMutableRawBufferPointer?
    private var isFinalized = false

    /// Starts on a copy of the `size` bytes of `data` (`sqlite3changeset_start_v2`); with `inverted`,
    /// on the changes of its inverse (`SQLITE_CHANGESETSTART_INVERT`).
    init(copying data: Data, size: Int32, inverted: Bool) {
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size_t(size), 1), alignment: 8)
      _ = data.copyBytes(to: buffer)
      self.buffer = buffer
      stream = nil
      var handle: OpaquePointer?
      startCode = sqlite3changeset_start_v2(
        &handle, size, buffer.baseAddress, inverted ? SQLITE_CHANGESETSTART_INVERT : 0)
      self.handle = handle
    }

    /// Starts on the bytes `stream` reads as they are needed (`sqlite3changeset_start_v2_strm`).
    init(stream: StreamContext, inverted: Bool) {
      self.stream = stream
      buffer = nil
      var handle: OpaquePointer?
      startCode = sqlite3changeset_start_v2_strm(
        &handle, StreamContext.inputCallback, stream.pointer, inverted ? SQLITE_CHANGESETSTART_INVERT : 0)
      self.handle = handle
    }

    deinit {
      finalize()
      buffer?.deallocate()
    }

    /// Steps to the next change (`sqlite3changeset_next`): `SQLITE_ROW` when there is one, `SQLITE_DONE`
    /// after the last, or an error code.
    func next() -> Int32 {
      guard let handle else { return SQLITE_MISUSE }
      return sqlite3changeset_next(handle)
    }

    /// Calls `body` with the iterator on each change in turn, until the changes end or `body` returns
    /// a code other than `SQLITE_OK` (`SQLITE_DONE` to stop early without an error), then finalizes the
    /// iterator. Returns `SQLITE_OK` when every change was read, the iterator's own error when it
    /// stopped on one (corrupt input, a failed read), or the code `body` stopped with.
    func forEachChange(_ body: (OpaquePointer) -> Int32) -> Int32 {
      guard startCode == SQLITE_OK, let handle else {
        finalize()
        return startCode
      }
      var rc = sqlite3changeset_next(handle)
      while rc == SQLITE_ROW {
        rc = body(handle)
        guard rc == SQLITE_OK else { break }
        rc = sqlite3changeset_next(handle)
      }
      let finalized = finalize()
      return rc == SQLITE_DONE ? finalized : rc
    }

    /// Finalizes the iterator (`sqlite3changeset_finalize`) once, and returns its code: the error the
    /// iterator stopped on, if any. Later calls return `SQLITE_OK`.
    @discardableResult
    private func finalize() -> Int32 {
      guard !isFinalized else { return SQLITE_OK }
      isFinalized = true
      return sqlite3changeset_finalize(handle)
    }
  }
#endif
