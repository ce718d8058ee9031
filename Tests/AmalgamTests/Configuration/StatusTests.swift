import Amalgam
import Testing

@Suite struct DatabaseStatusTests {
  @Test(arguments: DatabaseStatus.allCases)
  func everyConnectionCounterIsReadable(counter: DatabaseStatus) throws {
    let db = try Database()
    let value = try db.status(counter)
    #expect(value.current >= 0)
    #expect(value.highwater >= 0)
  }

  @Test func memoryCountersReflectTheSchemaCacheAndStatements() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(10000))")
    #expect(try db.status(.cacheUsed).current > 0)
    #expect(try db.status(.schemaUsed).current > 0)
    let before = try db.status(.statementUsed).current
    let statement = try db.prepare(sql: "SELECT x FROM t WHERE rowid > 0 ORDER BY x")
    #expect(try db.status(.statementUsed).current > before)
    _ = statement
  }

  @Test func cacheHitsCountAndResetToZero() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
    _ = try db.status(.cacheHit, reset: true)
    #expect(try db.status(.cacheHit).current == 0)
    _ = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t")
    #expect(try db.status(.cacheHit).current > 0)
  }

  @Test func deferredForeignKeysCountsUnresolvedViolations() throws {
    let db = try Database()
    try db.setEnabled(.foreignKeys, to: true)
    try db.batch(
      sql: """
        CREATE TABLE parent(id INTEGER PRIMARY KEY);
        CREATE TABLE child(parent_id REFERENCES parent DEFERRABLE INITIALLY DEFERRED);
        BEGIN;
        INSERT INTO child VALUES (1);
        """)
    #expect(try db.status(.deferredForeignKeys).current > 0)
    try db.execute(sql: "INSERT INTO parent VALUES (1)")
    #expect(try db.status(.deferredForeignKeys).current == 0)
    try db.execute(sql: "COMMIT")
  }

  @Test func statusOfAClosedDatabaseThrows() throws {
    let db = try Database()
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.status(.cacheUsed) }
  }
}

@Suite struct SQLiteStatusTests {
  @Test(arguments: SQLiteStatus.allCases)
  func everyProcessCounterIsReadable(counter: SQLiteStatus) throws {
    let value = try SQLite.status(counter)
    #expect(value.current >= 0)
    #expect(value.highwater >= 0)
  }

  @Test func memoryUsedFollowsTheMemoryStatisticsTrait() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let memory = try SQLite.status(.memoryUsed)
    #if DEFAULT_MEMSTATUS_0
      // Memory statistics are off: SQLite does not count.
      #expect(memory == StatusValue(current: 0, highwater: 0))
    #else
      #expect(memory.current > 0)
      #expect(memory.highwater >= memory.current)
      #expect(try SQLite.status(.mallocCount).current > 0)
    #endif
  }
}

@Suite struct StatementStatusTests {
  func database() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, city TEXT);
        CREATE TABLE city(name TEXT, country TEXT);
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100)
          INSERT INTO person SELECT x, 'p' || x, 'c' || (x % 10) FROM c;
        WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 9)
          INSERT INTO city SELECT 'c' || x, 'country' FROM c;
        """)
    return db
  }

  @Test func fullScanStepsCountATableScanButNotARowidLookup() throws {
    let db = try database()
    let scan = try db.prepare(sql: "SELECT * FROM person WHERE name = 'p50'")
    try scan.execute()
    #expect(scan.status(.fullscanStep) == 99)
    let lookup = try db.prepare(sql: "SELECT * FROM person WHERE id = 50")
    try lookup.execute()
    #expect(lookup.status(.fullscanStep) == 0)
  }

  @Test func sortAndAutoindexCountersSeeMissingIndexes() throws {
    let db = try database()
    let sorted = try db.prepare(sql: "SELECT name FROM person ORDER BY name")
    try sorted.execute()
    #expect(sorted.status(.sort) == 1)
    let join = try db.prepare(sql: "SELECT person.name, city.country FROM person JOIN city ON city.name = person.city")
    _ = try join.allRows()
    #expect(join.status(.autoindex) > 0)
  }

  @Test func runVMStepMemoryAndResetCounters() throws {
    let db = try database()
    let statement = try db.prepare(sql: "SELECT count(*) FROM person")
    try statement.execute()
    try statement.execute()
    #expect(statement.status(.run) == 2)
    #expect(statement.status(.vmStep) > 0)
    #expect(statement.status(.memoryUsed) > 0)
    #expect(statement.status(.filterHit) >= 0)
    #expect(statement.status(.filterMiss) >= 0)
    #expect(statement.status(.run, reset: true) == 2)
    #expect(statement.status(.run) == 0)
  }

  @Test func repreparesAreCountedAfterASchemaChange() throws {
    let db = try database()
    let statement = try db.prepare(sql: "SELECT count(*) FROM person")
    try statement.execute()
    #expect(statement.status(.reprepare) == 0)
    try db.execute(sql: "CREATE INDEX person_name ON person(name)")
    try statement.execute()
    #expect(statement.status(.reprepare) == 1)
  }
}
