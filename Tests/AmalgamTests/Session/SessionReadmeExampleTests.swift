#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  /// The Sessions article's first example, verbatim between the markers, followed by
  /// checks of what it did. If the article changes, change this copy too.
  @Suite struct SessionReadmeExampleTests {
    @Test func readmeExampleCompilesAndRuns() throws {
      var kinds: [ChangesetConflict.Kind] = []
      var rows: [[DatabaseValue]] = []
      // sessions article example: begin
      // Two replicas of one schema.
      let phone = try Database()
      let laptop = try Database()
      for db in [phone, laptop] {
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.execute(sql: "INSERT INTO note VALUES (1, 'milk'), (2, 'eggs')")
      }

      // Record what the phone does.
      let session = try Session(database: phone)
      try session.attach()  // every table; attach("note") for one
      try phone.execute(sql: "UPDATE note SET body = 'oat milk' WHERE id = 1")
      try phone.execute(sql: "INSERT INTO note VALUES (3, 'bread')")
      let changeset = try session.changeset()  // a Sendable value: store it, send it (changeset.data)
      for change in try changeset.operations() {
        print(change.operation, change.table, change.oldValues, change.newValues)  // nil: not recorded
      }

      // Meanwhile the laptop edited note 1 too: the conflict handler decides.
      try laptop.execute(sql: "UPDATE note SET body = 'almond milk' WHERE id = 1")
      try laptop.apply(changeset) { conflict in
        print(conflict.kind, conflict.conflictingValues ?? [])  // .data, [1, 'almond milk']
        // sessions article example: pause
        kinds.append(conflict.kind)
        rows.append(conflict.conflictingValues ?? [])
        // sessions article example: resume
        return .replace  // or .omit (keep ours), or .abort (undo the whole apply and throw)
      }

      // Undo: apply the inverse.
      try phone.apply(try changeset.inverted())
      // sessions article example: end

      #expect(kinds == [.data])
      #expect(rows == [[.integer(1), .text("almond milk")]])
      let laptopNotes = try laptop.prepare(sql: "SELECT body FROM note ORDER BY id").column(0, as: String.self)
      #expect(laptopNotes == ["oat milk", "eggs", "bread"])
      let phoneNotes = try phone.prepare(sql: "SELECT body FROM note ORDER BY id").column(0, as: String.self)
      #expect(phoneNotes == ["milk", "eggs"])
    }

    /// The article's example, as it appears there, is the code between the markers above.
    @Test func articleHoldsTheExampleVerbatim() throws {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
      let article = try String(
        contentsOf: root.appendingPathComponent("Sources/Amalgam/Amalgam.docc/Sessions.md"), encoding: .utf8)
      let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
      let beginMarker = "// sessions article example: " + "begin\n"
      let endMarker = "// sessions article example: " + "end"
      let start = try #require(test.range(of: beginMarker))
      let end = try #require(test.range(of: endMarker, range: start.upperBound..<test.endIndex))
      var lines: [String] = []
      var paused = false
      for line in test[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed == "// sessions article example: " + "pause" { paused = true; continue }
        if trimmed == "// sessions article example: " + "resume" { paused = false; continue }
        if !paused { lines.append(String(line)) }
      }
      // Dedent by the indentation of the first line.
      let indent = lines.first?.prefix { $0 == " " }.count ?? 0
      let code = lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
        .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(article.contains("```swift\n" + code + "\n```"))
    }
  }
#endif
