import Amalgam
import Foundation
import Testing

@Suite("Virtual tables: lifetimes, errors and kept values")
struct VirtualTableLifetimeTests {
  private func makeCounted(_ db: Database, name: String = "t") throws -> LifetimeLog {
    let log = LifetimeLog()
    try db.execute(sql: "CREATE VIRTUAL TABLE \(name) USING counted(id=\(TestObjects.shared.register(log)))")
    return log
  }

  @Test func aCursorLivesUntilItsStatementStopsUsingIt() throws {
    let db = try Database()
    try db.addModule("counted", type: CountedTable.self)
    let log = try makeCounted(db)
    let statement = try db.prepare(sql: "SELECT n FROM t")
    _ = try statement.step()
    #expect(log.cursorsOpened == 1 && log.cursorsReleased == 0)
    try statement.reset()
    #expect(log.cursorsReleased == 1)
    #expect(try statement.column(0, as: Int.self) == [1, 2, 3])
    #expect(log.cursorsOpened == 2 && log.cursorsReleased == 2)
  }

  @Test func aTableLivesUntilDropTableAndDestroyRunsThen() throws {
    let db = try Database()
    try db.addModule("counted", type: CountedTable.self)
    let log = try makeCounted(db)
    #expect(log.creates == 1 && log.connects == 0)
    #expect(log.lastTable != nil)
    try db.execute(sql: "DROP TABLE t")
    #expect(log.destroyed == 1)
    #expect(log.lastTable == nil)
    #expect(log.tablesReleased == log.tablesCreated)
  }

  @Test func closingTheConnectionDisconnectsWithoutDestroying() throws {
    let db = try Database()
    try db.addModule("counted", type: CountedTable.self)
    let log = try makeCounted(db)
    #expect(log.lastTable != nil)
    try db.close()
    #expect(log.lastTable == nil)
    #expect(log.destroyed == 0)
  }

  @Test func xCreateRunsOnceAndXConnectOnEveryLaterConnection() throws {
    try withTemporaryDirectory { folder in
      let path = folder.appendingPathComponent("vtab.db").path
      let log = LifetimeLog()
      let id = TestObjects.shared.register(log)
      do {
        let db = try Database(path: path)
        try db.addModule("counted", type: CountedTable.self)
        try db.execute(sql: "CREATE VIRTUAL TABLE t USING counted(id=\(id))")
        try db.close()
      }
      let db = try Database(path: path)
      try db.addModule("counted", type: CountedTable.self)
      #expect(try db.prepare(sql: "SELECT n FROM t").column(0, as: Int.self) == [1, 2, 3])
      #expect(log.creates == 1 && log.connects == 1)
      try db.close()
      #expect(log.tablesReleased == 2)

      // Without the module, the table cannot be used.
      let bare = try Database(path: path)
      let error = #expect(throws: SQLiteError.self) { try bare.execute(sql: "SELECT * FROM t") }
      #expect(error?.message.contains("no such module: counted") == true)
    }
  }

