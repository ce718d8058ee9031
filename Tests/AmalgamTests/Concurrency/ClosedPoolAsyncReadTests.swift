import Amalgam
import Foundation
import Testing

extension ConcurrencyTests {
  @Suite struct ClosedPoolAsyncReadTests {
    @Test func anAsyncReadOnAClosedPoolCompletesWithDatabaseClosed() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path)
        try pool.close()
        let result: Result<Int?, any Error> = await withCheckedContinuation { continuation in
          pool.asyncRead({ db in try db.fetchOne(Int.self, sql: "SELECT 1") }) { continuation.resume(returning: $0) }
        }
        #expect(throws: DatabaseError.databaseClosed) { try result.get() }
      }
    }
  }
}

extension ConcurrencyTests {
  @Suite struct UnreadableFileReadQueueTests {
    @Test func aLongReadTransactionOnAFileOverwrittenWithGarbageFailsAndLeavesNoneOpen() throws {
      try ConcurrencyTests.withDatabasePath { path in
        let db = try Database(path: path)
        try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try db.close()
        let reader = try DatabaseReadQueue(path: path)
        #expect(try reader.read { db in try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") } == 1)
        // Another program overwrites the file in place while the queue has it open.
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.write(contentsOf: Data(repeating: 0x2A, count: 4096))
        try file.close()
        for _ in 0..<2 {
          // Each attempt fails on the file, not on a transaction the previous one left open.
          let error = #expect(throws: SQLiteError.self) { try reader.beginReadTransaction() }
          #expect(error?.code == .notADatabase)
        }
      }
    }
  }
}
