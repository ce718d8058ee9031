import Foundation
import Testing

/// Tests of the `amalgam` command-line tool, run as a separate process: the exact text of tables, JSON and
/// CSV, the messages and exit statuses of errors, and databases kept in files between invocations.
///
/// `swift test` builds the `amalgam` executable next to the test binary (`.build/debug/amalgam`).
/// Set `AMALGAM_EXECUTABLE` to test another build. If the executable cannot be found, every test fails
/// with a message naming the places searched.
@Suite struct CommandLineToolTests {
  // MARK: - info

  @Test func infoPrintsVersionAndBuildFacts() async throws {
    let result = try await AmalgamTool.run(["info"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.first == "version:         3.53.4")
    #expect(lines.contains("version number:  3053004"))
    #expect(lines.contains { $0.hasPrefix("source id:       20") })
    #expect(lines.contains { $0.hasPrefix("threading mode:  ") })
    #expect(lines.contains { $0.hasPrefix("enabled traits:  ") })
    #expect(lines.contains { $0.hasPrefix("compile options: ") })
    // Every value, including the continuation lines of lists, starts in the same column.
    for line in lines where !line.isEmpty {
      #expect(line.count > 17 && line.prefix(17).last == " " && line.dropFirst(17).first != " ", "\(line)")
    }
    #expect(result.stdout.hasSuffix("\n"))
  }

  @Test func infoJSONIsAnObjectWithTheSameFacts() async throws {
    let result = try await AmalgamTool.run(["info", "--json"])
    #expect(result.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["version"] as? String == "3.53.4")
    #expect((object["versionNumber"] as? NSNumber)?.intValue == 3_053_004)
    let sourceID = try #require(object["sourceID"] as? String)
    #expect(sourceID.hasPrefix("20"))
    let mode = try #require(object["threadingMode"] as? String)
    #expect(["single-thread", "multi-thread", "serialized"].contains(mode))
    #expect(object["enabledTraits"] is [String])
    let options = try #require(object["compileOptions"] as? [String])
    #expect(options.contains { $0.hasPrefix("THREADSAFE=") })
    // The text form lists the same compile options.
    let text = try await AmalgamTool.run(["info"])
    for option in options { #expect(text.stdout.contains(option)) }
  }

  // MARK: - Tables

  @Test func tableHasHeaderSeparatorAndRows() async throws {
    let result = try await AmalgamTool.run(["sql", "SELECT 1 AS a, 'x' AS b"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout == "a  b\n-  -\n1  x\n")
  }

  @Test func tableColumnsArePaddedToTheWidestValue() async throws {
    let sql = """
      SELECT 1 AS id, 'Ada' AS name, NULL AS note, x'CAFE' AS data
      UNION ALL SELECT 100, 'Grace Hopper', '日本', x''
      UNION ALL SELECT -2, 'tab\tnew' || char(10) || 'line', 2.5, NULL
      """
    let result = try await AmalgamTool.run(["sql", sql])
    #expect(result.status == 0)
    // Numbers are right-aligned; wide characters take two columns; the last column is not padded.
    #expect(
      result.stdout == """
        id   name            note  data
        ---  --------------  ----  -------
          1  Ada             NULL  x'CAFE'
        100  Grace Hopper    日本  x''
         -2  tab\\tnew\\nline   2.5  NULL

        """)
  }

  @Test func tableShowsNullAndBlobs() async throws {
    let result = try await AmalgamTool.run([
      "sql", "SELECT NULL AS n, x'00FF10' AS b, zeroblob(32) AS full, zeroblob(40) AS long",
    ])
    #expect(result.status == 0)
    // Blobs of up to 32 bytes are shown whole; longer ones show 16 bytes and their size.
    let full = "x'" + String(repeating: "00", count: 32) + "'"
    let long = "x'" + String(repeating: "00", count: 16) + "…' (40 bytes)"
    let header = "n     b          full" + String(repeating: " ", count: full.count - "full".count + 2) + "long"
    let separator =
      "----  ---------  " + String(repeating: "-", count: full.count) + "  "
      + String(repeating: "-", count: long.count)
    #expect(result.stdout == header + "\n" + separator + "\n" + "NULL  x'00FF10'  \(full)  \(long)\n")
  }

  @Test func aStatementWithoutResultColumnsPrintsNothing() async throws {
    let result = try await AmalgamTool.run(["sql", "CREATE TABLE t(x); INSERT INTO t VALUES (1)"])
    #expect(result.status == 0)
    #expect(result.stdout == "")
    #expect(result.stderr == "")
  }

  @Test func aQueryWithoutRowsPrintsItsHeader() async throws {
    let table = try await AmalgamTool.run(["sql", "SELECT 1 AS a, 2 AS bee WHERE 0"])
    #expect(table.stdout == "a  bee\n-  ---\n")
    let json = try await AmalgamTool.run(["sql", "--json", "SELECT 1 AS a WHERE 0"])
    #expect(json.stdout == "[]\n")
    let csv = try await AmalgamTool.run(["sql", "--csv", "SELECT 1 AS a WHERE 0"])
    #expect(csv.stdout == "a\r\n")
  }

  @Test func severalStatementsRunInOrder() async throws {
    let sql = """
      CREATE TABLE t(x);
      INSERT INTO t VALUES (1), (22);
      -- a comment between statements
      SELECT x FROM t ORDER BY x;;
      SELECT count(*) AS n FROM t; /* trailing comment */
      """
    let result = try await AmalgamTool.run(["sql", sql])
    #expect(result.status == 0)
    // Headers are left-aligned, numbers right-aligned; a blank line separates the tables.
    #expect(result.stdout == "x\n--\n 1\n22\n\nn\n-\n2\n")
  }

  @Test func optionsMayComeBeforeOrAfterArguments() async throws {
    let expected = "[\n  {\"a\": 1}\n]\n"
    for arguments in [
      ["sql", "SELECT 1 AS a", "--json"], ["--json", "sql", "SELECT 1 AS a"], ["sql", "--json", "SELECT 1 AS a"],
    ] {
      let result = try await AmalgamTool.run(arguments)
      #expect(result.status == 0, "\(arguments)")
      #expect(result.stdout == expected, "\(arguments)")
    }
    // After "--", SQL may begin with "-".
    let comment = try await AmalgamTool.run(["sql", "--", "-- comment\nSELECT 2 AS b"])
    #expect(comment.stdout == "b\n-\n2\n")
  }

  @Test func sqlIsReadFromStandardInputForADash() async throws {
    let result = try await AmalgamTool.run(["sql", "--csv", "-"], standardInput: "SELECT 42 AS answer;\n")
    #expect(result.status == 0)
    #expect(result.stdout == "answer\r\n42\r\n")
  }

  @Test func largeResultsArePrintedCompletely() async throws {
    let sql = """
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000)
      SELECT i, 'row ' || i AS label FROM c
      """
    let csv = try await AmalgamTool.run(["sql", "--csv", sql])
    #expect(csv.status == 0)
    let lines = csv.stdout.split(separator: "\r\n")
    #expect(lines.count == 100_001)
    #expect(lines.first == "i,label")
    #expect(lines.last == "100000,row 100000")

    let table = try await AmalgamTool.run(["sql", sql])
    let tableLines = table.stdout.split(separator: "\n")
    #expect(tableLines.count == 100_002)
    #expect(tableLines[2] == "     1  row 1")
    #expect(tableLines.last == "100000  row 100000")
  }

  // MARK: - JSON

  @Test func jsonIsAnArrayOfObjects() async throws {
    let result = try await AmalgamTool.run([
      "sql", "--json",
      "SELECT 1 AS i, 2.5 AS r, 'text' AS t, NULL AS n, x'CAFE' AS b UNION ALL SELECT -7, 1e300, '', NULL, x''",
    ])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    // Keys keep the column order; one object per line.
    #expect(
      result.stdout == """
        [
          {"i": 1, "r": 2.5, "t": "text", "n": null, "b": "CAFE"},
          {"i": -7, "r": 1e+300, "t": "", "n": null, "b": ""}
        ]

        """)
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(rows.count == 2)
    #expect((rows[0]["i"] as? NSNumber)?.int64Value == 1)
    #expect((rows[0]["r"] as? NSNumber)?.doubleValue == 2.5)
    #expect(rows[0]["t"] as? String == "text")
    #expect(rows[0]["n"] is NSNull)
    #expect(rows[0]["b"] as? String == "CAFE")  // blobs are upper-case hex strings
    #expect((rows[1]["r"] as? NSNumber)?.doubleValue == 1e300)
  }

  @Test func jsonEscapesStrings() async throws {
    let result = try await AmalgamTool.run([
      "sql", "--json",
      #"SELECT 'say "hi"' || char(10) || 'back\slash' || char(9) || char(1) || ' é😀' AS "odd ""name""""#,
    ])
    #expect(result.status == 0)
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(rows.first?["odd \"name\""] as? String == "say \"hi\"\nback\\slash\t\u{1} é😀")
    #expect(result.stdout.contains(#"\"hi\"\nback\\slash\t\u0001 é😀"#))
  }

  @Test func jsonPrintsIntegersExactly() async throws {
    let result = try await AmalgamTool.run(["sql", "--json", "SELECT 9223372036854775807 AS big, 1.0 AS one"])
    #expect(result.stdout == "[\n  {\"big\": 9223372036854775807, \"one\": 1.0}\n]\n")
  }

  // MARK: - CSV

  @Test func csvQuotesFieldsAsRFC4180Says() async throws {
    let result = try await AmalgamTool.run([
      "sql", "--csv",
      #"SELECT 'a,b' AS "x,y", 'say "hi"' AS q, 'plain' AS p, NULL AS n, "#
        + #"'two' || char(10) || 'lines' AS l, 1.5 AS r, x'CAFE' AS b"#,
    ])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout == "\"x,y\",q,p,n,l,r,b\r\n\"a,b\",\"say \"\"hi\"\"\",plain,,\"two\nlines\",1.5,CAFE\r\n")
  }

