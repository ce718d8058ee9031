// A test-only program for MigrationProcessTests: migrates the database file given as its first argument
// with a fixed list of migrations, so that a test can run several copies at once on one file.
//
// Usage: amalgam-migration-fixture PATH NAME PROCESSES
// Writes PATH.ready-NAME, then waits until PROCESSES such files exist, so that the copies start
// together. Each migration records NAME (the process that applied it) in the table `log`. Prints the
// number of applied migrations; exits 1 with the error on standard error when migrating fails.
import Amalgam
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let processCount = Int(arguments[3]) else {
  FileHandle.standardError.write(Data("usage: amalgam-migration-fixture PATH NAME PROCESSES\n".utf8))
  exit(2)
}
let path = arguments[1]
let process = arguments[2]

/// The first `count` migrations of the list.
func makeMigrator(count: Int) -> DatabaseMigrator {
  var migrator = DatabaseMigrator()
  migrator.registerMigration("create log") { db in
    try db.execute(sql: "CREATE TABLE log(migration TEXT NOT NULL, process TEXT NOT NULL)")
  }
  for number in 1..<max(count, 1) {
    let name = "step \(number)"
    migrator.registerMigration(name) { db in
      try db.execute(sql: "INSERT INTO log(migration, process) VALUES (?, ?)", parameterValues: [name, process])
    }
  }
  return migrator
}

do {
  // Start together with the other copies.
  try Data().write(to: URL(fileURLWithPath: "\(path).ready-\(process)"))
  let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
  let prefix = URL(fileURLWithPath: path).lastPathComponent + ".ready-"
  for _ in 0..<10_000 {
    let ready = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(prefix) }
    if ready.count >= processCount { break }
    usleep(1_000)
  }

  var configuration = Configuration()
  configuration.busyTimeout = 30
  let queue = try DatabaseQueue(path: path, configuration: configuration)
  // Migrate with one migration more each time (as successive versions of an app would). A process
  // that has just applied a migration pauses, longer than the longest sleep of SQLite's busy handler
  // (100 ms), so the other one (which waited, then found that migration applied) applies the next:
  // the processes take turns instead of one applying everything while the other waits.
  func appliedByThisProcess() throws -> Int {
    try queue.read { db in
      guard try db.tableExists("log") else { return 0 }
      return try db.prepare(sql: "SELECT count(*) FROM log WHERE process = ?").bind(parameterValues: [process]).front(
        Int.self) ?? 0
    }
  }
  let total = 13
  for count in 1...total {
    let before = try appliedByThisProcess()
    try makeMigrator(count: count).migrate(queue)
    if try appliedByThisProcess() > before { usleep(150_000) }
  }
  print(try makeMigrator(count: total).appliedMigrations(queue).count)
  try queue.close()
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
