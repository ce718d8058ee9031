import Amalgam
import Testing

@Suite struct LimitTests {
  @Test(arguments: DatabaseLimit.allCases)
  func everyLimitIsReadableAndSettable(limit: DatabaseLimit) throws {
    let db = try Database()
    let original = try db.limit(limit)
    #expect(original >= 0)
    // A limit whose compile-time maximum is 0 stays 0 (the worker-thread limit in single-thread
    // SQLite, THREADSAFE_0): SQLite clamps any new value to that maximum.
    let lowered = original == 0 ? 0 : max(original / 2, 1)
    #expect(try db.setLimit(limit, to: lowered) == original)
    #expect(try db.limit(limit) == lowered)
    try db.setLimit(limit, to: original)
    #expect(try db.limit(limit) == original)
  }

  @Test func sqlLengthLimitRejectsAnOverlongStatement() throws {
    let db = try Database()
    try db.setLimit(.sqlLength, to: 100)
    #expect(try db.fetchOne(Int.self, sql: "SELECT 1") == 1)
    let sql = "SELECT '\(String(repeating: "x", count: 100))'"
    let error = expectSQLiteError { _ = try db.prepare(sql: sql) }
    #expect(error?.code == .tooBig)
    // SQLite says "statement too long" only when given the SQL's length; Amalgam's statements pass -1.
    #expect(error?.message == "string or blob too big")
    #expect(error?.sql == sql)
  }

  @Test func lengthLimitRejectsAnOversizedValue() throws {
    let db = try Database()
    try db.setLimit(.length, to: 100)
    #expect(try db.fetchOne(Int.self, sql: "SELECT length(zeroblob(100))") == 100)
    let error = expectSQLiteError { _ = try db.prepare(sql: "SELECT zeroblob(101)").firstRow() }
    #expect(error?.code == .tooBig)
    #expect(error?.message == "string or blob too big")
  }

  @Test func columnAttachedAndVariableLimitsAreEnforced() throws {
    let db = try Database()
    try db.setLimit(.columns, to: 5)  // sqlite_schema itself has 5 columns
    #expect(
      expectSQLiteError { _ = try db.prepare(sql: "SELECT 1, 2, 3, 4, 5, 6") }?.message
        == "too many columns in result set")
    try db.setLimit(.attachedDatabases, to: 0)
    #expect(
      expectSQLiteError { try db.execute(sql: "ATTACH ':memory:' AS other") }?.message
        == "too many attached databases - max 0")
    try db.setLimit(.variableNumber, to: 5)
    #expect(
      expectSQLiteError { _ = try db.prepare(sql: "SELECT ?6") }?.message
        == "variable number must be between ?1 and ?5")
  }

  @Test func aValueAboveTheCompiledMaximumIsLoweredToIt() throws {
    let db = try Database()
    try db.setLimit(.attachedDatabases, to: 1_000)
    #expect(try db.limit(.attachedDatabases) == 10)  // SQLITE_MAX_ATTACHED
    try db.setLimit(.sqlLength, to: Int.max)
    #expect(try db.limit(.sqlLength) == 1_000_000_000)  // SQLITE_MAX_SQL_LENGTH
  }

  @Test func limitsBelowWhatTheSchemaNeedsBreakEveryStatement() throws {
    // SQLite applies the limits to reading its own schema too.
    let db = try Database()
    try db.setLimit(.columns, to: 4)
    let error = expectSQLiteError { _ = try db.prepare(sql: "SELECT 1") }
    #expect(error?.code == .corrupt)
    #expect(error?.message == "malformed database schema (sqlite_master) - too many columns on sqlite_master")
  }

  @Test func aNegativeLimitIsRejected() throws {
    let db = try Database()
    let error = expectSQLiteError { try db.setLimit(.columns, to: -1) }
    #expect(error?.code == .range)
    #expect(try db.limit(.columns) == 2000)
  }

  @Test func limitsOfAClosedDatabaseThrow() throws {
    let db = try Database()
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.limit(.length) }
    #expect(throws: DatabaseError.databaseClosed) { try db.setLimit(.length, to: 1) }
  }
}
