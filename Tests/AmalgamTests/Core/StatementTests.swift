import Amalgam
import Foundation
import Testing

@Suite("Statement: parameters")
struct StatementParameterTests {
  @Test func positionalParametersBindInOrder() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, ?, ?")
    #expect(statement.parameterCount == 3)
    try statement.bind(parameterValues: [1, "two", 3.5])
    #expect(try statement.firstRow() == [.integer(1), .text("two"), .real(3.5)])
  }

  @Test func numberedParametersShareAValueAndCountUpToTheLargestIndex() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?2, ?1, ?2")
    #expect(statement.parameterCount == 2)
    try statement.bind(parameterValues: ["first", "second"])
    #expect(try statement.firstRow() == [.text("second"), .text("first"), .text("second")])
  }

  @Test func bindByIndexSetsOneParameter() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, ?")
    try statement.bind(value: "b", toParameter: 2)
    try statement.bind(value: 10, toParameter: 1)
    #expect(try statement.firstRow() == [.integer(10), .text("b")])
    try statement.bind(value: nil, toParameter: 1)
    #expect(try statement.firstRow() == [.null, .text("b")])
  }

  @Test func namedParametersWithEachPrefixBindByKeyWithOrWithoutThePrefix() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :colon, @at, $dollar")
    #expect(statement.parameterCount == 3)
    #expect(statement.parameterName(at: 1) == ":colon")
    #expect(statement.parameterName(at: 2) == "@at")
    #expect(statement.parameterName(at: 3) == "$dollar")
    #expect(statement.parameterIndex(named: "@at") == 2)
    #expect(statement.parameterIndex(named: "at") == nil)

    try statement.bind(parameters: ["colon": 1, "at": 2, "dollar": 3])
    #expect(try statement.firstRow() == [.integer(1), .integer(2), .integer(3)])

    try statement.bind(parameters: [":colon": "a", "@at": "b", "$dollar": "c"])
    #expect(try statement.firstRow() == [.text("a"), .text("b"), .text("c")])
  }

  @Test func namedValuesBindInAnyOrderFromALiteralOrADictionary() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :a, :b, :c")
    try statement.bind(parameters: ["c": 3, "a": 1, "b": 2])
    #expect(try statement.firstRow() == [.integer(1), .integer(2), .integer(3)])
    // The same statement again, in order, then out of order: the lookup's guess must not go stale.
    try statement.bind(parameters: ["a": "x", "b": "y", "c": "z"])
    #expect(try statement.firstRow() == [.text("x"), .text("y"), .text("z")])
    try statement.bind(parameters: ["b": 20, "c": 30, "a": 10])
    #expect(try statement.firstRow() == [.integer(10), .integer(20), .integer(30)])
    let dictionary: [String: (any ParameterBindable)?] = ["a": nil, "b": 2.5, ":c": Data([1])]
    try statement.bind(parameters: dictionary)
    #expect(try statement.firstRow() == [.null, .real(2.5), .blob(Data([1]))])
    try db.execute(sql: "CREATE TABLE t(a, b)")
    try db.execute(sql: "INSERT INTO t VALUES (:a, :b)", parameters: dictionary.filter { $0.key != ":c" })
    try db.execute(sql: "INSERT INTO t VALUES (:a, :b)", parameters: ["b": 7, "a": 6])
    #expect(try db.prepare(sql: "SELECT a, b FROM t ORDER BY rowid").allRows() == [[.null, .real(2.5)], [6, 7]])
  }

  @Test func namedPairsBindValuesOfEachTypeAndReportBadNames() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :id, @name, $score, :note")
    try statement.bind(named: ("id", 7), ("name", "Ada"), ("$score", 9.5), (":note", String?.none))
    #expect(try statement.firstRow() == [.integer(7), .text("Ada"), .real(9.5), .null])
    try statement.bind(named: ("note", Data([1, 2])), ("score", Int8(-1)), ("name", "B"), ("id", UInt32(3)))
    #expect(try statement.firstRow() == [.integer(3), .text("B"), .integer(-1), .blob(Data([1, 2]))])
    #expect(throws: DatabaseError.noSuchParameter(name: "nope", sql: statement.sql)) {
      try statement.bind(named: ("id", 1), ("nope", 2))
    }
    #expect(throws: DatabaseError.duplicateParameter(name: ":id", sql: statement.sql)) {
      try statement.bind(named: ("id", 1), (":id", 2))
    }
    #expect(throws: DatabaseError.missingParameter(name: "@name", sql: statement.sql)) {
      try statement.bind(named: ("id", 1), ("score", 2), ("note", 3))
    }
    #expect(
      throws: DatabaseError.unrepresentableValue(
        type: "UInt64", value: "\(UInt64.max)", reason: "SQLite integers are 64-bit signed; the maximum is \(Int64.max)"
      )
    ) {
      try statement.bind(named: ("id", UInt64.max), ("name", 1), ("score", 2), ("note", 3))
    }
  }

  @Test func namedPairsBoundAgainReuseTheirNamesAndAnyChangeOfNamesResolvesAgain() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :a, @b, $c")
    try statement.bind(named: ("a", 1), ("b", 2), ("c", 3))
    #expect(try statement.firstRow() == [1, 2, 3])
    try statement.bind(named: ("a", 4), ("b", 5), ("c", 6))
    #expect(try statement.firstRow() == [4, 5, 6])
    // Another order, other spellings, then the first names again: each binds where its name says.
    try statement.bind(named: ("c", 7), ("a", 8), ("b", 9))
    #expect(try statement.firstRow() == [8, 9, 7])
    try statement.bind(named: (":a", 10), ("@b", 11), ("$c", 12))
    #expect(try statement.firstRow() == [10, 11, 12])
    // A failed bind leaves no names behind that a later bind could wrongly reuse.
    #expect(throws: DatabaseError.missingParameter(name: "$c", sql: statement.sql)) {
      try statement.bind(named: ("a", 0), ("b", 0))
    }
    #expect(throws: DatabaseError.duplicateParameter(name: "a", sql: statement.sql)) {
      try statement.bind(named: ("a", 0), ("b", 0), ("a", 0))
    }
    try statement.bind(named: ("a", 13), ("b", 14), ("c", 15))
    #expect(try statement.firstRow() == [13, 14, 15])
    // The same names on another statement bind that statement's parameters.
    let other = try db.prepare(sql: "SELECT $c, @b, :a")
    try other.bind(named: ("a", 1), ("b", 2), ("c", 3))
    #expect(try other.firstRow() == [3, 2, 1])
  }

  @Test func literalPairsBoundAgainReuseTheirNamesAndAnyChangeOfNamesResolvesAgain() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :a, @b, $c")
    try statement.bind(parameters: ["a": 1, "b": 2, "c": 3])
    #expect(try statement.firstRow() == [1, 2, 3])
    try statement.bind(parameters: ["a": 4, "b": 5, "c": nil])
    #expect(try statement.firstRow() == [4, 5, .null])
    // Another order, and the names of a pack bind, which shares what the statement remembers.
    try statement.bind(parameters: ["c": 7, "a": 8, "b": 9])
    #expect(try statement.firstRow() == [8, 9, 7])
    try statement.bind(named: ("a", 10), ("b", 11), ("c", 12))
    try statement.bind(parameters: ["a": 13, "b": 14, "c": 15])
    #expect(try statement.firstRow() == [13, 14, 15])
    // Three names again, one of them unknown or repeated: checked in full.
    #expect(throws: DatabaseError.noSuchParameter(name: "d", sql: statement.sql)) {
      try statement.bind(parameters: ["a": 0, "b": 0, "d": 0])
    }
    #expect(throws: DatabaseError.duplicateParameter(name: "a", sql: statement.sql)) {
      try statement.bind(parameters: ["a": 0, "b": 0, "a": 0])
    }
    #expect(throws: DatabaseError.missingParameter(name: "$c", sql: statement.sql)) {
      try statement.bind(parameters: ["a": 0, "b": 0])
    }
    try statement.bind(parameters: ["a": 16, "b": 17, "c": 18])
    #expect(try statement.firstRow() == [16, 17, 18])
  }

  @Test func everyNumberOfValuesBindsEachToItsOwnParameterByPositionAndByName() throws {
    let db = try Database()
    // Parameter i weighs i and is given i * i: any other pairing of values and parameters gives a smaller sum.
    func sql(_ count: Int, named: Bool) -> String {
      "SELECT " + (1...count).map { named ? ":p\($0) * \($0)" : "?\($0) * \($0)" }.joined(separator: " + ")
    }
    func expected(_ count: Int) -> Int { (1...count).reduce(0) { $0 + $1 * $1 * $1 } }
    #expect(try db.prepare(sql: sql(1, named: true)).bind(named: ("p1", 1)).front(Int.self) == expected(1))
    #expect(try db.prepare(sql: sql(2, named: false)).bind(1, 4).front(Int.self) == expected(2))
    #expect(try db.prepare(sql: sql(2, named: true)).bind(named: ("p1", 1), ("p2", 4)).front(Int.self) == expected(2))
    #expect(try db.prepare(sql: sql(3, named: false)).bind(1, 4, 9).front(Int.self) == expected(3))
    #expect(
      try db.prepare(sql: sql(3, named: true)).bind(named: ("p1", 1), ("p2", 4), ("p3", 9)).front(Int.self)
        == expected(3))
    #expect(try db.prepare(sql: sql(4, named: false)).bind(1, 4, 9, 16).front(Int.self) == expected(4))
    #expect(
      try db.prepare(sql: sql(4, named: true)).bind(named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16)).front(Int.self)
        == expected(4))
    #expect(try db.prepare(sql: sql(5, named: false)).bind(1, 4, 9, 16, 25).front(Int.self) == expected(5))
    #expect(
      try db.prepare(sql: sql(5, named: true)).bind(named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25))
        .front(Int.self) == expected(5))
    #expect(try db.prepare(sql: sql(6, named: false)).bind(1, 4, 9, 16, 25, 36).front(Int.self) == expected(6))
    #expect(
      try db.prepare(sql: sql(6, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36)
      ).front(Int.self) == expected(6))
    #expect(try db.prepare(sql: sql(7, named: false)).bind(1, 4, 9, 16, 25, 36, 49).front(Int.self) == expected(7))
    #expect(
      try db.prepare(sql: sql(7, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49)
      ).front(Int.self) == expected(7))
    #expect(try db.prepare(sql: sql(8, named: false)).bind(1, 4, 9, 16, 25, 36, 49, 64).front(Int.self) == expected(8))
    #expect(
      try db.prepare(sql: sql(8, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49), ("p8", 64)
      ).front(Int.self) == expected(8))
    #expect(
      try db.prepare(sql: sql(9, named: false)).bind(1, 4, 9, 16, 25, 36, 49, 64, 81).front(Int.self) == expected(9))
    #expect(
      try db.prepare(sql: sql(9, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49), ("p8", 64), ("p9", 81)
      ).front(Int.self) == expected(9))
    #expect(
      try db.prepare(sql: sql(10, named: false)).bind(1, 4, 9, 16, 25, 36, 49, 64, 81, 100).front(Int.self)
        == expected(10))
    #expect(
      try db.prepare(sql: sql(10, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49), ("p8", 64), ("p9", 81),
        ("p10", 100)
      ).front(Int.self) == expected(10))
    #expect(
      try db.prepare(sql: sql(11, named: false)).bind(1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121).front(Int.self)
        == expected(11))
    #expect(
      try db.prepare(sql: sql(11, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49), ("p8", 64), ("p9", 81),
        ("p10", 100), ("p11", 121)
      ).front(Int.self) == expected(11))
    #expect(
      try db.prepare(sql: sql(12, named: false)).bind(1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144).front(Int.self)
        == expected(12))
    #expect(
      try db.prepare(sql: sql(12, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49), ("p8", 64), ("p9", 81),
        ("p10", 100), ("p11", 121), ("p12", 144)
      ).front(Int.self) == expected(12))
    #expect(
      try db.prepare(sql: sql(13, named: false)).bind(1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169).front(
        Int.self) == expected(13))
    #expect(
      try db.prepare(sql: sql(13, named: true)).bind(
        named: ("p1", 1), ("p2", 4), ("p3", 9), ("p4", 16), ("p5", 25), ("p6", 36), ("p7", 49), ("p8", 64), ("p9", 81),
        ("p10", 100), ("p11", 121), ("p12", 144), ("p13", 169)
      ).front(Int.self) == expected(13))
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 3, provided: 2, sql: sql(3, named: false))) {
      try db.prepare(sql: sql(3, named: false)).bind(1, 2)
    }
    #expect(throws: DatabaseError.missingParameter(name: ":p3", sql: sql(3, named: true))) {
      try db.prepare(sql: sql(3, named: true)).bind(named: ("p1", 1), ("p2", 2))
    }
  }

  @Test func twoValuesForOneParameterThrowDuplicateParameter() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :a, :b")
    // Written as a literal, the same key twice throws rather than trapping as a Dictionary would.
    #expect(throws: DatabaseError.duplicateParameter(name: "a", sql: statement.sql)) {
      try statement.bind(parameters: ["a": 1, "b": 2, "a": 3])
    }
    #expect(throws: DatabaseError.duplicateParameter(name: "a", sql: statement.sql)) {
      try statement.bind(parameters: [":a": 1, "a": 3, "b": 2])
    }
  }

  @Test func aBareNamePrefersColonThenAtThenDollar() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT $x, @x, :y, $y")
    // "x" means @x (no :x), "y" means :y; the others must then be named in full.
    try statement.bind(parameters: ["x": "at", "$x": "dollar", "y": "colon", "$y": "dollar"])
    #expect(try statement.firstRow() == [.text("dollar"), .text("at"), .text("colon"), .text("dollar")])
    #expect(throws: DatabaseError.missingParameter(name: "$x", sql: statement.sql)) {
      try statement.bind(parameters: ["x": 1, "y": 2, "$y": 3])
    }
  }

  @Test func manyNamedParametersBeyondSixtyFour() throws {
    let db = try Database()
    let names = (0..<100).map { "p\($0)" }
    let statement = try db.prepare(sql: "SELECT " + names.map { ":" + $0 }.joined(separator: " + "))
    var values: [String: (any ParameterBindable)?] = [:]
    for (index, name) in names.enumerated() { values[name] = index }
    try statement.bind(parameters: values)
    #expect(try statement.front(Int.self) == 4950)
    values["p99"] = nil
    values.removeValue(forKey: "p99")
    #expect(throws: DatabaseError.missingParameter(name: ":p99", sql: statement.sql)) {
      try statement.bind(parameters: values)
    }
  }

  @Test func bindByNameSetsOneNamedParameter() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :x, @y")
    try statement.bind(value: "ex", toParameter: "x")
    try statement.bind(value: "why", toParameter: "@y")
    #expect(try statement.firstRow() == [.text("ex"), .text("why")])
  }

  @Test func aNamedParameterUsedTwiceTakesOneValue() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :v + :v")
    #expect(statement.parameterCount == 1)
    try statement.bind(parameters: ["v": 21])
    #expect(try statement.front(Int.self) == 42)
  }

  @Test func executeWithNamedParametersWritesRows() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(name TEXT, age INTEGER)")
    try db.execute(sql: "INSERT INTO person VALUES (:name, $age)", parameters: [":name": "Ada", "age": 36])
    let row = try #require(try db.prepare(sql: "SELECT name, age FROM person").firstRow())
    #expect(row == [.text("Ada"), .integer(36)])
  }

  @Test func unknownParameterNameThrowsNoSuchParameter() throws {
    let db = try Database()
    let sql = "SELECT :a"
    let statement = try db.prepare(sql: sql)
    #expect(throws: DatabaseError.noSuchParameter(name: "b", sql: sql)) {
      try statement.bind(parameters: ["a": 1, "b": 2])
    }
    #expect(throws: DatabaseError.noSuchParameter(name: "zzz", sql: sql)) {
      try statement.bind(value: 1, toParameter: "zzz")
    }
    // A key with a different prefix does not match.
    #expect(throws: DatabaseError.noSuchParameter(name: "@a", sql: sql)) {
      try statement.bind(parameters: ["@a": 1])
    }
    #expect(throws: DatabaseError.noSuchParameter(name: "b", sql: sql)) {
      try db.execute(sql: sql, parameters: ["b": 1])
    }
  }

  @Test func tooManyOrTooFewValuesThrowParameterCountMismatch() throws {
    let db = try Database()
    let sql = "SELECT ?, ?"
    let statement = try db.prepare(sql: sql)
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 2, provided: 3, sql: sql)) {
      try statement.bind(parameterValues: [1, 2, 3])
    }
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 2, provided: 1, sql: sql)) {
      try statement.bind(parameterValues: [1])
    }
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 0, provided: 1, sql: "SELECT 1")) {
      try db.execute(sql: "SELECT 1", parameterValues: [1])
    }
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 2, provided: 0, sql: sql)) {
      try db.execute(sql: sql, parameterValues: [])
    }
  }

  @Test func namedParameterWithoutAValueThrowsMissingParameter() throws {
    let db = try Database()
    let sql = "SELECT :a, :b"
    #expect(throws: DatabaseError.missingParameter(name: ":b", sql: sql)) {
      try db.prepare(sql: sql).bind(parameters: ["a": 1])
    }
    #expect(throws: DatabaseError.missingParameter(name: ":a", sql: sql)) {
      try db.execute(sql: sql, parameters: [:])
    }
  }

  @Test func bindingByNameWhenTheStatementAlsoHasPositionalParametersThrowsUnnamedParameter() throws {
    let db = try Database()
    let sql = "SELECT :a, ?"
    #expect(throws: DatabaseError.unnamedParameter(index: 2, sql: sql)) {
      try db.prepare(sql: sql).bind(parameters: ["a": 1])
    }
  }

  @Test func emptyParameterDictionaryIsFineForAStatementWithoutParameters() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 5")
    try statement.bind(parameters: [:])
    try statement.bind(parameterValues: [])
    #expect(try statement.front(Int.self) == 5)
  }

  @Test func parameterIndexOutOfRangeThrowsSQLiteRange() throws {
    let db = try Database()
    let sql = "SELECT ?"
    let statement = try db.prepare(sql: sql)
    for index in [0, 2, -1, Int.max] {
      let error = #expect(throws: SQLiteError.self) { try statement.bind(value: 1, toParameter: index) }
      #expect(error?.code == .range)
      #expect(error?.sql == sql)
    }
  }

  @Test func expandedSQLShowsTheBoundValues() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, ?, ?, ?, ?")
    #expect(statement.sql == "SELECT ?, ?, ?, ?, ?")
    #expect(statement.expandedSQL == "SELECT NULL, NULL, NULL, NULL, NULL")
    try statement.bind(parameterValues: [42, "it's", 1.5, nil, Data([0xAB, 0x01])])
    #expect(statement.expandedSQL == "SELECT 42, 'it''s', 1.5, NULL, x'ab01'")
    #expect(statement.sql == "SELECT ?, ?, ?, ?, ?")
  }

  @Test func clearBindingsSetsEveryParameterBackToNull() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, :name")
    try statement.bind(value: 1, toParameter: 1)
    try statement.bind(value: "x", toParameter: ":name")
    #expect(try statement.firstRow() == [.integer(1), .text("x")])
    try statement.clearBindings()
    #expect(try statement.firstRow() == [.null, .null])
    #expect(statement.expandedSQL == "SELECT NULL, NULL")
  }

  @Test func resetKeepsBindings() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?")
    try statement.bind(parameterValues: [7])
    #expect(try statement.step()?.value(at: 0, as: Int.self) == 7)
    try statement.reset()
    #expect(try statement.step()?.value(at: 0, as: Int.self) == 7)
    try statement.reset()
    #expect(try statement.front(Int.self) == 7)
  }

  @Test func boundTextAndBlobAreCopiedBySQLite() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, ?")
    do {
      var text = "temporary " + String(repeating: "x", count: 100)
      var bytes: [UInt8] = Array(repeating: 7, count: 100)
      try statement.bind(parameterValues: [text, bytes])
      text = ""
      bytes = []
      _ = (text, bytes)
    }
    let row = try #require(try statement.firstRow())
    #expect(row[0] == .text("temporary " + String(repeating: "x", count: 100)))
    #expect(row[1] == .blob(Data(repeating: 7, count: 100)))
  }
}