  // MARK: - Files

  @Test func aFileDatabasePersistsBetweenInvocations() async throws {
    try await withTemporaryDirectory { directory in
      try await checkFileDatabase(path: directory.appendingPathComponent("people.sqlite").path)
    }
  }

  /// Creates a database at `path` in one run and reads and writes it in the next ones.
  private func checkFileDatabase(path: String) async throws {
    let create = try await AmalgamTool.run([
      "sql", path,
      "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO person(name) VALUES ('Ada'), ('Grace')",
    ])
    #expect(create.status == 0)
    #expect(create.stdout == "")
    #expect(create.stderr == "")

    let read = try await AmalgamTool.run(["sql", path, "SELECT id, name FROM person ORDER BY id", "--read-only"])
    #expect(read.status == 0)
    #expect(read.stdout == "id  name\n--  -----\n 1  Ada\n 2  Grace\n")

    let write = try await AmalgamTool.run(["sql", "--read-only", path, "INSERT INTO person(name) VALUES ('Linus')"])
    #expect(write.status == 1)
    #expect(write.stderr.contains("attempt to write a readonly database"))

    let count = try await AmalgamTool.run(["sql", path, "SELECT count(*) AS n FROM person"])
    #expect(count.stdout == "n\n-\n2\n")
  }

  @Test func aMissingFileCannotBeOpenedReadOnly() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("missing.sqlite").path
      let result = try await AmalgamTool.run(["sql", "--read-only", path, "SELECT 1"])
      #expect(result.status == 1)
      #expect(result.stdout == "")
      #expect(result.stderr.contains("unable to open database file"))
      #expect(result.stderr.contains(path))
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test func memoryIsAcceptedAsTheDatabase() async throws {
    let result = try await AmalgamTool.run(["sql", ":memory:", "SELECT 3 AS c"])
    #expect(result.status == 0)
    #expect(result.stdout == "c\n-\n3\n")
  }

