import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// Every public error says what failed through `localizedDescription`, and SQLite's extended result
/// codes are named, not only described.
@Suite struct LocalizedErrorTests {
  @Test func anSQLiteErrorsLocalizedDescriptionNamesTheExtendedCodeAndSQLitesMessage() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(id INTEGER UNIQUE)")
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
    #expect(error?.extendedCode == .constraintUnique)
    #expect(error?.extendedCode.name == "SQLITE_CONSTRAINT_UNIQUE")
    let expected =
      "SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE, constraint failed): UNIQUE constraint failed: t.id"
      + " — in \"INSERT INTO t VALUES (1)\""
    #expect(error?.description == expected)
    #expect((error as (any Error)?)?.localizedDescription == expected)
  }

  @Test func everyResultCodeOfTheHeaderHasItsMacrosName() {
    #expect(ResultCode.ok.name == "SQLITE_OK")
    #expect(ResultCode.busy.name == "SQLITE_BUSY")
    #expect(ResultCode.done.name == "SQLITE_DONE")
    #expect(ResultCode.busySnapshot.name == "SQLITE_BUSY_SNAPSHOT")
    #expect(ResultCode.constraintForeignKey.name == "SQLITE_CONSTRAINT_FOREIGNKEY")
    #expect(ResultCode(rawValue: ioErrorShortRead).name == "SQLITE_IOERR_SHORT_READ")
    #expect(ResultCode(rawValue: SQLITE_OK | (2 << 8)).name == "SQLITE_OK_SYMLINK")
    // A code SQLite does not define is named by its primary code and number.
    #expect(ResultCode(rawValue: SQLITE_IOERR | (99 << 8)).name == "SQLITE_IOERR code 25354")
    #expect(ResultCode(rawValue: 99).name == "code 99")
  }

  @Test func amalgamsOwnErrorsHaveALocalizedDescription() {
    let errors: [any Error] = [
      DatabaseError.noRow(sql: "SELECT 1"),
      ConcurrencyError.reentrantAccess,
      MigrationError.duplicateMigration("v1"),
      SchemaError.noSuchTable(name: "nope", schema: "main"),
    ]
    for error in errors {
      #expect(error.localizedDescription == String(describing: error))
      #expect(!error.localizedDescription.contains("operation could not be completed"))
    }
    #expect(DatabaseError.noRow(sql: "SELECT 1").localizedDescription == "\"SELECT 1\" returned no row")
  }
}

/// `SQLITE_IOERR_SHORT_READ` (sqlite3.h: `SQLITE_IOERR | (2<<8)`), which Swift does not import.
private let ioErrorShortRead = SQLITE_IOERR | (2 << 8)
