import Amalgam
import Foundation
import Testing

/// SQLite never reads a virtual table's `zErrMsg` after xDestroy and xIntegrity fail: the Swift error's
/// message must still reach the caller. Before, `DROP TABLE` and `PRAGMA integrity_check` threw a bare
/// "not an error" or "SQL logic error".
@Suite struct VirtualTableErrorMessageTests {
  struct Refusal: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) refused by the test" }
  }

  final class Stubborn: VirtualTableModule {
    init(database: Database, arguments: [String], create: Bool) {}
    var declaration: String { "CREATE TABLE x(value)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
    func openCursor() -> any VirtualTableCursor { ShadowTableTests.Empty() }
    func destroy() throws { throw Refusal(what: "destroy") }
    func integrityCheck(schema: String, table: String, quick: Bool) throws -> String? {
      throw Refusal(what: "integrity check")
    }
  }

  @Test func aThrowingDestroyOrIntegrityCheckNamesItsError() throws {
    let db = try Database()
    try db.addModule("stubborn", type: Stubborn.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE v USING stubborn")
    let drop = #expect(throws: SQLiteError.self) { try db.execute(sql: "DROP TABLE v") }
    #expect(drop?.code == .error)
    #expect(drop?.message == "destroy refused by the test", "\(String(describing: drop))")
    let check = #expect(throws: SQLiteError.self) { try db.execute(sql: "PRAGMA integrity_check") }
    #expect(check?.message == "integrity check refused by the test", "\(String(describing: check))")
    // The table is still there and usable.
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM v") == 0)
    // A later, unrelated error is not given the old message.
    let other = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT * FROM missing") }
    #expect(other?.message == "no such table: missing")
  }
}