  // MARK: - Errors

  @Test func invalidSQLFailsWithSQLitesMessage() async throws {
    let result = try await AmalgamTool.run(["sql", "SELEC 1"])
    #expect(result.status == 1)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("near \"SELEC\": syntax error"))
    #expect(result.stderr.contains("SQLite error 1 (SQLITE_ERROR, SQL logic error)"))
  }

  @Test func anErrorStopsTheScriptAfterEarlierOutput() async throws {
    let result = try await AmalgamTool.run(["sql", "SELECT 1 AS a; SELECT * FROM nowhere; SELECT 2 AS b"])
    #expect(result.status == 1)
    #expect(result.stdout == "a\n-\n1\n")
    #expect(result.stderr.contains("no such table: nowhere"))
  }

  @Test func aNulCharacterInTheScriptFailsBeforeAnyStatementRuns() async throws {
    // SQLite reads a script up to its first NUL: without the check, the SELECT ran, the DELETE was
    // dropped and the exit status was 0. (An argument cannot hold a NUL: the operating system ends it
    // there. Standard input, from a pipe or a file, can.)
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("nul.sqlite").path
      let create = try await AmalgamTool.run(["sql", path, "CREATE TABLE t(x); INSERT INTO t VALUES (1)"])
      #expect(create.status == 0)
      for arguments in [["sql", path, "-"], ["sql", path], ["sql", "--csv", path, "-"]] {
        let result = try await AmalgamTool.run(arguments, standardInput: "SELECT 1;\0 DELETE FROM t;")
        #expect(result.status == 1, "\(arguments)")
        #expect(result.stdout == "", "\(arguments)")
        #expect(
          result.stderr.contains("amalgam: error: The SQL contains a NUL character at byte 9 (after \"SELECT 1;\")"),
          "\(arguments): \(result.stderr)")
      }
      // Nothing ran: the row is still there. A NUL after statements that would run is refused as well.
      let script = "INSERT INTO t VALUES (2);\n-- a comment\0\nDELETE FROM t;"
      let late = try await AmalgamTool.run(["sql", path], standardInput: script)
      #expect(late.status == 1)
      #expect(late.stderr.contains("NUL character at byte 38"))
      let count = try await AmalgamTool.run(["sql", path, "SELECT count(*) AS n FROM t"])
      #expect(count.stdout == "n\n-\n1\n")
    }
  }

  @Test func aConstraintErrorReportsItsCode() async throws {
    let result = try await AmalgamTool.run([
      "sql", "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)",
    ])
    #expect(result.status == 1)
    #expect(result.stderr.contains("UNIQUE constraint failed: t.id"))
    #expect(result.stderr.contains("SQLite error 1555"))
  }

  @Test func unknownCommandIsAUsageError() async throws {
    let result = try await AmalgamTool.run(["frobnicate"])
    #expect(result.status == 2)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("unknown command \"frobnicate\""))
    #expect(result.stderr.contains("USAGE:"))
  }

  @Test(arguments: [
    ["sql"],
    ["sql", "--json", "--csv", "SELECT 1"],
    ["sql", "a.db", "SELECT 1", "extra"],
    ["sql", "--verbose", "SELECT 1"],
    ["info", "--csv"],
    ["info", "extra"],
  ])
  func badArgumentsAreUsageErrors(_ arguments: [String]) async throws {
    let result = try await AmalgamTool.run(arguments)
    #expect(result.status == 2)
    #expect(result.stdout == "")
    #expect(result.stderr.hasPrefix("amalgam: error: "))
    #expect(result.stderr.contains("USAGE:"))
  }

  @Test(arguments: [["help"], ["--help"], ["-h"], ["sql", "--help"]])
  func helpPrintsUsageAndSucceeds(_ arguments: [String]) async throws {
    let result = try await AmalgamTool.run(arguments)
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout.contains("USAGE:"))
    #expect(result.stdout.contains("amalgam sql [DATABASE] SQL"))
  }

  @Test func noArgumentsPrintUsageAsAnError() async throws {
    let result = try await AmalgamTool.run([])
    #expect(result.status == 2)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("missing command"))
    #expect(result.stderr.contains("USAGE:"))
  }
}

