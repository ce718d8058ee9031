import AmalgamSQLite
import Foundation
import Testing

@testable import Amalgam

/// An observation of `sql`'s single integer on `queue`, counting its fetches.
private func observeInteger(_ queue: DatabaseQueue, _ sql: String, fetches: Shared<Int>) -> Collector<Int> {
  Collector(
    queue.observe { db in
      fetches.withLock { $0 += 1 }
      return try db.prepare(sql: sql).front(Int.self) ?? -1
    })
}

/// Regions name the schema SQLite resolved, so that the commits that change what a query read are
/// never missed.
@Suite struct DatabaseRegionTests {
  @Test func aTemporaryTableReadByCountIsObserved() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.execute(sql: "CREATE TEMP TABLE tt(x)") }
    let fetches = Shared(0)
    let collector = observeInteger(queue, "SELECT count(*) FROM tt", fetches: fetches)
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO tt VALUES (1)") }
    #expect(await collector.waitFor(count: 2))
    #expect(collector.current == [0, 1])
  }

  @Test func anAttachedTableReadWithoutItsSchemaNameIsObserved() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "ATTACH ':memory:' AS aux")
      try db.execute(sql: "CREATE TABLE aux.a(x)")
    }
    let counts = Shared(0)
    let maxima = Shared(0)
    let byCount = observeInteger(queue, "SELECT count(*) FROM a", fetches: counts)
    let byColumn = observeInteger(queue, "SELECT coalesce(max(x), 0) FROM a", fetches: maxima)
    defer {
      byCount.task.cancel()
      byColumn.task.cancel()
    }
    #expect(await byCount.waitFor(count: 1))
    #expect(await byColumn.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO a VALUES (7)") }
    #expect(await byCount.waitFor(count: 2))
    #expect(await byColumn.waitFor(count: 2))
    #expect(byCount.current == [0, 1])
    #expect(byColumn.current == [0, 7])
  }

  @Test func aTemporaryTableThatShadowsAMainTableIsObservedAndTheMainTableIsNot() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE t(x)")
      try db.execute(sql: "CREATE TEMP TABLE t(x)")
    }
    let fetches = Shared(0)
    let collector = observeInteger(queue, "SELECT count(*) FROM t", fetches: fetches)
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO temp.t VALUES (1)") }
    #expect(await collector.waitFor(count: 2))
    #expect(collector.current == [0, 1])
    // The query reads temp.t only: commits to main.t run no query.
    let before = fetches.current
    for _ in 0..<5 {
      try queue.sync { db in try db.execute(sql: "INSERT INTO main.t VALUES (1)") }
    }
    try queue.sync { db in try db.execute(sql: "INSERT INTO temp.t VALUES (2)") }
    #expect(await collector.waitFor(count: 3))
    #expect(collector.current == [0, 1, 2])
    #expect(fetches.current == before + 1)
  }

  @Test func deletesAreSeenAfterTheUserAuthorizerRefusedADropTable() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
    let fetches = Shared(0)
    let collector = observeInteger(queue, "SELECT count(*) FROM t", fetches: fetches)
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    // Rows written while observed: the table is known to report its rows one by one.
    try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1), (2)") }
    #expect(await collector.waitFor(count: 2))
    let refusal = try queue.sync { db -> String in
      try db.setAuthorizer { request in
        if case .dropTable = request.action { return .deny }
        return .allow
      }
      do {
        try db.execute(sql: "DROP TABLE t")
        return "dropped"
      } catch {
        return "\(error)"
      }
    }
    #expect(refusal.contains("not authorized"))
    try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
    #expect(await collector.waitFor(count: 3))
    try queue.sync { db in try db.execute(sql: "DELETE FROM t") }
    #expect(await collector.waitFor(count: 4))
    #expect(collector.current == [0, 2, 3, 0])
  }

  @Test func aStatementPreparedBeforeTheObservationAndCachedIsRecordedAndFollowsSchemaChanges() async throws {
    let queue = try DatabaseQueue()
    let sql = "SELECT count(*) FROM t"
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE t(x)")
      // Prepared and cached before any observation: its region is learned from its SQL.
      _ = try db.cachedStatement(sql: sql).front(Int.self)
    }
    let collector = Collector(queue.observe { db in try db.cachedStatement(sql: sql).front(Int.self) ?? -1 })
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
    #expect(await collector.waitFor(count: 2))
    // The same SQL now reads a temporary table that shadows t: its commits are seen.
    try queue.sync { db in try db.execute(sql: "CREATE TEMP TABLE t(x)") }
    #expect(await collector.waitFor(count: 3))
    try queue.sync { db in try db.execute(sql: "INSERT INTO temp.t VALUES (1), (2)") }
    #expect(await collector.waitFor(count: 4))
    #expect(collector.current == [0, 1, 0, 2])
  }

  @Test func recordingARegionDoesNotMakeSQLitePrepareStatementsAgain() async throws {
    try await withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("pool.db").path)
      try pool.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
      // The query's cached statement, with the number of times SQLite prepared it again on its reader.
      let collector = Collector(
        pool.observe { db -> [Int] in
          let statement = try db.cachedStatement(sql: "SELECT count(*) FROM t")
          let count = try statement.front(Int.self) ?? -1
          return [count, Int(sqlite3_stmt_status(statement.sqliteHandle, SQLITE_STMTSTATUS_REPREPARE, 0))]
        })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      // More commits than readers: some reader runs the query again.
      for count in 1...12 {
        try pool.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(await collector.waitFor(count: count + 1))
      }
      #expect(collector.current.map { $0[0] } == Array(0...12))
      #expect(collector.current.map { $0[1] } == Array(repeating: 0, count: 13))
    }
  }
}
