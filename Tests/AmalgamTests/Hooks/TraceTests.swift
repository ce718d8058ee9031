import Amalgam
import Testing

@Suite struct TraceTests {
  @Test func statementEventsCarryTheSQLAndTheExpandedSQL() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let events = HookRecorder<TraceEvent>()
    try db.setTraceHandler(for: .statement) { events.append($0) }
    try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [42])
    #expect(events.values == [.statement(sql: "INSERT INTO t VALUES (?)", expandedSQL: "INSERT INTO t VALUES (42)")])
  }

  @Test func profileEventsReportEachFinishedStatementWithItsDuration() throws {
    let db = try Database()
    let events = HookRecorder<TraceEvent>()
    try db.setTraceHandler(for: .profile) { events.append($0) }
    try db.execute(sql: "CREATE TABLE t(x)")
    let count: Int? = try db.prepare(
      sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) SELECT count(*) FROM c"
    ).front()
    #expect(count == 10000)
    #expect(events.values.count == 2)
    guard case .profile(let sql, let nanoseconds) = events.values.last else {
      Issue.record("expected a profile event, got \(events.values)")
      return
    }
    #expect(sql.hasPrefix("WITH RECURSIVE"))
    #expect(nanoseconds > 0)
  }

  @Test func rowEventsAreReportedForEachRow() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
    let events = HookRecorder<TraceEvent>()
    try db.setTraceHandler(for: .row) { events.append($0) }
    _ = try db.prepare(sql: "SELECT x FROM t").allRows()
    #expect(events.values == Array(repeating: .row(sql: "SELECT x FROM t"), count: 3))
  }

  @Test func closeEventIsReportedWhenTheDatabaseCloses() throws {
    let db = try Database()
    let events = HookRecorder<TraceEvent>()
    try db.setTraceHandler(for: .close) { events.append($0) }
    _ = try db.fetchOne(Int.self, sql: "SELECT 1")
    #expect(events.values.isEmpty)
    try db.close()
    #expect(events.values == [.close])
  }

  @Test func triggersAndTheirStatementsAreReportedAsComments() throws {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE t(x); CREATE TABLE log(x);
        CREATE TRIGGER copy AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END;
        """)
    let events = HookRecorder<TraceEvent>()
    try db.setTraceHandler(for: .statement) { events.append($0) }
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(
      events.values == [
        .statement(sql: "INSERT INTO t VALUES (1)", expandedSQL: "INSERT INTO t VALUES (1)"),
        .statement(sql: "-- TRIGGER copy", expandedSQL: "-- TRIGGER copy"),
        .statement(sql: "-- INSERT INTO log VALUES (new.x)", expandedSQL: "-- INSERT INTO log VALUES (new.x)"),
      ])
  }

  @Test func theMaskSelectsTheEventsAndRegisteringAgainReplaces() throws {
    let db = try Database()
    let events = HookRecorder<TraceEvent>()
    try db.setTraceHandler(for: .all) { events.append($0) }
    _ = try db.fetchOne(Int.self, sql: "SELECT 1")
    guard events.values.count == 3, case .statement = events.values[0], case .row = events.values[1],
      case .profile = events.values[2]
    else {
      Issue.record("expected statement, row, profile; got \(events.values)")
      return
    }
    events.values.removeAll()
    try db.setTraceHandler(for: [.statement]) { events.append($0) }
    _ = try db.fetchOne(Int.self, sql: "SELECT 2")
    #expect(events.values == [.statement(sql: "SELECT 2", expandedSQL: "SELECT 2")])
  }

  @Test func removedOrEmptyMaskTraceHandlerIsNotCalled() throws {
    let db = try Database()
    var calls = 0
    try db.setTraceHandler { _ in calls += 1 }
    try db.removeTraceHandler()
    _ = try db.fetchOne(Int.self, sql: "SELECT 1")
    try db.setTraceHandler(for: []) { _ in calls += 1 }
    _ = try db.fetchOne(Int.self, sql: "SELECT 1")
    #expect(calls == 0)
  }

  @Test func traceHandlerClosureIsReleased() throws {
    try expectHookClosureReleased(
      install: { db, token in try db.setTraceHandler { _ in _ = token } },
      remove: { try $0.removeTraceHandler() })
  }
}
