import Amalgam
import Testing

/// Sums integers, and counts the rows it saw, so that a shared or reused state shows in the result.
private struct IntegerSum: SQLAggregateFunction {
  var sum: Int64 = 0
  var rows = 0
  mutating func step(_ arguments: FunctionArguments) throws {
    sum += try arguments.value(at: 0, as: Int64.self)
    rows += 1
  }
  func final() throws -> DatabaseValue { .text("\(sum)/\(rows)") }
}

/// Joins text with a separator chosen at registration.
private struct Join: SQLAggregateFunction {
  var separator = ","
  var parts: [String] = []
  mutating func step(_ arguments: FunctionArguments) throws {
    if let text = arguments.text(at: 0) { parts.append(text) }
  }
  func final() throws -> DatabaseValue { parts.isEmpty ? .null : .text(parts.joined(separator: separator)) }
}

/// A sum whose state is counted by a ``StateCounter``.
private struct CountedSum: SQLAggregateFunction {
  var token: StateToken?
  var sum: Int64 = 0
  mutating func step(_ arguments: FunctionArguments) throws {
    if arguments.int64(at: 0) < 0 { throw FunctionTestError(reason: "negative") }
    sum += arguments.int64(at: 0)
  }
  func final() throws -> DatabaseValue {
    if sum == 13 { throw FunctionTestError(reason: "unlucky") }
    return .integer(sum)
  }
}

