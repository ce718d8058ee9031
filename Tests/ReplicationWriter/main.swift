// A test-only program for LitestreamReplicationTests: writes numbered transactions through a DatabasePool
// configured for Litestream (walCheckpointing = .leftToReplicator) while other threads read, until it is
// killed, writing `committed N` (unbuffered) after each commit returns.
//
// Usage: amalgam-replication-writer PATH
// Each transaction inserts row N of `entry` with a payload of varying size and adds its amount to the
// single row of `total`, so a restored copy shows both whether every printed commit is present and whether
// a transaction is half applied. Two reader threads check that invariant meanwhile (exit 3 if it breaks).
// Every 100th transaction asks for a passive and a truncating checkpoint, which the configuration must
// refuse (`refused checkpoint` is printed; exit 4 if one ran): checkpoints are left to Litestream.
// Exits 1 with the error on standard error if a statement fails.
import Amalgam
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
  FileHandle.standardError.write(Data("usage: amalgam-replication-writer PATH\n".utf8))
  exit(2)
}

/// Writes a line to standard output at once (no buffering), so that a SIGKILL loses none.
func report(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

do {
  var configuration = Configuration()
  configuration.walCheckpointing = .leftToReplicator
  configuration.busyTimeout = 5
  configuration.maximumReaderCount = 2
  let pool = try DatabasePool(path: arguments[1], configuration: configuration)
  try pool.transaction(.immediate) { db in
    try db.batch(
      sql: """
        CREATE TABLE IF NOT EXISTS entry(n INTEGER PRIMARY KEY, amount INTEGER NOT NULL, payload BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS total(id INTEGER PRIMARY KEY CHECK (id = 1), amount INTEGER NOT NULL);
        INSERT OR IGNORE INTO total VALUES (1, 0);
        """)
  }
  for _ in 0..<2 {
    Thread.detachNewThread {
      while true {
        do {
          let consistent = try pool.read { db in
            try db.prepare(sql: "SELECT (SELECT coalesce(sum(amount), 0) FROM entry) = (SELECT amount FROM total)")
              .front(Bool.self)
          }
          if consistent != true {
            FileHandle.standardError.write(Data("a read saw a half-applied transaction\n".utf8))
            exit(3)
          }
        } catch {
          FileHandle.standardError.write(Data("read failed: \(error)\n".utf8))
          exit(1)
        }
        usleep(2_000)
      }
    }
  }
  let start = try pool.read { db in try db.prepare(sql: "SELECT coalesce(max(n), 0) + 1 FROM entry").front(Int.self) }
  var generator = SystemRandomNumberGenerator()
  for n in (start ?? 1)... {
    let amount = Int.random(in: 1...1_000, using: &generator)
    // Mostly small rows, sometimes one that overflows onto several pages.
    let size = n % 23 == 0 ? Int.random(in: 2_000...12_000, using: &generator) : Int.random(in: 0...200)
    try pool.transaction(.immediate) { db in
      try db.execute(
        sql: "INSERT INTO entry(n, amount, payload) VALUES (?, ?, randomblob(?))", arguments: [n, amount, size])
      try db.execute(sql: "UPDATE total SET amount = amount + ? WHERE id = 1", arguments: [amount])
    }
    report("committed \(n)")
    if n % 100 == 0 {
      for mode in [CheckpointMode.passive, .truncate] {
        do {
          try pool.checkpoint(mode)
          FileHandle.standardError.write(Data("a \(mode.rawValue) checkpoint ran\n".utf8))
          exit(4)
        } catch ConcurrencyError.invalidConfiguration {
          report("refused checkpoint")
        }
      }
    }
  }
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