@Suite("Statement: metadata")
struct StatementMetadataTests {
  @Test func columnCountNamesAndIndexesDescribeTheResult() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name VARCHAR(20), score REAL)")
    let statement = try db.prepare(sql: "SELECT id, name AS fullName, score * 2 FROM person")
    #expect(statement.columnCount == 3)
    #expect(statement.columnNames == ["id", "fullName", "score * 2"])
    #expect(try statement.columnName(at: 1) == "fullName")
    #expect(try statement.columnIndex(named: "fullName") == 1)
    #expect(try statement.columnIndex(named: "FULLNAME") == 1)
    #expect(try statement.columnIndex(named: "score * 2") == 2)
    #expect(throws: DatabaseError.noSuchColumn(name: "age", available: ["id", "fullName", "score * 2"])) {
      _ = try statement.columnIndex(named: "age")
    }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 3, count: 3)) {
      _ = try statement.columnName(at: 3)
    }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: -1, count: 3)) {
      _ = try statement.columnName(at: -1)
    }
    #expect(try statement.declaredType(ofColumn: 0) == "INTEGER")
    #expect(try statement.declaredType(ofColumn: 1) == "VARCHAR(20)")
    #expect(try statement.declaredType(ofColumn: 2) == nil)
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 5, count: 3)) {
      _ = try statement.declaredType(ofColumn: 5)
    }
  }

  @Test func statementsThatReturnNoRowsHaveNoColumns() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let insert = try db.prepare(sql: "INSERT INTO t VALUES (1)")
    #expect(insert.columnCount == 0)
    #expect(insert.columnNames == [])
    #expect(try insert.step() == nil)
  }

  @Test func isReadOnlyIsTrueForQueriesAndFalseForWrites() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    #expect(try db.prepare(sql: "SELECT * FROM t").isReadOnly)
    #expect(try db.prepare(sql: "SELECT 1").isReadOnly)
    #expect(try !db.prepare(sql: "INSERT INTO t VALUES (1)").isReadOnly)
    #expect(try !db.prepare(sql: "DELETE FROM t").isReadOnly)
    #expect(try !db.prepare(sql: "CREATE TABLE u(y)").isReadOnly)
  }

  @Test func isBusyIsTrueBetweenTheFirstStepAndTheEnd() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1 UNION ALL SELECT 2")
    #expect(!statement.isBusy)
    _ = try statement.step()
    #expect(statement.isBusy)
    _ = try statement.step()
    #expect(try statement.step() == nil)
    #expect(!statement.isBusy)
  }

  @Test func columnCountFollowsTheStatementWhenSchemaChangeRepreparesIt() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    try db.execute(sql: "INSERT INTO t VALUES (1, 2)")
    let statement = try db.prepare(sql: "SELECT * FROM t")
    #expect(statement.columnCount == 2)
    try db.execute(sql: "ALTER TABLE t ADD COLUMN c DEFAULT 3")
    // SQLite re-prepares "SELECT *" on the next step; the row then has three columns.
    let row = try #require(try statement.step())
    #expect(try row.values() == [.integer(1), .integer(2), .integer(3)])
    #expect(try row.value(named: "c", as: Int.self) == 3)
    #expect(statement.columnCount == 3)
    #expect(statement.columnNames == ["a", "b", "c"])
  }

  @Test func rowsReadByNameFollowAReprepareThatMovesTheColumns() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    try db.execute(sql: "INSERT INTO t VALUES (1, 2)")
    let statement = try db.prepare(sql: "SELECT * FROM t")
    var row = try #require(try statement.step())
    #expect(try row.value(named: "a", as: Int.self) == 1)
    #expect(try row.value(named: "b", as: Int.self) == 2)
    try statement.reset()
    // The same names, in the other order: the names read for the first row no longer hold.
    try db.batch(sql: "DROP TABLE t; CREATE TABLE t(b, a); INSERT INTO t VALUES (20, 10);")
    row = try #require(try statement.step())
    #expect(try row.value(named: "a", as: Int.self) == 10)
    #expect(try row.value(named: "b", as: Int.self) == 20)
    #expect(try row.value(named: "a", as: Int.self) == 10)
    try statement.reset()
    // And through a scan, whose one row value serves every row.
    try db.batch(sql: "DROP TABLE t; CREATE TABLE t(c, a, b); INSERT INTO t VALUES (0, 100, 200), (0, 101, 201);")
    var pairs: [[Int]] = []
    try statement.results { row in
      pairs.append([try row.value(named: "b"), try row.value(named: "a"), try row.value(named: "c")])
    }
    #expect(pairs == [[200, 100, 0], [201, 101, 0]])
  }
}