// MARK: - Running the tool

extension CommandLineToolTests {
  /// Finds and runs the `amalgam` executable.
  enum AmalgamTool {
    /// What one run printed, and its exit status.
    struct Result {
      /// The exit status; the negated signal number if a signal ended the process.
      var status: Int32
      var stdout: String
      var stderr: String
    }

    /// The executable was not found: the message names every place searched.
    struct NotFound: Error, CustomStringConvertible {
      var searched: [String]
      var description: String {
        "The amalgam executable was not found. Build it with `swift build` (swift test builds it too), "
          + "or set AMALGAM_EXECUTABLE to its path. Searched: " + searched.joined(separator: ", ")
      }
    }

    /// The `amalgam` executable: `AMALGAM_EXECUTABLE` if set, else the one next to the test binary.
    static func executableURL() throws -> URL {
      let fileManager = FileManager.default
      if let path = ProcessInfo.processInfo.environment["AMALGAM_EXECUTABLE"], !path.isEmpty {
        guard fileManager.isExecutableFile(atPath: path) else { throw NotFound(searched: [path]) }
        return URL(fileURLWithPath: path)
      }
      var directories: [URL] = []
      // Linux: the test binary itself (`.build/<triple>/debug/AmalgamPackageTests.xctest`).
      if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
      }
      // macOS: the `.xctest` bundle, in the build folder.
      for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
        directories.append(bundle.bundleURL.deletingLastPathComponent())
      }
      if let executable = Bundle.main.executableURL {
        directories.append(executable.deletingLastPathComponent())
      }
      if let first = CommandLine.arguments.first, first.contains("/") {
        directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
      }
      // Last resort: the package's default build folder (this file is Tests/AmalgamTests/CLI/...).
      let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
      directories.append(packageRoot.appendingPathComponent(".build/debug"))

