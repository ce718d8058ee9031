import Amalgam
import Foundation
import Testing

extension ConcurrencyTests {
  @Suite struct ConfigurationTests {
    private func pragma(_ writer: some DatabaseWriter, _ name: String) throws -> DatabaseValue? {
      try writer.sync { db in try db.prepare(sql: "PRAGMA \(name)").firstRow()?.first }
    }

    @Test func defaultsWaitFiveSecondsEnforceForeignKeysAndKeepTheJournalMode() throws {
      let configuration = Configuration()
      #expect(configuration.busyTimeout == 5)
      #expect(configuration.foreignKeys)
      #expect(configuration.journalMode == nil)
      #expect(configuration.maximumReaderCount == 5)
      try ConcurrencyTests.withDatabasePath { path in
        let queue = try DatabaseQueue(path: path)
        #expect(try pragma(queue, "busy_timeout") == .integer(5000))
        #expect(try pragma(queue, "foreign_keys") == .integer(1))
        #expect(try pragma(queue, "journal_mode") == .text("delete"))
      }
    }

    @Test func settingsApplyToTheConnection() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let configuration = Configuration(journalMode: .wal, busyTimeout: 0.25, foreignKeys: false)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        #expect(try pragma(queue, "busy_timeout") == .integer(250))
        #expect(try pragma(queue, "foreign_keys") == .integer(0))
        #expect(try pragma(queue, "journal_mode") == .text("wal"))
      }
    }

    @Test func everyJournalModeCanBeSet() throws {
      try ConcurrencyTests.withDatabasePath { path in
        for mode in JournalMode.allCases {
          let queue = try DatabaseQueue(path: path, configuration: Configuration(journalMode: mode))
          #expect(try pragma(queue, "journal_mode") == .text(mode.rawValue))
          try queue.close()
        }
      }
    }

    @Test func walForAnInMemoryDatabaseThrows() throws {
      #expect(throws: ConcurrencyError.journalModeNotApplied(requested: "wal", actual: "memory")) {
        try DatabaseQueue(configuration: Configuration(journalMode: .wal))
      }
    }

    @Test func foreignKeysAreEnforcedByDefault() throws {
      let queue = try DatabaseQueue()
      let error = #expect(throws: SQLiteError.self) {
        try queue.sync { db in
          try db.batch(
            sql: """
              CREATE TABLE parent(id INTEGER PRIMARY KEY);
              CREATE TABLE child(parent INTEGER REFERENCES parent(id));
              INSERT INTO child VALUES (1);
              """)
        }
      }
      #expect(error?.extendedCode == .constraintForeignKey)
    }

    @Test func readOnlyRefusesWrites() throws {
      try ConcurrencyTests.withDatabasePath { path in
        try DatabaseQueue(path: path).sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        let queue = try DatabaseQueue(path: path, configuration: Configuration(readOnly: true))
        let error = #expect(throws: SQLiteError.self) {
          try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code == .readOnly)
        #expect(try queue.sync { $0.isReadOnly })
      }
    }

    @Test func prepareDatabaseRunsOnTheWriterAndEveryReader() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let opened = Shared(0)
        var configuration = Configuration(maximumReaderCount: 3)
        configuration.prepareDatabase = { db in
          opened.withLock { $0 += 1 }
          try db.execute(sql: "PRAGMA cache_size = -1234")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        // Hold three reads open at once, so that the pool opens all three readers.
        let sizes = try await withThrowingTaskGroup(of: Int?.self) { group in
          let arrived = Shared(0)
          for _ in 0..<3 {
            group.addTask {
              try await pool.read { db in
                arrived.withLock { $0 += 1 }
                let deadline = Date().addingTimeInterval(10)
                while arrived.current < 3 && Date() < deadline { usleep(1000) }
                return try db.prepare(sql: "PRAGMA cache_size").front(Int.self)
              }
            }
          }
          return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sizes == [-1234, -1234, -1234])
        #expect(opened.current == 4)
      }
    }

    @Test func anErrorInPrepareDatabaseFailsTheOpen() throws {
      var configuration = Configuration()
      configuration.prepareDatabase = { db in try db.execute(sql: "SELECT * FROM nowhere") }
      let error = #expect(throws: SQLiteError.self) { try DatabaseQueue(configuration: configuration) }
      #expect(error?.message == "no such table: nowhere")
    }

    @Test func aPoolRefusesAnInvalidConfiguration() throws {
      try ConcurrencyTests.withDatabasePath { path in
        #expect(throws: ConcurrencyError.self) {
          try DatabasePool(path: path, configuration: Configuration(maximumReaderCount: 0))
        }
        #expect(throws: ConcurrencyError.self) {
          try DatabasePool(path: path, configuration: Configuration(journalMode: .delete))
        }
        #expect(throws: ConcurrencyError.journalModeNotApplied(requested: "wal", actual: "memory")) {
          try DatabasePool(path: ":memory:")
        }
      }
    }
  }
}
