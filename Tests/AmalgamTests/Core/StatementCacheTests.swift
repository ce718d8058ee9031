import Amalgam
import Foundation
import Testing

@Suite("Statement cache")
struct StatementCacheTests {
  @Test func sameSQLReturnsTheSameStatementObject() throws {
    let db = try Database()
    #expect(db.cachedStatementCount == 0)
    let first = try db.cachedStatement(sql: "SELECT 1")
    let second = try db.cachedStatement(sql: "SELECT 1")
    #expect(first === second)
    #expect(db.cachedStatementCount == 1)
    let other = try db.cachedStatement(sql: "SELECT 2")
    #expect(other !== first)
    #expect(db.cachedStatementCount == 2)
    #expect(try first.front(Int.self) == 1)
    #expect(try other.front(Int.self) == 2)
  }

  @Test func cachedStatementIsNotSharedWithPrepare() throws {
    let db = try Database()
    let cached = try db.cachedStatement(sql: "SELECT 1")
    let prepared = try db.prepare(sql: "SELECT 1")
    #expect(cached !== prepared)
    #expect(db.cachedStatementCount == 1)
  }

  @Test func reusedStatementComesWithBindingsCleared() throws {
    let db = try Database()
    let sql = "SELECT ?, :name"
    let statement = try db.cachedStatement(sql: sql)
    try statement.bind(value: 5, toParameter: 1)
    try statement.bind(value: "x", toParameter: "name")
    #expect(try statement.firstRow() == [.integer(5), .text("x")])

    let again = try db.cachedStatement(sql: sql)
    #expect(again === statement)
    #expect(again.expandedSQL == "SELECT NULL, NULL")
    #expect(try again.firstRow() == [.null, .null])
  }

  @Test func cachedInsertRunsManyTimes() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    for value in 1...50 {
      try db.cachedStatement(sql: "INSERT INTO t VALUES (?)").bind(parameterValues: [value]).execute()
    }
    #expect(db.cachedStatementCount == 1)
    #expect(try db.fetchOne(Int.self, sql: "SELECT sum(x) FROM t") == 1275)
  }

  @Test func capacityEvictsTheLeastRecentlyUsedStatement() throws {
    let db = try Database()
    #expect(db.statementCacheCapacity == 64)
    db.statementCacheCapacity = 2
    #expect(db.statementCacheCapacity == 2)
    let a = try db.cachedStatement(sql: "SELECT 'a'")
    let b = try db.cachedStatement(sql: "SELECT 'b'")
    #expect(db.cachedStatementCount == 2)
    // Use "a" again so that "b" is the least recently used.
    #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)
    let c = try db.cachedStatement(sql: "SELECT 'c'")
    #expect(db.cachedStatementCount == 2)
    #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)
    #expect(try db.cachedStatement(sql: "SELECT 'c'") === c)
    #expect(db.cachedStatementCount == 2)
    // "b" was evicted: asking again prepares a new statement (and evicts the least recent, "a").
    let newB = try db.cachedStatement(sql: "SELECT 'b'")
    #expect(newB !== b)
    #expect(db.cachedStatementCount == 2)
    #expect(try db.cachedStatement(sql: "SELECT 'c'") === c)
    // An evicted statement still held elsewhere keeps working.
    #expect(try b.front(String.self) == "b")
  }

  @Test func loweringTheCapacityEvictsAtOnceAndZeroTurnsCachingOff() throws {
    let db = try Database()
    for n in 1...5 { _ = try db.cachedStatement(sql: "SELECT \(n)") }
    #expect(db.cachedStatementCount == 5)
    db.statementCacheCapacity = 3
    #expect(db.cachedStatementCount == 3)
    db.statementCacheCapacity = 0
    #expect(db.cachedStatementCount == 0)
    let first = try db.cachedStatement(sql: "SELECT 1")
    let second = try db.cachedStatement(sql: "SELECT 1")
    #expect(first !== second)
    #expect(db.cachedStatementCount == 0)
    #expect(try second.front(Int.self) == 1)
    db.statementCacheCapacity = -5
    #expect(db.statementCacheCapacity == 0)
  }

  @Test func clearStatementCacheEmptiesItAndLaterCallsPrepareAgain() throws {
    let db = try Database()
    let before = try db.cachedStatement(sql: "SELECT 1")
    _ = try db.cachedStatement(sql: "SELECT 2")
    #expect(db.cachedStatementCount == 2)
    db.clearStatementCache()
    #expect(db.cachedStatementCount == 0)
    let after = try db.cachedStatement(sql: "SELECT 1")
    #expect(after !== before)
    #expect(db.cachedStatementCount == 1)
    // The statement still held from before the clear keeps working.
    #expect(try before.front(Int.self) == 1)
  }

  @Test func nestedUseOfABusyCachedStatementGetsADifferentStatement() throws {
    let db = try Database()
    let sql = "SELECT value FROM (SELECT 1 AS value UNION ALL SELECT 2 UNION ALL SELECT 3) WHERE value >= ?"
    let outer = try db.cachedStatement(sql: sql)
    try outer.bind(parameterValues: [1])
    var pairs: [[Int]] = []
    while let row = try outer.step() {
      let n: Int = try row.value(at: 0)
      let inner = try db.cachedStatement(sql: sql)
      #expect(inner !== outer)
      try inner.bind(parameterValues: [n])
      pairs.append(try inner.column(0, as: Int.self))
    }
    #expect(pairs == [[1, 2, 3], [2, 3], [3]])
    #expect(db.cachedStatementCount == 1)
    // Once the outer use is over, the cached statement is handed out again.
    #expect(try db.cachedStatement(sql: sql) === outer)
  }

  @Test func cachedStatementDoesNotKeepTheDatabaseAlive() throws {
    weak var weakDatabase: Database?
    var statement: Statement?
    do {
      let db = try Database()
      weakDatabase = db
      statement = try db.cachedStatement(sql: "SELECT 1")
    }
    #expect(weakDatabase == nil)
    // The database is gone but its statement outlives it safely.
    #expect(statement != nil)
  }

  @Test func invalidSQLIsNotCached() throws {
    let db = try Database()
    let error = #expect(throws: SQLiteError.self) { _ = try db.cachedStatement(sql: "SELEC 1") }
    #expect(error?.code == .error)
    #expect(db.cachedStatementCount == 0)
    #expect(throws: DatabaseError.emptyStatement(sql: " ")) { _ = try db.cachedStatement(sql: " ") }
    #expect(db.cachedStatementCount == 0)
  }

  @Test func closeEmptiesTheCache() throws {
    let db = try Database()
    _ = try db.cachedStatement(sql: "SELECT 1")
    #expect(db.cachedStatementCount == 1)
    try db.close()
    #expect(db.cachedStatementCount == 0)
  }
}
