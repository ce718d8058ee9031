import Amalgam
import Foundation
import Testing

/// `amalgam shell`: SQLite's own shell, built into the tool, fed scripts on standard input.
extension CommandLineToolTests {
  @Test func shellRunsAScriptFromStandardInput() async throws {
    let script = """
      CREATE TABLE t(a, b);
      INSERT INTO t VALUES (1, 'x'), (2, NULL);
      .mode csv
      SELECT * FROM t ORDER BY a;
      .schema
      .dump t
      SELECT sqlite_version();

      """
    let result = try await AmalgamTool.run(["shell"], standardInput: script)
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(
      result.stdout == """
        1,x\r
        2,\r
        CREATE TABLE t(a, b);
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE t(a, b);
        INSERT INTO t VALUES(1,'x');
        INSERT INTO t VALUES(2,NULL);
        COMMIT;
        3.53.4\r

        """)
  }

  @Test func shellOpensADatabaseAndImportsCSV() async throws {
    try await withTemporaryDirectory { directory in
      let database = directory.appendingPathComponent("shell.db").path
      let csv = directory.appendingPathComponent("people.csv").path
      try "name,age\nAda,36\nGrace,85\n".write(toFile: csv, atomically: true, encoding: .utf8)
      let script = ".import --csv '\(csv)' people\nSELECT name, age * 2 FROM people ORDER BY name;\n"
      let result = try await AmalgamTool.run(["shell", "-list", database], standardInput: script)
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout == "Ada|72\nGrace|170\n")
      // The file holds the imported table, for Amalgam too.
      let db = try Database(path: database)
      #expect(try db.prepare(sql: "SELECT count(*) FROM people").front(Int.self) == 2)
    }
  }

  @Test func shellHasThePackagesCompileOptions() async throws {
    let result = try await AmalgamTool.run(["shell", ":memory:", "PRAGMA compile_options"])
    #expect(result.status == 0)
    let options = Set(result.stdout.split(separator: "\n").map(String.init))
    // Exactly the options of the library in this test binary.
    #expect(options == Set(SQLite.compileOptions))
    #if ENABLE_FTS5
      #expect(options.contains("ENABLE_FTS5"))
      let fts = try await AmalgamTool.run(
        ["shell", ":memory:"], standardInput: "CREATE VIRTUAL TABLE d USING fts5(x); SELECT 'fts5 ok';\n")
      #expect(fts.stdout == "fts5 ok\n")
    #else
      #expect(!options.contains("ENABLE_FTS5"))
    #endif
  }

  @Test func shellReportsErrorsWithANonZeroStatus() async throws {
    let result = try await AmalgamTool.run(["shell", "-bail", ":memory:"], standardInput: "SELEC 1;\nSELECT 2;\n")
    #expect(result.status == 1)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("syntax error"))
  }
}
