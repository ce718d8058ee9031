import Amalgam
import Foundation
import Testing

/// `amalgam backup` and `amalgam sql DATABASE < script.sql`, run as a separate process.
extension CommandLineToolTests {
  /// Creates a database at `path` with 2000 rows of 200 bytes (about 100 pages of 4 KB).
  static func makeBackupSource(at path: String) throws {
    let db = try Database(path: path)
    try db.batch(
      sql: """
        CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
        INSERT INTO t SELECT i, randomblob(200) FROM n;
        """)
  }

  @Test func backupCopiesTheDatabaseWithoutAProgressBarWhenNotOnATerminal() async throws {
    try await withTemporaryDirectory { directory in
      let source = directory.appendingPathComponent("source.db").path
      let destination = directory.appendingPathComponent("copy.db").path
      try Self.makeBackupSource(at: source)
      let result = try await AmalgamTool.run(["backup", source, destination, "--pages", "7"])
      #expect(result.status == 0)
      #expect(result.stderr == "")
      let original = try Database(path: source)
      let pages = try #require(try original.prepare(sql: "PRAGMA page_count").front(Int.self))
      #expect(result.stdout == "Copied \(pages) pages from \(source) to \(destination)\n")
      let copy = try Database(path: destination)
      let sql = "SELECT group_concat(id || hex(payload)) FROM (SELECT * FROM t ORDER BY id)"
      #expect(try copy.prepare(sql: sql).front(String.self) == original.prepare(sql: sql).front(String.self))
      #expect(try copy.prepare(sql: "PRAGMA integrity_check").front(String.self) == "ok")
    }
  }

  @Test func backupOfAFileOntoItselfFailsAtOnce() async throws {
    try await withTemporaryDirectory { directory in
      let source = directory.appendingPathComponent("source.db").path
      try Self.makeBackupSource(at: source)
      let result = try await AmalgamTool.run(["backup", source, source])
      #expect(result.status != 0)
      #expect(result.stderr.contains("onto itself"))
      let db = try Database(path: source)
      #expect(try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 2000)
    }
  }

  @Test func backupDrawsAProgressBarOnATerminal() async throws {
    let script = URL(fileURLWithPath: "/usr/bin/script")
    guard FileManager.default.isExecutableFile(atPath: script.path) else { return }  // no pty tool here
    try withTemporaryDirectory { directory in
      let source = directory.appendingPathComponent("source.db").path
      let destination = directory.appendingPathComponent("copy.db").path
      try Self.makeBackupSource(at: source)
      let executable = try AmalgamTool.executableURL().path
      // `script` runs the tool with a pseudo-terminal as its standard streams and copies what it prints.
      let command = "'\(executable)' backup '\(source)' '\(destination)' --pages 10"
      let process = Process()
      process.executableURL = script
      process.arguments = ["-qec", command, "/dev/null"]
      let pipe = Pipe()
      process.standardOutput = pipe
      process.standardInput = FileHandle.nullDevice
      try process.run()
      let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      #expect(output.contains("\r[#####"))
      #expect(output.contains("] 100%"))
      #expect(output.contains("10/"))
      #expect(output.contains("Copied "))
    }
  }

  @Test func backupReportsAMissingSourceWithExitStatus1() async throws {
    try await withTemporaryDirectory { directory in
      let source = directory.appendingPathComponent("missing.db").path
      let destination = directory.appendingPathComponent("copy.db").path
      let result = try await AmalgamTool.run(["backup", source, destination])
      #expect(result.status == 1)
      #expect(result.stdout == "")
      #expect(result.stderr.contains("cannot open the source database \"\(source)\""))
      #expect(result.stderr.contains("unable to open database file"))
      #expect(!FileManager.default.fileExists(atPath: destination))
    }
  }

  @Test func backupReportsAnUnwritableDestination() async throws {
    try await withTemporaryDirectory { directory in
      let source = directory.appendingPathComponent("source.db").path
      try Self.makeBackupSource(at: source)
      let destination = directory.appendingPathComponent("no/such/folder/copy.db").path
      let result = try await AmalgamTool.run(["backup", source, destination])
      #expect(result.status == 1)
      #expect(result.stderr.contains("cannot open the destination database"))
    }
  }

  @Test func backupUsageErrors() async throws {
    for arguments in [
      ["backup"], ["backup", "a.db"], ["backup", "a", "b", "c"], ["backup", "a", "b", "--pages"],
      ["backup", "a", "b", "--pages", "0"], ["backup", "a", "b", "--pages", "x"], ["backup", "a", "b", "--json"],
    ] {
      let result = try await AmalgamTool.run(arguments)
      #expect(result.status == 2, "\(arguments)")
      #expect(result.stderr.contains("USAGE:"), "\(arguments)")
    }
  }

  @Test func sqlWithOnlyADatabaseReadsTheSQLFromStandardInput() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("script.db").path
      let script = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO note(text) VALUES ('from'), ('stdin');
        SELECT id, text FROM note ORDER BY id;
        """
      let result = try await AmalgamTool.run(["sql", path], standardInput: script)
      #expect(result.status == 0)
      #expect(result.stderr == "")
      #expect(result.stdout == "id  text\n--  -----\n 1  from\n 2  stdin\n")
      // The database file exists now, and an existing file is read the same way, with options.
      let again = try await AmalgamTool.run(["sql", "--csv", path], standardInput: "SELECT count(*) AS n FROM note")
      #expect(again.stdout == "n\r\n2\r\n")
      // A one-word statement is still SQL.
      let vacuum = try await AmalgamTool.run(["sql", "VACUUM"])
      #expect(vacuum.status == 0)
      #expect(vacuum.stderr == "")
    }
  }
}
