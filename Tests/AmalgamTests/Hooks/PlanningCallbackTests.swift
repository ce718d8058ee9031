import Amalgam
import Foundation
import Testing

/// Callbacks that SQLite calls while it prepares or plans a statement (a virtual table's connect,
/// bestIndex and findFunction, the collation-needed handler, an FTS5 tokenizer's initializer) may read
/// with queries but get `DatabaseError.readOnlyCallback` for anything that could change the schema.
/// Before, `DROP TABLE` from bestIndex crashed inside SQLite's planner, and from the other callbacks left
/// the statement being prepared failing later with "database disk image is malformed".
@Suite struct PlanningCallbackTests {
  /// What a planning callback tries to run on its own connection, and what came of each attempt.
  final class Attempts {
    weak var database: Database?
    let statements: [String]
    var outcomes: [String] = []

    init(_ statements: [String]) { self.statements = statements }

    /// Runs each statement once (the first time the callback runs) and records "ok" or the error.
    func run() {
      guard outcomes.isEmpty, let database else { return }
      for sql in statements {
        do {
          try database.execute(sql: sql)
          outcomes.append("ok")
        } catch {
          outcomes.append("\(error)")
        }
      }
      do {
        try database.close()
        outcomes.append("closed")
      } catch {
        outcomes.append("\(error)")
      }
    }
  }

  /// The statements each test's callback tries: one read that must work, then schema changes, a write
  /// and transaction control that must be refused.
  static let tried = [
    "SELECT count(*) FROM other",
    "DROP TABLE other",
    "INSERT INTO other VALUES (2)",
    "BEGIN",
    "ATTACH ':memory:' AS extra",
    "CREATE TABLE made(x)",
  ]

  /// Checks that the read ran, every other statement and the close were refused by name, and that the
  /// connection and its schema are intact afterwards.
  static func expectOnlyTheReadRan(_ attempts: Attempts, callback: String, in db: Database) throws {
    #expect(attempts.outcomes.count == tried.count + 1)
    #expect(attempts.outcomes.first == "ok")
    for (sql, outcome) in zip(tried.dropFirst(), attempts.outcomes.dropFirst()) {
      #expect(outcome.contains("\"\(sql)\" was refused inside the \(callback)"), "\(sql): \(outcome)")
      #expect(outcome.contains("may only run read-only queries"))
    }
    #expect(attempts.outcomes.last?.contains("The call was refused inside the \(callback)") == true)
    #expect(db.isOpen)
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM other") == 1)
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'made'") == 0)
    #expect(db.isInAutocommitMode)
    #expect(try db.fetchValue(String.self, sql: "PRAGMA integrity_check") == "ok")
  }

  /// A table whose bestIndex and connect run the test's attempts.
  final class Planner: VirtualTableModule {
    let attempts: Attempts
    init(database: Database, arguments: [String], create: Bool) throws {
      attempts = try TestObjects.shared.object(arguments, as: Attempts.self)
      if !create && arguments.contains("connect") { attempts.run() }
    }
    var declaration: String { "CREATE TABLE x(value)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      attempts.run()
      return .ok
    }
    func openCursor() -> any VirtualTableCursor { ShadowTableTests.Empty() }
  }

  @Test func bestIndexMayReadButNotChangeTheSchema() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE other(x); INSERT INTO other VALUES (1);")
    let attempts = Attempts(Self.tried)
    attempts.database = db
    let id = TestObjects.shared.register(attempts)
    try db.addModule("planner", type: Planner.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE v USING planner(id=\(id))")
    #expect(try db.fetchAll(Int.self, sql: "SELECT value FROM v WHERE value = 1").isEmpty)
    try Self.expectOnlyTheReadRan(attempts, callback: "virtual table's bestIndex", in: db)
  }

  @Test func connectMayReadButNotChangeTheSchema() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("connect.sqlite").path
      let attempts = Attempts(Self.tried)
      let id = TestObjects.shared.register(attempts)
      do {
        let setup = try Database(path: path)
        try setup.batch(sql: "CREATE TABLE other(x); INSERT INTO other VALUES (1);")
        try setup.addModule("planner", type: Planner.self)
        try setup.execute(sql: "CREATE VIRTUAL TABLE v USING planner(id=\(id), connect)")
        try setup.close()
      }
      let db = try Database(path: path)
      attempts.database = db
      try db.addModule("planner", type: Planner.self)
      #expect(try db.fetchAll(Int.self, sql: "SELECT value FROM v").isEmpty)
      try Self.expectOnlyTheReadRan(attempts, callback: "virtual table's initializer (xConnect)", in: db)
    }
  }

  @Test func theCollationNeededHandlerMayReadAndRegisterButNotChangeTheSchema() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE other(x); INSERT INTO other VALUES (1); CREATE TABLE t(name TEXT);")
    let attempts = Attempts(Self.tried)
    attempts.database = db
    var registered: [String] = []
    try db.setCollationNeededHandler { [weak db] name in
      attempts.run()
      do {
        try db?.addCollation(name) { left, right in right.compare(left) }
        registered.append(name)
      } catch {
        registered.append("\(error)")
      }
    }
    try db.batch(sql: "INSERT INTO t VALUES ('a'), ('b');")
    let names = try db.fetchAll(String.self, sql: "SELECT name FROM t ORDER BY name COLLATE backwards")
    #expect(names == ["b", "a"])
    #expect(registered == ["backwards"])
    try Self.expectOnlyTheReadRan(attempts, callback: "collation-needed handler", in: db)
    try db.removeCollationNeededHandler()
  }

  #if ENABLE_FTS5
    @Test func aTokenizerInitializerMayReadButNotChangeTheSchema() throws {
      let db = try Database()
      try db.batch(sql: "CREATE TABLE other(x); INSERT INTO other VALUES (1);")
      let attempts = Attempts(Self.tried)
      attempts.database = db
      try db.addTokenizer("planning") { arguments in
        attempts.run()
        return try ASCIIWords(arguments: arguments)
      }
      try db.execute(sql: "CREATE VIRTUAL TABLE f USING fts5(body, tokenize = 'planning')")
      try db.execute(sql: "INSERT INTO f VALUES ('one two')")
      #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM f WHERE f MATCH 'two'") == 1)
      try Self.expectOnlyTheReadRan(attempts, callback: "FTS5 tokenizer's initializer", in: db)
    }
  #endif

  @Test func aWriteStatementPreparedBeforeIsRefusedToo() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE other(x); INSERT INTO other VALUES (1); CREATE TABLE t(name TEXT);")
    let drop = try db.prepare(sql: "DROP TABLE other")
    var outcomes: [String] = []
    try db.setCollationNeededHandler { [weak db] _ in
      guard outcomes.isEmpty else { return }
      for attempt in [{ try drop.execute() }, { try db?.batch(sql: "SELECT 1; DELETE FROM other;") }] {
        do {
          try attempt()
          outcomes.append("ran")
        } catch {
          outcomes.append("\(error)")
        }
      }
    }
    #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT name FROM t ORDER BY name COLLATE missing") }
    #expect(outcomes.count == 2)
    #expect(outcomes.first?.contains("\"DROP TABLE other\" was refused inside the collation-needed handler") == true)
    #expect(outcomes.last?.contains("\"DELETE FROM other;\" was refused") == true, "\(outcomes)")
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM other") == 1)
    try db.removeCollationNeededHandler()
  }
}
