#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// TEXT that is not valid UTF-8 is valid in SQLite (`CAST(x'fffe41' AS TEXT)`): changesets carry it,
  /// and reading, applying and resolving conflicts must not fail on it.
  @Suite struct ChangesetNonUTF8TextTests {
    static let bytes = Data([0xFF, 0xFE, 0x41])

    private func makeDatabase() throws -> Database {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
      return db
    }

    /// The storage class and bytes of row `id`'s body.
    private func body(_ db: Database, id: Int) throws -> String? {
      try db.fetchOne(String.self, sql: "SELECT typeof(body) || ' ' || hex(body) FROM t WHERE id = ?", arguments: [id])
    }

    @Test func operationsGiveTheTextsBytesAndSayItIsText() throws {
      let db = try makeDatabase()
      let changeset = try recordChangeset(db, "INSERT INTO t VALUES (1, CAST(x'fffe41' AS TEXT)), (2, 'ok')")
      let operations = try changeset.operations()
      #expect(operations.map(\.newValues) == [[1, .blob(Self.bytes)], [2, "ok"]])
      #expect(operations.map(\.newNonUTF8TextColumns) == [[1], []])
      #expect(operations.map(\.oldNonUTF8TextColumns) == [[], []])
      // Built back into a changeset, the value is TEXT with the same bytes.
      let group = try Changegroup()
      try group.setSchema(database: try makeDatabase())
      for operation in operations { try group.add(operation) }
      #expect(try group.changeset().data == changeset.data)
    }

    @Test func applyWritesTheBytesAsText() throws {
      let changeset = try recordChangeset(try makeDatabase(), "INSERT INTO t VALUES (1, CAST(x'fffe41' AS TEXT))")
      let target = try makeDatabase()
      try target.apply(changeset)
      #expect(try body(target, id: 1) == "text FFFE41")
    }

    @Test func aConflictOnSuchTextReachesTheHandler() throws {
      let source = try makeDatabase()
      try source.execute(sql: "INSERT INTO t VALUES (1, CAST(x'fffe41' AS TEXT))")
      let changeset = try recordChangeset(source, "UPDATE t SET body = CAST(x'fffe43' AS TEXT) WHERE id = 1")
      let target = try makeDatabase()
      try target.execute(sql: "INSERT INTO t VALUES (1, CAST(x'fffe42' AS TEXT))")
      var conflicts: [ChangesetConflict] = []
      try target.apply(changeset) { conflict in
        conflicts.append(conflict)
        return .replace
      }
      #expect(conflicts.map(\.kind) == [.data])
      #expect(conflicts.first?.conflictingValues == [1, .blob(Data([0xFF, 0xFE, 0x42]))])
      #expect(conflicts.first?.conflictingNonUTF8TextColumns == [1])
      #expect(conflicts.first?.change?.oldValues == [1, .blob(Self.bytes)])
      #expect(conflicts.first?.change?.oldNonUTF8TextColumns == [1])
      #expect(conflicts.first?.change?.newNonUTF8TextColumns == [1])
      #expect(try body(target, id: 1) == "text FFFE43")
    }
  }
#endif
