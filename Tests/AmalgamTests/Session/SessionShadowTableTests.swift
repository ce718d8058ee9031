#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// A session on every table leaves out the shadow tables of virtual tables: a replica's own virtual
  /// table maintains them.
  @Suite struct SessionShadowTableTests {
    /// A table of documents, indexed by an FTS5 table that triggers keep up to date (an
    /// external-content table), and a regular FTS5 table filled by a trigger too.
    private func makeDatabase() throws -> Database {
      let db = try Database()
      try db.batch(
        sql: """
          CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
          CREATE VIRTUAL TABLE doc_index USING fts5(body, content='doc', content_rowid='id');
          CREATE VIRTUAL TABLE doc_copy USING fts5(body);
          CREATE TRIGGER doc_insert AFTER INSERT ON doc BEGIN
            INSERT INTO doc_index(rowid, body) VALUES (new.id, new.body);
            INSERT INTO doc_copy(rowid, body) VALUES (new.id, new.body);
          END;
          CREATE TRIGGER doc_delete AFTER DELETE ON doc BEGIN
            INSERT INTO doc_index(doc_index, rowid, body) VALUES ('delete', old.id, old.body);
            DELETE FROM doc_copy WHERE rowid = old.id;
          END;
          CREATE TRIGGER doc_update AFTER UPDATE ON doc BEGIN
            INSERT INTO doc_index(doc_index, rowid, body) VALUES ('delete', old.id, old.body);
            INSERT INTO doc_index(rowid, body) VALUES (new.id, new.body);
            UPDATE doc_copy SET body = new.body WHERE rowid = old.id;
          END;
          INSERT INTO doc VALUES (1, 'the quick brown fox'), (2, 'a lazy dog');
          """)
      return db
    }

    private func matches(_ db: Database, _ table: String, _ query: String) throws -> [Int] {
      try db.prepare(sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ? ORDER BY rowid")
        .bind(parameterValues: [query]).column(0, as: Int.self)
    }

    @Test func aChangesetOfEveryTableAppliesToAReplicaWithItsOwnIndexWithoutConflicts() throws {
      let source = try makeDatabase()
      let session = try Session(database: source)
      try session.attach()
      try source.batch(
        sql: """
          INSERT INTO doc VALUES (3, 'a quick dog');
          UPDATE doc SET body = 'a sleepy dog' WHERE id = 2;
          DELETE FROM doc WHERE id = 1;
          """)
      let changeset = try session.changeset()
      #expect(try Set(changeset.operations().map(\.table)) == ["doc"])

      let replica = try makeDatabase()
      var conflicts: [ChangesetConflict] = []
      try replica.apply(changeset) { conflict in
        conflicts.append(conflict)
        return .abort
      }
      #expect(conflicts.isEmpty)
      #expect(try sessionContents(replica)["doc"] == sessionContents(source)["doc"])
      for table in ["doc_index", "doc_copy"] {
        for query in ["quick", "dog", "fox", "sleepy"] {
          #expect(try matches(replica, table, query) == matches(source, table, query), "\(table) \(query)")
        }
      }
      #expect(try matches(replica, "doc_index", "dog") == [2, 3])
      try replica.execute(sql: "INSERT INTO doc_index(doc_index) VALUES ('integrity-check')")
    }

    @Test func aShadowTableAttachedByNameIsStillRecorded() throws {
      let db = try makeDatabase()
      let session = try Session(database: db)
      try session.attach("doc_copy_content")
      try db.execute(sql: "INSERT INTO doc VALUES (3, 'more')")
      #expect(try session.changeset().operations().map(\.table) == ["doc_copy_content"])
    }

    @Test func theUserFilterIsAskedAboutOrdinaryTablesOnly() throws {
      let db = try makeDatabase()
      try db.execute(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY)")
      let session = try Session(database: db)
      var asked: [String] = []
      try session.setTableFilter { table in
        asked.append(table)
        return table == "other"
      }
      try session.attach()
      try db.batch(sql: "INSERT INTO doc VALUES (3, 'more'); INSERT INTO other VALUES (1);")
      #expect(asked == ["doc", "other"])
      #expect(try session.changeset().operations().map(\.table) == ["other"])
    }
  }
#endif
