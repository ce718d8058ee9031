// A test-only program for CrashSafetyTests: writes numbered transactions to a WAL database until it is
// killed, writing `committed N` (unbuffered) after each commit returns.
//
// Usage: amalgam-crash-writer PATH SYNCHRONOUS [LIMIT]
// SYNCHRONOUS is a value of `PRAGMA synchronous` (OFF, NORMAL, FULL, EXTRA). Each transaction inserts row
// N of `entry` with a payload of varying size and adds its amount to the single row of `total`, so a
// reader can check both that every printed commit is present and that no transaction is half applied.
// Every 40th transaction also checkpoints, so a kill may land in a checkpoint too. Stops after LIMIT
// transactions (default 1,000,000); exits 1 with the error on standard error if a statement fails.
import Amalgam
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, arguments.count == 3 || Int(arguments[3]) != nil else {
  FileHandle.standardError.write(Data("usage: amalgam-crash-writer PATH SYNCHRONOUS [LIMIT]\n".utf8))
  exit(2)
}
let path = arguments[1]
let synchronous = arguments[2]
let limit = arguments.count == 4 ? Int(arguments[3]) ?? 0 : 1_000_000

do {
  let db = try Database(path: path)
  try db.execute(sql: "PRAGMA busy_timeout = 5000")
  try db.execute(sql: "PRAGMA journal_mode = WAL")
  try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
  try db.transaction(.immediate) { db in
    try db.batch(
      sql: """
        CREATE TABLE IF NOT EXISTS entry(n INTEGER PRIMARY KEY, amount INTEGER NOT NULL, payload BLOB NOT NULL);
        CREATE INDEX IF NOT EXISTS entry_amount ON entry(amount);
        CREATE TABLE IF NOT EXISTS total(id INTEGER PRIMARY KEY CHECK (id = 1), amount INTEGER NOT NULL);
        INSERT OR IGNORE INTO total VALUES (1, 0);
        """)
  }
  let start = try db.prepare(sql: "SELECT coalesce(max(n), 0) + 1 FROM entry").front(Int.self) ?? 1
  let insert = try db.prepare(sql: "INSERT INTO entry(n, amount, payload) VALUES (?, ?, randomblob(?))")
  let add = try db.prepare(sql: "UPDATE total SET amount = amount + ? WHERE id = 1")
  var generator = SystemRandomNumberGenerator()
  for n in start..<(start + limit) {
    let amount = Int.random(in: 1...1_000, using: &generator)
    // Mostly small rows, sometimes one that overflows onto several pages.
    let size = n % 17 == 0 ? Int.random(in: 2_000...20_000, using: &generator) : Int.random(in: 0...300)
    try db.transaction(.immediate) { _ in
      try insert.bind(parameterValues: [n, amount, size]).execute()
      try add.bind(parameterValues: [amount]).execute()
    }
    // Unbuffered: the line is with the operating system before the next transaction starts.
    FileHandle.standardOutput.write(Data("committed \(n)\n".utf8))
    if n % 40 == 0 { _ = try db.checkpoint(.passive) }
  }
  try db.close()
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(1)
}
