import AmalgamSQLite
import Dispatch

/// One connection and the serial dispatch queue that is the only place where it is used: the engine
/// behind ``DatabaseQueue``, ``DatabaseReadQueue`` and each reader of a ``DatabasePool``.
///
/// Three ways in, all running closures one at a time in FIFO order on the queue:
/// - ``sync(_:)`` blocks the caller until the closure has run;
/// - ``async(_:completion:)`` returns at once and calls `completion` on the queue;
/// - ``perform(_:)`` runs the closure at once on the calling task's thread when nothing else is queued
///   or running (unless `performsInlineWhenIdle` is false), and otherwise suspends the calling task
///   until its turn; cancelling the task interrupts the closure.
final class SerializedDatabase: @unchecked Sendable {
  // @unchecked Sendable: `database` is only used by blocks running on `queue`, a serial queue, so by
  // one thread at a time (and at open and deinit, when no block can run). `handle` is only passed to
  // sqlite3_interrupt, which is thread-safe, and only while a closure runs; `sentinel` keeps the
  // sqlite3 object allocated even if a closure closes the database. `runningThread` and `isReusable`
  // are guarded by their locks.
  private let database: Database
  private let queue: DispatchQueue
  private let handle: OpaquePointer
  /// A prepared statement that is never run. While it is alive, sqlite3_close_v2 leaves the connection
  /// a "zombie" instead of freeing it, so an interrupt racing with a `db.close()` inside a closure
  /// never touches freed memory.
  private let sentinel: Statement
  /// The thread running a closure on this connection right now, for detecting re-entrant calls.
  private let runningThread = LockedState<ThreadID?>(nil)
  /// Whether, after the last closure, the connection is still open and outside a transaction.
  private let reusable = LockedState(true)
  /// Closures handed to the connection and not yet finished, the running one included: 0 when the
  /// queue is idle. Every way in counts its closure before queueing it, so an awaited closure that
  /// finds 0 runs at once on its caller's thread instead of hopping to the queue and back.
  private let outstanding = LockedState(0)
  /// Whether ``perform(_:)`` runs its closure on the calling thread when the connection is idle.
  private let performsInlineWhenIdle: Bool

  /// The path the database was opened with.
  let path: String

  /// The observations of the queue or pool whose writer this is, told on the queue after every closure,
  /// before the next one, about the closure's commits (``ObservationCenter/writerClosureDidEnd(_:)``).
  /// Set once, before the connection is shared.
  var observationCenter: ObservationCenter? {
    didSet { unretainedCenter = observationCenter.map(Unretained.init) }
  }
  /// ``observationCenter``, which keeps it alive, called after each closure without reference counting.
  @exclusivity(unchecked) private var unretainedCenter: Unretained<ObservationCenter>?

  /// Takes ownership of `database`; the caller must not use it any more.
  init(database: sending Database, label: String, performsInlineWhenIdle: Bool = true) throws {
    self.performsInlineWhenIdle = performsInlineWhenIdle
    self.handle = try database.sqliteHandle
    self.sentinel = try database.prepare(sql: "SELECT NULL")
    self.path = database.path
    self.database = database
    self.queue = DispatchQueue(label: label)
  }

  /// True when the calling thread is running a closure on this connection.
  var isRunningOnCurrentThread: Bool {
    let current = ThreadID.current
    return runningThread.withLock { $0 == current }
  }

  /// Whether the connection was open and in autocommit mode after the last closure: a pool gives it
  /// to the next reader only then.
  var isReusable: Bool { reusable.withLock { $0 } }

  /// Runs `body` on the queue and waits for it.
  ///
  /// - Throws: ``ConcurrencyError/reentrantAccess`` when called from inside a closure running on this
  ///   connection (it would deadlock), and whatever `body` throws.
  func sync<T>(_ body: (Database) throws -> T) throws -> T {
    if isRunningOnCurrentThread { throw ConcurrencyError.reentrantAccess }
    outstanding.withLock { $0 += 1 }
    return try queue.sync {
      defer { outstanding.withLock { $0 -= 1 } }
      return try whileRunning { try execute(body, ticket: nil) }
    }
  }

