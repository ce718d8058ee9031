import Amalgam
import Foundation
import Testing

/// Keeps a statement past the closure that prepared it. Unchecked: `statement` is set and cleared only
/// on the queue's thread, inside the queue's closures, which run one at a time.
private final class StatementKeeper: @unchecked Sendable {
  var statement: Statement?
}

extension ConcurrencyTests {
  @Suite struct InterruptedTransactionTests {
    @Test func aStatementKeptPastACancelledClosureDoesNotStopTheRollbackOfItsTransaction() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.batch(sql: "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2)") }
      let keeper = StatementKeeper()
      let (started, startedContinuation) = AsyncStream<Void>.makeStream()
      let task = Task {
        try await queue.write { db in
          try db.begin(.immediate)
          try db.execute(sql: "INSERT INTO t VALUES (3)")
          // Left running and kept: the interrupt stays in effect while it runs, and would fail a ROLLBACK.
          let pending = try db.prepare(sql: "SELECT x FROM t")
          _ = try pending.step()
          keeper.statement = pending
          startedContinuation.yield()
          _ = try db.prepare(sql: ConcurrencyTests.endlessQuery).step()
        }
      }
      for await _ in started { break }
      task.cancel()
      let result = await task.result
      #expect(throws: CancellationError.self) { try result.get() }
      // The transaction was rolled back all the same, and the kept statement was reset, not finalized.
      #expect(try queue.sync { $0.isInAutocommitMode })
      #expect(try queue.sync { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") } == 2)
      let rows = try queue.sync { _ in try keeper.statement?.column(0, as: Int.self) }
      #expect(rows == [1, 2])
      try queue.sync { _ in keeper.statement = nil }
    }
  }
}
