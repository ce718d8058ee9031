#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// Applying a changeset to a database whose tables do not fit it: SQLite skips such a table's
  /// changes and returns success; Amalgam names the tables and undoes the apply.
  @Suite struct ChangesetApplySchemaTests {
    /// A changeset that inserts into `t(id INTEGER PRIMARY KEY, a, b)` (two rows) and `u(id INTEGER
    /// PRIMARY KEY, x)` (one row).
    private func changeset() throws -> Changeset {
      let source = try Database()
      try source.batch(
        sql: """
          CREATE TABLE t(id INTEGER PRIMARY KEY, a, b);
          CREATE TABLE u(id INTEGER PRIMARY KEY, x);
          """)
      return try recordChangeset(
        source, "INSERT INTO t VALUES (1, 'a1', 'b1'), (2, 'a2', 'b2'); INSERT INTO u VALUES (1, 'x1');")
    }

    /// A target with `u` as the source has it, and `t` created by `tableSQL` (none when `nil`).
    private func target(_ tableSQL: String?) throws -> Database {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE u(id INTEGER PRIMARY KEY, x)")
      if let tableSQL { try db.execute(sql: tableSQL) }
      return db
    }

    private func rowCount(_ db: Database, _ table: String) throws -> Int? {
      try db.fetchOne(Int.self, sql: "SELECT count(*) FROM \(table)")
    }

    /// Applies and returns the mismatch error, recording an issue for any other outcome.
    private func mismatch(
      _ db: Database, _ changeset: Changeset, options: ChangesetApplyOptions = [],
      sourceLocation: SourceLocation = #_sourceLocation
    ) -> ChangesetSchemaMismatch? {
      do {
        try db.apply(changeset, options: options)
        Issue.record("the apply succeeded", sourceLocation: sourceLocation)
      } catch let error as ChangesetSchemaMismatch {
        return error
      } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
      }
      return nil
    }

    @Test func aTableWithFewerColumnsIsNamedAndNothingIsApplied() throws {
      let db = try target("CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
      let error = mismatch(db, try changeset())
      #expect(error?.tables == [.init(name: "t", reason: .tooFewColumns(database: 2, changeset: 3), changeCount: 2)])
      #expect(
        error?.description
          == "2 change(s) of the changeset do not fit the database's schema: table \"t\" (2 change(s)): "
          + "the database's table has 2 column(s), the changeset records 3")
      // The change to u, which fits, was undone with the rest.
      #expect(try rowCount(db, "u") == 0)
      #expect(try rowCount(db, "t") == 0)
    }

    @Test func aMissingTableIsNamed() throws {
      let db = try target(nil)
      #expect(mismatch(db, try changeset())?.tables == [.init(name: "t", reason: .noSuchTable, changeCount: 2)])
      #expect(try rowCount(db, "u") == 0)
    }

    @Test func anotherPrimaryKeyIsNamed() throws {
      for tableSQL in [
        "CREATE TABLE t(id, a PRIMARY KEY, b)",
        "CREATE TABLE t(id, a, b, PRIMARY KEY(id, a))",
        // A key column beyond the columns the changeset records.
        "CREATE TABLE t(id, a, b, c PRIMARY KEY)",
      ] {
        let db = try target(tableSQL)
        #expect(
          mismatch(db, try changeset())?.tables == [.init(name: "t", reason: .primaryKeyMismatch, changeCount: 2)],
          "\(tableSQL)")
      }
      // The same key columns in another order.
      func keyed(_ key: String) throws -> Database {
        let db = try Database()
        try db.execute(sql: "CREATE TABLE k(a, b, v, PRIMARY KEY(\(key)))")
        return db
      }
      let keyedChangeset = try recordChangeset(try keyed("a, b"), "INSERT INTO k VALUES (1, 2, 3)")
      #expect(
        mismatch(try keyed("b, a"), keyedChangeset)?.tables
          == [.init(name: "k", reason: .primaryKeyMismatch, changeCount: 1)])
      try keyed("a, b").apply(keyedChangeset)
    }

    @Test func tablesThatFitApplyAsBefore() throws {
      for tableSQL in [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)",
        // More columns (added later with ALTER TABLE ... ADD COLUMN) take their default.
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c DEFAULT 'new')",
        // Hidden and generated columns do not count.
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, g AS (a || b))",
        // Names are compared without regard to case.
        "CREATE TABLE T(id INTEGER PRIMARY KEY, a, b)",
      ] {
        let db = try target(tableSQL)
        try db.apply(try changeset())
        #expect(try rowCount(db, "t") == 2, "\(tableSQL)")
        #expect(try rowCount(db, "u") == 1, "\(tableSQL)")
      }
    }

    @Test func aRowidTableWithoutADeclaredKeyFitsAChangesetRecordedWithItsRowid() throws {
      func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute(sql: "CREATE TABLE r(a, b)")
        return db
      }
      let source = try makeDatabase()
      let session = try Session(database: source)
      try session.setOption(.rowidTables, enabled: true)
      try session.attach()
      try source.execute(sql: "INSERT INTO r VALUES ('x', 'y')")
      let target = try makeDatabase()
      try target.apply(try session.changeset())
      #expect(try target.fetchOne(String.self, sql: "SELECT a || b FROM r") == "xy")
    }

    @Test func sqliteStat1FitsOnlyWhereItExists() throws {
      func makeDatabase() throws -> Database {
        let db = try Database()
        try db.batch(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a); CREATE INDEX ta ON t(a);")
        return db
      }
      let source = try makeDatabase()
      try source.execute(sql: "INSERT INTO t VALUES (1, 'x'), (2, 'y')")
      let session = try Session(database: source)
      try session.attach()
      try source.execute(sql: "ANALYZE")
      let changeset = try session.changeset()
      #expect(try changeset.operations().map(\.table).contains("sqlite_stat1"))
      let withoutStatistics = try makeDatabase()
      #expect(
        mismatch(withoutStatistics, changeset)?.tables.map(\.name) == ["sqlite_stat1"])
      let withStatistics = try makeDatabase()
      try withStatistics.batch(sql: "ANALYZE; DELETE FROM sqlite_stat1;")
      try withStatistics.apply(changeset)
      let statistics = "SELECT group_concat(tbl || idx || stat) FROM sqlite_stat1"
      #expect(
        try withStatistics.fetchOne(String.self, sql: statistics) == source.fetchOne(String.self, sql: statistics))
    }

    @Test func everyTableThatDoesNotFitIsNamedInOrder() throws {
      let source = try Database()
      try source.batch(
        sql: """
          CREATE TABLE a(id INTEGER PRIMARY KEY, v);
          CREATE TABLE b(id INTEGER PRIMARY KEY, v);
          CREATE TABLE c(id INTEGER PRIMARY KEY, v);
          """)
      let changeset = try recordChangeset(
        source, "INSERT INTO a VALUES (1, 1); INSERT INTO b VALUES (1, 1), (2, 2); INSERT INTO c VALUES (1, 1);")
      let db = try Database()
      try db.batch(sql: "CREATE TABLE a(id INTEGER PRIMARY KEY); CREATE TABLE b(id INTEGER PRIMARY KEY, v);")
      #expect(
        mismatch(db, changeset)?.tables == [
          .init(name: "a", reason: .tooFewColumns(database: 1, changeset: 2), changeCount: 1),
          .init(name: "c", reason: .noSuchTable, changeCount: 1),
        ])
      #expect(try rowCount(db, "b") == 0)
    }

    @Test func aTableLeftOutByTheFilterIsNeitherCheckedNorReported() throws {
      let db = try target("CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
      var asked: [String] = []
      try db.apply(
        try changeset(),
        tableFilter: { table in
          asked.append(table)
          return table != "t"
        }
      ) { _ in .abort }
      #expect(asked == ["t", "u"])
      #expect(try rowCount(db, "u") == 1)
      // The documented way to apply the rest after a mismatch.
      let other = try target(nil)
      do {
        try other.apply(try changeset())
      } catch let mismatch as ChangesetSchemaMismatch {
        let skipped = Set(mismatch.tables.map(\.name))
        try other.apply(try changeset(), tableFilter: { !skipped.contains($0) }) { _ in .abort }
      }
      #expect(try rowCount(other, "u") == 1)
    }

    @Test func aStreamedApplyNamesTheTablesToo() throws {
      let db = try target("CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
      let data = try changeset().data
      #expect(
        throws: ChangesetSchemaMismatch(tables: [
          .init(name: "t", reason: .tooFewColumns(database: 2, changeset: 3), changeCount: 2)
        ])
      ) {
        try db.applyChangeset(from: ChangesetStreams.reading(from: data))
      }
      #expect(try rowCount(db, "u") == 0)
    }

    @Test func withoutASavepointTheCallersTransactionUndoesTheRest() throws {
      let db = try target("CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
      try db.execute(sql: "BEGIN")
      #expect(mismatch(db, try changeset(), options: .noSavepoint)?.tables.map(\.name) == ["t"])
      #expect(try rowCount(db, "u") == 1)
      try db.execute(sql: "ROLLBACK")
      #expect(try rowCount(db, "u") == 0)
    }

    @Test func anErrorThrownByTheTableFilterUndoesTablesAppliedBeforeIt() throws {
      // SQLite has no way to stop from its table filter: the tables before it stayed applied.
      let db = try target("CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)")
      #expect(throws: TestError(id: 7)) {
        try db.apply(
          try changeset(),
          tableFilter: { table in
            if table == "u" { throw TestError(id: 7) }
            return true
          }
        ) { _ in .abort }
      }
      #expect(try rowCount(db, "t") == 0)
    }
  }
#endif
