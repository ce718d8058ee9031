#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  /// `amalgam changeset ...`, run as a separate process on database files in a temporary folder.
  @Suite struct ChangesetCommandTests {
    typealias Tool = CommandLineToolTests.AmalgamTool

    /// Creates `from.db` and `to.db` (from.db with three rows changed) in `directory`.
    private func makeDatabases(in directory: URL) throws -> (from: String, to: String) {
      let from = directory.appendingPathComponent("from.db").path
      let to = directory.appendingPathComponent("to.db").path
      for path in [from, to] {
        let db = try Database(path: path)
        try db.batch(
          sql: """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
            CREATE TABLE other(id INTEGER PRIMARY KEY, x);
            INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 4.0), (3, 'pad', 2.0);
            """)
      }
      try Database(path: to).batch(
        sql: """
          UPDATE item SET price = 5 WHERE id = 2; DELETE FROM item WHERE id = 3;
          INSERT INTO item VALUES (4, 'cap', NULL); INSERT INTO other VALUES (1, x'00');
          """)
      return (from, to)
    }

    private func rows(_ path: String) throws -> [[DatabaseValue]] {
      let db = try Database(path: path)
      return try db.prepare(sql: "SELECT * FROM item ORDER BY id").allRows()
        + db.prepare(sql: "SELECT * FROM other ORDER BY id").allRows()
    }

    @Test func diffShowAndApplyMoveChangesBetweenFiles() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        let diff = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        #expect(diff.status == 0)
        #expect(diff.stderr == "")

        let show = try await Tool.run(["changeset", "show", changes])
        #expect(show.status == 0)
        #expect(
          show.stdout == """
            UPDATE item (2, -, 4.0) -> (-, -, 5.0)
            DELETE item (3, 'pad', 2.0)
            INSERT item (4, 'cap', NULL)
            INSERT other (1, x'00')

            """)

        let apply = try await Tool.run(["changeset", "apply", from, changes])
        #expect(apply.status == 0)
        #expect(apply.stdout == "applied 4 of 4 change(s) to \(from)\n")
        #expect(try rows(from) == rows(to))
      }
    }

    @Test func diffOfOneTableAndAsPatchset() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        let diff = try await Tool.run(["changeset", "diff", from, to, "--table", "other", "--patchset", "-o", changes])
        #expect(diff.status == 0)
        let operations = try Patchset(contentsOfFile: changes).operations()
        #expect(operations.map(\.table) == ["other"])
        let missing = try await Tool.run(["changeset", "diff", from, to, "--table", "nope"])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("amalgam: error: No table nope in \(to)\n"))
      }
    }

    @Test func showJSONSeparatesAbsentColumnsFromNull() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "--table", "item", "-o", changes])
        let show = try await Tool.run(["changeset", "show", changes, "--json"])
        #expect(show.status == 0)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [[String: Any]])
        #expect(objects.map { $0["operation"] as? String } == ["update", "delete", "insert"])
        let update = objects[0]
        #expect((update["old"] as? [String: Any])?.keys.sorted() == ["0", "2"])
        #expect((update["new"] as? [String: Any])?.keys.sorted() == ["2"])
        let insert = try #require(objects[2]["new"] as? [String: Any])
        #expect(insert["2"] is NSNull)
        #expect(insert["1"] as? String == "cap")
        #expect(objects[2]["old"] == nil)
      }
    }

    @Test func applyReportsConflictsAndAbortLeavesTheDatabaseUnchanged() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "--table", "item", "-o", changes])
        try Database(path: from).execute(sql: "UPDATE item SET price = 9 WHERE id = 2")
        let before = try rows(from)

        let aborted = try await Tool.run(["changeset", "apply", from, changes])
        #expect(aborted.status == 1)
        #expect(
          aborted.stdout
            == "conflict (data): UPDATE item (2, -, 4.0) -> (-, -, 5.0); row in the database: (2, 'ink', 9.0) -> abort\n"
        )
        #expect(aborted.stderr == "amalgam: error: aborted at a conflict; \(from) is unchanged\n")
        #expect(try rows(from) == before)

        let omitted = try await Tool.run(["changeset", "apply", from, changes, "--on-conflict", "omit"])
        #expect(omitted.status == 0)
        #expect(omitted.stdout.hasSuffix(" -> omitted\napplied 2 of 3 change(s) to \(from)\n"))
        let db = try Database(path: from)
        #expect(try db.prepare(sql: "SELECT price FROM item WHERE id = 2").front(Double.self) == 9)
      }
    }

    @Test func applyReplaceOverwritesTheConflictingRow() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        try Database(path: from).execute(sql: "UPDATE item SET price = 9 WHERE id = 2")
        let replaced = try await Tool.run(["changeset", "apply", from, changes, "--on-conflict", "replace"])
        #expect(replaced.status == 0)
        #expect(replaced.stdout.contains(" -> replaced\n"))
        #expect(try rows(from) == rows(to))
      }
    }

    @Test func invertAndConcat() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        let inverse = directory.appendingPathComponent("inverse.bin").path
        let both = directory.appendingPathComponent("both.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        let invert = try await Tool.run(["changeset", "invert", changes, "-o", inverse])
        #expect(invert.status == 0)
        #expect(try Changeset(contentsOfFile: inverse) == Changeset(contentsOfFile: changes).inverted())
        let concat = try await Tool.run(["changeset", "concat", changes, inverse, "-o", both])
        #expect(concat.status == 0)
        // A change and its undo cancel out.
        #expect(try Changeset(contentsOfFile: both).operations().isEmpty)

        let original = try rows(to)
        _ = try await Tool.run(["changeset", "apply", to, inverse])
        #expect(try rows(to) == rows(from))
        _ = try await Tool.run(["changeset", "apply", to, changes])
        #expect(try rows(to) == original)
      }
    }

    @Test func diffSkipsTablesThatAreOnlyInToAndSaysSo() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        try Database(path: to).batch(sql: "CREATE TABLE fresh(id INTEGER PRIMARY KEY); INSERT INTO fresh VALUES (1);")
        let changes = directory.appendingPathComponent("changes.bin").path
        let diff = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        #expect(diff.status == 0)
        #expect(diff.stderr == "amalgam: note: table fresh of \(to) is not in \(from); skipped\n")
        #expect(try Set(Changeset(contentsOfFile: changes).operations().map(\.table)) == ["item", "other"])
        // Named with --table, such a table is an error, as the help says.
        let named = try await Tool.run(["changeset", "diff", from, to, "--table", "fresh"])
        #expect(named.status == 1)
        #expect(named.stderr.hasPrefix("amalgam: error: Table fresh of \(to) is not in \(from)\n"))
      }
    }

    @Test func applyCountsAndNamesTheChangesOfTablesThatDoNotFit() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        let target = directory.appendingPathComponent("target.db").path
        try Database(path: target).batch(
          sql: """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO item VALUES (1, 'pen'), (2, 'ink'), (3, 'pad');
            """)
        let apply = try await Tool.run(["changeset", "apply", target, changes])
        #expect(apply.status == 1)
        #expect(apply.stdout == "")
        #expect(
          apply.stderr == """
            amalgam: error: 4 of 4 change(s) do not fit the schema of \(target); nothing was applied, \(target) is \
            unchanged
              table item: 3 change(s); the database's table has 2 column(s), the changeset records 3
              table other: 1 change(s); the database has no such table

            """)
        #expect(try Database(path: target).prepare(sql: "SELECT count(*) FROM item").front(Int.self) == 3)
      }
    }

    @Test func applyRefusedForATableThatDoesNotFitReportsNoConflictOfTheUndoneAttempt() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        // The update of item 2 conflicts, and the table `other` is missing: the apply is undone.
        try Database(path: from).batch(sql: "UPDATE item SET price = 9 WHERE id = 2; DROP TABLE other;")
        let items = "SELECT * FROM item ORDER BY id"
        let before = try Database(path: from).prepare(sql: items).allRows()
        for answer in ["omit", "replace"] {
          let apply = try await Tool.run(["changeset", "apply", from, changes, "--on-conflict", answer])
          #expect(apply.status == 1)
          #expect(apply.stdout == "", "\(answer)")
          #expect(
            apply.stderr == """
              amalgam: error: 1 of 4 change(s) do not fit the schema of \(from); nothing was applied, \(from) is \
              unchanged
                table other: 1 change(s); the database has no such table

              """)
          #expect(try Database(path: from).prepare(sql: items).allRows() == before)
        }
      }
    }

    @Test func textThatIsNotUTF8IsShownEscapedAndApplied() async throws {
      try await withTemporaryDirectory { directory in
        let from = directory.appendingPathComponent("from.db").path
        let to = directory.appendingPathComponent("to.db").path
        for path in [from, to] {
          try Database(path: path).execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        }
        try Database(path: to).execute(sql: "INSERT INTO t VALUES (1, CAST(x'fffe41' AS TEXT)), (2, 'it''s')")
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        let show = try await Tool.run(["changeset", "show", changes])
        #expect(show.status == 0)
        #expect(show.stdout == "INSERT t (1, '\\xFF\\xFEA')\nINSERT t (2, 'it''s')\n")
        let json = try await Tool.run(["changeset", "show", changes, "--json"])
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"1\": \"\u{FFFD}\u{FFFD}A\""))
        let apply = try await Tool.run(["changeset", "apply", from, changes])
        #expect(apply.status == 0)
        #expect(apply.stdout == "applied 2 of 2 change(s) to \(from)\n")
        let body = try Database(path: from).prepare(sql: "SELECT typeof(body) || ' ' || hex(body) FROM t WHERE id = 1")
        #expect(try body.front(String.self) == "text FFFE41")
        // A conflict on such a row is reported with the text escaped, and the apply goes on.
        try Database(path: from).execute(sql: "UPDATE t SET body = CAST(x'fffe42' AS TEXT) WHERE id = 1")
        let again = try await Tool.run(["changeset", "apply", from, changes, "--on-conflict", "omit"])
        #expect(again.status == 0)
        #expect(
          again.stdout.hasPrefix(
            "conflict (conflict): INSERT t (1, '\\xFF\\xFEA'); row in the database: (1, '\\xFF\\xFEB') -> omitted\n"))
      }
    }

    @Test func everyCommandReportsBytesThatMadeSQLiteReadPastTheEnd() async throws {
      try await withTemporaryDirectory { directory in
        // An insert into t(id INTEGER PRIMARY KEY, name TEXT, note TEXT) that stops after its second value.
        let bytes: [UInt8] =
          [0x54, 0x03, 0x01, 0x00, 0x00, 0x74, 0x00, 0x12, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x03, 0x01, 0x61]
        let file = directory.appendingPathComponent("cut.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let database = directory.appendingPathComponent("t.db").path
        try Database(path: database).execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT)")
        for arguments in [["show", file], ["apply", database, file], ["invert", file], ["concat", file, file]] {
          let result = try await Tool.run(["changeset"] + arguments)
          #expect(result.status == 1, "\(arguments)")
          #expect(
            result.stderr.hasPrefix(
              "amalgam: error: The changeset is corrupt or truncated: it ends after 21 bytes, inside a change to "
                + "table \"t\"\n"), "\(arguments)")
        }
      }
    }

    @Test func corruptFilesAndBadArgumentsAreReported() async throws {
      try await withTemporaryDirectory { directory in
        let (from, to) = try makeDatabases(in: directory)
        let changes = directory.appendingPathComponent("changes.bin").path
        _ = try await Tool.run(["changeset", "diff", from, to, "-o", changes])
        let data = try Data(contentsOf: URL(fileURLWithPath: changes))
        try data.dropLast().write(to: URL(fileURLWithPath: changes))
        let before = try rows(from)
        let apply = try await Tool.run(["changeset", "apply", from, changes])
        #expect(apply.status == 1)
        #expect(apply.stderr.hasPrefix("amalgam: error: The changeset is corrupt or truncated: it ends after "))
        #expect(try rows(from) == before)

        let unknown = try await Tool.run(["changeset", "apply", from, changes, "--on-conflict", "maybe"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("amalgam: error: --on-conflict takes omit, replace or abort, not \"maybe\"\n"))
        let missing = try await Tool.run(["changeset", "show"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("amalgam: error: changeset show takes FILE, but was given 0 argument(s)\n"))
      }
    }
  }
#endif
