import Amalgam
import AmalgamSQLite
import Foundation
import Testing

@Suite("Errors")
struct ErrorTests {
  private func database() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        PRAGMA foreign_keys = ON;
        CREATE TABLE parent(id INTEGER PRIMARY KEY);
        CREATE TABLE person(
          id INTEGER PRIMARY KEY,
          code TEXT,
          email TEXT UNIQUE,
          name TEXT NOT NULL,
          age INTEGER CHECK (age >= 0),
          parent INTEGER REFERENCES parent(id)
        );
        CREATE TABLE keyed(k TEXT PRIMARY KEY);
        INSERT INTO person(id, email, name) VALUES (1, 'ada@example.com', 'Ada');
        INSERT INTO keyed VALUES ('k');
        """)
    return db
  }

  @Test func uniqueViolationHasConstraintCodeAndUniqueExtendedCode() throws {
    let db = try database()
    let sql = "INSERT INTO person(email, name) VALUES ('ada@example.com', 'Other')"
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: sql) }
    #expect(error?.code == .constraint)
    #expect(error?.extendedCode == .constraintUnique)
    #expect(error?.extendedCode.rawValue == 2067)  // SQLITE_CONSTRAINT_UNIQUE
    #expect(error?.extendedCode.primary == .constraint)
    #expect(error?.extendedCode.isExtended == true)
    #expect(error?.message == "UNIQUE constraint failed: person.email")
    #expect(error?.sql == sql)
  }

  @Test func eachConstraintKindHasItsExtendedCode() throws {
    let db = try database()
    let cases: [(String, ResultCode, String)] = [
      ("INSERT INTO person(name) VALUES (NULL)", .constraintNotNull, "NOT NULL constraint failed: person.name"),
      ("INSERT INTO person(name, age) VALUES ('x', -1)", .constraintCheck, "CHECK constraint failed: age >= 0"),
      ("INSERT INTO person(name, parent) VALUES ('x', 99)", .constraintForeignKey, "FOREIGN KEY constraint failed"),
      ("INSERT INTO person(id, name) VALUES (1, 'x')", .constraintPrimaryKey, "UNIQUE constraint failed: person.id"),
      ("INSERT INTO keyed VALUES ('k')", .constraintPrimaryKey, "UNIQUE constraint failed: keyed.k"),
    ]
    for (sql, code, message) in cases {
      let error = #expect(throws: SQLiteError.self, "\(sql)") { try db.execute(sql: sql) }
      #expect(error?.code == .constraint, "\(sql)")
      #expect(error?.extendedCode == code, "\(sql): \(String(describing: error?.extendedCode.rawValue))")
      #expect(error?.message == message)
    }
  }

  @Test func withoutExtendedResultCodesOnlyThePrimaryCodeIsReported() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("primary.sqlite").path
      let db = try Database(path: path, options: Database.OpenOptions(extendedResultCodes: false))
      try db.execute(sql: "CREATE TABLE t(x UNIQUE)")
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(error?.code == .constraint)
      #expect(error?.extendedCode == .constraint)
      #expect(error?.extendedCode.isExtended == false)
    }
  }

  @Test func resultCodePatternMatchesInCatchClauses() throws {
    let db = try database()
    func classify(_ sql: String) -> String {
      do {
        try db.execute(sql: sql)
        return "ok"
      } catch ResultCode.constraintNotNull {
        return "not null"
      } catch ResultCode.constraint {
        return "constraint"
      } catch ResultCode.error {
        return "error"
      } catch {
        return "other: \(error)"
      }
    }
    #expect(classify("INSERT INTO person(name) VALUES ('ok')") == "ok")
    #expect(classify("INSERT INTO person(name) VALUES (NULL)") == "not null")
    #expect(classify("INSERT INTO person(email, name) VALUES ('ada@example.com', 'x')") == "constraint")
    #expect(classify("SELECT * FROM nowhere") == "error")
    #expect(classify("") == "other: \(DatabaseError.emptyStatement(sql: ""))")
  }

  @Test func resultCodePatternComparesPrimaryOrExtendedCodeAsWritten() {
    let unique: any Error = SQLiteError(code: .constraintUnique, message: "UNIQUE constraint failed: t.x")
    #expect(ResultCode.constraint ~= unique)
    #expect(ResultCode.constraintUnique ~= unique)
    #expect(!(ResultCode.constraintNotNull ~= unique))
    #expect(!(ResultCode.busy ~= unique))
    #expect(!(ResultCode.constraint ~= DatabaseError.databaseClosed))
    #expect(!(ResultCode.error ~= TestError(id: 0)))
  }

  @Test func descriptionContainsCodeMessageSQLAndOffset() throws {
    let db = try database()
    let sql = "INSERT INTO person(email, name) VALUES ('ada@example.com', 'x')"
    let error = try #require(#expect(throws: SQLiteError.self) { try db.execute(sql: sql) })
    #expect(error.description.contains("UNIQUE constraint failed: person.email"))
    #expect(error.description.contains(sql))
    #expect(error.description.contains("2067"))  // SQLITE_CONSTRAINT_UNIQUE

    let syntax = try #require(#expect(throws: SQLiteError.self) { _ = try db.prepare(sql: "SELECT FROM") })
    #expect(syntax.description.contains(syntax.message))
    #expect(syntax.description.contains("SELECT FROM"))
    #expect(syntax.description.contains("offset \(try #require(syntax.offset))"))
    #expect(String(describing: syntax) == syntax.description)
  }

  @Test func sqliteErrorInitializerUsesTheCodesDescriptionWhenThereIsNoMessage() {
    let error = SQLiteError(code: .busy)
    #expect(error.code == .busy)
    #expect(error.extendedCode == .busy)
    #expect(error.message == "database is locked")
    #expect(error.sql == nil)
    #expect(error.offset == nil)
    #expect(error == SQLiteError(code: .busy, message: "database is locked"))
    #expect(error != SQLiteError(code: .busy, message: "database is locked", sql: "BEGIN"))
  }

  @Test func resultCodeDescriptionPrimaryAndExtendedFlag() {
    #expect(ResultCode.constraint.description == "constraint failed")
    #expect(ResultCode.busy.description == "database is locked")
    #expect(ResultCode.readOnly.description == "attempt to write a readonly database")
    #expect(ResultCode.constraintUnique.primary == .constraint)
    #expect(ResultCode.busyTimeout.primary == .busy)
    #expect(ResultCode.constraint.primary == .constraint)
    #expect(!ResultCode.constraint.isExtended)
    #expect(ResultCode.constraintUnique.isExtended)
    #expect(ResultCode(rawValue: 19) == .constraint)
  }

  @Test func resultCodeConstantsMatchSQLiteHeader() {
    let pairs: [(ResultCode, Int32)] = [
      (.ok, SQLITE_OK), (.error, SQLITE_ERROR), (.internal, SQLITE_INTERNAL), (.permission, SQLITE_PERM),
      (.abort, SQLITE_ABORT), (.busy, SQLITE_BUSY), (.locked, SQLITE_LOCKED), (.noMemory, SQLITE_NOMEM),
      (.readOnly, SQLITE_READONLY), (.interrupt, SQLITE_INTERRUPT), (.ioError, SQLITE_IOERR),
      (.corrupt, SQLITE_CORRUPT), (.notFound, SQLITE_NOTFOUND), (.full, SQLITE_FULL),
      (.cannotOpen, SQLITE_CANTOPEN), (.protocol, SQLITE_PROTOCOL), (.schema, SQLITE_SCHEMA),
      (.tooBig, SQLITE_TOOBIG), (.constraint, SQLITE_CONSTRAINT), (.mismatch, SQLITE_MISMATCH),
      (.misuse, SQLITE_MISUSE), (.noLFS, SQLITE_NOLFS), (.authorization, SQLITE_AUTH), (.range, SQLITE_RANGE),
      (.notADatabase, SQLITE_NOTADB), (.notice, SQLITE_NOTICE), (.warning, SQLITE_WARNING), (.row, SQLITE_ROW),
      (.done, SQLITE_DONE),
      // Extended codes: sqlite3.h defines them as (primary | n << 8), which Swift does not import.
      (.busySnapshot, 517), (.busyTimeout, 773), (.readOnlyDatabaseMoved, 1032), (.constraintCheck, 275),
      (.constraintForeignKey, 787), (.constraintNotNull, 1299), (.constraintPrimaryKey, 1555),
      (.constraintTrigger, 1811), (.constraintUnique, 2067), (.constraintRowid, 2579),
      (.cannotOpenSymlink, 1550),
    ]
    for (code, raw) in pairs {
      #expect(code.rawValue == raw, "\(code) is \(code.rawValue), sqlite3.h says \(raw)")
    }
  }

  @Test func databaseErrorDescriptionsNameWhatToFix() {
    #expect(DatabaseError.databaseClosed.description == "The database is closed")
    #expect(
      DatabaseError.parameterCountMismatch(expected: 2, provided: 3, sql: "SELECT ?, ?").description
        == "\"SELECT ?, ?\" takes 2 parameter(s) but 3 value(s) were given")
    #expect(DatabaseError.noSuchColumn(name: "x", available: ["a", "b"]).description.contains("\"x\""))
    #expect(DatabaseError.noSuchColumn(name: "x", available: ["a", "b"]).description.contains("\"a\", \"b\""))
    #expect(DatabaseError.columnIndexOutOfRange(index: 4, count: 2).description.contains("4"))
    #expect(DatabaseError.missingParameter(name: ":b", sql: "SELECT :a, :b").description.contains(":b"))
    #expect(DatabaseError.multipleStatements(sql: "SELECT 1; SELECT 2").description.contains("batch(sql:)"))
    let conversion = DatabaseError.conversionFailed(
      column: "\"age\" (column 2)", type: "Int", found: "NULL", reason: "the value is NULL")
    #expect(conversion.description == "Cannot convert NULL of column \"age\" (column 2) to Int: the value is NULL")
  }

  @Test func interruptWithNoRunningStatementDoesNotAffectTheNextOne() throws {
    let db = try Database()
    db.interrupt()
    // No statement was running: the interrupt does not affect the next one.
    #expect(try db.fetchOne(Int.self, sql: "SELECT 1") == 1)
  }
}
