import Amalgam
import Foundation
import Testing

/// `Statement.scanStatus()` (trait ENABLE_STMT_SCANSTATUS) and `amalgam sql --scanstatus`.
@Suite struct ScanStatusTests {
  #if ENABLE_STMT_SCANSTATUS
    /// A table of 100 rows with an index on `x`.
    static func makeDatabase() throws -> Database {
      let db = try Database()
      try db.batch(
        sql: """
          CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER);
          CREATE INDEX t_x ON t(x);
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
          INSERT INTO t(x) SELECT i % 10 FROM n;
          """)
      return db
    }

    @Test func aFullScanCountsOneLoopAndEveryRow() throws {
      let db = try Self.makeDatabase()
      let statement = try db.prepare(sql: "SELECT count(*) FROM t WHERE id + 0 > 0")
      #expect(try statement.front(Int.self) == 100)
      let loops = statement.scanStatus()
      #expect(loops.count == 1)
      let loop = try #require(loops.first)
      #expect(loop.loopCount == 1)
      #expect(loop.visitedRowCount == 100)
      #expect(loop.explanation?.hasPrefix("SCAN t") == true)
      #expect(loop.name == "t" || loop.name == "t_x")
      #expect(loop.estimatedRowCount != nil)
      #expect(loop.parentID == 0)
    }

    @Test func aJoinReportsTheInnerLoopRunOncePerOuterRow() throws {
      let db = try Self.makeDatabase()
      let statement = try db.prepare(
        sql: "SELECT count(*) FROM t AS a JOIN t AS b ON b.x = a.x WHERE a.id <= 5")
      #expect(try statement.front(Int.self) == 50)  // 5 outer rows × 10 rows with the same x
      let loops = statement.scanStatus()
      #expect(loops.count == 2)
      let outer = try #require(loops.first)
      let inner = try #require(loops.last)
      #expect(outer.explanation?.contains("SEARCH a") == true)
      #expect(outer.visitedRowCount == 5)
      #expect(inner.explanation?.contains("USING COVERING INDEX t_x") == true)
      #expect(inner.name == "t_x")
      #expect(inner.loopCount == 5)
      #expect(inner.visitedRowCount == 50)
      #expect(Set(loops.map(\.id)).count == 2)
    }

    @Test func countersAddUpOverRunsUntilReset() throws {
      let db = try Self.makeDatabase()
      let statement = try db.prepare(sql: "SELECT count(*) FROM t WHERE id + 0 > 0")
      _ = try statement.front(Int.self)
      _ = try statement.front(Int.self)
      #expect(statement.scanStatus().first?.loopCount == 2)
      #expect(statement.scanStatus().first?.visitedRowCount == 200)
      statement.resetScanStatus()
      #expect(statement.scanStatus().first?.loopCount == nil || statement.scanStatus().first?.loopCount == 0)
      _ = try statement.front(Int.self)
      #expect(statement.scanStatus().first?.visitedRowCount == 100)
    }

    @Test func allElementsAddsNonLoopElementsOfThePlan() throws {
      let db = try Self.makeDatabase()
      let statement = try db.prepare(sql: "SELECT x FROM t WHERE id + 0 > 0 ORDER BY id + 0 DESC")
      _ = try statement.allRows()
      let loops = statement.scanStatus()
      let elements = statement.scanStatus(allElements: true)
      #expect(loops.count == 1)
      #expect(elements.count > loops.count)
      #expect(elements.contains { $0.explanation?.contains("TEMP B-TREE") == true })
    }

    @Test func aStatementWithoutLoopsHasNoEntries() throws {
      let db = try Database()
      let statement = try db.prepare(sql: "SELECT 1 + 1")
      _ = try statement.front(Int.self)
      #expect(statement.scanStatus().isEmpty)
    }

    @Test func theCommandLineToolPrintsTheLoopsAfterTheRows() async throws {
      let result = try await CommandLineToolTests.AmalgamTool.run([
        "sql", "--scanstatus",
        "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3); SELECT count(*) AS n FROM t WHERE x > 1",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      // CREATE TABLE's search of the schema table is reported too; the query's loop follows its rows.
      #expect(result.stdout.contains("SEARCH main.sqlite_master"))
      let query = try #require(result.stdout.range(of: "n\n-\n2\n")).upperBound
      let after = result.stdout[query...]
      #expect(after.hasPrefix("scan status:\nid  parent  loops  rows visited  rows estimated  plan\n"))
      #expect(after.contains(" 1             3 "))  // one loop, three rows visited
      #expect(after.hasSuffix("SCAN t\n"))
      let constant = try await CommandLineToolTests.AmalgamTool.run(["sql", "--scanstatus", "SELECT 1 AS one"])
      #expect(constant.stdout == "one\n---\n  1\nscan status: no loops\n")
    }
  #else
    @Test func theCommandLineToolExplainsThatTheTraitIsMissing() async throws {
      let result = try await CommandLineToolTests.AmalgamTool.run(["sql", "--scanstatus", "SELECT 1"])
      #expect(result.status == 2)
      #expect(result.stdout == "")
      #expect(result.stderr.contains("ENABLE_STMT_SCANSTATUS"))
    }
  #endif
}
