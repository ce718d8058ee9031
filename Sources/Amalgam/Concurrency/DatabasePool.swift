import Dispatch

/// One writer and a bounded pool of readers on a WAL database: reads run in parallel with each other
/// and with the write.
///
/// Writes (`sync`, `write`, `transaction`, ...) run one at a time on the writer connection; reads
/// (`read`) borrow one of up to ``Configuration/maximumReaderCount`` read-only connections, opened when
/// first needed, and wait when all are busy. The pool puts the database in WAL mode, in which readers
/// never block the writer and the writer never blocks readers.
///
/// ```swift
/// let pool = try DatabasePool(path: "/path/to/data.db")
/// try await pool.write { db in
///   try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, text TEXT)")
/// }
/// async let first = pool.read { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
/// async let second = pool.read { db in try db.prepare(sql: "SELECT max(id) FROM note").front(Int.self) }
/// let (count, maxID) = try await (first, second)
/// ```
///
/// **Isolation.** Each read runs in a read transaction: it sees only committed data, all of it from one
/// commit, however long it runs and whatever the writer does meanwhile. A write sees its own changes;
/// reads see them once committed.
///
/// **Re-entrancy.** A blocking `read` from inside a read closure of this pool, or a blocking write from
/// inside a write closure, throws ``ConcurrencyError/reentrantAccess`` instead of deadlocking. A read
/// from inside a write, or a write from inside a read, is allowed (they use different connections).
///
/// **Cancellation.** Cancelling the task awaiting a `read` (or waiting for a free reader) or a `write`
/// interrupts the running statement and throws `CancellationError`; the connection goes back to the
/// pool with no transaction open.
///
/// Related SQLite documentation: <https://sqlite.org/wal.html>
///
/// ## Topics
///
/// ### Opening and closing
///
/// - ``init(path:configuration:)``
/// - ``close()``
/// - ``path``
/// - ``configuration``
///
/// ### Writing
///
/// - ``sync(_:)``
/// - ``async(_:completion:)``
/// - ``write(_:)-5tvgk``
/// - ``transaction(_:_:)-7yach``
/// - ``transaction(_:_:)-3qrbn``
/// - ``asyncTransaction(_:_:completion:)``
/// - ``savepoint(_:_:)-5x4je``
/// - ``savepoint(_:_:)-8bpwd``
/// - ``asyncSavepoint(_:_:completion:)``
/// - ``checkpoint(_:schema:)``
///
/// ### Reading
///
/// - ``read(_:)-8i3kt``
/// - ``read(_:)-2lr9w``
/// - ``asyncRead(_:completion:)``
/// - ``read(at:_:)-5tyq9``
/// - ``read(at:_:)-4c0c5``
public final class DatabasePool: DatabaseWriter {
  private let writer: SerializedDatabase
  private let readers: ReaderPool
  /// The observations of this pool (see <doc:ObservingTheDatabase>).
  let observationCenter: ObservationCenter

  /// The configuration the connections are opened with.
  public let configuration: Configuration

  /// The path the database was opened with.
  public var path: String { writer.path }

  /// Opens the database file at `path` (created if missing, unless ``Configuration/readOnly``) and
  /// switches it to WAL mode. Readers are opened later, when reads need them.
  ///
  /// - Throws: ``ConcurrencyError/invalidConfiguration(_:)`` for a non-WAL ``Configuration/journalMode``
  ///   or a ``Configuration/maximumReaderCount`` below 1;
  ///   ``ConcurrencyError/journalModeNotApplied(requested:actual:)`` when the database cannot use WAL
  ///   (an in-memory database, or a read-only file not in WAL mode); ``SQLiteError`` when SQLite cannot
  ///   open the file; whatever ``Configuration/prepareDatabase`` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/wal.html>
  public init(path: String, configuration: Configuration = Configuration()) throws {
    guard configuration.maximumReaderCount >= 1 else {
      throw ConcurrencyError.invalidConfiguration(
        "maximumReaderCount must be at least 1, not \(configuration.maximumReaderCount)")
    }
    if let mode = configuration.journalMode, mode != .wal {
      throw ConcurrencyError.invalidConfiguration("A DatabasePool needs WAL mode, not journal_mode \(mode.rawValue)")
    }
    self.configuration = configuration
    var writerConfiguration = configuration
    writerConfiguration.journalMode = configuration.readOnly ? nil : .wal
    let database = try writerConfiguration.openDatabase(path: path, role: .writer)
    if configuration.readOnly {
      let mode = try database.prepare(sql: "PRAGMA journal_mode").front(String.self) ?? "unknown"
      guard mode.lowercased() == JournalMode.wal.rawValue else {
        throw ConcurrencyError.journalModeNotApplied(requested: JournalMode.wal.rawValue, actual: mode)
      }
    }
    writer = try SerializedDatabase(database: database, label: "\(configuration.label).writer")
    observationCenter = ObservationCenter(writer: writer, configuration: configuration)
    readers = ReaderPool(maximumCount: configuration.maximumReaderCount) { index in
      let database = try configuration.openDatabase(path: path, role: .reader)
      return try SerializedDatabase(
        database: database, label: "\(configuration.label).reader\(index)", performsInlineWhenIdle: false)
    }
  }

