// One point of a scaling curve through GRDB (`scale-grdb CURVE ...`), on the SQLite GRDB links (Debian's
// libsqlite3 here); prints one line of JSON. peer-scale runs it.
import Foundation
import GRDB
import PeerHarness

struct Item: FetchableRecord {
  var id: Int, a: Int, b: Int, c: Int
  init(row: Row) throws {
    id = row[0]
    a = row[1]
    b = row[2]
    c = row[3]
  }
}

struct Failure: Error { let description: String }

nonisolated(unsafe) let arguments = ScaleArguments(Array(CommandLine.arguments.dropFirst()))

/// The readers curve: see scale-amalgam; the writer does what `write { }` does (an IMMEDIATE transaction).
func readers() async throws -> [String: Any] {
  let tasks = arguments.int("tasks")
  let seconds = arguments.double("seconds")
  let withWriter = arguments.int("writer") != 0
  let pool = try DatabasePool(path: arguments.string("path"))
  defer { try? pool.close() }
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<min(tasks, pool.configuration.maximumReaderCount) {
      group.addTask {
        _ = try await pool.read { db in try Int.fetchOne(db.cachedStatement(sql: readersSelectSQL), arguments: [1]) }
      }
    }
    try await group.waitForAll()
  }
  let start = nowNanoseconds()
  let deadline = start + UInt64(seconds * 1e9)
  let logs = try await withThrowingTaskGroup(of: LatencyLog.self) { group in
    for task in 0..<tasks {
      group.addTask {
        var log = LatencyLog()
        var counter = task
        while true {
          let begin = nowNanoseconds()
          if begin >= deadline { break }
          let key = counter % readersKeyCount + 1
          counter &+= 7919
          let value = try await pool.read { db in
            try Int.fetchOne(db.cachedStatement(sql: readersSelectSQL), arguments: [key])
          }
          guard value != nil else { throw Failure(description: "key \(key) not found") }
          log.latencies.append(nowNanoseconds() - begin)
        }
        return log
      }
    }
    if withWriter {
      group.addTask {
        var log = LatencyLog(isWriter: true)
        var next = start
        var counter = 0
        while true {
          let begin = nowNanoseconds()
          if begin >= deadline { break }
          let key = counter % readersKeyCount + 1
          counter += 1
          // What `pool.write { ... }` does, written out to time the part spent in SQLite apart.
          let (closureStart, closureEnd) = try await pool.writeWithoutTransaction { (db: Database) -> (UInt64, UInt64) in
            let start = nowNanoseconds()
            try db.inTransaction {
              try db.execute(sql: readersUpdateSQL, arguments: [key])
              return .commit
            }
            return (start, nowNanoseconds())
          }
          let resumed = nowNanoseconds()
          log.latencies.append(resumed - begin)
          log.inside.append(closureEnd - closureStart)
          log.toWriter.append(closureStart - begin)
          log.back.append(resumed - closureEnd)
          next += 10_000_000
          let now = nowNanoseconds()
          if next > now { try await Task.sleep(nanoseconds: next - now) }
        }
        return log
      }
    }
    var logs: [LatencyLog] = []
    for try await log in group { logs.append(log) }
    return logs
  }
  return readersPoint(logs: logs, seconds: seconds)
}

func fetch() throws -> [String: Any] {
  let all = arguments.string("mode") == "all"
  let queue = try DatabaseQueue(path: arguments.string("path"))
  var sum = 0
  var count = 0
  let begin = nowNanoseconds()
  try scaleMeasured {
    try queue.read { db in
      if all {
        let items = try Item.fetchAll(db, sql: sizeSelectSQL)
        count = items.count
        for item in items { sum &+= item.id &+ item.a &+ item.b &+ item.c }
      } else {
        let rows = try Row.fetchCursor(db, sql: sizeSelectSQL)
        while let row = try rows.next() {
          sum &+= row[0] as Int
          sum &+= row[1] as Int
          sum &+= row[2] as Int
          sum &+= row[3] as Int
          count += 1
        }
      }
    }
  }
  let end = nowNanoseconds()
  return ["rows": count, "checksum": sum, "nanoseconds": end - begin]
}

func insert() throws -> [String: Any] {
  let rows = arguments.int("rows")
  let queue = try DatabaseQueue(path: arguments.string("path"))
  try queue.write { db in try db.execute(sql: sizeTableSQL) }
  let begin = nowNanoseconds()
  try scaleMeasured {
    try queue.write { db in
      let statement = try db.makeStatement(sql: sizeInsertSQL)
      for id in 1...rows { try statement.execute(arguments: [id, id * 2, id * 3, id % 1000]) }
    }
  }
  let end = nowNanoseconds()
  return ["rows": rows, "nanoseconds": end - begin]
}

do {
  switch arguments.curve {
  case "readers": printPoint(try await readers())
  case "fetch": printPoint(try fetch())
  case "insert": printPoint(try insert())
  default: scaleFail("unknown curve '\(arguments.curve)'")
  }
} catch {
  scaleFail("\(arguments.curve): \(error)")
}
