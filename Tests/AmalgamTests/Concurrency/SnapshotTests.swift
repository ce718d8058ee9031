#if ENABLE_SNAPSHOT
  import Amalgam
  import Foundation
  import Testing

  extension ConcurrencyTests {
    @Suite struct SnapshotTests {
      /// A pool on a fresh WAL file with `t(x)` holding one row, and no automatic checkpoints.
      private func makePool(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
          if !db.isReadOnly { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.sync { db in try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        return pool
      }

      private func insert(_ pool: DatabasePool, _ value: Int) throws {
        try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value]) }
      }

      private static func count(_ db: Database) throws -> Int? {
        try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
      }

      @Test func aReadAtASnapshotSeesTheDatabaseAsItWasThen() async throws {
        try await ConcurrencyTests.withDatabasePath { path in
          let pool = try makePool(path)
          let snapshot = try await pool.read { db in try db.takeSnapshot() }
          try insert(pool, 2)
          try insert(pool, 3)
          #expect(try blocking { try pool.read(at: snapshot) { try Self.count($0) } } == 1)
          #expect(try await pool.read(at: snapshot) { try Self.count($0) } == 1)
          #expect(try await pool.read { try Self.count($0) } == 3)
        }
      }

      @Test func snapshotsCompareByAge() throws {
        try ConcurrencyTests.withDatabasePath { path in
          let pool = try makePool(path)
          let first = try pool.read { db in try db.takeSnapshot() }
          let sameCommit = try pool.read { db in try db.takeSnapshot() }
          try insert(pool, 2)
          let second = try pool.read { db in try db.takeSnapshot() }
          #expect(first == sameCommit)
          #expect(first < second)
          #expect(second > first)
          #expect(first != second)
          #expect([second, first].sorted() == [first, second])
        }
      }

      @Test func aReadQueueAndADatabaseQueueReadAtASnapshot() async throws {
        try await ConcurrencyTests.withDatabasePath { path in
          let pool = try makePool(path)
          let snapshot = try await pool.read { db in try db.takeSnapshot() }
          try insert(pool, 2)
          let reader = try DatabaseReadQueue(path: path)
          #expect(try blocking { try reader.read(at: snapshot) { try Self.count($0) } } == 1)
          #expect(try await reader.read(at: snapshot) { try Self.count($0) } == 1)
          let queue = try DatabaseQueue(path: path)
          #expect(try blocking { try queue.read(at: snapshot) { try Self.count($0) } } == 1)
          #expect(try await queue.read(at: snapshot) { try Self.count($0) } == 1)
          #expect(try await queue.read { try Self.count($0) } == 2)
        }
      }

      @Test func aReadQueueStaysOnASnapshotUntilUpdated() throws {
        try ConcurrencyTests.withDatabasePath { path in
          let pool = try makePool(path)
          let snapshot = try pool.read { db in try db.takeSnapshot() }
          try insert(pool, 2)
          let reader = try DatabaseReadQueue(path: path)
          try reader.beginReadTransaction(at: snapshot)
          try insert(pool, 3)
          #expect(try reader.read { try Self.count($0) } == 1)
          #expect(try reader.read { try $0.takeSnapshot() } == snapshot)
          #expect(throws: DatabaseError.self) { try reader.read(at: snapshot) { _ in } }
          try reader.updateReadTransaction()
          #expect(try reader.read { try Self.count($0) } == 3)
        }
      }

      @Test func takingASnapshotNeedsATransactionAndWAL() throws {
        let db = try Database.temporary()
        try db.execute(sql: "CREATE TABLE t(x)")
        #expect(throws: DatabaseError.self) { try db.takeSnapshot() }
        let error = #expect(throws: SQLiteError.self) { try db.transaction { db in try db.takeSnapshot() } }
        #expect(error?.code == .error)
      }

      @Test func aSnapshotOverwrittenByACheckpointCannotBeOpened() throws {
        try ConcurrencyTests.withDatabasePath { path in
          let pool = try makePool(path)
          let snapshot = try pool.read { db in try db.takeSnapshot() }
          try insert(pool, 2)
          try pool.checkpoint(.truncate)
          try insert(pool, 3)
          let error = #expect(throws: SQLiteError.self) { try pool.read(at: snapshot) { _ in } }
          #expect(error?.extendedCode == .errorSnapshot)
          // The reader is fine afterwards.
          #expect(try pool.read { try Self.count($0) } == 3)
        }
      }

      @Test func aSnapshotCanBeSentToAnotherTask() async throws {
        try await ConcurrencyTests.withDatabasePath { path in
          let pool = try makePool(path)
          let snapshot = try await pool.read { db in try db.takeSnapshot() }
          try insert(pool, 2)
          let counted = try await Task.detached { try await pool.read(at: snapshot) { try Self.count($0) } }.value
          #expect(counted == 1)
        }
      }
    }
  }
#endif