  // MARK: Writing

  /// Runs `body` on the writer connection, after the writes scheduled before it, blocking until done;
  /// reads go on meanwhile. Opens no transaction; see ``DatabaseWriter/sync(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/wal.html>
  @discardableResult
  public func sync<T>(_ body: (Database) throws -> T) throws -> T {
    try writer.sync(body)
  }

  /// Schedules `body` on the writer connection and returns at once; `completion` receives its result.
  /// See ``DatabaseWriter/async(_:completion:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/wal.html>
  public func async<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    writer.async(body, completion: completion)
  }

  /// Runs `body` on the writer connection without blocking the calling task; cancelling the task
  /// interrupts it. Opens no transaction; see ``DatabaseWriter/write(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  @discardableResult
  public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await writer.perform(body)
  }

  // MARK: Reading

  /// Runs `body` in a read transaction on a reader, blocking; waits for a free reader when all are busy.
  ///
  /// - Throws: ``ConcurrencyError/reentrantAccess`` when called from inside a read closure of this pool,
  ///   ``DatabaseError/databaseClosed`` after ``close()``, and whatever `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/isolation.html>
  public func read<T>(_ body: (Database) throws -> T) throws -> T {
    let reader = try readers.acquire()
    defer { readers.release(reader) }
    return try reader.sync { db in try db.readInTransaction(body) }
  }

  /// Runs `body` in a read transaction on a reader, suspending while all readers are busy. Cancelling
  /// the task stops the wait, or interrupts the running statement, and throws `CancellationError`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    let reader = try await readers.acquire()
    defer { readers.release(reader) }
    return try await reader.perform { db in try db.readInTransaction(body) }
  }

  /// Schedules `body` to run in a read transaction on the next free reader and returns at once;
  /// `completion` receives its result.
  ///
  /// Related SQLite documentation: <https://sqlite.org/isolation.html>
  public func asyncRead<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    readers.acquire { [readers] result in
      switch result {
      case .failure(let error):
        completion(.failure(error))
      case .success(let reader):
        reader.async({ db in try db.readInTransaction(body) }) { result in
          completion(result)
          readers.release(reader)
        }
      }
    }
  }

  #if ENABLE_SNAPSHOT
    /// Runs `body` on a reader in a read transaction on `snapshot`, blocking.
    ///
    /// ```swift
    /// let snapshot = try pool.read { db in try db.takeSnapshot() }
    /// // ... later, whatever was written since:
    /// let count = try pool.read(at: snapshot) { db in
    ///   try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
    /// }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` (``ResultCode/errorSnapshot``) when a checkpoint has since overwritten
    ///   the snapshot.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func read<T>(at snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T {
      let reader = try readers.acquire()
      defer { readers.release(reader) }
      return try reader.sync { db in try db.read(at: snapshot, body) }
    }

    /// Runs `body` on a reader in a read transaction on `snapshot`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    public func read<T: Sendable>(
      at snapshot: DatabaseSnapshot, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
      let reader = try await readers.acquire()
      defer { readers.release(reader) }
      return try await reader.perform { db in try db.read(at: snapshot, body) }
    }
  #endif

  /// Closes the writer and the idle readers; a reader still running a read closes when the read ends.
  /// Later calls throw ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/close.html>
  public func close() throws {
    var firstError: (any Error)?
    for reader in readers.close() {
      do { try reader.close() } catch { firstError = firstError ?? error }
    }
    do { try writer.close() } catch { firstError = firstError ?? error }
    if let firstError { throw firstError }
  }
}

/// The readers of a ``DatabasePool``: opened on demand up to a maximum, lent to one read at a time,
/// handed straight to the longest-waiting read when returned.
final class ReaderPool: Sendable {
  /// What a read gets: an idle reader, or the right to open a new one.
  enum Grant: Sendable {
    case reader(SerializedDatabase)
    case newReader
  }

  private struct Waiter {
    let id: UInt64
    let deliver: @Sendable (Result<Grant, any Error>) -> Void
  }

  private struct State {
    /// Readers waiting to be lent, the most recently used last.
    var idle: [SerializedDatabase] = []
    /// Every open reader, idle or lent, for detecting re-entrant reads.
    var all: [SerializedDatabase] = []
    /// Readers open or being opened; never above `maximumCount`.
    var count = 0
    /// Reads waiting for a reader, oldest first.
    var waiters: [Waiter] = []
    var lastID: UInt64 = 0
    var openedCount = 0
    var isClosed = false
  }

  private let state = LockedState(State())
  private let maximumCount: Int
  private let openReader: @Sendable (Int) throws -> SerializedDatabase

