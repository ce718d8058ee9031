import Amalgam
import Testing

/// `Statement.results` claims the connection once per scan and reuses one `Row`: what a body may do.
@Suite struct StatementResultsTests {
  func numbers() throws -> Database {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
    return db
  }

  @Test func everyRowIsSeenAndANestedQueryRunsInsideTheScan() throws {
    let db = try numbers()
    var seen: [Int] = []
    try db.prepare(sql: "SELECT x FROM t ORDER BY x").results { row in
      let doubled = try db.fetchValue(Int.self, sql: "SELECT ? * 2", arguments: [try row.value(at: 0) as Int])
      seen.append(doubled)
    }
    #expect(seen == [2, 4, 6])
  }

  @Test func anErrorFromTheBodyStopsTheScanAndResetsTheStatement() throws {
    let db = try numbers()
    let statement = try db.prepare(sql: "SELECT x FROM t ORDER BY x")
    struct Stop: Error {}
    var seen: [Int] = []
    #expect(throws: Stop.self) {
      try statement.results { row in
        seen.append(try row.value(at: 0))
        if seen.count == 2 { throw Stop() }
      }
    }
    #expect(seen == [1, 2])
    // Reset: the next scan starts again from the first row.
    var again: [Int] = []
    try statement.results { again.append(try $0.value(at: 0)) }
    #expect(again == [1, 2, 3])
  }

  @Test func closingTheDatabaseFromTheBodyEndsTheScanWithAnError() throws {
    let db = try numbers()
    let statement = try db.prepare(sql: "SELECT x FROM t ORDER BY x")
    var seen = 0
    #expect(throws: DatabaseError.databaseClosed) {
      try statement.results { _ in
        seen += 1
        try db.close()
      }
    }
    #expect(seen == 1)
  }

  @Test func aRuntimeErrorInTheMiddleOfTheScanIsThrownWithSQLitesMessage() throws {
    let db = try numbers()
    let statement = try db.prepare(
      sql: "SELECT CASE WHEN x = 2 THEN abs(x - 9223372036854775807 - 3) ELSE x END FROM t")
    var seen: [Int] = []
    let error = #expect(throws: SQLiteError.self) { try statement.results { seen.append(try $0.value(at: 0)) } }
    #expect(seen == [1])
    #expect(error?.message.contains("integer overflow") == true)
  }
}