  /// Schedules `body` on the queue and returns at once; `completion` receives its result on the queue.
  func async<T: Sendable>(
    _ body: @escaping @Sendable (Database) throws -> T,
    completion: @escaping @Sendable (Result<T, any Error>) -> Void
  ) {
    outstanding.withLock { $0 += 1 }
    queue.async {
      self.whileRunning {
        completion(Result { try self.execute(body, ticket: nil) })
      }
      self.outstanding.withLock { $0 -= 1 }
    }
  }

  /// Runs `body` on the connection: at once on the calling thread when the connection is idle, else
  /// on the queue after the closures before it, suspending the calling task until it is done.
  ///
  /// Running an idle connection's closure in place saves the two thread hand-offs of a queued one (to
  /// the queue's thread, and back to the task when it resumes), each of which waits for a free core
  /// when the machine is busy: under load, they make most of an awaited write's tail latency. A busy
  /// connection is never waited for by blocking the thread.
  ///
  /// Cancelling the task:
  /// - before `body` starts: `body` never runs, and this throws `CancellationError` at once;
  /// - while `body` runs: the running statement is interrupted (`sqlite3_interrupt`), and so is every
  ///   statement `body` starts afterwards. If `body` then throws, a transaction it opened is rolled
  ///   back and this throws `CancellationError`; if `body` returns anyway, its value is returned.
  /// An interrupt is only ever sent while this operation's `body` runs, never to a later one.
  func perform<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try Task.checkCancellation()
    let ticket = OperationTicket<T>(database: self)
    let runsInline =
      performsInlineWhenIdle
      && outstanding.withLock { count in
        guard count == 0 else { return false }
        count = 1
        return true
      }
    if runsInline {
      // Nothing is queued or running: run here, as `sync` would. `queue.sync` on the idle queue runs on
      // this thread and keeps the closures submitted meanwhile behind this one. (A closure that another
      // thread queues between the count above and `queue.sync` runs first, this thread waiting for it:
      // a window of a few instructions.)
      return try await withTaskCancellationHandler {
        try queue.sync {
          defer { outstanding.withLock { $0 -= 1 } }
          return try whileRunning { try execute(body, ticket: ticket) }
        }
      } onCancel: {
        ticket.cancel()
      }
    }
    outstanding.withLock { $0 += 1 }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        guard ticket.attach(continuation) else {
          outstanding.withLock { $0 -= 1 }
          return
        }
        queue.async {
          self.whileRunning {
            ticket.resume(with: Result { try self.execute(body, ticket: ticket) })
          }
          self.outstanding.withLock { $0 -= 1 }
        }
      }
    } onCancel: {
      ticket.cancel()
    }
  }

  /// Closes the connection (see `Database.close()`); later closures get ``DatabaseError/databaseClosed``.
  func close() throws {
    try sync { try $0.close() }
  }

  /// Makes SQLite stop the running statement. Called by a cancelled ticket, only while its body runs.
  fileprivate func interrupt() {
    sqlite3_interrupt(handle)
  }

  /// Marks the calling thread (a thread of `queue`) as running a closure on this connection.
  private func whileRunning<R>(_ body: () throws -> R) rethrows -> R {
    let current = ThreadID.current
    runningThread.withLock { $0 = current }
    defer { runningThread.withLock { $0 = nil } }
    return try body()
  }

  /// Runs `body` on the connection; called on the queue.
  private func execute<T>(_ body: (Database) throws -> T, ticket: (any CancellationTicket)?) throws -> T {
    defer { reusable.withLock { $0 = database.isOpen && database.isInAutocommitMode } }
    if let ticket, !ticket.start() { throw CancellationError() }
    let startedInAutocommit = database.isInAutocommitMode
    let outcome = Result { try body(database) }
    // From here on no interrupt can arrive for this operation.
    let cancelled = ticket?.finish() ?? false
    if cancelled, case .failure = outcome, startedInAutocommit {
      rollBackAfterInterrupt()
    }
    unretainedCenter?.withObject { $0.writerClosureDidEnd(database) }
    if cancelled, case .failure = outcome { throw CancellationError() }
    return try outcome.get()
  }

  /// Rolls back a transaction that an interrupted closure left open.
  private func rollBackAfterInterrupt() {
    guard database.isOpen, !database.isInAutocommitMode else { return }
    if (try? database.rollback()) != nil { return }
    // The interrupt stays in effect while a statement is still running (one the closure left
    // unfinished), and it would fail the ROLLBACK too: reset every running statement, then retry.
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
      if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
      statement = sqlite3_next_stmt(handle, current)
    }
    try? database.rollback()
  }
}

