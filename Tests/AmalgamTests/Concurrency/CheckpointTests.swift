import Amalgam
import Foundation
import Testing

extension ConcurrencyTests {
  @Suite struct CheckpointTests {
    /// A pool on a fresh WAL file whose WAL holds `commits` committed transactions.
    private func makePool(_ path: String, commits: Int, busyTimeout: Double = 5) throws -> DatabasePool {
      var configuration = Configuration(busyTimeout: busyTimeout)
      configuration.prepareDatabase = { db in
        // No automatic checkpoints: the tests decide when the WAL is copied.
        if !db.isReadOnly { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
      }
      let pool = try DatabasePool(path: path, configuration: configuration)
      try pool.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
      for value in 1..<commits {
        try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value]) }
      }
      return pool
    }

    private func walSize(_ path: String) throws -> Int {
      let attributes = try FileManager.default.attributesOfItem(atPath: path + "-wal")
      return (attributes[.size] as? NSNumber)?.intValue ?? -1
    }

    @Test func passiveCopiesEveryFrameWhenNothingElseRuns() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, commits: 5)
        let result = try pool.checkpoint(.passive)
        #expect(result.logFrameCount >= 5)
        #expect(result.checkpointedFrameCount == result.logFrameCount)
        #expect(result.isComplete)
        // Checkpointed frames stay in the log file until a writer starts it over.
        #expect(try walSize(path) > 0)
      }
    }

    @Test func fullAndRestartCopyEveryFrame() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, commits: 3)
        let full = try pool.checkpoint(.full)
        #expect(full.logFrameCount > 0)
        #expect(full.isComplete)
        try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (100)") }
        let restart = try pool.checkpoint(.restart)
        #expect(restart.isComplete)
        // After a restart checkpoint the next commit writes the log from its start.
        try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (101)") }
        let after = try pool.checkpoint(.passive)
        #expect(after.logFrameCount < full.logFrameCount + restart.logFrameCount)
      }
    }

    @Test func truncateEmptiesTheLogFile() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, commits: 5)
        #expect(try walSize(path) > 0)
        let result = try pool.checkpoint(.truncate)
        #expect(result == CheckpointResult(logFrameCount: 0, checkpointedFrameCount: 0))
        #expect(try walSize(path) == 0)
        #expect(try pool.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) } == 4)
      }
    }

    @Test func passiveStopsAtAReaderAndFullGivesUpWithBusy() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try makePool(path, commits: 2, busyTimeout: 0.2)
        let reader = try DatabaseReadQueue(path: path)
        try reader.beginReadTransaction()
        for value in 10..<15 {
          try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value]) }
        }
        // The reader still uses the frames it started with: a passive checkpoint cannot copy later ones.
        let passive = try pool.checkpoint(.passive)
        #expect(passive.checkpointedFrameCount < passive.logFrameCount)
        // A full checkpoint waits for the reader, up to the busy timeout, then reports SQLITE_BUSY.
        let error = #expect(throws: SQLiteError.self) { try pool.checkpoint(.full) }
        #expect(error?.code == .busy)
        try reader.endReadTransaction()
        #expect(try pool.checkpoint(.full).isComplete)
      }
    }

    @Test func aDatabaseNotInWALModeReportsMinusOne() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let queue = try DatabaseQueue(path: path)
        try queue.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        for mode in CheckpointMode.allCases {
          #expect(try queue.checkpoint(mode) == CheckpointResult(logFrameCount: -1, checkpointedFrameCount: -1))
        }
      }
    }

    @Test func aDatabaseCanCheckpointItselfAndNamesItsSchema() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let db = try Database(path: path)
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "CREATE TABLE t(x)")
        #expect(
          try db.checkpoint(.truncate, schema: "main") == CheckpointResult(logFrameCount: 0, checkpointedFrameCount: 0))
        let error = #expect(throws: SQLiteError.self) { try db.checkpoint(schema: "nowhere") }
        #expect(error?.code == .error)
      }
    }
  }
}
