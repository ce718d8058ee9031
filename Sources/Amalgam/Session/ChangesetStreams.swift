#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// A source of changeset bytes for the streaming APIs (`sqlite3changeset_*_strm`): it fills the buffer
  /// it is given with up to `buffer.count` bytes and returns how many it wrote, 0 at the end of the input.
  /// An error it throws stops the operation and reaches its caller.
  ///
  /// ``ChangesetStreams/reading(fromFile:)`` reads a file; any other source (a socket, a decompressor)
  /// is a closure.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_apply_strm.html>
  public typealias ChangesetInputStream = (_ buffer: UnsafeMutableRawBufferPointer) throws -> Int

  /// A sink for changeset bytes written by the streaming APIs: it receives the output one chunk at a
  /// time, valid only during the call (copy what you keep). An error it throws stops the operation and
  /// reaches its caller.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_apply_strm.html>
  public typealias ChangesetOutputStream = (_ chunk: UnsafeRawBufferPointer) throws -> Void

  /// Ready-made streams over files and in-memory bytes, for changesets larger than memory.
  ///
  /// ```swift
  /// try session.writeChangeset(to: ChangesetStreams.writing(toFile: "/tmp/changes.bin"))
  /// try db.applyChangeset(from: ChangesetStreams.reading(fromFile: "/tmp/changes.bin"))
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_apply_strm.html>
  public enum ChangesetStreams {
    /// An input stream that reads the file at `path` from its start. The file closes when the stream
    /// is released.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CANTOPEN` when the file cannot be opened.
    public static func reading(fromFile path: String) throws -> ChangesetInputStream {
      let file = try StreamFile(path: path, mode: "rb")
      return { buffer in
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let read = fread(base, 1, buffer.count, file.handle)
        if read < buffer.count && ferror(file.handle) != 0 {
          throw SQLiteError(code: .ioError, message: "Cannot read \(path)")
        }
        return read
      }
    }

    /// An output stream that writes to the file at `path`, created or truncated. The file closes when
    /// the stream is released.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CANTOPEN` when the file cannot be created.
    public static func writing(toFile path: String) throws -> ChangesetOutputStream {
      let file = try StreamFile(path: path, mode: "wb")
      // Unbuffered, so that a failed write (a full disk) throws here rather than being lost when the
      // file is closed.
      setvbuf(file.handle, nil, _IONBF, 0)
      return { chunk in
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        guard fwrite(base, 1, chunk.count, file.handle) == chunk.count else {
          throw SQLiteError(code: .ioError, message: "Cannot write \(path)")
        }
      }
    }

    /// An input stream over bytes in memory, read in the chunk sizes SQLite asks for.
    public static func reading(from data: Data) -> ChangesetInputStream {
      var offset = data.startIndex
      return { buffer in
        let count = min(buffer.count, data.endIndex - offset)
        guard count > 0 else { return 0 }
        let copied = data[offset..<(offset + count)].copyBytes(to: buffer)
        offset += copied
        return copied
      }
    }
  }

  /// A C `FILE*` that a file stream reads or writes, closed when the stream is released.
  final class StreamFile {
    let handle: UnsafeMutablePointer<FILE>

    init(path: String, mode: String) throws {
      guard let handle = fopen(path, mode) else {
        let action = mode.hasPrefix("r") ? "reading" : "writing"
        throw SQLiteError(code: .cannotOpen, message: "Cannot open \(path) for \(action)")
      }
      self.handle = handle
    }

    deinit { fclose(handle) }
  }

  /// Carries a Swift stream through SQLite's C callback, and the first error the stream threw.
  ///
  /// An input stream's bytes go through a ``ChangesetValidator`` on their way to SQLite: bytes that do
  /// not form a changeset (or a truncated end) make the callback fail before SQLite reads them, and
  /// ``error`` holds the validator's `SQLITE_CORRUPT` error.
  final class StreamContext {
    let input: ChangesetInputStream?
    let output: ChangesetOutputStream?
    var error: (any Error)?
    /// Checks the input's bytes; its runs are the tables read so far.
    private(set) var validator: ChangesetValidator

    /// A context for an input stream (`input`) or an output stream. `inverting` refuses patchsets, for
    /// an inverted read or apply.
    init(input: ChangesetInputStream? = nil, output: ChangesetOutputStream? = nil, inverting: Bool = false) {
      self.input = input
      self.output = output
      self.validator = ChangesetValidator(inverting: inverting)
    }

    var pointer: UnsafeMutableRawPointer { Unretained(self).opaque }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> StreamContext? {
      pointer.map { Unretained<StreamContext>(opaque: $0).object }
    }

    /// The C input callback: fills SQLite's buffer from the Swift input stream.
    static let inputCallback:
      @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?)
        -> Int32 = { context, data, count in
          guard let context = StreamContext.from(context), let input = context.input, let count else {
            return SQLITE_MISUSE
          }
          guard context.error == nil else { return SQLITE_IOERR }
          let capacity = Int(max(count.pointee, 0))
          do {
            let read = try input(UnsafeMutableRawBufferPointer(start: data, count: data == nil ? 0 : capacity))
            guard read >= 0 && read <= capacity else {
              throw SQLiteError(
                code: .misuse, message: "A changeset input stream returned \(read) for a buffer of \(capacity) bytes")
            }
            if read == 0 {
              try context.validator.finish()
            } else {
              try context.validator.consume(UnsafeRawBufferPointer(start: data, count: read))
            }
            count.pointee = Int32(read)
            return SQLITE_OK
          } catch {
            context.error = error
            count.pointee = 0
            return SQLITE_IOERR
          }
        }

    /// The C output callback: hands SQLite's chunk to the Swift output stream.
    static let outputCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int32) -> Int32 = {
      context, data, count in
      guard let context = StreamContext.from(context), let output = context.output else { return SQLITE_MISUSE }
      guard context.error == nil else { return SQLITE_IOERR }
      do {
        try output(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : Int(max(count, 0))))
        return SQLITE_OK
      } catch {
        context.error = error
        return SQLITE_IOERR
      }
    }
  }

  /// Runs `body` with the user data of stream contexts, then throws the first error a stream threw, or
  /// the SQLite error for the result code `body` returned.
  func withStreams(
    _ contexts: [StreamContext], error: (Int32) -> any Error = { sessionError($0) },
    _ body: () -> Int32
  ) throws {
    let rc = withExtendedLifetime(contexts) { body() }
    if let streamError = contexts.lazy.compactMap(\.error).first { throw streamError }
    if rc != SQLITE_OK { throw error(rc) }
  }

  /// The error for a result code from a session function that has no connection to read a message from.
  func sessionError(_ rc: Int32, message: String? = nil) -> any Error {
    let text: String?
    switch rc {
    case SQLITE_CORRUPT: text = message ?? "The changeset is corrupt or truncated"
    default: text = message
    }
    return SQLiteError(code: ResultCode(rawValue: rc), message: text)
  }

  /// The error for `rc` from a session function called with `database`'s connection: SQLite's error when
  /// the connection reports this failure, else one with `message` (or, without one, the code's
  /// description). Most session functions return a code without setting the connection's error, whose
  /// message would then be that of the last statement, often "not an error".
  func sessionError(_ rc: Int32, on database: Database, message: String? = nil) -> any Error {
    if let handle = database.openHandle, sqlite3_errcode(handle) & 0xff == rc & 0xff { return database.error(rc) }
    return sessionError(rc, message: message)
  }

  /// Takes ownership of a buffer that a session function allocated with `sqlite3_malloc`: the bytes
  /// stay in that buffer, freed with `sqlite3_free` when the `Data` goes, so that a large changeset is
  /// never held twice (its copy and SQLite's buffer).
  func takeSQLiteBuffer(_ pointer: UnsafeMutableRawPointer?, count: Int32) -> Data {
    guard let pointer, count > 0 else {
      sqlite3_free(pointer)
      return Data()
    }
    return Data(bytesNoCopy: pointer, count: Int(count), deallocator: .custom { bytes, _ in sqlite3_free(bytes) })
  }
#endif
