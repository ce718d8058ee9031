#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  /// The examples of the DocC article Sessions.md other than the first (SessionReadmeExampleTests runs that one), verbatim between the
  /// markers, followed by checks of what they did.
  @Suite struct SessionArticleExamplesTests {
    private func makeNotes() throws -> Database {
      let db = try Database()
      try db.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
          CREATE TABLE draft(id INTEGER PRIMARY KEY, body TEXT);
          INSERT INTO note VALUES (1, 'milk'), (2, 'eggs'), (3, 'oat milk');
          """)
      return db
    }

    private func notes(_ db: Database) throws -> [String] {
      try db.prepare(sql: "SELECT body FROM note ORDER BY id").column(0, as: String.self)
    }

    @Test func undoExample() throws {
      let db = try makeNotes()
      // Sessions article, undo: begin
      let undoSession = try Session(database: db)
      try undoSession.attach()
      try db.execute(sql: "DELETE FROM note WHERE body LIKE '%milk%'")
      let undo = try undoSession.changeset().inverted()
      try db.apply(undo)  // the deleted notes are back
      // Sessions article, undo: end
      #expect(try notes(db) == ["milk", "eggs", "oat milk"])
    }

    @Test func conflictExample() throws {
      let source = try makeNotes()
      let session = try Session(database: source)
      try session.attach()
      try source.batch(
        sql: """
          UPDATE note SET body = 'theirs' WHERE id = 1;
          INSERT INTO note VALUES (4, 'their new note');
          DELETE FROM note WHERE id = 3;
          INSERT INTO draft VALUES (1, 'never sent');
          """)
      let changeset = try session.changeset()
      let replica = try makeNotes()
      try replica.batch(
        sql: """
          UPDATE note SET body = 'ours' WHERE id = 1;
          INSERT INTO note VALUES (4, 'our new note');
          DELETE FROM note WHERE id = 3;
          """)
      // Sessions article, conflicts: begin
      try replica.apply(changeset, tableFilter: { table in table != "draft" }) { conflict in
        switch conflict.kind {
        case .data: return .replace  // their edit wins over ours
        case .conflict: return .omit  // an insert of a key we have: keep ours
        case .notFound: return .omit  // the row is gone here: nothing to update or delete
        case .constraint, .foreignKey: return .abort  // undo everything and throw
        }
      }
      // Sessions article, conflicts: end
      #expect(try notes(replica) == ["theirs", "eggs", "our new note"])
      #expect(try replica.prepare(sql: "SELECT count(*) FROM draft").front(Int.self) == 0)
    }

    @Test func conflictChangeExample() throws {
      let source = try makeNotes()
      let session = try Session(database: source)
      try session.attach()
      try source.execute(sql: "UPDATE note SET body = 'theirs' WHERE id = 1")
      let changeset = try session.changeset()
      let replica = try makeNotes()
      try replica.execute(sql: "UPDATE note SET body = 'ours' WHERE id = 1")
      var seen: [String] = []
      // Sessions article, the conflicting change: begin
      try replica.apply(changeset) { conflict in
        guard let change = conflict.change else { return .abort }  // nil only for .foreignKey
        print(change.table, change.operation, change.oldValues, change.newValues)
        // Sessions article, the conflicting change: end
        seen.append("\(change.table) \(change.operation) \(change.oldValues) \(change.newValues)")
        #expect(conflict.conflictingValues == [1, "ours"])
        return .omit
      }
      #expect(seen == ["note update [Optional(1), Optional('milk')] [nil, Optional('theirs')]"])
      #expect(try notes(replica) == ["ours", "eggs", "oat milk"])
    }

    @Test func schemaMismatchExample() throws {
      let source = try makeNotes()
      let changeset = try recordChangeset(
        source, "UPDATE note SET body = 'bread' WHERE id = 2; INSERT INTO draft VALUES (1, 'never sent');")
      let replica = try Database()
      try replica.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
          INSERT INTO note VALUES (1, 'milk'), (2, 'eggs'), (3, 'oat milk');
          """)
      var caught: ChangesetSchemaMismatch?
      // Sessions article, tables that do not fit: begin
      do {
        try replica.apply(changeset)
      } catch let mismatch as ChangesetSchemaMismatch {
        let skipped = Set(mismatch.tables.map(\.name))
        try replica.apply(changeset, tableFilter: { !skipped.contains($0) }) { _ in .abort }
        // Sessions article, tables that do not fit: end
        caught = mismatch
      }
      #expect(caught?.tables.map(\.name) == ["draft"])
      #expect(try notes(replica) == ["milk", "bread", "oat milk"])
    }

    @Test func rebaseExample() throws {
      func replicaDatabase() throws -> Database {
        let db = try Database()
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        return db
      }
      let remoteDatabase = try replicaDatabase()
      let remoteSession = try Session(database: remoteDatabase)
      try remoteSession.attach()
      try remoteDatabase.execute(sql: "INSERT INTO note VALUES (1, 'remote')")
      let remote = try remoteSession.changeset()
      let replica = try replicaDatabase()
      let localSession = try Session(database: replica)
      try localSession.attach()
      try replica.execute(sql: "INSERT INTO note VALUES (1, 'local')")
      let local = try localSession.changeset()
      try localSession.setEnabled(false)

      // Sessions article, rebase: begin
      let rebaseData = try replica.apply(remote) { _ in .omit }
      let rebaser = try Rebaser()
      try rebaser.configure(rebaseData)
      let toSend = try rebaser.rebase(local)
      // Sessions article, rebase: end
      // The local insert became an update of the remote row.
      #expect(try toSend.operations().map(\.operation) == [.update])
      try remoteDatabase.apply(toSend)
      #expect(try notes(remoteDatabase) == ["local"])
    }

    @Test func mergeAndStreamExample() throws {
      let source = try makeNotes()
      let session = try Session(database: source)
      try session.attach()
      try source.execute(sql: "UPDATE note SET body = 'bread' WHERE id = 2")
      let first = try session.changeset()
      let second = try recordChangeset(source, "DELETE FROM note WHERE id = 1")
      let replica = try makeNotes()
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("merged.changeset").path
        // Sessions article, merge: begin
        let group = try Changegroup()
        for changeset in [first, second] { try group.add(changeset) }
        try group.write(to: ChangesetStreams.writing(toFile: path))
        try replica.applyChangeset(from: ChangesetStreams.reading(fromFile: path))
        // Sessions article, merge: end
      }
      #expect(try notes(replica) == notes(source))
    }
  }
#endif
