import Amalgam
import Dispatch
import Foundation
import Testing

extension ConcurrencyTests {
  @Suite struct DatabaseQueueTests {
    private func makeQueue() throws -> DatabaseQueue {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
      return queue
    }

    private func count(_ queue: DatabaseQueue) throws -> Int? {
      try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) }
    }

    @Test func syncReturnsTheClosureValue() throws {
      let queue = try makeQueue()
      let answer = try queue.sync { db in
        try db.execute(sql: "INSERT INTO t VALUES (41)")
        return try db.prepare(sql: "SELECT x + 1 FROM t").front(Int.self)
      }
      #expect(answer == 42)
    }

    @Test func writeAndSyncResultsMayBeUnused() async throws {
      // Unused like transaction's: the build allows no warnings, so an unused-result warning fails it.
      let queue = try makeQueue()
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      try queue.sync { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") }
      try await queue.write { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") }
      try await queue.transaction { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") }
      #expect(try count(queue) == 1)
    }

    @Test func anAwaitedReadInAnAsyncContextIsTheAsyncForm() async throws {
      // Only the async form sees the task's cancellation: the blocking form would return 1.
      let queue = try makeQueue()
      let task = Task { () async throws -> Int in
        withUnsafeCurrentTask { $0?.cancel() }
        return try await queue.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") }
      }
      await #expect(throws: CancellationError.self) { try await task.value }
      try await withTemporaryDirectory { folder in
        let pool = try DatabasePool(path: folder.appendingPathComponent("pool.sqlite").path)
        let poolTask = Task { () async throws -> Int in
          withUnsafeCurrentTask { $0?.cancel() }
          return try await pool.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") }
        }
        await #expect(throws: CancellationError.self) { try await poolTask.value }
      }
      // Uncancelled, it reads.
      #expect(try await queue.read { db in try db.fetchValue(Int.self, sql: "SELECT 1") } == 1)
    }

    @Test func syncRethrowsTheClosureError() throws {
      let queue = try makeQueue()
      #expect(throws: DatabaseError.databaseClosed) {
        try queue.sync { _ in throw DatabaseError.databaseClosed }
      }
      let error = #expect(throws: SQLiteError.self) {
        try queue.sync { db in try db.execute(sql: "INSERT INTO missing VALUES (1)") }
      }
      #expect(error?.message == "no such table: missing")
    }

    @Test func asyncDeliversTheResultToCompletion() async throws {
      let queue = try makeQueue()
      let value: Int? = try await withCheckedThrowingContinuation { continuation in
        queue.async { db in
          try db.execute(sql: "INSERT INTO t VALUES (7)")
          return try db.prepare(sql: "SELECT x FROM t").front(Int.self)
        } completion: { result in
          continuation.resume(with: result)
        }
      }
      #expect(value == 7)
    }

    @Test func asyncDeliversTheErrorToCompletion() async throws {
      let queue = try makeQueue()
      let result: Result<Void, any Error> = await withCheckedContinuation { continuation in
        queue.async { db in
          try db.execute(sql: "SELECT nonsense FROM t")
        } completion: { result in
          continuation.resume(returning: result)
        }
      }
      #expect(throws: SQLiteError.self) { try result.get() }
    }

    @Test func asyncClosuresRunInSubmissionOrder() throws {
      let queue = try makeQueue()
      for value in 0..<50 {
        queue.async { db in
          try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value])
        } completion: { _ in
        }
      }
      // A sync call queues behind every async one.
      let values = try queue.sync { db in try db.prepare(sql: "SELECT x FROM t ORDER BY rowid").column(0, as: Int.self)
      }
      #expect(values == Array(0..<50))
    }

    @Test func writeAwaitsTheClosureValue() async throws {
      let queue = try makeQueue()
      let inserted = try await queue.write { db in
        try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
        return db.changes
      }
      #expect(inserted == 2)
      #expect(try count(queue) == 2)
    }

    @Test func manyTasksWriteThroughOneQueue() async throws {
      let queue = try makeQueue()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
          group.addTask {
            for value in 0..<25 {
              try await queue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [task * 100 + value])
              }
            }
          }
        }
        try await group.waitForAll()
      }
      #expect(try count(queue) == 200)
    }

    @Test func transactionCommitsWhenTheClosureReturns() throws {
      let queue = try makeQueue()
      let value = try queue.transaction { db in
        #expect(!db.isInAutocommitMode)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        return "done"
      }
      #expect(value == "done")
      #expect(try count(queue) == 1)
      #expect(try queue.sync { $0.isInAutocommitMode })
    }

    @Test func transactionRollsBackWhenTheClosureThrows() throws {
      let queue = try makeQueue()
      #expect(throws: DatabaseError.transactionState("stop")) {
        try queue.transaction(.immediate) { db in
          try db.execute(sql: "INSERT INTO t VALUES (1)")
          throw DatabaseError.transactionState("stop")
        }
      }
      #expect(try count(queue) == 0)
    }

    @Test func awaitedTransactionCommitsAndRollsBack() async throws {
      let queue = try makeQueue()
      try await queue.transaction { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      await #expect(throws: DatabaseError.transactionState("stop")) {
        try await queue.transaction(.exclusive) { db in
          try db.execute(sql: "INSERT INTO t VALUES (2)")
          throw DatabaseError.transactionState("stop")
        }
      }
      #expect(try count(queue) == 1)
    }

    @Test func asyncTransactionCommitsAndReportsToCompletion() async throws {
      let queue = try makeQueue()
      let changes: Int = try await withCheckedThrowingContinuation { continuation in
        queue.asyncTransaction { db in
          try db.execute(sql: "INSERT INTO t VALUES (1), (2), (3)")
          return db.changes
        } completion: {
          continuation.resume(with: $0)
        }
      }
      #expect(changes == 3)
      #expect(try count(queue) == 3)
    }

    @Test func savepointsNestInsideATransaction() async throws {
      let queue = try makeQueue()
      try blocking {
        try queue.transaction { db in
          try db.execute(sql: "INSERT INTO t VALUES (1)")
          try? db.savepoint { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            throw DatabaseError.transactionState("undo the savepoint")
          }
        }
        try queue.savepoint { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
      }
      try await queue.savepoint("named") { db in try db.execute(sql: "INSERT INTO t VALUES (4)") }
      let _: Void = try await withCheckedThrowingContinuation { continuation in
        queue.asyncSavepoint { db in
          try db.execute(sql: "INSERT INTO t VALUES (5)")
        } completion: {
          continuation.resume(with: $0)
        }
      }
      let values = try queue.sync { db in try db.prepare(sql: "SELECT x FROM t ORDER BY x").column(0, as: Int.self) }
      #expect(values == [1, 3, 4, 5])
    }

    @Test func readRunsInATransactionAndRefusesWrites() async throws {
      let queue = try makeQueue()
      #expect(try blocking { try queue.read { !$0.isInAutocommitMode } })
      #expect(try await queue.read { !$0.isInAutocommitMode })
      let error = #expect(throws: SQLiteError.self) {
        try blocking { try queue.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") } }
      }
      #expect(error?.code == .readOnly)
      let awaitedError = await #expect(throws: SQLiteError.self) {
        try await queue.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      }
      #expect(awaitedError?.code == .readOnly)
      // Outside read, the queue writes again.
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(try count(queue) == 1)
    }

    @Test func aReadMakesSQLitePrepareNoCachedStatementAgain() async throws {
      // Before, each read set PRAGMA query_only on and off, and a flag pragma expires every statement of the
      // connection: the cached query was prepared again at each use after a read.
      let queue = try makeQueue()
      let sql = "SELECT count(*) FROM t"
      func reprepares() throws -> Int {
        try queue.sync { db in
          let statement = try db.cachedStatement(sql: sql)
          _ = try statement.front(Int.self)
          return statement.status(.reprepare)
        }
      }
      #expect(try reprepares() == 0)
      for _ in 0..<3 {
        #expect(try blocking { try queue.read { db in try db.cachedStatement(sql: sql).front(Int.self) } } == 0)
        #expect(try await queue.read { db in try db.cachedStatement(sql: sql).front(Int.self) } == 0)
        #expect(try reprepares() == 0)
      }
    }

    @Test func aReadRefusesWritesOnEveryPath() throws {
      let queue = try makeQueue()
      try queue.sync { db in
        try db.batch(sql: "CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB); INSERT INTO b VALUES (1, x'00')")
      }
      // Prepared before the read: SQLite decides when the statement starts to write, not when it is prepared.
      let cachedInsert = "INSERT INTO t VALUES (7)"
      try queue.sync { db in _ = try db.cachedStatement(sql: cachedInsert) }
      let attempts: [(String, (Database) throws -> Void)] = [
        ("execute", { db in try db.execute(sql: "UPDATE t SET x = 1") }),
        ("batch", { db in try db.batch(sql: "SELECT 1; DELETE FROM t; SELECT 2") }),
        ("cached statement", { db in try db.cachedStatement(sql: cachedInsert).execute() }),
        ("temporary table", { db in try db.execute(sql: "CREATE TEMP TABLE scratch(x)") }),
        ("writable blob", { db in _ = try db.openBlob(table: "b", column: "data", rowid: 1, writable: true) }),
      ]
      for (path, attempt) in attempts {
        let error = #expect(throws: SQLiteError.self, "\(path)") { try queue.read(attempt) }
        #expect(error?.code == .readOnly, "\(path)")
        #expect(error?.message == "attempt to write a readonly database", "\(path)")
      }
      // Reading through a blob is allowed, and every path writes again once the read is over.
      let byte = try queue.read { db in try db.openBlob(table: "b", column: "data", rowid: 1).read(count: 1, at: 0) }
      #expect(byte == [0])
      try queue.sync { db in
        for (_, attempt) in attempts.dropLast() { try attempt(db) }
      }
      #expect(try count(queue) == 1)
    }

    @Test func aReadKeepsTheUsersOwnQueryOnly() throws {
      let queue = try makeQueue()
      try queue.sync { db in try db.execute(sql: "PRAGMA query_only = ON") }
      #expect(try queue.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
      let error = #expect(throws: SQLiteError.self) {
        try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      }
      #expect(error?.code == .readOnly)
      try queue.sync { db in try db.execute(sql: "PRAGMA query_only = OFF") }
      #expect(try queue.read { db in try db.prepare(sql: "PRAGMA query_only").front(Bool.self) } == true)
      #expect(try queue.sync { db in try db.prepare(sql: "PRAGMA query_only").front(Bool.self) } == false)
    }

    @Test func asyncReadDeliversToCompletion() async throws {
      let queue = try makeQueue()
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (5)") }
      let value: Int? = try await withCheckedThrowingContinuation { continuation in
        queue.asyncRead { db in
          try db.prepare(sql: "SELECT x FROM t").front(Int.self)
        } completion: {
          continuation.resume(with: $0)
        }
      }
      #expect(value == 5)
    }

    @Test func reentrantBlockingCallsThrowInsteadOfDeadlocking() async throws {
      let queue = try makeQueue()
      #expect(throws: ConcurrencyError.reentrantAccess) {
        try queue.sync { _ in try queue.sync { _ in } }
      }
      #expect(throws: ConcurrencyError.reentrantAccess) {
        try blocking { try queue.transaction { _ in try queue.read { _ in } } }
      }
      #expect(throws: ConcurrencyError.reentrantAccess) {
        try queue.read { _ in try queue.checkpoint() }
      }
      await #expect(throws: ConcurrencyError.reentrantAccess) {
        try await queue.write { _ in try queue.savepoint { _ in } }
      }
      // The queue is still fine.
      #expect(try count(queue) == 0)
    }

    @Test func reentrancyThroughAnotherQueueIsDetected() throws {
      let first = try makeQueue()
      let second = try makeQueue()
      #expect(throws: ConcurrencyError.reentrantAccess) {
        try first.sync { _ in try second.sync { _ in try first.sync { _ in } } }
      }
      // Nesting different queues is fine.
      let nested = try first.sync { _ in try second.sync { _ in 1 } }
      #expect(nested == 1)
    }

    @Test func aBlockingCallFromACompletionHandlerThrows() async throws {
      let queue = try makeQueue()
      let result: Result<Void, any Error> = await withCheckedContinuation { continuation in
        queue.async { _ in
        } completion: { _ in
          continuation.resume(returning: Result { try queue.sync { _ in } })
        }
      }
      #expect(throws: ConcurrencyError.reentrantAccess) { try result.get() }
    }

    @Test func closeMakesLaterCallsThrowDatabaseClosed() async throws {
      let queue = try makeQueue()
      try queue.close()
      try queue.close()
      #expect(throws: DatabaseError.databaseClosed) { try queue.sync { db in try db.execute(sql: "SELECT 1") } }
      #expect(throws: DatabaseError.databaseClosed) { try blocking { try queue.read { _ in } } }
      await #expect(throws: DatabaseError.databaseClosed) { try await queue.read { _ in } }
    }

    @Test func closingTheDatabaseInsideAClosureIsSafe() async throws {
      let queue = try makeQueue()
      try await queue.write { db in try db.close() }
      #expect(throws: DatabaseError.databaseClosed) { try queue.sync { db in try db.execute(sql: "SELECT 1") } }
    }

    @Test func opensAFileAndReportsItsPath() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let queue = try DatabaseQueue(path: path)
        #expect(queue.path == path)
        try queue.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        try queue.close()
        let reopened = try DatabaseQueue(path: path)
        let tables = try reopened.read { db in
          try db.prepare(sql: "SELECT name FROM sqlite_schema").column(0, as: String.self)
        }
        #expect(tables == ["t"])
        #expect(try DatabaseQueue().path == ":memory:")
      }
    }
  }
}
