import Amalgam
import Foundation
import Testing

extension ConcurrencyTests {
  @Suite struct DatabaseReadQueueTests {
    /// A WAL database with `t(x)` holding `rows` rows, its writer, and a read queue on it.
    private func makeDatabase(in path: String, rows: Int = 1) throws -> (DatabaseQueue, DatabaseReadQueue) {
      let writer = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .wal))
      try writer.sync { db in
        try db.execute(sql: "CREATE TABLE t(x INTEGER)")
        for value in 0..<rows { try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value]) }
      }
      return (writer, try DatabaseReadQueue(path: path))
    }

    private func count(_ reader: DatabaseReadQueue) throws -> Int? {
      try reader.read { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) }
    }

    @Test func readsWhatTheWriterCommitted() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (writer, reader) = try makeDatabase(in: path, rows: 3)
        #expect(try count(reader) == 3)
        try writer.sync { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try count(reader) == 4)
        #expect(reader.path == path)
      }
    }

    @Test func refusesWrites() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (_, reader) = try makeDatabase(in: path)
        let error = #expect(throws: SQLiteError.self) {
          try reader.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code == .readOnly)
      }
    }

    @Test func readsWhileAWriteTransactionIsOpenSeeingOnlyCommittedData() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (writer, reader) = try makeDatabase(in: path, rows: 1)
        try writer.sync { db in
          try db.begin(.immediate)
          try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        #expect(try count(reader) == 1)
        try writer.sync { db in try db.commit() }
        #expect(try count(reader) == 2)
      }
    }

    @Test func aLongReadTransactionSeesOneStateUntilUpdated() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (writer, reader) = try makeDatabase(in: path, rows: 1)
        try reader.beginReadTransaction()
        try writer.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(try count(reader) == 1)
        #expect(try count(reader) == 1)
        try reader.updateReadTransaction()
        #expect(try count(reader) == 2)
        try writer.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try count(reader) == 2)
        try reader.endReadTransaction()
        #expect(try count(reader) == 3)
        // Ending twice, or updating without one open, is fine.
        try reader.endReadTransaction()
        try reader.updateReadTransaction()
        try reader.endReadTransaction()
      }
    }

    @Test func aFailingReadKeepsTheLongReadTransaction() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (writer, reader) = try makeDatabase(in: path, rows: 1)
        try reader.beginReadTransaction()
        try writer.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(throws: SQLiteError.self) { try reader.read { db in try db.execute(sql: "SELECT * FROM nowhere") } }
        #expect(try count(reader) == 1)
      }
    }

    @Test func beginningASecondLongReadTransactionThrows() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (_, reader) = try makeDatabase(in: path)
        try reader.beginReadTransaction()
        #expect(throws: DatabaseError.self) { try reader.beginReadTransaction() }
      }
    }

    @Test func aMissingFileCannotBeOpened() throws {
      try withTemporaryDirectory { directory in
        let error = #expect(throws: SQLiteError.self) {
          try DatabaseReadQueue(path: directory.appendingPathComponent("missing.sqlite").path)
        }
        #expect(error?.code == .cannotOpen)
      }
    }

    @Test func awaitedAndCallbackReads() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let (_, reader) = try makeDatabase(in: path, rows: 4)
        let awaited = try await reader.read { db in try db.prepare(sql: "SELECT sum(x) FROM t").front(Int.self) }
        #expect(awaited == 6)
        let delivered: Int? = try await withCheckedThrowingContinuation { continuation in
          reader.asyncRead { db in
            try db.prepare(sql: "SELECT max(x) FROM t").front(Int.self)
          } completion: {
            continuation.resume(with: $0)
          }
        }
        #expect(delivered == 3)
      }
    }

    @Test func reentrantReadsThrow() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let (_, reader) = try makeDatabase(in: path)
        #expect(throws: ConcurrencyError.reentrantAccess) { try reader.read { _ in try reader.read { _ in } } }
        #expect(throws: ConcurrencyError.reentrantAccess) { try reader.read { _ in try reader.endReadTransaction() } }
      }
    }

    @Test func closeEndsTheQueue() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let (_, reader) = try makeDatabase(in: path)
        try reader.beginReadTransaction()
        try reader.close()
        await #expect(throws: DatabaseError.databaseClosed) { try await reader.read { _ in } }
      }
    }
  }
}
