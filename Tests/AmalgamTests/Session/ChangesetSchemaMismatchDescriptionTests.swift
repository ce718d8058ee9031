#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  @Suite struct ChangesetSchemaMismatchDescriptionTests {
    @Test func theLocalizedDescriptionOfASchemaMismatchSaysWhatDidNotFit() throws {
      let source = try Database()
      try source.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)")
      let session = try Session(database: source)
      try session.attach()
      try source.execute(sql: "INSERT INTO t VALUES (1, 'x', 'y')")
      let changeset = try session.changeset()

      let target = try Database()
      try target.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
      do {
        try target.apply(changeset)
        Issue.record("a changeset for a wider table applied")
      } catch let mismatch as ChangesetSchemaMismatch {
        let error: any Error = mismatch
        #expect(error.localizedDescription == mismatch.description)
        #expect(
          mismatch.description
            == "1 change(s) of the changeset do not fit the database's schema: table \"t\" (1 change(s)): "
            + "the database's table has 2 column(s), the changeset records 3")
      }
      #expect(try target.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }
  }
#endif