@Suite("Statement: stepping")
struct StatementSteppingTests {
  private func numbers(_ db: Database, upTo count: Int) throws -> Statement {
    try db.prepare(
      sql:
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < \(count)) SELECT n, n * n AS square FROM c"
    )
  }

  @Test func stepLoopVisitsEveryRowInOrder() throws {
    let db = try Database()
    let statement = try numbers(db, upTo: 10_000)
    var count = 0
    var sum = 0
    var squares = 0
    var previous = 0
    while let row = try statement.step() {
      let n: Int = try row.value(at: 0)
      #expect(n == previous + 1)
      previous = n
      count += 1
      sum += n
      squares += try row.value(named: "square", as: Int.self)
    }
    #expect(count == 10_000)
    #expect(sum == 50_005_000)
    #expect(squares == 333_383_335_000)
    // Stepping after the end starts the statement again (SQLite resets it automatically).
    #expect(try statement.step()?.value(at: 0, as: Int.self) == 1)
  }

  @Test func stepReturnsNilForAnEmptyResult() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let statement = try db.prepare(sql: "SELECT x FROM t")
    #expect(try statement.step() == nil)
    #expect(try statement.firstRow() == nil)
    #expect(try statement.front(Int.self) == nil)
    #expect(try statement.column(0, as: Int.self) == [])
    #expect(try statement.allRows() == [])
  }

  @Test func executeRunsToCompletionAndCanRunAgain() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let insert = try db.prepare(sql: "INSERT INTO t VALUES (?)")
    for value in 1...5 {
      try insert.bind(parameterValues: [value]).execute()
    }
    #expect(try db.prepare(sql: "SELECT x FROM t ORDER BY rowid").column(0, as: Int.self) == [1, 2, 3, 4, 5])
  }

  @Test func resultsVisitsEveryRowAndResetsTheStatement() throws {
    let db = try Database()
    let statement = try numbers(db, upTo: 5)
    var seen: [Int] = []
    try statement.results { row in seen.append(try row.value(at: 0)) }
    #expect(seen == [1, 2, 3, 4, 5])
    seen = []
    try statement.results { row in seen.append(try row.value(at: 1)) }
    #expect(seen == [1, 4, 9, 16, 25])
  }

  @Test func resultsRethrowsTheClosuresErrorAndTheStatementCanRunAgain() throws {
    let db = try Database()
    let statement = try numbers(db, upTo: 5)
    var seen: [Int] = []
    #expect(throws: TestError(id: 2)) {
      try statement.results { row in
        let n: Int = try row.value(at: 0)
        seen.append(n)
        if n == 2 { throw TestError(id: 2) }
      }
    }
    #expect(seen == [1, 2])
    #expect(!statement.isBusy)
    #expect(try statement.column(0, as: Int.self) == [1, 2, 3, 4, 5])
  }

  @Test func resultsRethrowsAConversionErrorFromTheClosure() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1 AS v UNION ALL SELECT NULL")
    var seen: [Int] = []
    let error = #expect(throws: DatabaseError.self) {
      try statement.results { row in seen.append(try row.value(at: 0)) }
    }
    guard case .conversionFailed(let column, let type, let found, _) = error else {
      Issue.record("expected conversionFailed, got \(String(describing: error))")
      return
    }
    #expect(column?.contains("v") == true)
    #expect(type == "Int")
    #expect(found == "NULL")
    #expect(seen == [1])
  }

  @Test func aStepErrorResetsTheStatementSoItCanRunAgain() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x UNIQUE)")
    let insert = try db.prepare(sql: "INSERT INTO t VALUES (?)")
    try insert.bind(parameterValues: [1]).execute()
    let error = #expect(throws: SQLiteError.self) { try insert.execute() }
    #expect(error?.extendedCode == .constraintUnique)
    #expect(!insert.isBusy)
    try insert.bind(parameterValues: [2]).execute()
    #expect(try db.prepare(sql: "SELECT x FROM t ORDER BY x").column(0, as: Int.self) == [1, 2])
  }

  @Test func runtimeErrorDuringStepIsThrownWithItsMessage() throws {
    let db = try Database()
    // abs() of the smallest integer overflows at run time, not at prepare time (and needs no trait).
    let statement = try db.prepare(sql: "SELECT abs(-9223372036854775807 - 1)")
    let error = #expect(throws: SQLiteError.self) { _ = try statement.step() }
    #expect(error?.code == .error)
    #expect(error?.message == "integer overflow")
    #expect(error?.sql == "SELECT abs(-9223372036854775807 - 1)")
  }

  @Test func frontReadsTheFirstColumnOfTheFirstRowAndResets() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 'first', 2 UNION ALL SELECT 'second', 3")
    #expect(try statement.front(String.self) == "first")
    #expect(!statement.isBusy)
    #expect(try statement.front(String.self) == "first")
    let null = try db.prepare(sql: "SELECT NULL")
    #expect(try null.front(Int.self) == nil)
    let text = try db.prepare(sql: "SELECT 'abc'")
    let error = #expect(throws: DatabaseError.self) { _ = try text.front(Int.self) }
    #expect(!text.isBusy)
    #expect(try text.front(String.self) == "abc")
    guard case .conversionFailed(_, let type, let found, _) = error else {
      Issue.record("expected conversionFailed, got \(String(describing: error))")
      return
    }
    #expect(type == "Int")
    #expect(found == "TEXT \"abc\"")
  }

  @Test func firstRowCopiesTheValuesOfTheFirstRow() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1, 'a', NULL, 2.5, x'00ff' UNION ALL SELECT 2, 'b', 1, 1, x''")
    #expect(
      try statement.firstRow() == [.integer(1), .text("a"), .null, .real(2.5), .blob(Data([0x00, 0xFF]))])
    #expect(!statement.isBusy)
  }

  @Test func columnCollectsOneColumnOfEveryRow() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    try db.execute(sql: "INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, 'z')")
    let statement = try db.prepare(sql: "SELECT a, b FROM t ORDER BY a")
    #expect(try statement.column(0, as: Int.self) == [1, 2, 3])
    #expect(try statement.column(1, as: String?.self) == ["x", nil, "z"])
    #expect(try statement.column(1, as: DatabaseValue.self) == [.text("x"), .null, .text("z")])
    let error = #expect(throws: DatabaseError.self) { _ = try statement.column(1, as: String.self) }
    guard case .conversionFailed(let column, "String", "NULL", _) = error else {
      Issue.record("expected conversionFailed for NULL, got \(String(describing: error))")
      return
    }
    #expect(column?.contains("b") == true)
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 2, count: 2)) {
      _ = try statement.column(2, as: Int.self)
    }
  }

  @Test func rowsCollectsTheChosenColumnsOfEveryRow() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1, 'a', 1.5 UNION ALL SELECT 2, 'b', 2.5")
    #expect(try statement.rows(columns: [2, 0]) == [[.real(1.5), .integer(1)], [.real(2.5), .integer(2)]])
    #expect(try statement.rows(columns: []) == [[], []])
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 3, count: 3)) {
      _ = try statement.rows(columns: [0, 3])
    }
    // After the error the statement runs again from the start.
    #expect(try statement.rows(columns: [1]) == [[.text("a")], [.text("b")]])
  }

  @Test func columnsCollectsEachChosenColumnAsOneArray() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1, 'a', 1.5 UNION ALL SELECT 2, 'b', 2.5")
    #expect(try statement.columns([2, 0]) == [[.real(1.5), .real(2.5)], [.integer(1), .integer(2)]])
    #expect(try statement.columns([Int]()) == [])
    #expect(try statement.columns([0], as: Int.self) == [[1, 2]])
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 3, count: 3)) {
      _ = try statement.columns([0, 3])
    }
    #expect(try statement.columns([1], as: String.self) == [["a", "b"]])
  }

  @Test func statementInitializerPreparesLikeDatabasePrepare() throws {
    let db = try Database()
    let statement = try Statement(database: db, sql: "SELECT 6 * 7", persistent: true)
    #expect(try statement.front(Int.self) == 42)
  }
}
