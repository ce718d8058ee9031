import Amalgam
import Testing

/// A backup keeps both databases open while it exists, and closing either one finishes it first:
/// SQLite does not protect a backup's destination from being closed under it.
struct BackupLifetimeTests {
  @Test func aBackupIntoADatabaseNobodyElseHoldsStillCompletes() throws {
    let source = try Database()
    try BackupTests.fill(source, rows: 50)
    // The destination's only owner is the backup.
    let backup = try DatabaseBackup(from: source, to: try Database())
    #expect(try backup.step(pages: 1) == false)
    #expect(try backup.step() == true)
    #expect(backup.isFinished)
    #expect(backup.progress.isComplete)
  }

  @Test func closingTheDestinationFinishesTheBackupFirst() throws {
    let source = try Database()
    try BackupTests.fill(source, rows: 50)
    let destination = try Database()
    let backup = try DatabaseBackup(from: source, to: destination)
    #expect(try backup.step(pages: 1) == false)
    try destination.close()
    #expect(backup.isFinished)
    #expect(throws: DatabaseError.databaseClosed) { try backup.step() }
    try backup.finish()  // finishing again does nothing
    // The source is untouched and usable.
    #expect(try source.fetchValue(Int.self, sql: "SELECT count(*) FROM t") == 50)
  }

  @Test func closingTheSourceFinishesTheBackupFirst() throws {
    let source = try Database()
    try BackupTests.fill(source, rows: 50)
    let destination = try Database()
    let backup = try DatabaseBackup(from: source, to: destination)
    #expect(try backup.step(pages: 1) == false)
    try source.close()
    #expect(backup.isFinished)
    #expect(throws: DatabaseError.databaseClosed) { try backup.step() }
    // The abandoned backup left the destination usable.
    #expect(try destination.fetchValue(Int.self, sql: "SELECT 1") == 1)
  }

  @Test func aFinishedBackupLeavesNoObserverBehind() throws {
    let source = try Database()
    try BackupTests.fill(source, rows: 5)
    let destination = try Database()
    weak var released: DatabaseBackup?
    do {
      let backup = try DatabaseBackup(from: source, to: destination)
      released = backup
      #expect(try backup.step() == true)
    }
    #expect(released == nil)
    try destination.close()
    try source.close()
  }
}
