import Amalgam
import Dispatch
import Foundation
import Testing

extension ConcurrencyTests {
  /// Timing-sensitive, so the tests of this suite run one at a time.
  @Suite(.serialized) struct BusyTests {
    /// Two writers on one WAL file; the first holds the write lock until `release` is called.
    private func withLockedDatabase(
      competitorTimeout: Double,
      _ body: (_ competitor: DatabaseQueue, _ release: @escaping @Sendable () throws -> Void) throws -> Void
    ) throws {
      try ConcurrencyTests.withDatabasePath { path in
        let holder = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .wal))
        try holder.sync { db in
          try db.execute(sql: "CREATE TABLE t(x)")
          try db.begin(.immediate)
          try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        let competitor = try DatabaseQueue(path: path, configuration: Configuration(busyTimeout: competitorTimeout))
        try body(competitor) { try holder.sync { db in try db.commit() } }
      }
    }

    @Test func aCompetingWriterGivesUpWithBusyAfterTheTimeout() throws {
      try withLockedDatabase(competitorTimeout: 0.3) { competitor, release in
        let start = DispatchTime.now()
        let error = #expect(throws: SQLiteError.self) {
          try competitor.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        let waited = seconds(since: start)
        #expect(error?.code == .busy)
        #expect(waited >= 0.25)
        #expect(waited < 3)
        try release()
        // Once the lock is free, the same writer succeeds.
        try competitor.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try competitor.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 2)
      }
    }

    @Test func aBusyDatabaseIsRetriedUntilTheLockIsReleased() throws {
      try withLockedDatabase(competitorTimeout: 10) { competitor, release in
        let start = DispatchTime.now()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
          #expect(throws: Never.self) { try release() }
        }
        try competitor.transaction(.immediate) { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        let waited = seconds(since: start)
        #expect(waited >= 0.15)
        #expect(waited < 5)
        #expect(try competitor.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 2)
      }
    }

    @Test func aZeroTimeoutFailsAtOnce() throws {
      try withLockedDatabase(competitorTimeout: 0) { competitor, release in
        let start = DispatchTime.now()
        let error = #expect(throws: SQLiteError.self) {
          try competitor.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        }
        #expect(error?.code == .busy)
        // Well under the default 5 s timeout, with room for a loaded machine.
        #expect(seconds(since: start) < 2)
        try release()
      }
    }

    @Test func aBusyHandlerInstalledByPrepareDatabaseReplacesTheTimeout() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let holder = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .wal))
        try holder.sync { db in
          try db.execute(sql: "CREATE TABLE t(x)")
          try db.begin(.immediate)
        }
        let calls = Shared<[Int]>([])
        var configuration = Configuration(busyTimeout: 60)
        configuration.prepareDatabase = { db in
          try db.setBusyHandler { retryCount in
            calls.withLock { $0.append(retryCount) }
            return retryCount < 3
          }
        }
        let competitor = try DatabaseQueue(path: path, configuration: configuration)
        let start = DispatchTime.now()
        let error = #expect(throws: SQLiteError.self) {
          try competitor.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code == .busy)
        #expect(calls.current == [0, 1, 2, 3])
        // The handler, not the 60 s timeout, decided.
        #expect(seconds(since: start) < 5)
        try holder.sync { db in try db.rollback() }
      }
    }

    @Test func aPoolWriterReportsBusyFromAnotherWriter() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path, configuration: Configuration(busyTimeout: 0.2))
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        let other = try DatabaseQueue(path: path)
        try other.sync { db in try db.begin(.immediate) }
        let error = await #expect(throws: SQLiteError.self) {
          try await pool.transaction(.immediate) { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code == .busy)
        // Readers are not blocked by the other writer.
        #expect(try await pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 0)
        try other.sync { db in try db.rollback() }
        try await pool.transaction(.immediate) { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
      }
    }
  }
}
