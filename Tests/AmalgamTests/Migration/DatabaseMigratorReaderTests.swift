import Amalgam
import Foundation
import Testing

/// The blocking `DatabaseWriter` and `DatabaseReader` forms of the migrator, on a file that a queue, a
/// pool and a read queue open.
@Suite struct DatabaseMigratorReaderTests {
  /// Checks what every blocking reader form of `migrator` reports through `reader`.
  private func expectState(
    _ migrator: DatabaseMigrator, through reader: some DatabaseReader, applied: [String], identifiers: Set<String>,
    completed: [String], isComplete: Bool, isSuperseded: Bool, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(try migrator.appliedMigrations(reader) == applied, sourceLocation: sourceLocation)
    #expect(try migrator.appliedIdentifiers(reader) == identifiers, sourceLocation: sourceLocation)
    #expect(try migrator.completedMigrations(reader) == completed, sourceLocation: sourceLocation)
    #expect(try migrator.hasCompletedMigrations(reader) == isComplete, sourceLocation: sourceLocation)
    #expect(try migrator.hasBeenSuperseded(reader) == isSuperseded, sourceLocation: sourceLocation)
  }

  @Test func blockingFormsMigrateThroughAWriterAndReportThroughEveryReader() async throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.sqlite").path
      let migrator = bookMigrator()
      let all = ["create log", "create author", "create book"]

      let queue = try DatabaseQueue(path: path)
      try expectState(
        migrator, through: queue, applied: [], identifiers: [], completed: [], isComplete: false, isSuperseded: false)
      try migrator.migrate(queue, upTo: "create author")
      try expectState(
        migrator, through: queue, applied: ["create log", "create author"],
        identifiers: ["create log", "create author"], completed: ["create log", "create author"], isComplete: false,
        isSuperseded: false)
      // A target behind the database throws, and changes nothing.
      #expect(throws: MigrationError.self) { try migrator.migrate(queue, upTo: "create log") }
      try migrator.migrate(queue)
      #expect(try queue.sync { db in try migrationLog(db) } == all)
      try expectState(
        migrator, through: queue, applied: all, identifiers: Set(all), completed: all, isComplete: true,
        isSuperseded: false)
      try queue.close()

      // An older migrator sees a database that is ahead of it, through a pool and a read queue.
      var older = DatabaseMigrator()
      older.registerMigration("create log") { _ in }
      let pool = try DatabasePool(path: path)
      try expectState(
        older, through: pool, applied: ["create log"], identifiers: Set(all), completed: ["create log"],
        isComplete: true, isSuperseded: true)
      try pool.close()
      let reader = try DatabaseReadQueue(path: path)
      try expectState(
        older, through: reader, applied: ["create log"], identifiers: Set(all), completed: ["create log"],
        isComplete: true, isSuperseded: true)
      try expectState(
        migrator, through: reader, applied: all, identifiers: Set(all), completed: all, isComplete: true,
        isSuperseded: false)
      try reader.close()
    }
  }
}
