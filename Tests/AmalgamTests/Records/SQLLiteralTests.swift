import Amalgam
import Testing

@Suite struct SQLLiteralTests {
  @Test func interpolatedValuesBecomeParameters() {
    let score = 1000
    let name: String? = nil
    let literal: SQLLiteral = "UPDATE player SET score = \(score), name = \(name) WHERE id = \(42)"
    #expect(literal.sql == "UPDATE player SET score = ?, name = ? WHERE id = ?")
    #expect(literal.arguments == [.integer(1000), .null, .integer(42)])
  }

  @Test func identifiersAreQuotedAndFragmentsKeptAsWritten() {
    let column = "odd \"name\""
    let order = "ORDER BY 1"
    let literal: SQLLiteral = "SELECT \(identifier: column) FROM \(identifier: "t") \(sql: order)"
    #expect(literal.sql == #"SELECT "odd ""name""" FROM "t" ORDER BY 1"#)
    #expect(literal.arguments.isEmpty)
  }

  @Test func valueListsAndNestedLiteralsKeepTheirParameters() {
    let condition: SQLLiteral = "score > \(10)"
    let literal: SQLLiteral = "SELECT id FROM player WHERE \(condition) AND id IN (\(values: [1, 2, 3]))"
    #expect(literal.sql == "SELECT id FROM player WHERE score > ? AND id IN (?, ?, ?)")
    #expect(literal.arguments == [10, 1, 2, 3])
    let empty: SQLLiteral = "SELECT 1 WHERE 1 IN (\(values: [Int]()))"
    #expect(empty.sql == "SELECT 1 WHERE 1 IN (NULL)")
    #expect((condition + " LIMIT \(5)").arguments == [10, 5])
  }

  @Test func hostileValuesAreStoredAsText() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
    let hostile = "'); DROP TABLE t; --"
    try db.execute(literal: "INSERT INTO t(id, name) VALUES (\(1), \(hostile))")
    let quote = "\" OR 1=1 --"
    try db.execute(literal: "INSERT INTO t(id, name) VALUES (\(2), \(quote))")
    // The table is still there and holds the text exactly.
    #expect(try db.fetchAll(String.self, literal: "SELECT name FROM t ORDER BY id") == [hostile, quote])
    #expect(try db.fetchValue(Int.self, literal: "SELECT count(*) FROM t WHERE name = \(hostile)") == 1)
    // A hostile identifier is quoted, never run: the lookup fails on the unknown table.
    #expect(throws: SQLiteError.self) {
      try db.fetchAll(Int.self, literal: "SELECT count(*) FROM \(identifier: "t; DROP TABLE t")")
    }
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 2)
  }

  @Test func literalsWorkWithPrepareAndEveryFetch() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
    for (id, name) in [(1, "a"), (2, "b")] { try db.execute(literal: "INSERT INTO t VALUES (\(id), \(name))") }
    let statement = try db.prepare(literal: "SELECT name FROM t WHERE id = \(2)")
    #expect(try statement.front(String.self) == "b")
    #expect(try db.fetchOne(String.self, literal: "SELECT name FROM t WHERE id = \(1)") == "a")
    #expect(try db.fetchRow(literal: "SELECT * FROM t WHERE id = \(1)")?.values == [1, "a"])
    #expect(try db.fetchRows(literal: "SELECT * FROM t WHERE id > \(0)").count == 2)
    struct Item: Decodable { var id: Int; var name: String }
    #expect(try db.fetchAll(Item.self, literal: "SELECT * FROM t WHERE name = \("b")").map(\.id) == [2])
    #expect(try db.fetchOne(Item.self, literal: "SELECT * FROM t WHERE name = \("a")")?.id == 1)
    let pairs = try db.fetchAll(literal: "SELECT id, name FROM t WHERE id <= \(2)") { row in
      (try row.value(at: 0) as Int, try row.value(at: 1) as String)
    }
    #expect(pairs.map(\.1) == ["a", "b"])
  }

  @Test func aValueThatCannotBeBoundThrowsWhenTheLiteralIsUsed() throws {
    let db = try Database()
    let tooBig = UInt64.max
    let literal: SQLLiteral = "SELECT \(tooBig)"
    #expect(throws: DatabaseError.self) { try db.fetchOne(Int.self, literal: literal) }
  }
}
