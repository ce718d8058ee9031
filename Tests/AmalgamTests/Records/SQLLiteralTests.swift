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

  @Test func aLiteralThatMixesInterpolatedValuesWithItsOwnParametersThrows() throws {
    let db = try Database()
    // `?1` is the parameter the interpolated value's `?` became: both read 5 without the check.
    let numbered: SQLLiteral = "SELECT \(5) AS a, ?1 AS b"
    let error = #expect(throws: DatabaseError.self) { _ = try db.fetchRows(literal: numbered) }
    #expect(error == .literalWithOwnParameter(sql: "SELECT ? AS a, ?1 AS b", parameter: "\"?1\""))
    #expect(error?.description.contains("mixes interpolated values with its own parameter \"?1\"") == true)
    // Every form of parameter of its own, before or after the interpolations, in each way a literal runs.
    let cases: [(SQLLiteral, String)] = [
      ("SELECT ?1 AS b, \(5) AS a", "\"?1\""),
      ("SELECT \(5) AS a, ?2 AS b", "\"?2\""),
      ("SELECT \(5) AS a, :b AS b", "\":b\""),
      ("SELECT \(5) AS a, @b AS b", "\"@b\""),
      ("SELECT \(5) AS a, $b AS b", "\"$b\""),
      ("SELECT \(5) AS a, ? AS b", "\"?\" (2 parameters, 1 interpolated values)"),
      ("SELECT ? AS b, \(5) AS a", "\"?\" (2 parameters, 1 interpolated values)"),
      ("SELECT 1 WHERE 1 IN (\(values: [1, 2])) AND ?3 IS NULL", "\"?3\""),
    ]
    for (literal, parameter) in cases {
      let expected = DatabaseError.literalWithOwnParameter(sql: literal.sql, parameter: parameter)
      #expect(throws: expected, "\(literal.sql)") { _ = try db.fetchRows(literal: literal) }
      #expect(throws: expected, "\(literal.sql)") { _ = try db.fetchOne(Int.self, literal: literal) }
      #expect(throws: expected, "\(literal.sql)") { _ = try db.prepare(literal: literal) }
      #expect(throws: expected, "\(literal.sql)") { try db.execute(literal: literal) }
    }
    // A nested literal's values count as interpolated values.
    let inner: SQLLiteral = "\(5)"
    #expect(throws: DatabaseError.self) { _ = try db.fetchRows(literal: "SELECT \(inner), ?1") }
    #expect(throws: DatabaseError.self) { _ = try db.fetchRows(literal: SQLLiteral(sql: "SELECT ?1, ") + inner) }
  }

  @Test func literalsWithOnlyInterpolatedValuesOrOnlyTheirOwnParametersStillRun() throws {
    let db = try Database()
    #expect(try db.fetchValue(Int.self, literal: "SELECT \(5) + \(6)") == 11)
    #expect(try db.fetchValue(Int.self, literal: "SELECT count(*) WHERE 1 IN (\(values: [1, 2]))") == 1)
    // Made from SQL and arguments, a literal binds its own parameters by position.
    #expect(try db.fetchValue(Int.self, literal: SQLLiteral(sql: "SELECT ?1 + ?1", arguments: [4])) == 8)
    #expect(try db.fetchValue(Int.self, literal: SQLLiteral(sql: "SELECT :a", arguments: [3])) == 3)
    // A `?` inside a string is text, not a parameter.
    #expect(try db.fetchValue(String.self, literal: "SELECT '?1' || \("x")") == "?1x")
  }
}
