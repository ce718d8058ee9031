import Amalgam
import Foundation
import Testing

/// SQL text with a NUL character, parameters left unbound, and statements that outlive the `Database`
/// value they came from (issue 10, items 4, 5 and 8).
@Suite struct SQLTextAndLifetimeTests {
  static func database() throws -> Database {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x); INSERT INTO t VALUES (1, 1), (2, 2);")
    return db
  }

  // MARK: NUL characters

  @Test func aNulInSQLThrowsInsteadOfDroppingTheRest() throws {
    let db = try Self.database()
    let sql = "UPDATE t SET x = 0 WHERE id = 1\0 OR 1 = 1"
    let expected = DatabaseError.nulCharacterInSQL(sql: sql, offset: 31)
    #expect(throws: expected) { try db.execute(sql: sql) }
    #expect(throws: expected) { try db.prepare(sql: sql) }
    #expect(throws: expected) { try db.batch(sql: sql) }
    #expect(throws: expected) { try db.cachedStatement(sql: sql) }
    #expect(throws: expected) { try db.execute(sql: sql, parameterValues: []) }
    // Nothing ran.
    #expect(try db.prepare(sql: "SELECT group_concat(x) FROM t").front(String.self) == "1,2")
    #expect(expected.description.contains("byte 31"))
  }

  @Test func aNulInsideAStringLiteralIsBoundNotWritten() throws {
    let db = try Self.database()
    try db.execute(sql: "INSERT INTO t(x) VALUES (?)", parameterValues: ["a\0b"])
    #expect(try db.prepare(sql: "SELECT length(CAST(x AS BLOB)) FROM t WHERE id = 3").front(Int.self) == 3)
  }

  // MARK: Parameters left unbound

  @Test func executeWithoutValuesRefusesAStatementWithParameters() throws {
    let db = try Self.database()
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 1, provided: 0, sql: "DELETE FROM t WHERE id = ?")) {
      try db.execute(sql: "DELETE FROM t WHERE id = ?")
    }
    #expect(
      throws: DatabaseError.parameterCountMismatch(expected: 2, provided: 0, sql: "UPDATE t SET x = :x WHERE id = :id")
    ) {
      try db.execute(sql: "UPDATE t SET x = :x WHERE id = :id")
    }
    #expect(try db.prepare(sql: "SELECT count(*) FROM t WHERE x IS NOT NULL").front(Int.self) == 2)
  }

  @Test func batchRefusesAStatementWithParametersAfterRunningTheOnesBefore() throws {
    let db = try Self.database()
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 1, provided: 0, sql: "UPDATE t SET x = ?")) {
      try db.batch(sql: "INSERT INTO t VALUES (3, 3); UPDATE t SET x = ?; INSERT INTO t VALUES (4, 4)")
    }
    #expect(try db.prepare(sql: "SELECT group_concat(x) FROM t").front(String.self) == "1,2,3")
  }

  @Test func batchSkipsEmptyStatementsAndCommentsAndReportsOffsetsInTheWholeText() throws {
    let db = try Self.database()
    try db.batch(sql: ";; INSERT INTO t VALUES (3, 3); -- a comment\n ; /* another */ INSERT INTO t VALUES (4, 4);;  ")
    #expect(try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 4)
    let sql = "INSERT INTO t VALUES (5, 5); SELEC 1"
    let error = #expect(throws: SQLiteError.self) { try db.batch(sql: sql) }
    #expect(error?.message.contains("syntax error") == true)
    #expect(error?.offset == 29)
    #expect(try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 5)
  }

  /// A prepared statement executed without binding keeps SQLite's behaviour (parameters are NULL):
  /// the statement may have been bound before, and re-running it with the same values is the point of
  /// preparing it; `execute(sql:)`, which cannot have been bound, checks instead.
  @Test func aPreparedStatementRunsWithItsCurrentBindings() throws {
    let db = try Self.database()
    let insert = try db.prepare(sql: "INSERT INTO t(x) VALUES (?)")
    try insert.bind(parameterValues: [7]).execute()
    try insert.execute()  // the same binding again
    try insert.clearBindings().execute()  // explicitly cleared: NULL
    #expect(
      try db.prepare(sql: "SELECT group_concat(coalesce(x, 'null')) FROM t WHERE id > 2").front(String.self)
        == "7,7,null")
  }

  // MARK: Statements keep their database open

  @Test func aStatementFromATemporaryDatabaseStillRuns() throws {
    #expect(try Database().prepare(sql: "SELECT 42").front(Int.self) == 42)
    let statement = try Database().prepare(sql: "SELECT 6 * 7")
    #expect(try statement.front(Int.self) == 42)
  }

  @Test func aStatementKeepsItsDatabaseUntilItIsReleased() throws {
    weak var weakDatabase: Database?
    var statement: Statement?
    do {
      let db = try Self.database()
      weakDatabase = db
      statement = try db.prepare(sql: "SELECT sum(x) FROM t")
    }
    #expect(weakDatabase != nil)
    #expect(try statement?.front(Int.self) == 3)
    statement = nil
    #expect(weakDatabase == nil)
  }

  @Test func cachedStatementsDoNotKeepTheirDatabaseAlive() throws {
    weak var weakDatabase: Database?
    do {
      let db = try Self.database()
      weakDatabase = db
      for _ in 0..<3 {
        _ = try db.cachedStatement(sql: "SELECT x FROM t WHERE id = ?").bind(parameterValues: [1]).front(Int.self)
      }
      #expect(db.cachedStatementCount == 1)
    }
    #expect(weakDatabase == nil, "a cached statement must not keep its database alive (no reference cycle)")
  }

  @Test func anExplicitlyClosedDatabaseStillClosesItsStatements() throws {
    let db = try Self.database()
    let statement = try db.prepare(sql: "SELECT 1")
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try statement.step() }
  }
}