@Suite("Aggregate functions")
struct AggregateFunctionTests {
  private func database() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE t(g TEXT, x INTEGER, y INTEGER);
        INSERT INTO t VALUES ('a', 1, 10), ('b', 2, 20), ('a', 3, 30), ('c', 4, 40), ('b', 5, 50), ('a', 6, 60);
        """)
    try db.addAggregateFunction("isum", arity: 1, IntegerSum.self)
    return db
  }

  @Test func groupByComputesEveryGroupWithItsOwnState() throws {
    let db = try database()
    #expect(
      try db.prepare(sql: "SELECT g, isum(x) FROM t GROUP BY g ORDER BY g").allRows()
        == [["a", "10/3"], ["b", "7/2"], ["c", "4/1"]])
  }

  @Test func groupByOverManyGroupsMatchesTheBuiltInSum() throws {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE n(k INTEGER, v INTEGER);
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000)
        INSERT INTO n SELECT i % 37, i FROM c;
        """)
    try db.addAggregateFunction("isum", arity: 1, IntegerSum.self)
    let ours = try db.prepare(sql: "SELECT k, isum(v) FROM n GROUP BY k ORDER BY k").allRows()
    let builtIn = try db.prepare(sql: "SELECT k, sum(v) || '/' || count(*) FROM n GROUP BY k ORDER BY k").allRows()
    #expect(ours.count == 37)
    #expect(ours == builtIn)
  }

  @Test func sameAggregateTwiceInOneQueryKeepsSeparateStates() throws {
    let db = try database()
    #expect(try db.prepare(sql: "SELECT isum(x), isum(y) FROM t").allRows() == [["21/6", "210/6"]])
    #expect(
      try db.prepare(sql: "SELECT g, isum(x), isum(y), isum(x + y) FROM t GROUP BY g ORDER BY g").allRows()
        == [["a", "10/3", "100/3", "110/3"], ["b", "7/2", "70/2", "77/2"], ["c", "4/1", "40/1", "44/1"]])
  }

  @Test func nestedQueriesUsingTheSameAggregateKeepSeparateStates() throws {
    let db = try database()
    let sql = """
      SELECT g, isum(x), (SELECT isum(y) FROM t AS inner_t WHERE inner_t.g = outer_t.g)
      FROM t AS outer_t GROUP BY g HAVING isum(x) != (SELECT isum(x) FROM t WHERE g = 'c')
      ORDER BY g
      """
    #expect(try db.prepare(sql: sql).allRows() == [["a", "10/3", "100/3"], ["b", "7/2", "70/2"]])
  }

  @Test func twoInterleavedStatementsEachGetTheirOwnGroups() throws {
    let db = try database()
    let first = try db.prepare(sql: "SELECT g, isum(x) FROM t GROUP BY g ORDER BY g")
    let second = try db.prepare(sql: "SELECT g, isum(y) FROM t GROUP BY g ORDER BY g")
    // Statement A runs one group, statement B runs to the end, then A finishes.
    let firstRow = try #require(try first.step())
    #expect(try firstRow.values() == ["a", "10/3"])
    #expect(try second.allRows() == [["a", "100/3"], ["b", "70/2"], ["c", "40/1"]])
    var rest: [[DatabaseValue]] = []
    while let row = try first.step() { rest.append(try row.values()) }
    #expect(rest == [["b", "7/2"], ["c", "4/1"]])
  }

  @Test func aQueryRunFromInsideAnotherQuerysAggregationGetsItsOwnState() throws {
    // While the outer query is in the middle of summing, each row runs the same aggregate over the
    // whole table: one shared state would mix both sums.
    let db = try database()
    let inner = try db.prepare(sql: "SELECT isum(y) FROM t")
    var innerResults: [String] = []
    // Weak: a statement holds its database, which holds the function (a reference cycle otherwise,
    // which close() cannot break while the statement is alive).
    try db.addFunction("run_inner", arity: 1) { [weak inner] values in
      innerResults.append(try inner?.front(String.self) ?? "none")
      return values[0]
    }
    #expect(try db.fetchOne(sql: "SELECT isum(run_inner(x)) FROM t") == "21/6")
    #expect(innerResults == Array(repeating: "210/6", count: 6))
    withExtendedLifetime(inner) {}
  }

  @Test func aggregateOverNoRowsFinishesAFreshState() throws {
    let db = try database()
    try db.addAggregateFunction("join_text", arity: 1, Join.self)
    #expect(try db.prepare(sql: "SELECT isum(x), join_text(g) FROM t WHERE 0").allRows() == [["0/0", .null]])
    #expect(try db.prepare(sql: "SELECT g, isum(x) FROM t WHERE 0 GROUP BY g").allRows().isEmpty)
  }

  @Test func factoryConfiguresEachState() throws {
    let db = try database()
    try db.addAggregateFunction("join_semicolon", arity: 1) { Join(separator: "; ") }
    #expect(
      try db.prepare(sql: "SELECT g, join_semicolon(x) FROM t GROUP BY g ORDER BY g").allRows()
        == [["a", "1; 3; 6"], ["b", "2; 5"], ["c", "4"]])
  }

  @Test func distinctAndFilterClausesWork() throws {
    let db = try database()
    try db.execute(sql: "INSERT INTO t VALUES ('a', 1, 0)")
    #expect(try db.fetchOne(sql: "SELECT isum(DISTINCT x) FROM t") == "21/6")
    #expect(try db.fetchOne(sql: "SELECT isum(x) FILTER (WHERE x > 3) FROM t") == "15/3")
  }

  @Test func variadicAggregateReceivesEveryArgument() throws {
    struct ArgumentCounter: SQLAggregateFunction {
      var counts: [Int] = []
      mutating func step(_ arguments: FunctionArguments) throws { counts.append(arguments.count) }
      func final() throws -> DatabaseValue { .text(counts.map(String.init).joined(separator: ",")) }
    }
    let db = try database()
    try db.addAggregateFunction("arg_counts", arity: -1, ArgumentCounter.self)
    #expect(try db.fetchOne(sql: "SELECT arg_counts(x, y, g) FROM t WHERE x < 3") == "3,3")
    #expect(try db.fetchOne(sql: "SELECT arg_counts() FROM t WHERE x < 3") == "0,0")
  }

  @Test func errorInStepOrFinalFailsTheStatementWithItsMessage() throws {
    let db = try database()
    try db.addAggregateFunction("csum", arity: 1, CountedSum.self)
    let stepError = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT csum(x - 4) FROM t") }
    #expect(stepError?.code == .error)
    #expect(stepError?.message == "test failure: negative")
    let finalError = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "SELECT csum(x) FROM t WHERE x IN (3, 4, 6)")
    }
    #expect(finalError?.message == "test failure: unlucky")
    #expect(try db.fetchOne(sql: "SELECT csum(x) FROM t") == 21)
  }

  @Test func everyStateIsDestroyedWhateverEndsTheQuery() throws {
    let db = try database()
    let counter = StateCounter()
    try db.addAggregateFunction("csum", arity: 1) { CountedSum(token: counter.token()) }
    // Groups, zero rows, errors in step and final.
    _ = try db.prepare(sql: "SELECT g, csum(x), csum(y) FROM t GROUP BY g").allRows()
    _ = try db.prepare(sql: "SELECT csum(x) FROM t WHERE 0").allRows()
    #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT g, csum(x - 2) FROM t GROUP BY g") }
    #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT csum(x) FROM t WHERE x IN (3, 4, 6)") }
    // A statement abandoned in the middle: reset, and finalized.
    let abandoned = try db.prepare(sql: "SELECT g, csum(x) FROM t GROUP BY g")
    _ = try abandoned.step()
    try abandoned.reset()
    do {
      let dropped = try db.prepare(sql: "SELECT g, csum(y) FROM t GROUP BY g")
      _ = try dropped.step()
    }
    #expect(counter.created > 10)
    #expect(counter.destroyed == counter.created)
  }

  @Test func removeFunctionReleasesTheFactory() throws {
    let db = try database()
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      try db.addAggregateFunction("probe_count", arity: 1) { () -> IntegerSum in
        _ = probe; return IntegerSum()
      }
    }
    #expect(try db.fetchOne(sql: "SELECT probe_count(x) FROM t") == "21/6")
    #expect(weakProbe != nil)
    try db.removeFunction("probe_count", arity: 1)
    #expect(weakProbe == nil)
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT probe_count(x) FROM t") }
    #expect(error?.message == "no such function: probe_count")
  }

  @Test func aggregateReplacesAScalarFunctionOfTheSameNameAndArity() throws {
    let db = try database()
    try db.addFunction("f", arity: 1) { _ in "scalar" }
    try db.addAggregateFunction("f", arity: 1, IntegerSum.self)
    #expect(try db.fetchOne(sql: "SELECT f(x) FROM t") == "21/6")
  }

  @Test func directOnlyAggregateFailsInAView() throws {
    let db = try database()
    try db.execute(sql: "CREATE VIEW totals AS SELECT isum(x) AS total FROM t")
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT total FROM totals") }
    #expect(error?.message.hasPrefix("unsafe use of isum(): isum() was registered direct-only") == true)
  }

  @Test func plainAggregateCannotBeUsedAsAWindowFunction() throws {
    let db = try database()
    let error = #expect(throws: SQLiteError.self) {
      try db.prepare(sql: "SELECT isum(x) OVER (ORDER BY x) FROM t")
    }
    #expect(error?.message == "isum() may not be used as a window function")
  }
}
