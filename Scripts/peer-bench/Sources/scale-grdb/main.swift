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

nonisolated(unsafe) let arguments = ScaleArguments(Array(CommandLine.arguments.dropFirst()))

/// The readers curve: see scale-amalgam; the writer does what `write { }` does (an IMMEDIATE transaction).
func readers() async throws -> [String: Any] {
  let pool = try DatabasePool(path: arguments.string("path"))
  defer { try? pool.close() }
  return try await measureReaders(
    tasks: arguments.int("tasks"), seconds: arguments.double("seconds"), withWriter: arguments.int("writer") != 0,
    readerCount: pool.configuration.maximumReaderCount,
    read: { key in
      try await pool.read { db in try Int.fetchOne(db.cachedStatement(sql: readersSelectSQL), arguments: [key]) }
    },
    write: { key in
      // What `pool.write { ... }` does, written out to time the part spent in SQLite apart.
      try await pool.writeWithoutTransaction { (db: Database) -> (closureStart: UInt64, closureEnd: UInt64) in
        let start = nowNanoseconds()
        try db.inTransaction {
          try db.execute(sql: readersUpdateSQL, arguments: [key])
          return .commit
        }
        return (start, nowNanoseconds())
      }
    })
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

/// The observers curve: see scale-amalgam; GRDB's ValueObservation on a DatabaseQueue, its values read
/// through `values(in:)`.
func observers() async throws -> [String: Any] {
  let queue = try DatabaseQueue(path: arguments.string("path"))
  defer { try? queue.close() }
  try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
  return try await measureObservers(
    count: arguments.int("count"), written: arguments.int("written") != 0, commits: arguments.int("commits"),
    observe: { sql in
      ValueObservation.tracking { db in try Int.fetchOne(db, sql: sql) }
        .values(in: queue, bufferingPolicy: .bufferingNewest(1)).makeAsyncIterator()
    },
    write: { value in try await queue.write { db in try db.execute(sql: writtenUpdateSQL, arguments: [value]) } })
}

do {
  switch arguments.curve {
  case "readers": printPoint(try await readers())
  case "fetch": printPoint(try fetch())
  case "insert": printPoint(try insert())
  case "observers": printPoint(try await observers())
  default: scaleFail("unknown curve '\(arguments.curve)'")
  }
} catch {
  scaleFail("\(arguments.curve): \(error)")
}
