import Amalgam
import Foundation
import Testing

extension ConcurrencyTests {
  /// The README's "Concurrency" examples, verbatim between the markers, followed by checks of what they
  /// did. If the README changes, change this copy too: `everyReadmeLineIsInThisFile` compares them.
  @Suite struct ReadmeTests {
    @Test func queueExample() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        // README concurrency queue: begin
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
        // README concurrency queue: end

        #expect(count == 0)
        #expect(texts == ["from a callback", "awaited"])
      }
    }

    @Test func poolExample() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        // README concurrency pool: begin
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
        // README concurrency pool: end

        await #expect(throws: CancellationError.self) { try await report.value }
        #expect(try await pool.read { db in try db.prepare(sql: "SELECT fahrenheit(40)").front(Double.self) } == 104)
      }
    }

    @Test func readQueueExample() throws {
      try ConcurrencyTests.withDatabasePath { path in
        // README concurrency read queue: begin
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
        // README concurrency read queue: end

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
          // README concurrency snapshot: begin
          // Snapshots (ENABLE_SNAPSHOT trait, on by default): read the database as it was.
          let snapshot = try pool.read { db in try db.takeSnapshot() }
          try pool.sync { db in try db.execute(sql: "DELETE FROM note") }
          let then = try pool.read(at: snapshot) { db in
            try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
          }
          // README concurrency snapshot: end
          countThen = then
          #expect(countThen == 1)
        #endif
        // README concurrency checkpoint: begin
        // Copy the write-ahead log into the database file and empty it.
        let result = try pool.checkpoint(.truncate)  // CheckpointResult(logFrameCount: 0, checkpointedFrameCount: 0)
        // README concurrency checkpoint: end
        #expect(result == CheckpointResult(logFrameCount: 0, checkpointedFrameCount: 0))
        _ = countThen
      }
    }

    /// The lines of every Swift code block in the README's section "Concurrency".
    static func readmeLines() throws -> [String] {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
      let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
      guard let section = readme.range(of: "\n## Concurrency\n") else { return [] }
      let sectionEnd =
        readme.range(of: "\n## ", range: section.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
      var lines: [String] = []
      var searchStart = section.upperBound
      while let start = readme.range(of: "```swift\n", range: searchStart..<sectionEnd),
        let end = readme.range(of: "```", range: start.upperBound..<sectionEnd)
      {
        lines += readme[start.upperBound..<end.lowerBound].split(separator: "\n")
          .map { $0.trimmingCharacters(in: .whitespaces) }
          .filter { !$0.isEmpty && $0 != "import Amalgam" }
        searchStart = end.upperBound
      }
      return lines
    }

    @Test func everyReadmeLineIsInThisFile() throws {
      let lines = try Self.readmeLines()
      let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
      #expect(lines.count > 40)
      for line in lines {
        #expect(test.contains(line), "README line not in ConcurrencyReadmeTests: \(line)")
      }
    }
  }
}
