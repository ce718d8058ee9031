import Amalgam
import Testing

/// An error of the user's own type, known only by its description.
private struct MyError: Error, CustomStringConvertible {
  let place: String
  var description: String { "MyError: refused in \(place)" }
}

/// An aggregate that throws from the step or the final call, as its registration says.
private struct RefusingAggregate: SQLAggregateFunction {
  var throwsInFinal = false
  mutating func step(_ arguments: FunctionArguments) throws {
    if !throwsInFinal { throw MyError(place: "step") }
  }
  func final() throws -> DatabaseValue { throw MyError(place: "final") }
}

/// A window function that throws from the call its registration names.
private struct RefusingWindow: SQLAggregateWindowFunction {
  var place = "step"
  mutating func step(_ arguments: FunctionArguments) throws {
    if place == "step" { throw MyError(place: "window step") }
  }
  mutating func inverse(_ arguments: FunctionArguments) throws {
    if place == "inverse" { throw MyError(place: "inverse") }
  }
  func value() throws -> DatabaseValue {
    if place == "value" { throw MyError(place: "value") }
    return .integer(0)
  }
}

/// A Swift error thrown from a callback that SQLite runs reaches the caller as an ``SQLiteError``
/// whose message is the error's description, never a bare "SQL logic error". (Collations cannot
/// throw: their closures return a `ComparisonResult`.)
@Suite struct CallbackErrorMessageTests {
  /// Runs `sql` and returns the message of the ``SQLiteError`` it throws.
  private func message(_ db: Database, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let error = #expect(throws: SQLiteError.self, sourceLocation: sourceLocation) {
      _ = try db.prepare(sql: sql).allRows()
    }
    #expect(error?.code == .error, sourceLocation: sourceLocation)
    return error?.message
  }

  @Test func scalarFunctions() throws {
    let db = try Database()
    try db.addFunction("values_form", arity: 1) { _ in throw MyError(place: "values form") }
    try db.addFunction("context_form", arity: 0) { _, _ in throw MyError(place: "context form") }
    try db.addFunction("typed_form") { (_: Int) -> Int in throw MyError(place: "typed form") }
    #expect(message(db, "SELECT values_form(1)") == "MyError: refused in values form")
    #expect(message(db, "SELECT context_form()") == "MyError: refused in context form")
    #expect(message(db, "SELECT typed_form(1)") == "MyError: refused in typed form")
  }

  @Test func aggregateFunctions() throws {
    let db = try Database()
    try db.addAggregateFunction("refuse_step", arity: 1, RefusingAggregate.self)
    try db.addAggregateFunction("refuse_final", arity: 1) { RefusingAggregate(throwsInFinal: true) }
    #expect(message(db, "SELECT refuse_step(1)") == "MyError: refused in step")
    #expect(message(db, "SELECT refuse_final(1)") == "MyError: refused in final")
  }

  @Test func windowFunctions() throws {
    let db = try Database()
    for place in ["step", "inverse", "value"] {
      try db.addWindowFunction("refuse_\(place)", arity: 1) { RefusingWindow(place: place) }
    }
    let frame = "OVER (ORDER BY value ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
    let rows = "FROM (SELECT 1 AS value UNION ALL SELECT 2 UNION ALL SELECT 3)"
    #expect(message(db, "SELECT refuse_step(value) \(frame) \(rows)") == "MyError: refused in window step")
    #expect(message(db, "SELECT refuse_inverse(value) \(frame) \(rows)") == "MyError: refused in inverse")
    #expect(message(db, "SELECT refuse_value(value) \(frame) \(rows)") == "MyError: refused in value")
  }

  @Test func everyPlaceSQLCallsAFunctionKeepsTheMessage() throws {
    let db = try Database()
    try db.addFunction("refuse", arity: 1, flags: [.deterministic, .innocuous]) { values in
      if values[0] == .integer(13) { throw MyError(place: "refuse") }
      return values[0]
    }
    try db.addAggregateFunction("refuse_step", arity: 1, flags: [.deterministic, .innocuous], RefusingAggregate.self)
    try db.batch(
      sql: """
        CREATE TABLE t(x);
        INSERT INTO t VALUES (1), (13), (2);
        CREATE TABLE checked(x CHECK (refuse(x) = x));
        CREATE TABLE generated(x, y AS (refuse(x)) STORED);
        CREATE TABLE indexed(x);
        CREATE INDEX indexed_by_refuse ON indexed(refuse(x));
        CREATE TABLE triggered(x);
        CREATE TRIGGER triggered_refuse AFTER INSERT ON triggered BEGIN SELECT refuse(NEW.x); END;
        CREATE VIEW refused AS SELECT refuse(x) AS y FROM t;
        """)
    let cases: [(String, String)] = [
      ("SELECT x FROM t WHERE refuse(x) > 0", "MyError: refused in refuse"),
      ("SELECT x FROM t ORDER BY refuse(x)", "MyError: refused in refuse"),
      ("INSERT INTO checked VALUES (13)", "MyError: refused in refuse"),
      ("INSERT INTO generated(x) VALUES (13)", "MyError: refused in refuse"),
      ("INSERT INTO indexed VALUES (13)", "MyError: refused in refuse"),
      ("INSERT INTO triggered VALUES (13)", "MyError: refused in refuse"),
      ("SELECT y FROM refused", "MyError: refused in refuse"),
      ("SELECT refuse_step(DISTINCT x) FROM t", "MyError: refused in step"),
      ("SELECT x, refuse_step(x) FROM t GROUP BY x", "MyError: refused in step"),
      ("SELECT x FROM t GROUP BY x HAVING refuse_step(x) > 0", "MyError: refused in step"),
      ("SELECT (SELECT refuse_step(x) FROM t AS inner_t WHERE inner_t.x = t.x) FROM t", "MyError: refused in step"),
    ]
    for (sql, expected) in cases {
      #expect(message(db, sql) == expected, "\(sql)")
      // Run by the other entry points too.
      let executed = #expect(throws: SQLiteError.self, "\(sql)") { try db.execute(sql: sql) }
      #expect(executed?.message == expected, "\(sql)")
      let batched = #expect(throws: SQLiteError.self, "\(sql)") { try db.batch(sql: sql) }
      #expect(batched?.message == expected, "\(sql)")
    }
  }

  @Test func everyWindowFrameKeepsTheMessage() throws {
    let db = try Database()
    for place in ["step", "inverse", "value"] {
      try db.addWindowFunction("refuse_\(place)", arity: 1) { RefusingWindow(place: place) }
    }
    let rows = """
      FROM (SELECT 1 AS value, 'a' AS g UNION ALL SELECT 2, 'a' UNION ALL SELECT 3, 'b' UNION ALL SELECT 4, 'b')
      """
    let frames = [
      "OVER ()", "OVER (ORDER BY value)", "OVER (PARTITION BY g)", "OVER (PARTITION BY g ORDER BY value)",
      "OVER (ORDER BY value ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
      "OVER (ORDER BY value RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
      "OVER (ORDER BY value GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW)",
      "OVER (ORDER BY value ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING)",
    ]
    for frame in frames {
      let step = message(db, "SELECT refuse_step(value) \(frame) \(rows)")
      #expect(step == "MyError: refused in window step", "\(frame)")
      #expect(message(db, "SELECT refuse_value(value) \(frame) \(rows)") == "MyError: refused in value", "\(frame)")
    }
    for frame in frames.suffix(4) {
      #expect(message(db, "SELECT refuse_inverse(value) \(frame) \(rows)") == "MyError: refused in inverse", "\(frame)")
    }
  }
}
