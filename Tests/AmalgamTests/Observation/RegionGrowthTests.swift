import Foundation
import Testing

@testable import Amalgam

/// A query whose tables depend on the data it reads: when its region grows, a commit to a table that
/// no region held while the query ran (so that nothing reported it) still causes a new value.
@Suite struct RegionGrowthTests {
  @Test func aCommitToATableTheGrowingRegionAddsIsNotMissed() async throws {
    try await withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("growth.db").path)
      try pool.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE flag(id INTEGER PRIMARY KEY, on_ INTEGER);
            INSERT INTO flag VALUES (1, 0);
            CREATE TABLE item(id INTEGER PRIMARY KEY);
            """)
      }
      let reading = Signal()
      let committed = Signal()
      let pauses = Shared(0)
      // Reads `item` only once the flag is on; the first such read waits, holding its snapshot, until a
      // commit to `item` is done (that commit is to a table no region holds yet).
      let observation = pool.observe { db -> Int in
        guard try db.fetchOne(Int.self, sql: "SELECT on_ FROM flag WHERE id = 1") == 1 else { return -1 }
        let count = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM item") ?? 0
        if pauses.withLock({ (value: inout Int) -> Bool in
          value += 1
          return value == 1
        }) {
          reading.signal()
          _ = committed.wait(seconds: 30)
        }
        return count
      }
      let collector = Collector(observation)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try await pool.write { db in try db.execute(sql: "UPDATE flag SET on_ = 1 WHERE id = 1") }
      #expect(await eventually { reading.wait(seconds: 0) })
      try await pool.write { db in try db.execute(sql: "INSERT INTO item DEFAULT VALUES") }
      committed.signal()
      // The read that saw the flag counted no item; the item's commit must bring a count of 1.
      #expect(await eventually { collector.current.last == 1 })
      #expect(collector.current.first == -1)
    }
  }
}

/// A write through an incremental blob handle, which neither the update hook nor the authorizer reports,
/// still causes a new value.
@Suite struct BlobWriteObservationTests {
  @Test func aWriteThroughABlobHandleIsSeen() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.batch(
        sql: """
          CREATE TABLE doc(id INTEGER PRIMARY KEY, title TEXT, body BLOB);
          INSERT INTO doc VALUES (1, 'a', x'00000000');
          """)
    }
    let collector = Collector(
      queue.observe { db in try db.fetchOne(Data.self, sql: "SELECT body FROM doc WHERE id = 1") ?? Data() })
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    try await queue.write { db in
      let blob = try db.openBlob(table: "doc", column: "body", rowid: 1, writable: true)
      try blob.write([7, 8], at: 1)
      try blob.close()
    }
    #expect(await collector.waitFor(count: 2))
    #expect(collector.current.last == Data([0, 7, 8, 0]))
  }
}
