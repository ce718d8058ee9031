import Amalgam
import AmalgamSQLite
import Testing

@Suite("Function flags")
struct FunctionFlagTests {
  @Test func flagsAreSQLitesBits() {
    #expect(FunctionFlags.deterministic.rawValue == SQLITE_DETERMINISTIC)
    #expect(FunctionFlags.directOnly.rawValue == SQLITE_DIRECTONLY)
    #expect(FunctionFlags.innocuous.rawValue == SQLITE_INNOCUOUS)
    #expect(FunctionFlags.subtype.rawValue == SQLITE_SUBTYPE)
    #expect(FunctionFlags.resultSubtype.rawValue == SQLITE_RESULT_SUBTYPE)
  }

  @Test func defaultIsDeterministicAndDirectOnly() {
    #expect(FunctionFlags.default == [.deterministic, .directOnly])
  }

  @Test func directOnlyFunctionFailsInAViewWithUnsafeUse() throws {
    let db = try Database()
    try db.addFunction("secret", arity: 0) { _ in "s3cr3t" }  // default flags: direct-only
    try db.execute(sql: "CREATE VIEW leak AS SELECT secret() AS value")
    #expect(try db.fetchOne(sql: "SELECT secret()") == "s3cr3t")
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT value FROM leak") }
    #expect(error?.code == .error)
    // SQLite's bare message says only "unsafe use of secret()": the rest says which registration made it
    // direct-only and what allows it in a view.
    #expect(
      error?.message
        == "unsafe use of secret(): secret() was registered direct-only (FunctionFlags.directOnly, part of the default "
        + "flags), so only top-level SQL may call it, not a trigger, a view or the schema; register it with flags: "
        + "[.innocuous] (and .deterministic when it is) to allow it there, once it is safe whatever a database's "
        + "schema does with it")
  }

  @Test func directOnlyFunctionFailsInATriggerWithUnsafeUse() throws {
    let db = try Database()
    try db.addFunction("secret", arity: 0) { _ in "s3cr3t" }
    try db.batch(
      sql: """
        CREATE TABLE t(x);
        CREATE TABLE log(value);
        CREATE TRIGGER spy AFTER INSERT ON t BEGIN INSERT INTO log VALUES (secret()); END;
        """)
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
    #expect(error?.message.hasPrefix("unsafe use of secret(): secret() was registered direct-only") == true)
    #expect(error?.message.contains("register it with flags: [.innocuous]") == true)
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM log") == 0)
  }

  @Test func theExplanationFollowsTheRegistrationAsItIsNow() throws {
    let db = try Database()
    try db.addFunction("Secret", arity: 0) { _ in "s3cr3t" }
    try db.execute(sql: "CREATE VIEW leak AS SELECT SECRET() AS value")
    let first = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT value FROM leak") }
    #expect(first?.message.hasPrefix("unsafe use of SECRET(): SECRET() was registered direct-only") == true)
    // Registered again as innocuous, the view works.
    try db.addFunction("secret", arity: 0, flags: [.deterministic, .innocuous]) { _ in "s3cr3t" }
    #expect(try db.fetchOne(sql: "SELECT value FROM leak") == "s3cr3t")
  }

  @Test func functionWithoutDirectOnlyWorksInViewsAndTriggers() throws {
    let db = try Database()
    try db.addFunction("twice", flags: .deterministic) { (x: Int) in x * 2 }
    try db.batch(
      sql: """
        CREATE TABLE t(x);
        CREATE TABLE log(value);
        CREATE VIEW doubled AS SELECT twice(x) AS value FROM t;
        CREATE TRIGGER copy AFTER INSERT ON t BEGIN INSERT INTO log VALUES (twice(new.x)); END;
        INSERT INTO t VALUES (21);
        """)
    #expect(try db.fetchOne(sql: "SELECT value FROM doubled") == 42)
    #expect(try db.fetchOne(sql: "SELECT value FROM log") == 42)
  }

  @Test func nonDeterministicFunctionIsRefusedInIndexesAndGeneratedColumns() throws {
    let db = try Database()
    var counter = 0
    try db.addFunction("next_number", arity: 1, flags: []) { _ in
      counter += 1
      return .integer(Int64(counter))
    }
    try db.execute(sql: "CREATE TABLE t(x)")
    let cases = [
      ("CREATE INDEX t_next ON t(next_number(x))", "non-deterministic functions prohibited in index expressions"),
      (
        "CREATE INDEX t_partial ON t(x) WHERE next_number(x) > 0",
        "non-deterministic functions prohibited in partial index WHERE clauses"
      ),
      ("CREATE TABLE g(x, y AS (next_number(x)))", "non-deterministic functions prohibited in generated columns"),
    ]
    for (sql, message) in cases {
      let error = #expect(throws: SQLiteError.self, "\(sql)") { try db.execute(sql: sql) }
      #expect(error?.code == .error)
      #expect(error?.message == message)
    }
  }

  @Test func nonDeterministicFunctionIsAllowedInACheckConstraintAsSQLiteDecides() throws {
    // SQLite allows it there on purpose, as other databases do; only direct-only stops it.
    let db = try Database()
    try db.addFunction("always_true", arity: 1, flags: []) { _ in true }
    try db.addFunction("guarded_true", arity: 1, flags: .directOnly) { _ in true }
    try db.batch(sql: "CREATE TABLE c(x CHECK (always_true(x))); INSERT INTO c VALUES (1)")
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "CREATE TABLE d(x CHECK (guarded_true(x)))") }
    #expect(error?.message.hasPrefix("unsafe use of guarded_true(): guarded_true() was registered direct-only") == true)
  }

  @Test func deterministicFunctionWorksInAnIndexExpression() throws {
    let db = try Database()
    try db.addFunction("lower_ascii", flags: .deterministic) { (text: String) in text.lowercased() }
    try db.batch(
      sql: """
        CREATE TABLE person(name TEXT);
        CREATE INDEX person_lower ON person(lower_ascii(name));
        INSERT INTO person VALUES ('Ada'), ('GRACE');
        """)
    #expect(try db.fetchOne(sql: "SELECT name FROM person WHERE lower_ascii(name) = 'grace'") == "GRACE")
    let plan = try db.prepare(sql: "EXPLAIN QUERY PLAN SELECT name FROM person WHERE lower_ascii(name) = 'grace'")
      .column(3, as: String.self)
    #expect(plan.contains { $0.contains("USING INDEX person_lower") })
  }

  @Test func deterministicCallWithConstantArgumentsRunsOncePerStatement() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
    var deterministicCalls = 0
    var volatileCalls = 0
    try db.addFunction("stable", arity: 1, flags: [.deterministic, .directOnly]) { values in
      deterministicCalls += 1
      return values[0]
    }
    try db.addFunction("volatile", arity: 1, flags: .directOnly) { values in
      volatileCalls += 1
      return values[0]
    }
    _ = try db.prepare(sql: "SELECT stable(10), volatile(10) FROM t").allRows()
    #expect(deterministicCalls == 1)
    #expect(volatileCalls == 3)
  }

  @Test func untrustedSchemaAllowsOnlyInnocuousFunctionsInViews() throws {
    let db = try Database()
    try db.addFunction("plain", flags: .deterministic) { (x: Int) in x + 1 }
    try db.addFunction("harmless", flags: [.deterministic, .innocuous]) { (x: Int) in x + 2 }
    try db.batch(
      sql: """
        PRAGMA trusted_schema = OFF;
        CREATE VIEW v_plain AS SELECT plain(1) AS value;
        CREATE VIEW v_harmless AS SELECT harmless(1) AS value;
        """)
    #expect(try db.fetchOne(sql: "SELECT value FROM v_harmless") == 3)
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT value FROM v_plain") }
    // Not direct-only: refused by the untrusted schema, so SQLite's message stands alone.
    #expect(error?.message == "unsafe use of plain()")
  }
}
