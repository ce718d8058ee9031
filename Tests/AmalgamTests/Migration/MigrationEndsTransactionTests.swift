import Amalgam
import Foundation
import Testing

/// A migration whose body ends the migrator's transaction (`COMMIT`, `END`, `ROLLBACK`) must fail loudly,
/// keep nothing it did, and not be recorded as applied.
@Suite struct MigrationEndsTransactionTests {
  /// "create log" as the migration before, then `body` as the migration "ends its transaction".
  private func migrator(
    _ mode: DatabaseMigrator.TransactionMode = .perMigration,
    _ body: @escaping @Sendable (Database) throws -> Void
  ) -> DatabaseMigrator {
    var migrator = DatabaseMigrator(transactionMode: mode)
    migrator.registerMigration("create log") { db in
      try db.execute(sql: "CREATE TABLE log(name TEXT)")
    }
    migrator.registerMigration("ends its transaction", migrate: body)
    return migrator
  }

  /// Migrates a new file with `migrator`, expects the failure of "ends its transaction", and returns
  /// what a new connection then reads from the file: the tables, the rows of `log`, and the applied
  /// migrations.
  private func migrateAndReopen(_ migrator: DatabaseMigrator) async throws -> (
    error: MigrationError?, tables: [String], log: [String], applied: [String]
  ) {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.sqlite").path
      var caught: MigrationError?
      do {
        let db = try Database(path: path)
        try migrator.migrate(db)
        Issue.record("the migration did not fail")
      } catch let error as MigrationError {
        caught = error
      }
      let db = try Database(path: path)
      let tables = try db.prepare(
        sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'amalgam%' ORDER BY name"
      ).column(0, as: String.self)
      let log = tables.contains("log") ? try migrationLog(db) : []
      return (caught, tables, log, try migrator.appliedMigrations(db))
    }
  }

  /// Checks that `error` is the failure of "ends its transaction" for a transaction that its body ended.
  private func expectEndedTransaction(_ error: MigrationError?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard case .migrationFailed(let name, let cause)? = error else {
      Issue.record("expected migrationFailed, got \(String(describing: error))", sourceLocation: sourceLocation)
      return
    }
    #expect(name == "ends its transaction", sourceLocation: sourceLocation)
    guard case .transactionEndedInBody(let ended)? = cause as? DatabaseError else {
      Issue.record("expected transactionEndedInBody, got \(cause)", sourceLocation: sourceLocation)
      return
    }
    #expect(ended.outcome == .rolledBack, sourceLocation: sourceLocation)
    let description = "\(MigrationError.migrationFailed(migration: name, error: cause))"
    let expected = "Migration \"ends its transaction\" failed: The body of the migration transaction ended it"
    #expect(description.contains(expected), sourceLocation: sourceLocation)
  }

  @Test func commitThenBeginThenThrowKeepsNothing() async throws {
    let migrator = migrator { db in
      try db.execute(sql: "CREATE TABLE early(x)")
      try db.execute(sql: "INSERT INTO log VALUES ('before the commit')")
      try? db.execute(sql: "COMMIT")
      try db.execute(sql: "BEGIN")
      try db.execute(sql: "CREATE TABLE late(x)")
      throw TestFailure()
    }
    let result = try await migrateAndReopen(migrator)
    expectEndedTransaction(result.error)
    #expect(result.tables == ["log"])
    #expect(result.log == [])
    #expect(result.applied == ["create log"])
  }

  @Test func commitThenBeginThenReturnKeepsNothingAndIsNotRecorded() async throws {
    let migrator = migrator { db in
      try db.execute(sql: "CREATE TABLE early(x)")
      try? db.execute(sql: "END")
      try db.execute(sql: "BEGIN IMMEDIATE")
      try db.execute(sql: "CREATE TABLE late(x)")
    }
    let result = try await migrateAndReopen(migrator)
    expectEndedTransaction(result.error)
    #expect(result.tables == ["log"])
    #expect(result.applied == ["create log"])
  }

  @Test func aCommitThatTheBodyDoesNotCatchFailsTheMigration() async throws {
    let migrator = migrator { db in
      try db.execute(sql: "CREATE TABLE early(x)")
      try db.execute(sql: "COMMIT")
    }
    let result = try await migrateAndReopen(migrator)
    expectEndedTransaction(result.error)
    #expect(result.tables == ["log"])
    #expect(result.applied == ["create log"])
  }

  @Test func rollbackThenBeginFailsTheMigration() async throws {
    let migrator = migrator { db in
      try db.execute(sql: "CREATE TABLE early(x)")
      try db.execute(sql: "ROLLBACK")
      try db.execute(sql: "BEGIN")
      try db.execute(sql: "CREATE TABLE late(x)")
    }
    let result = try await migrateAndReopen(migrator)
    expectEndedTransaction(result.error)
    #expect(result.tables == ["log"])
    #expect(result.applied == ["create log"])
  }

  @Test func inASingleTransactionNoMigrationIsKept() async throws {
    let migrator = migrator(.single) { db in
      try db.execute(sql: "INSERT INTO log VALUES ('before the commit')")
      try? db.execute(sql: "COMMIT")
      try db.execute(sql: "BEGIN")
      throw TestFailure()
    }
    let result = try await migrateAndReopen(migrator)
    expectEndedTransaction(result.error)
    #expect(result.tables == [])
    #expect(result.applied == [])
  }

  @Test func theUsersCommitHookIsBackAfterTheMigrationAndSkippedForTheRefusedCommit() async throws {
    try withTemporaryDirectory { directory in
      let db = try Database(path: directory.appendingPathComponent("app.sqlite").path)
      let commits = Counter()
      try db.setCommitHook {
        commits.increment()
        return .commit
      }
      let migrator = migrator { db in
        try? db.execute(sql: "COMMIT")
        try db.execute(sql: "BEGIN")
      }
      #expect(throws: MigrationError.self) { try migrator.migrate(db) }
      // "create log" committed through the hook; the refused COMMIT did not reach it.
      #expect(commits.value == 1)
      try db.execute(sql: "INSERT INTO log VALUES ('after')")
      #expect(commits.value == 2)
    }
  }
}

/// A count shared with a commit hook, which runs on the thread using the database.
private final class Counter {
  private(set) var value = 0
  func increment() { value += 1 }
}
