import Amalgam
import Dispatch
import Foundation
import Testing

extension ConcurrencyTests {
  /// How an awaited closure (`write`, `read`, `transaction` with `await`) meets the closures of the
  /// same connection: run at once on the calling task when the connection is idle, after the others
  /// (suspending, never blocking a thread) when it is busy.
  @Suite(.serialized) struct AwaitedClosureTests {
    private func makeQueue() throws -> DatabaseQueue {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
      return queue
    }

    /// Whether the calling code runs inside a Swift task: true inside a closure that runs on the
    /// awaiting task's own thread, false on a dispatch queue's thread.
    private static func runsInATask() -> Bool {
      withUnsafeCurrentTask { $0 != nil }
    }

    @Test func anAwaitedWriteOnAnIdleQueueRunsOnTheCallingTask() async throws {
      let queue = try makeQueue()
      let inTask = try await queue.write { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        return Self.runsInATask()
      }
      #expect(inTask)
      #expect(try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 1)
    }

    @Test func anAwaitedPoolWriteOnAnIdleWriterRunsOnTheCallingTask() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path)
        let inTask = try await pool.transaction { db in
          try db.execute(sql: "CREATE TABLE t(x)")
          return Self.runsInATask()
        }
        #expect(inTask)
        #expect(try await pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
      }
    }

    @Test func anAwaitedWriteRunsAfterTheClosuresQueuedBeforeIt() async throws {
      let queue = try makeQueue()
      let order = Shared<[String]>([])
      let started = Signal()
      let release = Signal()
      queue.async { db in
        started.signal()
        release.wait()
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        order.withLock { $0.append("queued") }
      } completion: { _ in
      }
      #expect(started.wait())
      let calling = Signal()
      let write = Task {
        calling.signal()
        return try await queue.write { db in
          order.withLock { $0.append("awaited") }
          // Sees the row the closure before it inserted.
          return try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
        }
      }
      #expect(calling.wait())
      release.signal()
      #expect(try await write.value == 1)
      #expect(order.current == ["queued", "awaited"])
    }

    @Test func aClosureQueuedFromInsideAnAwaitedWriteRunsAfterIt() async throws {
      let queue = try makeQueue()
      let order = Shared<[String]>([])
      let done = Signal()
      try await queue.write { db in
        queue.async { _ in
          order.withLock { $0.append("queued inside") }
        } completion: { _ in
          done.signal()
        }
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        order.withLock { $0.append("awaited") }
      }
      #expect(done.wait())
      #expect(order.current == ["awaited", "queued inside"])
    }

    @Test func awaitedWritesBehindABusyQueueSuspendInsteadOfBlockingThreads() async throws {
      let queue = try makeQueue()
      let started = Signal()
      let release = Signal()
      queue.async { _ in
        started.signal()
        release.wait()
      } completion: { _ in
      }
      #expect(started.wait())
      // More waiting writes than the cooperative pool has threads: had they blocked their threads,
      // no other task could run until the queue is free.
      let writers = (0..<16).map { index in
        Task {
          try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (\(index))") }
        }
      }
      // A watchdog thread frees the queue after a generous bound, so that a regression fails the test
      // instead of hanging it.
      let finished = Signal()
      let timedOut = Shared(false)
      ConcurrencyTests.onThread {
        if !finished.wait(seconds: 10) { timedOut.withLock { $0 = true } }
        release.signal()
      }
      let otherWork = await Task { (1...100).reduce(0, +) }.value
      finished.signal()
      #expect(otherWork == 5050)
      for writer in writers { try await writer.value }
      #expect(!timedOut.current)
      #expect(try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 16)
    }

    @Test func anErrorThrownByAnAwaitedWriteOnAnIdleQueueReachesTheCaller() async throws {
      let queue = try makeQueue()
      await #expect(throws: SQLiteError.self) {
        try await queue.write { db in try db.execute(sql: "INSERT INTO missing VALUES (1)") }
      }
      // The failed closure left nothing behind: the next one runs inline again, outside a transaction.
      #expect(try await queue.write { db in db.isInAutocommitMode && Self.runsInATask() })
    }

    @Test func theIdleCheckRecoversAfterCancelledAndQueuedClosures() async throws {
      let queue = try makeQueue()
      let cancelled = Task {
        withUnsafeCurrentTask { $0?.cancel() }
        return try await queue.write { _ in }
      }
      await #expect(throws: CancellationError.self) { try await cancelled.value }
      let done = Signal()
      queue.async { _ in
      } completion: { _ in
        done.signal()
      }
      #expect(done.wait())
      try queue.sync { _ in }  // after the queued closure has wholly finished
      // Nothing is outstanding any more: an awaited write runs on the calling task again.
      let inTask = try await queue.write { _ in Self.runsInATask() }
      #expect(inTask)
    }
  }
}
