import Amalgam
import Dispatch
import Foundation
import Testing

extension ConcurrencyTests {
  /// Timing-sensitive, so the tests of this suite run one at a time.
  @Suite(.serialized) struct CancellationTests {
    /// How long a cancelled operation may take to stop. Generous, for slow machines and sanitizers;
    /// the interrupt usually lands in microseconds.
    static let stopBound = 2.0

    /// Starts `operation` in a task, cancels it after `delay`, and returns what it threw and how long
    /// after the cancellation it finished.
    ///
    /// The task runs on a thread of its own (``offThePoolTask(_:)``), and the time is taken there,
    /// when `operation` returns or throws: on the cooperative pool, the task would wait for a free thread
    /// before it could finish, and other suites' long synchronous tests can hold both threads of a
    /// 2-core machine for seconds, which the bound would count against the interrupt.
    private func cancel<T: Sendable>(
      after delay: Duration = .milliseconds(100), _ operation: @escaping @Sendable () async throws -> T
    ) async -> (error: (any Error)?, seconds: Double) {
      let task = offThePoolTask { () -> (error: (any Error)?, end: DispatchTime) in
        do {
          _ = try await operation()
          return (nil, DispatchTime.now())
        } catch {
          return (error, DispatchTime.now())
        }
      }
      try? await Task.sleep(for: delay)
      let start = DispatchTime.now()
      task.cancel()
      let (error, end) = await task.value
      return (error, Double(end.uptimeNanoseconds &- start.uptimeNanoseconds) / 1e9)
    }

    private func makeQueue() throws -> DatabaseQueue {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
      return queue
    }

    @Test func cancellingAnAwaitedReadStopsALongQuery() async throws {
      let queue = try makeQueue()
      let (error, seconds) = await cancel {
        try await queue.read { db in _ = try db.prepare(sql: ConcurrencyTests.endlessQuery).step() }
      }
      #expect(error is CancellationError)
      #expect(seconds < Self.stopBound)
      // The queue works afterwards, with no transaction left open and writes allowed again.
      #expect(try queue.sync { $0.isInAutocommitMode })
      try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(try await queue.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 1)
    }