  init(maximumCount: Int, openReader: @escaping @Sendable (Int) throws -> SerializedDatabase) {
    self.maximumCount = maximumCount
    self.openReader = openReader
  }

  /// Borrows a reader, blocking while all are busy.
  func acquire() throws -> SerializedDatabase {
    let lent = state.withLock { $0.all }
    if lent.contains(where: \.isRunningOnCurrentThread) { throw ConcurrencyError.reentrantAccess }
    let semaphore = DispatchSemaphore(value: 0)
    let delivered = LockedState<Result<Grant, any Error>?>(nil)
    var result = request(stopIfCancelled: false) { result in
      delivered.withLock { $0 = result }
      semaphore.signal()
    }
    while result == nil {
      semaphore.wait()
      result = delivered.withLock { $0 }
    }
    return try realize(result)
  }

  /// Borrows a reader, suspending while all are busy; cancelling the task stops the wait.
  func acquire() async throws -> SerializedDatabase {
    let id = state.withLock { state in
      state.lastID += 1
      return state.lastID
    }
    let grant = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
        if let result = request(id: id, stopIfCancelled: true, deliver: { continuation.resume(with: $0) }) {
          continuation.resume(with: result)
        }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
      }
      waiter?.deliver(.failure(CancellationError()))
    }
    return try realize(.success(grant))
  }

  /// Borrows a reader without blocking; `completion` receives it once one is free.
  func acquire(_ completion: @escaping @Sendable (Result<SerializedDatabase, any Error>) -> Void) {
    let deliver: @Sendable (Result<Grant, any Error>) -> Void = { [self] result in
      completion(Result { try realize(result) })
    }
    if let result = request(stopIfCancelled: false, deliver: deliver) { deliver(result) }
  }

  /// Returns a borrowed reader: to the longest-waiting read, or to the idle list. A reader left closed
  /// or inside a transaction is dropped, and its place goes to a new reader.
  func release(_ reader: SerializedDatabase) {
    let reusable = reader.isReusable
    let handOver: (Waiter, Grant)? = state.withLock { state in
      if reusable && !state.isClosed {
        guard !state.waiters.isEmpty else {
          state.idle.append(reader)
          return nil
        }
        return (state.waiters.removeFirst(), .reader(reader))
      }
      state.all.removeAll { $0 === reader }
      return Self.freeSlot(&state)
    }
    if let (waiter, grant) = handOver { waiter.deliver(.success(grant)) }
  }

  /// Marks the pool closed, fails the waiting reads, and returns the idle readers for closing.
  func close() -> [SerializedDatabase] {
    let (idle, waiters) = state.withLock { state in
      state.isClosed = true
      let idle = state.idle
      let waiters = state.waiters
      state.all.removeAll { reader in idle.contains { $0 === reader } }
      state.count -= idle.count
      state.idle = []
      state.waiters = []
      return (idle, waiters)
    }
    for waiter in waiters { waiter.deliver(.failure(DatabaseError.databaseClosed)) }
    return idle
  }

  /// Grants a reader at once when it can; otherwise queues `deliver` and returns nil.
  private func request(
    id: UInt64? = nil, stopIfCancelled: Bool, deliver: @escaping @Sendable (Result<Grant, any Error>) -> Void
  ) -> Result<Grant, any Error>? {
    state.withLock { state in
      if state.isClosed { return .failure(DatabaseError.databaseClosed) }
      // Checked under the lock: a cancellation handler that runs later finds the waiter queued below.
      if stopIfCancelled && Task.isCancelled { return .failure(CancellationError()) }
      if let reader = state.idle.popLast() { return .success(.reader(reader)) }
      if state.count < maximumCount {
        state.count += 1
        return .success(.newReader)
      }
      let waiterID: UInt64
      if let id {
        waiterID = id
      } else {
        state.lastID += 1
        waiterID = state.lastID
      }
      state.waiters.append(Waiter(id: waiterID, deliver: deliver))
      return nil
    }
  }

  /// Turns a grant into a reader, opening one if granted; a failed open frees its place.
  private func realize(_ result: Result<Grant, any Error>?) throws -> SerializedDatabase {
    guard let result else { throw DatabaseError.databaseClosed }
    switch try result.get() {
    case .reader(let reader):
      return reader
    case .newReader:
      let index = state.withLock { state in
        state.openedCount += 1
        return state.openedCount
      }
      do {
        let reader = try openReader(index)
        state.withLock { $0.all.append(reader) }
        return reader
      } catch {
        let handOver = state.withLock { Self.freeSlot(&$0) }
        if let (waiter, grant) = handOver { waiter.deliver(.success(grant)) }
        throw error
      }
    }
  }

  /// A reader's place became free: give it to the longest-waiting read, or forget it.
  private static func freeSlot(_ state: inout State) -> (Waiter, Grant)? {
    if !state.isClosed && !state.waiters.isEmpty {
      return (state.waiters.removeFirst(), .newReader)
    }
    state.count -= 1
    return nil
  }
}
