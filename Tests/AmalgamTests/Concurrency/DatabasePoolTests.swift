import Amalgam
import Dispatch
import Foundation
import Testing

extension ConcurrencyTests {
  @Suite struct DatabasePoolTests {
    private func makePool(_ path: String, readers: Int = 5) throws -> DatabasePool {
      let pool = try DatabasePool(path: path, configuration: Configuration(maximumReaderCount: readers))
      try pool.sync { db in try db.execute(sql: "CREATE TABLE t(x INTEGER)") }
      return pool
    }

    private func count(_ pool: DatabasePool) throws -> Int? {
      try pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) }
    }

    @Test func switchesTheFileToWALAndReadsWhatWasWritten() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path)
        #expect(try pool.sync { db in try db.prepare(sql: "PRAGMA journal_mode").front(String.self) } == "wal")
        try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1), (2)") }
        let sum = try await pool.read { db in try db.prepare(sql: "SELECT sum(x) FROM t").front(Int.self) }
        #expect(sum == 3)
        #expect(pool.path == path)
      }
    }

    @Test func readersSeeOnlyCommittedData() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path)
        try pool.sync { db in
          try db.begin()
          try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        #expect(try count(pool) == 0)
        try pool.sync { db in try db.commit() }
        #expect(try count(pool) == 1)
      }
    }

    @Test func readersRefuseWrites() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path)
        let error = #expect(throws: SQLiteError.self) {
          try pool.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code == .readOnly)
        #expect(try count(pool) == 0)
      }
    }

    @Test func aReadRunsWhileAWriteIsInProgress() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path)
        let writing = Signal()
        let readDone = Signal()
        let writeDone = Signal()
        pool.asyncTransaction { db in
          try db.execute(sql: "INSERT INTO t VALUES (1)")
          writing.signal()
          // The write stays open until the read has finished.
          #expect(readDone.wait())
        } completion: { result in
          #expect((try? result.get()) != nil)
          writeDone.signal()
        }
        #expect(writing.wait())
        #expect(try count(pool) == 0)
        readDone.signal()
        #expect(writeDone.wait())
        #expect(try count(pool) == 1)
      }
    }

    @Test func readsRunInParallelUpToTheMaximum() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, readers: 3)
        let active = Shared((now: 0, highest: 0))
        let allArrived = Shared(false)
        let group = DispatchGroup()
        for _ in 0..<9 {
          group.enter()
          ConcurrencyTests.onThread {
            defer { group.leave() }
            do {
              try pool.read { _ in
                let now = active.withLock { state in
                  state.now += 1
                  state.highest = max(state.highest, state.now)
                  return state.now
                }
                if now == 3 { allArrived.withLock { $0 = true } }
                // Wait (bounded) until three reads run at once; serialised reads would never get there.
                let deadline = Date().addingTimeInterval(5)
                while !allArrived.current && Date() < deadline { usleep(1000) }
                active.withLock { $0.now -= 1 }
              }
            } catch {
              Issue.record(error)
            }
          }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(allArrived.current)
        #expect(active.current.highest == 3)
      }
    }

    @Test func theReaderCountNeverExceedsTheMaximum() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let opened = Shared(0)
        var configuration = Configuration(maximumReaderCount: 2)
        configuration.prepareDatabase = { _ in opened.withLock { $0 += 1 } }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        let active = Shared((now: 0, highest: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
          for _ in 0..<20 {
            group.addTask {
              try await pool.read { db in
                active.withLock { state in
                  state.now += 1
                  state.highest = max(state.highest, state.now)
                }
                defer { active.withLock { $0.now -= 1 } }
                _ = try db.prepare(sql: ConcurrencyTests.shortQuery).front(Int.self)
              }
            }
          }
          try await group.waitForAll()
        }
        #expect(active.current.highest <= 2)
        #expect(opened.current <= 1 + 2)
      }
    }

    @Test func nestingReadsAndWritesOnDifferentConnectionsIsAllowed() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path)
        let seen = try pool.sync { db in
          try db.execute(sql: "INSERT INTO t VALUES (1)")
          return try pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) }
        }
        #expect(seen == 1)
        try pool.read { _ in try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") } }
        #expect(try count(pool) == 2)
      }
    }

    @Test func reentrantBlockingCallsThrow() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path)
        #expect(throws: ConcurrencyError.reentrantAccess) { try pool.read { _ in try pool.read { _ in } } }
        #expect(throws: ConcurrencyError.reentrantAccess) { try pool.sync { _ in try pool.transaction { _ in } } }
        #expect(throws: ConcurrencyError.reentrantAccess) {
          try pool.read { _ in try pool.sync { _ in try pool.read { _ in } } }
        }
      }
    }

    @Test func callbackReadsDeliverTheirResults() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, readers: 2)
        try await pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (1), (2), (3)") }
        let values = try await withThrowingTaskGroup(of: Int?.self) { group in
          for _ in 0..<10 {
            group.addTask {
              try await withCheckedThrowingContinuation { continuation in
                pool.asyncRead { db in
                  try db.prepare(sql: "SELECT sum(x) FROM t").front(Int.self)
                } completion: {
                  continuation.resume(with: $0)
                }
              }
            }
          }
          return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 6, count: 10))
      }
    }

    @Test func aReaderThatFailsToOpenFreesItsPlace() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let failReaders = Shared(false)
        var configuration = Configuration(maximumReaderCount: 1)
        configuration.prepareDatabase = { db in
          if db.isReadOnly && failReaders.current { throw DatabaseError.transactionState("refused") }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        failReaders.withLock { $0 = true }
        #expect(throws: DatabaseError.transactionState("refused")) { try pool.read { _ in } }
        failReaders.withLock { $0 = false }
        #expect(try count(pool) == 0)
      }
    }

    @Test func aReaderClosedInsideAReadIsReplaced() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, readers: 1)
        #expect(throws: (any Error).self) { try pool.read { db in try db.close() } }
        #expect(try count(pool) == 0)
      }
    }

    @Test func aReadOnlyPoolOpensAnExistingWALFile() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let writable = try makePool(path)
        try writable.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        let readOnly = try DatabasePool(path: path, configuration: Configuration(readOnly: true))
        #expect(try count(readOnly) == 1)
        #expect(throws: SQLiteError.self) {
          try readOnly.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
      }
    }

    @Test func aReadOnlyPoolRefusesAFileNotInWALMode() throws {
      try ConcurrencyTests.withDatabasePath { path in
        try DatabaseQueue(path: path).sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        #expect(throws: ConcurrencyError.journalModeNotApplied(requested: "wal", actual: "delete")) {
          try DatabasePool(path: path, configuration: Configuration(readOnly: true))
        }
      }
    }

    @Test func closeFailsLaterCallsAndWaitingReads() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, readers: 1)
        _ = try await pool.read { _ in }
        try pool.close()
        await #expect(throws: DatabaseError.databaseClosed) { try await pool.read { _ in } }
        await #expect(throws: DatabaseError.databaseClosed) {
          try await pool.write { db in try db.execute(sql: "SELECT 1") }
        }
      }
    }
  }
}
