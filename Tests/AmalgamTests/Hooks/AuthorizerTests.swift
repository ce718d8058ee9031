import Amalgam
import Testing

@Suite struct AuthorizerTests {
  /// The requests made while preparing `sql` (allowing everything).
  func requests(_ db: Database, _ sql: String) throws -> [AuthorizerRequest] {
    let recorder = HookRecorder<AuthorizerRequest>()
    try db.setAuthorizer { request in
      recorder.append(request)
      return .allow
    }
    defer { try? db.removeAuthorizer() }
    try db.batch(sql: sql)
    return recorder.values
  }

  func actions(_ db: Database, _ sql: String) throws -> [AuthorizerAction] {
    try requests(db, sql).map(\.action)
  }

  @Test func deniedStatementFailsToPrepareWithNotAuthorized() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE person(name); INSERT INTO person VALUES ('Ada')")
    try db.setAuthorizer { request in
      if case .delete = request.action { return .deny }
      return .allow
    }
    let error = expectSQLiteError { _ = try db.prepare(sql: "DELETE FROM person") }
    #expect(error?.code == .authorization)
    #expect(error?.message == "not authorized")
    #expect(error?.sql == "DELETE FROM person")
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM person") == 1)
  }

  @Test func ignoredColumnReadsAsNull() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE person(name, email); INSERT INTO person VALUES ('Ada', 'ada@example.com')")
    try db.setAuthorizer { request in
      request.action == .read(table: "person", column: "email") ? .ignore : .allow
    }
    let row = try db.prepare(sql: "SELECT name, email FROM person").firstRow()
    #expect(row == ["Ada", nil])
  }

  @Test func removingTheAuthorizerAllowsEverythingAgain() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.setAuthorizer { _ in .deny }
    _ = expectSQLiteError { _ = try db.prepare(sql: "SELECT 1") }
    try db.removeAuthorizer()
    #expect(try db.fetchOne(Int.self, sql: "SELECT 1") == 1)
  }

  @Test func readsSelectsAndFunctionsAreReported() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(name, age)")
    #expect(
      try actions(db, "SELECT upper(name) FROM person WHERE age > 1") == [
        .select, .function(function: "upper"), .read(table: "person", column: "name"),
        .read(table: "person", column: "age"),
      ])
    #expect(
      try actions(db, "SELECT count(*) FROM person") == [
        .select, .function(function: "count"), .read(table: "person", column: ""),
      ])
  }

  @Test func writesReportTheirTableAndColumns() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    #expect(try actions(db, "INSERT INTO t VALUES (1, 2)") == [.insert(table: "t")])
    #expect(
      try actions(db, "UPDATE t SET b = 3") == [.update(table: "t", column: "b")])
    #expect(try actions(db, "DELETE FROM t") == [.delete(table: "t")])
  }

  @Test func schemaChangesAreReported() throws {
    // Each statement also reports its reads and writes of the schema table (sqlite_master).
    let db = try Database()
    #expect(
      try actions(db, "CREATE TABLE t(a)").prefix(2) == [.insert(table: "sqlite_master"), .createTable(table: "t")])
    #expect(try actions(db, "CREATE INDEX i ON t(a)").contains(.createIndex(index: "i", table: "t")))
    #expect(try actions(db, "CREATE VIEW v AS SELECT a FROM t").contains(.createView(view: "v")))
    #expect(
      try actions(db, "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END")
        .contains(.createTrigger(trigger: "tr", table: "t")))
    #expect(try actions(db, "CREATE TEMP TABLE tt(a)").contains(.createTempTable(table: "tt")))
    #expect(try actions(db, "CREATE INDEX temp.ti ON tt(a)").contains(.createTempIndex(index: "ti", table: "tt")))
    #expect(try actions(db, "CREATE TEMP VIEW tv AS SELECT 1").contains(.createTempView(view: "tv")))
    #expect(
      try actions(db, "CREATE TEMP TRIGGER ttr AFTER INSERT ON tt BEGIN SELECT 1; END")
        .contains(.createTempTrigger(trigger: "ttr", table: "tt")))
    #expect(try actions(db, "ALTER TABLE t ADD COLUMN b").contains(.alterTable(database: "main", table: "t")))
    #expect(try actions(db, "REINDEX i").contains(.reindex(index: "i")))
    #expect(try actions(db, "ANALYZE t").contains(.analyze(table: "t")))
    #expect(try actions(db, "DROP TRIGGER ttr").contains(.dropTempTrigger(trigger: "ttr", table: "tt")))
    #expect(try actions(db, "DROP VIEW tv").contains(.dropTempView(view: "tv")))
    #expect(try actions(db, "DROP INDEX ti").contains(.dropTempIndex(index: "ti", table: "tt")))
    #expect(try actions(db, "DROP TABLE tt").contains(.dropTempTable(table: "tt")))
    #expect(try actions(db, "DROP TRIGGER tr").contains(.dropTrigger(trigger: "tr", table: "t")))
    #expect(try actions(db, "DROP VIEW v").contains(.dropView(view: "v")))
    #expect(try actions(db, "DROP INDEX i").contains(.dropIndex(index: "i", table: "t")))
    #expect(try actions(db, "DROP TABLE t").contains(.dropTable(table: "t")))
  }

  #if ENABLE_FTS5
    @Test func virtualTablesAreReportedWithTheirModule() throws {
      let db = try Database()
      #expect(
        try actions(db, "CREATE VIRTUAL TABLE docs USING fts5(body)")
          .contains(.createVirtualTable(table: "docs", module: "fts5")))
      #expect(try actions(db, "DROP TABLE docs").contains(.dropVirtualTable(table: "docs", module: "fts5")))
    }
  #endif

  @Test func transactionsSavepointsPragmasAndAttachmentsAreReported() throws {
    let db = try Database()
    #expect(try actions(db, "BEGIN") == [.transaction(operation: "BEGIN")])
    #expect(try actions(db, "SAVEPOINT s") == [.savepoint(operation: "BEGIN", savepoint: "s")])
    #expect(try actions(db, "ROLLBACK TO s") == [.savepoint(operation: "ROLLBACK", savepoint: "s")])
    #expect(try actions(db, "RELEASE s") == [.savepoint(operation: "RELEASE", savepoint: "s")])
    #expect(try actions(db, "COMMIT") == [.transaction(operation: "COMMIT")])
    #expect(try actions(db, "PRAGMA cache_size = 100") == [.pragma(pragma: "cache_size", argument: "100")])
    #expect(try actions(db, "PRAGMA user_version") == [.pragma(pragma: "user_version", argument: nil)])
    #expect(try actions(db, "ATTACH ':memory:' AS other").contains(.attach(filename: ":memory:")))
    #expect(try actions(db, "DETACH other").contains(.detach(database: "other")))
  }

  @Test func recursiveCommonTableExpressionsAreReported() throws {
    let db = try Database()
    let actions = try actions(
      db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c")
    #expect(actions.contains(.recursive))
  }

  @Test func requestsNameTheSchemaAndTheViewResponsible() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE person(name); CREATE VIEW names AS SELECT name FROM person")
    let read = try requests(db, "SELECT * FROM names").first {
      $0.action == .read(table: "person", column: "name")
    }
    #expect(read?.databaseName == "main")
    #expect(read?.triggerOrView == "names")
    let direct = try requests(db, "SELECT name FROM person").first {
      $0.action == .read(table: "person", column: "name")
    }
    #expect(direct?.triggerOrView == nil)
  }

  @Test func authorizerClosureIsReleased() throws {
    try expectHookClosureReleased(
      install: { db, token in
        try db.setAuthorizer { _ in withExtendedLifetime(token) { .allow } }
      },
      remove: { try $0.removeAuthorizer() })
  }
}
