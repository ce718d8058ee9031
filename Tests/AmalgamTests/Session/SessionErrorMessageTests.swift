#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// Session functions return a bare result code and leave the connection's error alone, whose message
  /// is then "not an error": each error thrown here says what went wrong instead.
  @Suite struct SessionErrorMessageTests {
    @Test func aSecondSchemaOrOneAfterChangesIsRefusedWithAReason() throws {
      let twice = try Changegroup()
      try twice.setSchema(database: try makeSessionDatabase())
      #expect(
        throws: SQLiteError(
          code: .misuse,
          message: "A changegroup takes its schema once, before anything is added to it; this one already has a schema")
      ) { try twice.setSchema(database: try makeSessionDatabase()) }

      let db = try makeSessionDatabase()
      let afterChanges = try Changegroup()
      try afterChanges.add(try recordChangeset(db, "DELETE FROM item WHERE id = 1"))
      #expect(
        throws: SQLiteError(
          code: .misuse,
          message: "A changegroup takes its schema once, before anything is added to it; this one already holds changes"
        )
      ) { try afterChanges.setSchema(database: db) }
    }

    /// A session whose recorded table then lost a column.
    private func sessionOfAnAlteredTable() throws -> Session {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      try db.execute(sql: "UPDATE item SET note = 'x' WHERE id = 1")
      try db.execute(sql: "ALTER TABLE item DROP COLUMN note")
      return session
    }

    static let alteredTable = SQLiteError(
      code: .schema,
      message: "A table this session recorded was dropped, lost a column or changed its primary key since its "
        + "changes were recorded; they can no longer be written as a changeset")

    @Test func changesetsOfATableChangedSinceSayWhy() throws {
      let session = try sessionOfAnAlteredTable()
      #expect(throws: Self.alteredTable) { try session.changeset() }
      #expect(throws: Self.alteredTable) { try session.patchset() }
    }

    @Test func streamedChangesetsOfATableChangedSinceSayWhy() throws {
      let session = try sessionOfAnAlteredTable()
      #expect(throws: Self.alteredTable) { try session.writeChangeset { _ in } }
      #expect(throws: Self.alteredTable) { try session.writePatchset { _ in } }
    }

    @Test func aDiffOfATableTheSessionsSchemaLacksThrows() throws {
      let db = try makeSessionDatabase()
      try db.execute(sql: "ATTACH ':memory:' AS other")
      try db.execute(sql: "CREATE TABLE other.extra(id INTEGER PRIMARY KEY)")
      let session = try Session(database: db)
      // SQLite returned success, having recorded nothing.
      #expect(throws: SQLiteError(code: .schema, message: "no such table: main.extra")) {
        try session.diff(fromSchema: "other", table: "extra")
      }
      #expect(throws: SQLiteError(code: .schema, message: "no such table: other.item")) {
        try session.diff(fromSchema: "other", table: "item")
      }
    }

    @Test func mixingChangesetsAndPatchsetsSaysSo() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      try db.execute(sql: "DELETE FROM item WHERE id = 1")
      let group = try Changegroup()
      try group.add(try session.patchset())
      #expect(
        throws: SQLiteError(
          code: .error, message: "A changegroup holds changesets or patchsets, not both; this one holds patchsets")
      ) { try group.add(try session.changeset()) }
      #expect(throws: SQLiteError(code: .error, message: "A changeset and a patchset cannot be concatenated")) {
        try session.changeset().concatenated(with: Changeset(uncheckedData: try session.patchset().data))
      }
      let patchsetError = SQLiteError(
        code: .error,
        message: "A patchset cannot be rebased or used as rebase data: a rebaser takes changesets, and rebase "
          + "data as apply returns it")
      #expect(throws: patchsetError) { try Rebaser().configure(try session.patchset().data) }
      #expect(throws: patchsetError) { try Rebaser().rebase(Changeset(uncheckedData: try session.patchset().data)) }
    }

    @Test func aTableRecordedWithOtherColumnsSaysSo() throws {
      let narrow = try Database()
      try narrow.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
      let wide = try Database()
      try wide.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x, y)")
      let group = try Changegroup()
      try group.add(try recordChangeset(narrow, "INSERT INTO t VALUES (1, 1)"))
      #expect(
        throws: SQLiteError(
          code: .schema,
          message:
            "The changeset records a table with other columns, or another primary key, than the changes already in "
            + "the group")
      ) { try group.add(try recordChangeset(wide, "INSERT INTO t VALUES (2, 1, 2)")) }
    }
  }
#endif
