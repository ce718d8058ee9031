import Amalgam
import Foundation
import Testing

/// `VirtualTableModule.shadowTableSuffixes` (SQLite's xShadowName): tables named `<vtab>_<suffix>` are
/// shadow tables, which defensive mode makes read-only to ordinary SQL.
struct ShadowTableTests {
  /// A module that keeps its (here unused) data in `<table>_data` and `<table>_config`.
  final class Shadowed: VirtualTableModule {
    static var shadowTableSuffixes: [String] { ["data", "Config"] }
    init(database: Database, arguments: [String], create: Bool) {}
    var declaration: String { "CREATE TABLE x(value)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
    func openCursor() -> any VirtualTableCursor { Empty() }
  }

  /// The same module without shadow tables.
  final class Plain: VirtualTableModule {
    init(database: Database, arguments: [String], create: Bool) {}
    var declaration: String { "CREATE TABLE x(value)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
    func openCursor() -> any VirtualTableCursor { Empty() }
  }

  final class Empty: VirtualTableCursor {
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) {}
    func next() {}
    var eof: Bool { true }
    func rowid() -> Int64 { 0 }
    func column(_ column: Int32) -> DatabaseValue { .null }
  }

  /// A database with `s USING shadowed` and `p USING plain`, each with `_data`, `_config` and `_other`
  /// tables, reopened so that SQLite reads the schema with the modules registered.
  func makeDatabase(in directory: URL) throws -> Database {
    let path = directory.appendingPathComponent("shadow.sqlite").path
    do {
      let setup = try Database(path: path)
      try setup.addModule("shadowed", type: Shadowed.self)
      try setup.addModule("plain", type: Plain.self)
      try setup.batch(
        sql: """
          CREATE VIRTUAL TABLE s USING shadowed;
          CREATE VIRTUAL TABLE p USING plain;
          CREATE TABLE s_data(x); CREATE TABLE s_config(x); CREATE TABLE s_other(x);
          CREATE TABLE p_data(x); CREATE TABLE p_config(x);
          """)
      try setup.close()
    }
    let db = try Database(path: path)
    try db.addModule("shadowed", type: Shadowed.self)
    try db.addModule("plain", type: Plain.self)
    return db
  }

  @Test func defensiveModeMakesDeclaredShadowTablesReadOnly() throws {
    try withTemporaryDirectory { directory in
      let db = try makeDatabase(in: directory)
      try db.setEnabled(.defensive, to: true)

      // Declared suffixes, compared ignoring case: read-only to ordinary SQL.
      for table in ["s_data", "s_config"] {
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO \(table) VALUES (1)") }
        #expect(error?.message.contains("may not be modified") == true, "\(table): \(String(describing: error))")
      }
      // Reading them is allowed.
      #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM s_data") == 0)
      // A suffix the module does not declare, and the module without shadow tables: ordinary tables.
      try db.execute(sql: "INSERT INTO s_other VALUES (1)")
      try db.execute(sql: "INSERT INTO p_data VALUES (1)")
      try db.execute(sql: "INSERT INTO p_config VALUES (1)")
      #expect(
        try db.fetchValue(Int.self, sql: "SELECT (SELECT count(*) FROM s_other) + (SELECT count(*) FROM p_data)") == 2)

      // Without defensive mode the shadow tables are writable, as SQLite documents.
      try db.setEnabled(.defensive, to: false)
      try db.execute(sql: "INSERT INTO s_data VALUES (2)")
      #expect(try db.fetchValue(Int.self, sql: "SELECT x FROM s_data") == 2)
    }
  }

  @Test func theSameSuffixesOnManyConnectionsShareOneFunction() throws {
    // Registering the module on many connections must not use up the process's xShadowName functions.
    for _ in 0..<100 {
      let db = try Database()
      try db.addModule("shadowed", type: Shadowed.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE t USING shadowed")
    }
  }
}
