import Amalgam
import Foundation
import Testing

/// ``Configuration/walCheckpointing``: what ``WALCheckpointing/leftToReplicator`` changes for a queue or pool,
/// and what ``WALCheckpointing/automatic`` keeps. LitestreamReplicationTests runs Litestream on such a pool.
@Suite struct WALCheckpointingTests {
  static func replicatorConfiguration() -> Configuration {
    var configuration = Configuration()
    configuration.walCheckpointing = .leftToReplicator
    return configuration
  }

  @Test func leftToReplicatorRefusesEveryCheckpointAndTurnsAutomaticOnesOff() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.db").path
      // The configuration of the article "Beyond one machine".
      var configuration = Configuration()
      configuration.walCheckpointing = .leftToReplicator
      configuration.busyTimeout = 5
      let pool = try DatabasePool(path: path, configuration: configuration)
      #expect(try pool.sync { db in try db.prepare(sql: "PRAGMA wal_autocheckpoint").front(Int.self) } == 0)
      // 2,000 pages of log, past SQLite's automatic threshold of 1,000: no checkpoint copies them back.
      try pool.sync { db in
        try db.batch(sql: "PRAGMA page_size = 1024; CREATE TABLE t(x)")
        for _ in 0..<2_000 { try db.execute(sql: "INSERT INTO t VALUES (randomblob(900))") }
      }
      for mode in CheckpointMode.allCases {
        #expect {
          try pool.checkpoint(mode)
        } throws: { error in
          guard case ConcurrencyError.invalidConfiguration(let message) = error else { return false }
          return message.contains("\(mode.rawValue) mode") && message.contains("leftToReplicator")
        }
      }
      // Nothing was copied back: a checkpoint in SQL (the caller's, run as written) still finds every frame.
      let passive = try pool.sync { db in try db.prepare(sql: "PRAGMA wal_checkpoint(PASSIVE)").allRows() }
      #expect(passive.count == 1)
      if let row = passive.first, case .integer(let log) = row[1] {
        #expect(log >= 2_000 && row[1] == row[2])
      } else {
        Issue.record("PRAGMA wal_checkpoint returned \(passive)")
      }
      try pool.close()
    }
  }

  /// Whether `error` is the refusal of a checkpoint in `mode` left to the replicator.
  static func isRefusal(_ error: any Error, _ mode: CheckpointMode) -> Bool {
    guard case ConcurrencyError.invalidConfiguration(let message) = error else { return false }
    return message.contains("\(mode.rawValue) mode") && message.contains("leftToReplicator")
  }

  @Test func leftToReplicatorRefusesTheCheckpointsOfEveryConnectionItOpens() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.db").path
      let queue = try DatabaseQueue(path: path, configuration: Self.replicatorConfiguration())
      try queue.sync { db in try db.batch(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)")
      }
      for mode in CheckpointMode.allCases {
        // Inside the writer's closure, on the connection itself.
        #expect { try queue.sync { db in try db.checkpoint(mode) } } throws: { Self.isRefusal($0, mode) }
      }
      // A read queue's connection, and a pool's reader.
      let reader = try DatabaseReadQueue(path: path, configuration: Self.replicatorConfiguration())
      #expect { try reader.read { db in try db.checkpoint(.passive) } } throws: { Self.isRefusal($0, .passive) }
      let pool = try DatabasePool(path: path, configuration: Self.replicatorConfiguration())
      #expect { try pool.read { db in try db.checkpoint(.passive) } } throws: { Self.isRefusal($0, .passive) }
      // Removing a WAL hook leaves automatic checkpoints off.
      let autocheckpoint = try queue.sync { db in
        try db.setWALHook { _, _ in }
        try db.removeWALHook()
        return try db.prepare(sql: "PRAGMA wal_autocheckpoint").front(Int.self)
      }
      #expect(autocheckpoint == 0)
      // A connection opened without the configuration checkpoints as ever.
      let plain = try Database(path: path)
      #expect(try plain.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 1)
      #expect(try plain.checkpoint(.passive).logFrameCount >= 0)
      try plain.close()
      try pool.close()
      try reader.close()
      try queue.close()
    }
  }

  /// Writes a row through a queue with `configuration` in WAL mode, closes and releases the queue (a closed
  /// queue's connection finishes closing when the queue is released), and returns the size of the log
  /// file left, or nil when there is none.
  static func logLeftAfterClosing(_ configuration: Configuration, in directory: URL) throws -> Int? {
    let path = directory.appendingPathComponent("app.db").path
    do {
      var configuration = configuration
      configuration.journalMode = .wal
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      let skipsCloseCheckpoint = try queue.sync { db in
        try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        return try db.isEnabled(.noCheckpointOnClose)
      }
      #expect(skipsCloseCheckpoint == (configuration.walCheckpointing == .leftToReplicator))
      try queue.close()
    }
    guard FileManager.default.fileExists(atPath: path + "-wal") else { return nil }
    return try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
  }

  @Test func leftToReplicatorKeepsTheLogWhenTheLastConnectionCloses() throws {
    try withTemporaryDirectory { directory in
      let log = try Self.logLeftAfterClosing(Self.replicatorConfiguration(), in: directory)
      #expect((log ?? 0) > 0)
    }
  }

  @Test func automaticCheckpointsAndDeletesTheLogWhenTheLastConnectionCloses() throws {
    try withTemporaryDirectory { directory in
      #expect(Configuration().walCheckpointing == .automatic)
      let log = try Self.logLeftAfterClosing(Configuration(), in: directory)
      #expect(log == nil)
    }
  }

  @Test func readersOfAPoolLeftToTheReplicatorSkipTheCloseCheckpointToo() throws {
    try withTemporaryDirectory { directory in
      let pool = try DatabasePool(
        path: directory.appendingPathComponent("app.db").path, configuration: Self.replicatorConfiguration())
      try pool.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
      #expect(try pool.read { db in try db.isEnabled(.noCheckpointOnClose) })
      try pool.close()
    }
  }
}