  @Test func removedModulesAreNoLongerAvailable() throws {
    let db = try Database()
    try db.addModule("counted", type: CountedTable.self)
    try db.addModule("swift_series", type: SwiftSeries.self)
    try db.removeModule("counted")
    let error = #expect(throws: SQLiteError.self) { _ = try makeCounted(db) }
    #expect(error?.message.contains("no such module: counted") == true)
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM swift_series(1, 3)") == 3)
    try db.removeAllModules(except: ["swift_series"])
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM swift_series(1, 3)") == 3)
    try db.removeAllModules()
    // A new statement: the statement cache's copy, prepared while the module existed, would still run.
    #expect(throws: SQLiteError.self) {
      try db.prepare(sql: "SELECT count(*) FROM swift_series(1, 3)").front(Int.self)
    }
  }

  @Test func eponymousOnlyRefusesCreateVirtualTableButEponymousAllowsIt() throws {
    let db = try Database()
    try db.addModule("only", type: SwiftSeries.self)
    try db.addModule("both", type: SwiftSeries.self, eponymousOnly: false)
    #expect(throws: SQLiteError.self) { try db.execute(sql: "CREATE VIRTUAL TABLE a USING only") }
    try db.execute(sql: "CREATE VIRTUAL TABLE b USING both")
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM b WHERE start = 1 AND stop = 4") == 4)
    #expect(try db.fetchOne(sql: "SELECT sum(value) FROM only(1, 4)") == 10)
  }

  @Test func usingArgumentsAreParsedIntoNamesAndValues() {
    let parsed = VirtualTableModuleArgument.parse([
      "m", "main", "t", " size = 10 ", "'quoted, text'", "label=\"a \"\"b\"\"\"", "[bracketed]", "plain",
    ])
    #expect(parsed.map(\.name) == ["size", nil, "label", nil, nil])
    #expect(parsed.map(\.value) == ["10", "quoted, text", "a \"b\"", "bracketed", "plain"])
    #expect(parsed[0].text == "size = 10")
  }

  // MARK: - Errors

  /// A module that throws from the callback named by its `fail=` argument.
  final class Failing: UpdatableVirtualTableModule, TransactionalVirtualTableModule {
    let failing: String
    required init(database: Database, arguments: [String], create: Bool) throws {
      failing = VirtualTableModuleArgument.parse(arguments).first { $0.name == "fail" }?.value ?? ""
      if failing == (create ? "create" : "connect") { throw Failure(method: failing) }
    }
    struct Failure: Error, CustomStringConvertible {
      let method: String
      var description: String { "\(method) failed on purpose" }
    }
    func check(_ method: String) throws { if failing == method { throw Failure(method: method) } }
    var declaration: String { "CREATE TABLE x(a)" }
    func destroy() throws { try check("destroy") }
    func bestIndex(_ info: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
      try check("bestIndex")
      return .ok
    }
    func openCursor() throws -> any VirtualTableCursor {
      try check("open")
      return Cursor(owner: self)
    }
    func rename(to newName: String) throws { try check("rename") }
    func integrityCheck(schema: String, table: String, quick: Bool) throws -> String? {
      try check("integrity")
      return failing == "report" ? "row 3 is damaged" : nil
    }
    func insert(rowid: Int64?, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws -> Int64 {
      try check("insert")
      return 1
    }
    func update(rowid: Int64, newRowid: Int64, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws {
      try check("update")
    }
    func delete(rowid: Int64, onConflict: VirtualTableConflictMode) throws { try check("delete") }
    func begin() throws { try check("begin") }
    func sync() throws { try check("sync") }
    func commit() throws { try check("commit") }
    func savepoint(_ level: Int32) throws { try check("savepoint") }
    func release(_ level: Int32) throws { try check("release") }
    func rollback(to level: Int32) throws { try check("rollbackTo") }

    final class Cursor: VirtualTableCursor {
      let owner: Failing
      var row: Int64 = 0
      init(owner: Failing) { self.owner = owner }
      func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) throws {
        try owner.check("filter")
        row = 1
      }
      func next() throws {
        try owner.check("next")
        row += 1
      }
      var eof: Bool { row > 2 }
      func rowid() throws -> Int64 {
        try owner.check("rowid")
        return row
      }
      func column(_ index: Int32) throws -> DatabaseValue {
        try owner.check("column")
        return .integer(row)
      }
    }
  }

  @Test(arguments: [
    ("create", "CREATE VIRTUAL TABLE t USING failing(fail=create)"),
    ("bestIndex", "SELECT * FROM t"), ("open", "SELECT * FROM t"), ("filter", "SELECT * FROM t"),
    ("next", "SELECT * FROM t"), ("column", "SELECT a FROM t"), ("rowid", "SELECT rowid FROM t"),
    ("insert", "INSERT INTO t VALUES (1)"), ("update", "UPDATE t SET a = 5"), ("delete", "DELETE FROM t"),
    ("begin", "INSERT INTO t VALUES (1)"), ("sync", "INSERT INTO t VALUES (1)"),
    ("rename", "ALTER TABLE t RENAME TO u"), ("destroy", "DROP TABLE t"), ("integrity", "PRAGMA integrity_check"),
  ])
  func everyCallbackReportsItsErrorAsTheStatementsError(method: String, sql: String) throws {
    let db = try Database()
    try db.addModule("failing", type: Failing.self)
    let error = #expect(throws: SQLiteError.self) {
      // Creating the table writes the schema in a transaction: a failing xSync fails it already.
      if method != "create" { try db.execute(sql: "CREATE VIRTUAL TABLE t USING failing(fail=\(method))") }
      try db.batch(sql: sql)
    }
    if ["destroy", "integrity"].contains(method) {
      // SQLite keeps only the result code of xDestroy and xIntegrity, not the table's message.
      #expect(error?.code == .error)
    } else {
      #expect(error?.message.contains("\(method) failed on purpose") == true, "\(method): \(String(describing: error))")
    }
    // The connection still works.
    #expect(try db.fetchOne(sql: "SELECT 1") == 1)
  }

  @Test func savepointErrorsReachTheCaller() throws {
    for method in ["savepoint", "release", "rollbackTo"] {
      let db = try Database()
      try db.addModule("failing", type: Failing.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE t USING failing(fail=\(method))")
      // SQLite keeps only the result code of xSavepoint, xRelease and xRollbackTo.
      let error = #expect(throws: SQLiteError.self) {
        try db.batch(
          sql:
            "BEGIN; INSERT INTO t VALUES (1); SAVEPOINT s; INSERT INTO t VALUES (2); ROLLBACK TO s; RELEASE s; COMMIT")
      }
      #expect(error?.code == .error, "\(method)")
    }
  }

  @Test func integrityCheckReportsWhatTheTableFinds() throws {
    let db = try Database()
    try db.addModule("failing", type: Failing.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE t USING failing(fail=report)")
    let report = try db.prepare(sql: "PRAGMA integrity_check").column(0, as: String.self)
    #expect(report.joined().contains("row 3 is damaged"))
  }

  @Test func anSQLiteErrorKeepsItsCode() throws {
    final class Busy: EponymousVirtualTableModule {
      required init(database: Database, arguments: [String]) {}
      var declaration: String { "CREATE TABLE x(a)" }
      func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
      func openCursor() throws -> any VirtualTableCursor {
        throw SQLiteError(code: .permission, message: "not allowed to read busy")
      }
    }
    let db = try Database()
    try db.addModule("busy", type: Busy.self)
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT * FROM busy") }
    #expect(error?.code == .permission)
    #expect(error?.message == "not allowed to read busy")
  }

  @Test func aPlanThatCannotBeUsedFailsWithNoQuerySolution() throws {
    let db = try Database()
    try db.addModule("swift_series", type: SwiftSeries.self)
    // The start comes from a later table in the join: SQLite finds no plan where it is usable.
    let error = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "SELECT * FROM swift_series AS s LEFT JOIN (SELECT 1 AS x) AS o ON s.start = o.x")
    }
    #expect(error != nil)
  }

  // MARK: - Kept callback values

  /// Keeps everything its callbacks receive.
  final class Keeper: EponymousVirtualTableModule {
    nonisolated(unsafe) static var info: VirtualTableIndexInfo?
    nonisolated(unsafe) static var arguments: FunctionArguments?
    nonisolated(unsafe) static var context: FunctionContext?
    required init(database: Database, arguments: [String]) {}
    var declaration: String { "CREATE TABLE x(a, arg HIDDEN)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      if let argument = info.constraints.first(where: { $0.column == 1 && $0.isUsable && $0.operator == .equal }) {
        info.useConstraint(argument.index, argumentIndex: 0, omit: true)
      }
      Self.info = info
      return .ok
    }
    func openCursor() -> any VirtualTableCursor { Cursor() }
    final class Cursor: VirtualTableCursor {
      var done = false
      func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) {
        Keeper.arguments = arguments
        done = false
      }
      func next() { done = true }
      var eof: Bool { done }
      func rowid() -> Int64 { 1 }
      func column(_ index: Int32, context: FunctionContext) {
        Keeper.context = context
        context.setResult(.text("live"))
      }
    }
  }

  @Test func valuesKeptAfterTheirCallbackNeverReachSQLite() throws {
    let db = try Database()
    try db.addModule("keeper", type: Keeper.self)
    #expect(try db.fetchOne(sql: "SELECT a FROM keeper('x')") == "live")
    let arguments = try #require(Keeper.arguments)
    let context = try #require(Keeper.context)
    let info = try #require(Keeper.info)
    #expect(!arguments.isValid && !context.isValid)
    #expect(arguments[0] == .null)
    #expect(throws: DatabaseError.self) { try arguments.value(at: 0, as: String.self) }
    #expect(throws: DatabaseError.self) { try arguments.inListValues(at: 0) }
    #expect(!arguments.isUnchanged(at: 0))
    context.setResult(.integer(1))
    #expect(!context.isUnchangedColumn)
    #expect(context.sqliteContext == nil)
    #expect(info.rightHandValue(of: 0) == nil)
    #expect(info.constraints.count >= 1)
  }
}
