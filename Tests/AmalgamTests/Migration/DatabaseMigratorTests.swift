import Amalgam
import Foundation
import Testing

/// The author/book migrations most tests start from; each inserts a row into `log` so that a test can
/// count how many times it ran.
func bookMigrator(_ mode: DatabaseMigrator.TransactionMode = .perMigration) -> DatabaseMigrator {
  var migrator = DatabaseMigrator(transactionMode: mode)
  migrator.registerMigration("create log") { db in
    try db.execute(sql: "CREATE TABLE log(name TEXT)")
    try db.execute(sql: "INSERT INTO log VALUES ('create log')")
  }
  migrator.registerMigration("create author") { db in
    try db.execute(sql: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    try db.execute(sql: "INSERT INTO log VALUES ('create author')")
  }
  migrator.registerMigration("create book") { db in
    try db.execute(
      sql: "CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT, authorID INTEGER REFERENCES author(id))")
    try db.execute(sql: "INSERT INTO log VALUES ('create book')")
  }
  return migrator
}

/// Which migrations ran, in order, as the `log` table records them.
func migrationLog(_ db: Database) throws -> [String] {
  try db.prepare(sql: "SELECT name FROM log ORDER BY rowid").column(0, as: String.self)
}

struct TestFailure: Error, Equatable, CustomStringConvertible {
  var description: String { "deliberate failure" }
}

@Suite struct DatabaseMigratorTests {
  @Test func appliesEveryMigrationToAFreshFileInOrder() async throws {
    try withTemporaryDirectory { directory in
      let db = try Database(path: directory.appendingPathComponent("app.sqlite").path)
      let migrator = bookMigrator()
      #expect(try migrator.appliedMigrations(db) == [])
      #expect(try migrator.hasCompletedMigrations(db) == false)
      try migrator.migrate(db)
      #expect(try migrationLog(db) == ["create log", "create author", "create book"])
      #expect(try migrator.appliedMigrations(db) == ["create log", "create author", "create book"])
      #expect(try migrator.completedMigrations(db) == ["create log", "create author", "create book"])
      #expect(try migrator.hasCompletedMigrations(db))
      #expect(try migrator.hasBeenSuperseded(db) == false)
      let recorded = try db.prepare(sql: "SELECT identifier FROM amalgam_migrations ORDER BY identifier")
        .column(0, as: String.self)
      #expect(recorded == ["create author", "create book", "create log"])
      #expect(db.isInAutocommitMode)
    }
  }

  @Test func runningAgainChangesNothing() async throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.sqlite").path
      try bookMigrator().migrate(Database(path: path))
      let db = try Database(path: path)
      let before = db.totalChanges
      try bookMigrator().migrate(db)
      #expect(try migrationLog(db) == ["create log", "create author", "create book"])
      #expect(db.totalChanges == before)
    }
  }

  @Test func anUpToDateReadOnlyDatabaseMigratesWithoutWriting() async throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.sqlite").path
      try bookMigrator().migrate(Database(path: path))
      let readOnly = try Database(path: path, options: .readOnly)
      try bookMigrator().migrate(readOnly)
      #expect(try bookMigrator().hasCompletedMigrations(readOnly))
    }
  }

  @Test func anExtendedMigratorRunsOnlyTheNewMigration() throws {
    let db = try Database()
    try bookMigrator().migrate(db)
    var migrator = bookMigrator()
    migrator.registerMigration("add email") { db in
      try db.execute(sql: "ALTER TABLE author ADD COLUMN email TEXT")
      try db.execute(sql: "INSERT INTO log VALUES ('add email')")
    }
    try migrator.migrate(db)
    #expect(try migrationLog(db) == ["create log", "create author", "create book", "add email"])
    #expect(try db.columnExists("email", in: "author"))
  }

  @Test func aFailingMigrationIsRolledBackAndNamedAndEarlierOnesStay() throws {
    let db = try Database()
    var migrator = bookMigrator()
    migrator.registerMigration("half done") { db in
      try db.execute(sql: "CREATE TABLE half(x)")
      try db.execute(sql: "INSERT INTO log VALUES ('half done')")
      throw TestFailure()
    }
    migrator.registerMigration("never reached") { db in
      try db.execute(sql: "CREATE TABLE never(x)")
    }
    do {
      try migrator.migrate(db)
      Issue.record("The migration should have failed")
    } catch let error as MigrationError {
      #expect(error.migration == "half done")
      guard case .migrationFailed(_, let underlying) = error else {
        Issue.record("Unexpected error \(error)")
        return
      }
      #expect(underlying as? TestFailure == TestFailure())
      #expect("\(error)" == "Migration \"half done\" failed: deliberate failure")
    }
    #expect(try migrationLog(db) == ["create log", "create author", "create book"])
    #expect(try db.tableExists("half") == false)
    #expect(try db.tableExists("never") == false)
    #expect(try migrator.appliedMigrations(db) == ["create log", "create author", "create book"])
    #expect(db.isInAutocommitMode)
  }

  @Test func anSQLErrorInAMigrationKeepsSQLitesMessage() throws {
    let db = try Database()
    var migrator = DatabaseMigrator()
    migrator.registerMigration("typo") { db in try db.execute(sql: "CREATE TABLEE t(x)") }
    #expect {
      try migrator.migrate(db)
    } throws: { error in
      guard case .migrationFailed(let name, let underlying as SQLiteError) = error as? MigrationError else {
        return false
      }
      return name == "typo" && underlying.code == .error && underlying.message.contains("syntax error")
    }
  }

  @Test func inSingleTransactionModeAFailureKeepsNothing() throws {
    let db = try Database()
    var migrator = bookMigrator(.single)
    migrator.registerMigration("failing") { _ in throw TestFailure() }
    #expect(throws: MigrationError.self) { try migrator.migrate(db) }
    #expect(try db.tableExists("log") == false)
    #expect(try db.tableExists("amalgam_migrations") == false)
    #expect(try migrator.appliedMigrations(db) == [])
    // Without the failing one, all commit together.
    try bookMigrator(.single).migrate(db)
    #expect(try migrationLog(db) == ["create log", "create author", "create book"])
  }

  @Test func migrateUpToStopsAtTheTarget() async throws {
    let queue = try DatabaseQueue()
    let migrator = bookMigrator()
    try await migrator.migrate(queue, upTo: "create author")
    #expect(try await migrator.appliedMigrations(queue) == ["create log", "create author"])
    #expect(try await migrator.hasCompletedMigrations(queue) == false)
    try await migrator.migrate(queue, upTo: "create book")
    #expect(try await migrator.completedMigrations(queue) == ["create log", "create author", "create book"])
  }

  @Test func migrateUpToRefusesUnknownNamesAndTargetsBehindTheDatabase() throws {
    let db = try Database()
    let migrator = bookMigrator()
    #expect(throws: MigrationError.self) { try migrator.migrate(db, upTo: "nope") }
    try migrator.migrate(db)
    #expect {
      try migrator.migrate(db, upTo: "create log")
    } throws: { error in
      guard case .migratedBeyondTarget(let target, let applied) = error as? MigrationError else { return false }
      return target == "create log" && applied == ["create author", "create book"]
    }
  }

  @Test func aMigrationMergedFromAnotherBranchIsAppliedButNotCompleteUntilTheGapIsFilled() throws {
    let db = try Database()
    var branchA = DatabaseMigrator()
    branchA.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE one(x)") }
    branchA.registerMigration("three") { db in try db.execute(sql: "CREATE TABLE three(x)") }
    try branchA.migrate(db)

    var merged = DatabaseMigrator()
    merged.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE one(x)") }
    merged.registerMigration("two") { db in try db.execute(sql: "CREATE TABLE two(x)") }
    merged.registerMigration("three") { db in try db.execute(sql: "CREATE TABLE three(x)") }
    #expect(try merged.appliedMigrations(db) == ["one", "three"])
    #expect(try merged.completedMigrations(db) == ["one"])
    try merged.migrate(db)
    #expect(try merged.completedMigrations(db) == ["one", "two", "three"])
    #expect(try db.tableExists("two"))
  }

  @Test func aDatabaseWithUnknownMigrationsHasBeenSuperseded() async throws {
    let pool = try await withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("app.sqlite").path)
      try await bookMigrator().migrate(pool)
      var older = DatabaseMigrator()
      older.registerMigration("create log") { _ in }
      #expect(try await older.hasBeenSuperseded(pool))
      #expect(try await older.appliedIdentifiers(pool) == ["create log", "create author", "create book"])
      #expect(try await older.appliedMigrations(pool) == ["create log"])
      #expect(try await bookMigrator().hasBeenSuperseded(pool) == false)
      return pool
    }
    try pool.close()
  }

  @Test func registeringANameTwiceMakesMigrateThrow() throws {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("a") { _ in }
    migrator.registerMigration("a") { _ in }
    #expect(throws: MigrationError.self) { try migrator.migrate(Database()) }
    #expect("\(MigrationError.duplicateMigration("a"))" == "Two migrations are registered under the name \"a\"")
  }

  @Test func migrateRefusesAnOpenTransaction() throws {
    let db = try Database()
    try db.begin()
    #expect(throws: DatabaseError.self) { try bookMigrator().migrate(db) }
    try db.rollback()
  }

  // MARK: - Foreign keys

  @Test func aForeignKeyViolationFailsTheMigrationNamingTableAndRow() throws {
    let db = try Database()
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    var migrator = bookMigrator()
    migrator.registerMigration("orphan book") { db in
      try db.execute(sql: "INSERT INTO author(id, name) VALUES (1, 'Ada')")
      try db.execute(sql: "INSERT INTO book(id, title, authorID) VALUES (7, 'Lost', 99)")
      try db.execute(sql: "INSERT INTO log VALUES ('orphan book')")
    }
    do {
      try migrator.migrate(db)
      Issue.record("The migration should have failed")
    } catch MigrationError.foreignKeyViolations(let migration, let violations) {
      #expect(migration == "orphan book")
      #expect(violations == [ForeignKeyViolation(table: "book", rowid: 7, parentTable: "author", foreignKeyID: 0)])
      #expect(
        "\(MigrationError.foreignKeyViolations(migration: migration, violations: violations))"
          == "Migration \"orphan book\" violates foreign keys: row 7 of table \"book\" refers to a missing row of \"author\""
      )
    }
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM author") == 0)
    #expect(try migrator.appliedMigrations(db) == ["create log", "create author", "create book"])
    #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
  }

  @Test func foreignKeyChecksAreDeferredUntilTheEndOfAMigration() throws {
    let db = try Database()
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    var migrator = bookMigrator()
    migrator.registerMigration("child before parent") { db in
      try db.execute(sql: "INSERT INTO book(id, title, authorID) VALUES (1, 'Notes', 1)")
      try db.execute(sql: "INSERT INTO author(id, name) VALUES (1, 'Ada')")
    }
    try migrator.migrate(db)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM book") == 1)
  }

  @Test func aMigrationWithForeignKeysDisabledCanRebuildAParentTable() throws {
    let db = try Database()
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    var migrator = bookMigrator()
    migrator.registerMigration("data") { db in
      try db.execute(sql: "INSERT INTO author(id, name) VALUES (1, 'Ada')")
      try db.execute(sql: "INSERT INTO book(title, authorID) VALUES ('Notes', 1)")
    }
    // The 12-step procedure: with foreign keys on, dropping `author` would delete or fail on its books.
    migrator.registerMigration("author name not unique -> unique", foreignKeyChecks: .disabled) { db in
      #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == false)
      try db.execute(sql: "CREATE TABLE new_author(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
      try db.execute(sql: "INSERT INTO new_author SELECT id, name FROM author")
      try db.execute(sql: "DROP TABLE author")
      try db.execute(sql: "ALTER TABLE new_author RENAME TO author")
    }
    try migrator.migrate(db)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM book JOIN author ON author.id = authorID") == 1)
    #expect(try db.indexes(on: "author").map(\.isUnique) == [true])
    #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
  }

  @Test func aMigrationWithForeignKeysDisabledIsStillCheckedBeforeItCommits() throws {
    let db = try Database()
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    var migrator = bookMigrator()
    migrator.registerMigration("drop parent", foreignKeyChecks: .disabled) { db in
      try db.execute(sql: "INSERT INTO author(id, name) VALUES (1, 'Ada')")
      try db.execute(sql: "INSERT INTO book(id, authorID) VALUES (3, 1)")
      try db.execute(sql: "DELETE FROM author")
    }
    #expect {
      try migrator.migrate(db)
    } throws: { error in
      guard case .foreignKeyViolations("drop parent", let violations) = error as? MigrationError else { return false }
      return violations.map(\.table) == ["book"] && violations.map(\.rowid) == [3]
    }
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM book") == 0)
    #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
  }

  @Test func inSingleTransactionModeAMigrationWithForeignKeysDisabledIsStillChecked() throws {
    let db = try Database()
    try db.execute(sql: "PRAGMA foreign_keys = ON")
    var migrator = bookMigrator(.single)
    migrator.registerMigration("orphan", foreignKeyChecks: .disabled) { db in
      try db.execute(sql: "INSERT INTO book(id, authorID) VALUES (4, 9)")
    }
    #expect {
      try migrator.migrate(db)
    } throws: { error in
      guard case .foreignKeyViolations("orphan", let violations) = error as? MigrationError else { return false }
      return violations.map(\.rowid) == [4]
    }
    #expect(try migrator.appliedMigrations(db) == [])
    #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
  }

  // MARK: - user_version

  @Test func aDatabaseNumberedWithUserVersionContinuesFromItsNumber() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("legacy.sqlite").path
      // What an app that numbered its schema with user_version left behind: versions 1 and 2.
      let legacy = try Database(path: path)
      try legacy.batch(
        sql: """
          CREATE TABLE log(name TEXT); INSERT INTO log VALUES ('create log');
          CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO log VALUES ('create author');
          PRAGMA user_version = 2;
          """)
      try legacy.close()

      var migrator = DatabaseMigrator(versioning: .userVersion)
      for name in ["create log", "create author", "create book"] {
        migrator.registerMigration(name) { db in
          if name == "create book" { try db.execute(sql: "CREATE TABLE book(id INTEGER PRIMARY KEY)") }
          try db.execute(sql: "INSERT INTO log VALUES (?)", parameterValues: [name])
        }
      }
      let queue = try DatabaseQueue(path: path)
      #expect(try await migrator.appliedMigrations(queue) == ["create log", "create author"])
      try await migrator.migrate(queue)
      let (version, log, hasTable) = try queue.sync { db in
        (try db.userVersion, try migrationLog(db), try db.tableExists("amalgam_migrations"))
      }
      #expect(version == 3)
      #expect(log == ["create log", "create author", "create book"])
      #expect(hasTable == false)
      #expect(try await migrator.hasBeenSuperseded(queue) == false)
      try queue.sync { db in try db.setUserVersion(5) }
      #expect(try await migrator.hasBeenSuperseded(queue))
      try queue.close()
    }
  }

  @Test func aFailingMigrationLeavesUserVersionAtThePreviousOne() throws {
    let db = try Database()
    var migrator = DatabaseMigrator(versioning: .userVersion)
    migrator.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE one(x)") }
    migrator.registerMigration("two") { _ in throw TestFailure() }
    #expect(throws: MigrationError.self) { try migrator.migrate(db) }
    #expect(try db.userVersion == 1)
  }

  // MARK: - Erasing on schema change

  @Test func aChangedMigrationErasesTheDatabaseOnlyWhenAsked() throws {
    let db = try Database()
    var first = DatabaseMigrator()
    first.registerMigration("create note") { db in try db.execute(sql: "CREATE TABLE note(text TEXT)") }
    try first.migrate(db)
    try db.execute(sql: "INSERT INTO note VALUES ('kept?')")

    var changed = DatabaseMigrator()
    changed.registerMigration("create note") { db in
      try db.execute(sql: "CREATE TABLE note(text TEXT, pinned INTEGER NOT NULL DEFAULT 0)")
    }
    try changed.migrate(db)
    #expect(try db.columnExists("pinned", in: "note") == false)

    changed.eraseDatabaseOnSchemaChange = true
    try changed.migrate(db)
    #expect(try db.columnExists("pinned", in: "note"))
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 0)
    #expect(try changed.appliedMigrations(db) == ["create note"])

    // Unchanged now: migrating again keeps the data.
    try db.execute(sql: "INSERT INTO note(text) VALUES ('kept')")
    try changed.migrate(db)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note") == 1)
  }

  @Test func aSupersededDatabaseIsErasedWhenAsked() throws {
    let db = try Database()
    try bookMigrator().migrate(db)
    var older = DatabaseMigrator()
    older.registerMigration("create log") { db in try db.execute(sql: "CREATE TABLE log(name TEXT)") }
    older.eraseDatabaseOnSchemaChange = true
    try older.migrate(db)
    #expect(try db.tables().map(\.name) == ["amalgam_migrations", "log"])
    #expect(try older.hasBeenSuperseded(db) == false)
  }

  // MARK: - Queues and pools

  @Test func migratesThroughAQueueAndAPoolSyncAndAsync() async throws {
    try await withTemporaryDirectory { directory in
      let queue = try DatabaseQueue(path: directory.appendingPathComponent("queue.sqlite").path)
      try blocking { try bookMigrator().migrate(queue) }
      #expect(try await queue.read { db in try migrationLog(db) }.count == 3)
      try queue.close()

      let pool = try DatabasePool(path: directory.appendingPathComponent("pool.sqlite").path)
      try await bookMigrator().migrate(pool, upTo: "create author")
      #expect(try await bookMigrator().appliedMigrations(pool) == ["create log", "create author"])
      try await bookMigrator().migrate(pool)
      #expect(try await bookMigrator().hasCompletedMigrations(pool))
      #expect(try await pool.read { db in try migrationLog(db) } == ["create log", "create author", "create book"])
      try pool.close()
    }
  }

  @Test func twoConnectionsMigratingOneFileAtOnceApplyEachMigrationOnce() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("shared.sqlite").path
      // One migrator per task: a migrator holds closures, so it is not shared across tasks.
      func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("create log") { db in try db.execute(sql: "CREATE TABLE log(name TEXT)") }
        for number in 1...20 {
          migrator.registerMigration("step \(number)") { db in
            try db.execute(sql: "INSERT INTO log VALUES (?)", parameterValues: ["step \(number)"])
          }
        }
        return migrator
      }
      let first = try DatabaseQueue(path: path)
      let second = try DatabaseQueue(path: path)
      async let a: Void = makeMigrator().migrate(first)
      async let b: Void = makeMigrator().migrate(second)
      _ = try await (a, b)
      let log = try first.sync { db in try migrationLog(db) }
      #expect(log == (1...20).map { "step \($0)" })
      try first.close()
      try second.close()
    }
  }
}