/// What ``SerializedDatabase/execute(_:ticket:)`` needs from a cancellable operation.
private protocol CancellationTicket {
  /// Marks the operation as running; false when it was cancelled before it started.
  func start() -> Bool
  /// Marks the operation as finished, after which no interrupt is sent; true when it was cancelled.
  func finish() -> Bool
}

/// The state of one awaited operation: whether it waits, runs or is finished, whether its task was
/// cancelled, and the continuation to resume exactly once.
private final class OperationTicket<T: Sendable>: CancellationTicket, @unchecked Sendable {
  // @unchecked Sendable: every mutable field is in `state`, guarded by its lock. Sending the interrupt
  // while holding that lock is what guarantees it reaches this operation and no later one: the
  // operation cannot finish (and the connection cannot move on) until the lock is released.
  private enum Phase {
    case waiting
    case running
    case finished
  }

  private struct State {
    var phase = Phase.waiting
    var isCancelled = false
    var continuation: CheckedContinuation<T, any Error>?
    /// Re-sends the interrupt while a cancelled operation runs: an interrupt that arrives between two
    /// statements is ignored by SQLite, and the next statement would run to completion.
    var timer: (any DispatchSourceTimer)?
  }

  /// How often a cancelled, still-running operation is interrupted again.
  private static var reinterruptInterval: DispatchTimeInterval { .milliseconds(10) }

  private let database: SerializedDatabase
  private let state = LockedState(State())

  init(database: SerializedDatabase) {
    self.database = database
  }

  /// Stores the continuation; false (after resuming it with `CancellationError`) when already cancelled.
  func attach(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
    let cancelled = state.withLock { state in
      if state.isCancelled { return true }
      state.continuation = continuation
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
    return !cancelled
  }

  /// Resumes the waiting task with `result`, unless it was already resumed by a cancellation.
  func resume(with result: Result<T, any Error>) {
    let continuation = state.withLock { state in
      defer { state.continuation = nil }
      return state.continuation
    }
    continuation?.resume(with: result)
  }

  func start() -> Bool {
    state.withLock { state in
      if state.isCancelled { return false }
      state.phase = .running
      return true
    }
  }

  func finish() -> Bool {
    state.withLock { state in
      state.phase = .finished
      state.timer?.cancel()
      state.timer = nil
      return state.isCancelled
    }
  }

  /// The task was cancelled: stop waiting, or interrupt the running body.
  func cancel() {
    let abandoned: CheckedContinuation<T, any Error>? = state.withLock { state in
      guard !state.isCancelled else { return nil }
      state.isCancelled = true
      switch state.phase {
      case .waiting:
        // Resume the task now; the queued body will see the cancellation and not run.
        defer { state.continuation = nil }
        return state.continuation
      case .running:
        database.interrupt()
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + Self.reinterruptInterval, repeating: Self.reinterruptInterval)
        timer.setEventHandler { [weak self] in self?.reinterrupt() }
        timer.resume()
        state.timer = timer
        return nil
      case .finished:
        return nil
      }
    }
    abandoned?.resume(throwing: CancellationError())
  }

  private func reinterrupt() {
    state.withLock { state in
      if state.phase == .running { database.interrupt() }
    }
  }
}
