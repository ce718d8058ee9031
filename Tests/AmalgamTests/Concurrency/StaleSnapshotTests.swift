#if ENABLE_SNAPSHOT
  import Amalgam
  import Foundation
  import Testing

  extension ConcurrencyTests {
    @Suite struct StaleSnapshotTests {
      @Test func aReadQueueRefusesAnOverwrittenSnapshotAndStaysUsable() throws {
        try ConcurrencyTests.withDatabasePath { path in
          var configuration = Configuration()
          configuration.prepareDatabase = { db in
            if !db.isReadOnly { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
          }
          let pool = try DatabasePool(path: path, configuration: configuration)
          try pool.sync { db in try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
          let snapshot = try pool.read { db in try db.takeSnapshot() }
          try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
          try pool.checkpoint(.truncate)
          try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }

          let reader = try DatabaseReadQueue(path: path)
          let error = #expect(throws: SQLiteError.self) { try reader.beginReadTransaction(at: snapshot) }
          #expect(error?.extendedCode == .errorSnapshot)
          // The failed begin left no transaction open: a long read transaction on the present state begins.
          try reader.beginReadTransaction()
          #expect(try reader.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") } == 3)
          try reader.endReadTransaction()
        }
      }
    }
  }
#endif
