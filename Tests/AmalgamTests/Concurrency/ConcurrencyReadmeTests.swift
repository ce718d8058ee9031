import Amalgam
import Foundation
import Testing

extension ConcurrencyTests {
  /// The Concurrency article's examples, verbatim between the markers, followed by
  /// checks of what they did. If the article changes, change this copy too: `everyArticleLineIsInThisFile`
  /// compares them.
  @Suite struct ReadmeTests {
    @Test func queueExample() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        // article concurrency queue: begin
        // One connection shared by every thread and task: closures run one at a time, in order.
        let queue = try DatabaseQueue(path: path)
        try queue.sync { db in
          try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        }

        // Three styles: blocking, with a completion callback, or awaited.
        let count = try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
        queue.async { db in
          try db.execute(sql: "INSERT INTO note(text) VALUES (?)", parameterValues: ["from a callback"])
        } completion: { result in
          if case .failure(let error) = result { print(error) }
        }
        try await queue.transaction { db in
          try db.execute(sql: "INSERT INTO note(text) VALUES (?)", parameterValues: ["awaited"])
        }
        let texts = try await queue.read { db in
          try db.prepare(sql: "SELECT text FROM note ORDER BY id").column(0, as: String.self)
        }
        // article concurrency queue: end

        #expect(count == 0)
        #expect(texts == ["from a callback", "awaited"])
      }
    }

    @Test func poolExample() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        // article concurrency pool: begin
        var configuration = Configuration()  // busy timeout 5 s, foreign keys on
        configuration.maximumReaderCount = 4
        configuration.prepareDatabase = { db in  // runs on the writer and on every reader it opens
          try db.addFunction("fahrenheit") { (celsius: Double) in celsius * 9 / 5 + 32 }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)  // puts the file in WAL mode

        try await pool.write { db in
          try db.execute(sql: "CREATE TABLE reading(celsius REAL NOT NULL)")
        }
        // Reads run in parallel with each other and with the write; each sees one committed state.
        async let hottest = pool.read { db in
          try db.prepare(sql: "SELECT fahrenheit(celsius) FROM reading ORDER BY celsius DESC").front(Double.self)
        }
        async let readings = pool.read { db in try db.prepare(sql: "SELECT count(*) FROM reading").front(Int.self) }
        try await pool.transaction { db in
          try db.execute(sql: "INSERT INTO reading VALUES (21.5), (40)")
        }
        print(try await hottest ?? .nan, try await readings ?? 0)  // from before or after the insert

        // Cancelling the awaiting task interrupts the running statement: the call throws
        // CancellationError, a transaction the closure opened is rolled back, the pool carries on.
        let report = Task {
          try await pool.read { db in
            try db.prepare(sql: "SELECT count(*) FROM reading a, reading b, reading c").front(Int.self)
          }
        }
        report.cancel()
        // article concurrency pool: end

        await #expect(throws: CancellationError.self) { try await report.value }
        #expect(try await pool.read { db in try db.prepare(sql: "SELECT fahrenheit(40)").front(Double.self) } == 104)
      }
    }

    @Test func readQueueExample() throws {
      try ConcurrencyTests.withDatabasePath { path in
        // article concurrency read queue: begin
        // A read-only connection beside a writer (in WAL mode, reads never wait for writes).
        let writer = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .wal))
        try writer.sync { db in try db.execute(sql: "CREATE TABLE note(text TEXT)") }
        let reader = try DatabaseReadQueue(path: path)

        try reader.beginReadTransaction()  // every read sees this state until updated
        try writer.sync { db in try db.execute(sql: "INSERT INTO note VALUES ('later')") }
        let before = try reader.read { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }  // 0
        try reader.updateReadTransaction()  // move to the latest commit
        let after = try reader.read { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }  // 1
        try reader.endReadTransaction()  // back to a transaction per read
        // article concurrency read queue: end

        #expect(before == 0)
        #expect(after == 1)
      }
    }

    @Test func checkpointAndSnapshotExample() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path)
        try pool.sync { db in try db.batch(sql: "CREATE TABLE note(text TEXT); INSERT INTO note VALUES ('a')") }
        var countThen: Int?
        #if ENABLE_SNAPSHOT
          // article concurrency snapshot: begin
          // Snapshots (ENABLE_SNAPSHOT trait, on by default): read the database as it was.
          let snapshot = try pool.read { db in try db.takeSnapshot() }
          try pool.sync { db in try db.execute(sql: "DELETE FROM note") }
          let then = try pool.read(at: snapshot) { db in
            try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
          }
          // article concurrency snapshot: end
          countThen = then
          #expect(countThen == 1)
        #endif
        // article concurrency checkpoint: begin
        // Copy the write-ahead log into the database file and empty it.
        let result = try pool.checkpoint(.truncate)  // CheckpointResult(logFrameCount: 0, checkpointedFrameCount: 0)
        // article concurrency checkpoint: end
        #expect(result == CheckpointResult(logFrameCount: 0, checkpointedFrameCount: 0))
        _ = countThen
      }
    }

    @Test func everyArticleLineIsInThisFile() throws {
      // Keeps the copies honest: the Concurrency article's examples are in this file.
      for firstLine in [
        "let queue = try DatabaseQueue(path: path)",
        "var configuration = Configuration()  // busy timeout 5 s, foreign keys on",
        "let writer = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .wal))",
        "let snapshot = try pool.read { db in try db.takeSnapshot() }",
      ] {
        try ArticleCodeBlocks.expectBlock(of: "Concurrency.md", containing: firstLine, isIn: #filePath)
      }
    }
  }
}
