import Amalgam
import Testing

/// `eraseDatabaseOnSchemaChange` replays the applied migrations on an empty database to compare
/// schemas; a migration that needs something it did not create itself fails there.
@Suite struct MigrationReplayTests {
  @Test func aMigrationThatFailsWhenReplayedOnAnEmptyDatabaseIsNamed() throws {
    let db = try Database()
    // A table made outside the migrator, which the migration then alters.
    try db.execute(sql: "CREATE TABLE legacy(id INTEGER PRIMARY KEY)")
    var migrator = DatabaseMigrator()
    migrator.registerMigration("extend legacy") { db in
      try db.execute(sql: "ALTER TABLE legacy ADD COLUMN name TEXT")
    }
    try migrator.migrate(db)
    #expect(try db.columnExists("name", in: "legacy"))

    migrator.eraseDatabaseOnSchemaChange = true
    let error = #expect(throws: MigrationError.self) { try migrator.migrate(db) }
    guard case .migrationFailed(let name, let underlying) = error else {
      Issue.record("expected migrationFailed, got \(String(describing: error))")
      return
    }
    #expect(name == "extend legacy")
    #expect((underlying as? SQLiteError)?.message == "no such table: legacy")
    // Nothing was erased.
    #expect(try db.columnExists("name", in: "legacy"))
    #expect(try migrator.appliedMigrations(db) == ["extend legacy"])
  }
}