      var searched: [String] = []
      for directory in directories {
        let candidate = directory.appendingPathComponent("amalgam")
        guard !searched.contains(candidate.path) else { continue }
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
          fileManager.isExecutableFile(atPath: candidate.path)
        {
          return candidate
        }
        searched.append(candidate.path)
      }
      throw NotFound(searched: searched)
    }

    /// Runs `amalgam` with `arguments`, feeding it `standardInput` (or nothing), and waits for it to exit.
    static func run(_ arguments: [String], standardInput: String? = nil) async throws -> Result {
      let executable = try executableURL()
      return try await withTemporaryDirectory { directory in
        try await run(executable, arguments, standardInput: standardInput, in: directory)
      }
    }

    /// Runs `executable`, with its standard streams in files in `directory`: a large output cannot fill a
    /// pipe and stall the child, and a child that exits early cannot break a pipe we write to.
    private static func run(
      _ executable: URL, _ arguments: [String], standardInput: String?, in directory: URL
    ) async throws -> Result {
      let stdinURL = directory.appendingPathComponent("stdin")
      let stdoutURL = directory.appendingPathComponent("stdout")
      let stderrURL = directory.appendingPathComponent("stderr")
      try Data((standardInput ?? "").utf8).write(to: stdinURL)
      try Data().write(to: stdoutURL)
      try Data().write(to: stderrURL)
      let stdinHandle = try FileHandle(forReadingFrom: stdinURL)
      let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
      let stderrHandle = try FileHandle(forWritingTo: stderrURL)
      defer {
        try? stdinHandle.close()
        try? stdoutHandle.close()
        try? stderrHandle.close()
      }

      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      process.standardInput = standardInput == nil ? FileHandle.nullDevice : stdinHandle
      process.standardOutput = stdoutHandle
      process.standardError = stderrHandle
      let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { process in
          let status = process.terminationStatus
          continuation.resume(returning: process.terminationReason == .exit ? status : -status)
        }
        do {
          try process.run()
        } catch {
          process.terminationHandler = nil
          continuation.resume(throwing: error)
        }
      }
      return Result(
        status: status,
        stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }
  }
}