    @Test func cancellingAPoolReadStopsALongQueryAndReturnsTheReader() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path, configuration: Configuration(maximumReaderCount: 1))
        try await pool.write { db in try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        let (error, seconds) = await cancel {
          try await pool.read { db in _ = try db.prepare(sql: ConcurrencyTests.endlessQuery).step() }
        }
        #expect(error is CancellationError)
        #expect(seconds < Self.stopBound)
        // The only reader is back in the pool, outside any transaction.
        #expect(try await pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 1)
      }
    }

    @Test func cancellingAReadQueueReadStopsALongQuery() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        try DatabaseQueue(path: path).sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        let reader = try DatabaseReadQueue(path: path)
        let (error, seconds) = await cancel {
          try await reader.read { db in _ = try db.prepare(sql: ConcurrencyTests.endlessQuery).step() }
        }
        #expect(error is CancellationError)
        #expect(seconds < Self.stopBound)
        #expect(try await reader.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
      }
    }

    @Test func cancellingATransactionRollsItBack() async throws {
      let queue = try makeQueue()
      let (error, seconds) = await cancel {
        try await queue.transaction { db in
          try db.execute(sql: "INSERT INTO t VALUES (1)")
          _ = try db.prepare(sql: ConcurrencyTests.endlessQuery).step()
        }
      }
      #expect(error is CancellationError)
      #expect(seconds < Self.stopBound)
      #expect(try queue.sync { $0.isInAutocommitMode })
      #expect(try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
    }

    @Test func aTransactionTheClosureOpenedItselfIsRolledBack() async throws {
      let queue = try makeQueue()
      let (error, _) = await cancel {
        try await queue.write { db in
          try db.begin(.immediate)
          try db.execute(sql: "INSERT INTO t VALUES (1)")
          // A statement left running keeps the interrupt in effect; the rollback must still happen.
          let endless = try db.prepare(sql: ConcurrencyTests.endlessQuery)
          let pending = try db.prepare(sql: "SELECT x FROM t")
          _ = try pending.step()
          _ = try endless.step()
        }
      }
      #expect(error is CancellationError)
      #expect(try queue.sync { $0.isInAutocommitMode })
      #expect(try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
    }

    /// Keeps a statement past the closure that prepared it. Unchecked: `statement` is set and cleared only
    /// inside the queue's closures, which run one at a time.
    final class StatementKeeper: @unchecked Sendable {
      var statement: Statement?
    }

    @Test func aStatementKeptPastTheCancelledClosureDoesNotStopTheRollback() async throws {
      let queue = try makeQueue()
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1), (2)") }
      let keeper = StatementKeeper()
      let (error, _) = await cancel {
        try await queue.write { db in
          try db.begin(.immediate)
          try db.execute(sql: "INSERT INTO t VALUES (3)")
          // Kept running after the closure: the interrupt stays in effect and fails the first ROLLBACK.
          let pending = try db.prepare(sql: "SELECT x FROM t ORDER BY x")
          _ = try pending.step()
          keeper.statement = pending
          _ = try db.prepare(sql: ConcurrencyTests.endlessQuery).step()
        }
      }
      #expect(error is CancellationError)
      #expect(try queue.sync { $0.isInAutocommitMode })
      #expect(try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 2)
      // The kept statement was reset, not finalized: it runs again from the start.
      #expect(try queue.sync { _ in try keeper.statement?.column(0, as: Int.self) } == [1, 2])
      try queue.sync { _ in keeper.statement = nil }
    }

    @Test func aLoopOfShortStatementsIsStoppedToo() async throws {
      // An interrupt that arrives between two statements is ignored by SQLite; the queue interrupts again
      // until the closure gives up.
      let queue = try makeQueue()
      let (error, seconds) = await cancel {
        try await queue.write { db in
          for _ in 0..<100_000 { _ = try db.prepare(sql: ConcurrencyTests.shortQuery).front(Int.self) }
        }
      }
      #expect(error is CancellationError)
      #expect(seconds < Self.stopBound)
    }

    @Test func aTaskCancelledBeforeTheCallNeverRunsTheClosure() async throws {
      let queue = try makeQueue()
      let ran = Shared(false)
      let task = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await queue.write { _ in ran.withLock { $0 = true } }
      }
      await #expect(throws: CancellationError.self) { try await task.value }
      try queue.sync { _ in }  // everything queued has run
      #expect(!ran.current)
    }

    @Test func aCancelledWaitingOperationReturnsAtOnceAndNeverRuns() async throws {
      let queue = try makeQueue()
      let blocking = Signal()
      let release = Signal()
      queue.async { _ in
        blocking.signal()
        release.wait()
      } completion: { _ in
      }
      #expect(blocking.wait())
      let ran = Shared(false)
      let (error, seconds) = await cancel(after: .milliseconds(50)) {
        try await queue.write { _ in ran.withLock { $0 = true } }
      }
      #expect(error is CancellationError)
      #expect(seconds < Self.stopBound)
      release.signal()
      try queue.sync { _ in }
      #expect(!ran.current)
    }

    @Test func cancellingAWaitForAPoolReaderReturnsAtOnce() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path, configuration: Configuration(maximumReaderCount: 1))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        let holding = Signal()
        let release = Signal()
        pool.asyncRead { _ in
          holding.signal()
          release.wait()
        } completion: { _ in
        }
        #expect(holding.wait())
        let (error, seconds) = await cancel(after: .milliseconds(50)) {
          try await pool.read { _ in }
        }
        #expect(error is CancellationError)
        #expect(seconds < Self.stopBound)
        release.signal()
        #expect(try await pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
      }
    }

    @Test func aCancellationAfterTheOperationEndedDoesNotInterruptTheNextOne() async throws {
      let queue = try makeQueue()
      for _ in 0..<5 {
        let task = Task { try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
        try await task.value
        task.cancel()
        // A later, unrelated operation runs to completion.
        let count = try await queue.write { db in try db.prepare(sql: ConcurrencyTests.shortQuery).front(Int.self) }
        #expect(count == 20000)
      }
    }

    @Test func aClosureThatCompletesDespiteTheCancellationReturnsItsValue() async throws {
      let queue = try makeQueue()
      let started = Signal()
      let cancelled = Signal()
      let task = Task {
        try await queue.write { db in
          started.signal()
          cancelled.wait()
          // The interrupt fails this statement; the closure recovers and returns normally.
          let interrupted = (try? db.prepare(sql: ConcurrencyTests.endlessQuery).step()) == nil
          return interrupted
        }
      }
      #expect(started.wait())
      task.cancel()
      cancelled.signal()
      #expect(try await task.value == true)
    }
  }
}
