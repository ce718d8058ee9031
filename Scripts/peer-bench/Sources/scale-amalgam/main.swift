// One point of a scaling curve through Amalgam (`scale-amalgam amalgam CURVE ...`) or through SQLite's C
// API on Amalgam's SQLite (`scale-amalgam c CURVE ...`); prints one line of JSON. peer-scale runs it.
import Amalgam
import AmalgamSQLite
import Foundation
import PeerHarness

struct Item: RowConvertible {
  var id: Int, a: Int, b: Int, c: Int
  init(row: borrowing Row) throws {
    id = try row.value(at: 0)
    a = try row.value(at: 1)
    b = try row.value(at: 2)
    c = try row.value(at: 3)
  }
}

/// What the C API contender collects in fetchAll.
struct CItem {
  var id: Int64, a: Int64, b: Int64, c: Int64
}

struct Failure: Error, CustomStringConvertible { let description: String }

let contender = CommandLine.arguments.dropFirst().first ?? ""
guard contender == "amalgam" || contender == "c" else {
  scaleFail("usage: scale-amalgam amalgam|c CURVE --name value ...")
}
nonisolated(unsafe) let arguments = ScaleArguments(Array(CommandLine.arguments.dropFirst(2)))

func check(_ handle: OpaquePointer, _ rc: Int32, _ expected: Int32 = SQLITE_OK) throws {
  if rc != expected { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
}

/// Opens `path` with the C API (on Amalgam's SQLite).
func openC(_ path: String) throws -> OpaquePointer {
  var handle: OpaquePointer?
  let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
  guard rc == SQLITE_OK, let handle else { throw Failure(description: "cannot open \(path): \(rc)") }
  return handle
}

func prepareC(_ handle: OpaquePointer, _ sql: String) throws -> OpaquePointer {
  var statement: OpaquePointer?
  try check(handle, sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil))
  guard let statement else { throw Failure(description: "no statement") }
  return statement
}

/// The readers curve: `tasks` tasks reading by primary key for `seconds`, and optionally one writer
/// committing every 10 ms, on a DatabasePool.
func readers() async throws -> [String: Any] {
  let tasks = arguments.int("tasks")
  let seconds = arguments.double("seconds")
  let withWriter = arguments.int("writer") != 0
  let kind: TransactionType =
    arguments.has("transaction") && arguments.string("transaction") == "immediate"
    ? .immediate : .deferred
  let pool = try DatabasePool(path: arguments.string("path"))
  defer { try? pool.close() }
  // Open every reader before timing (a pool opens them on demand).
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<min(tasks, pool.configuration.maximumReaderCount) {
      group.addTask {
        _ = try await pool.read { db in try db.fetchOne(Int.self, sql: readersSelectSQL, arguments: [1]) }
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
          let value = try await pool.read { db in try db.fetchOne(Int.self, sql: readersSelectSQL, arguments: [key]) }
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
          // `pool.transaction(kind) { ... }`, written out to time the part spent in SQLite apart.
          let (closureStart, closureEnd) = try await pool.write { (db: Database) -> (UInt64, UInt64) in
            let start = nowNanoseconds()
            try db.transaction(kind) { db in try db.execute(sql: readersUpdateSQL, arguments: [key]) }
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

/// Fetches every row of the size fixture, through a cursor or into an array; returns nanoseconds.
func fetch() throws -> [String: Any] {
  let path = arguments.string("path")
  let all = arguments.string("mode") == "all"
  var sum = 0
  var count = 0
  let begin: UInt64
  let end: UInt64
  if contender == "amalgam" {
    let db = try Database(path: path)
    begin = nowNanoseconds()
    try scaleMeasured {
      if all {
        let items = try db.fetchAll(Item.self, sql: sizeSelectSQL)
        count = items.count
        for item in items { sum &+= item.id &+ item.a &+ item.b &+ item.c }
      } else {
        try db.prepare(sql: sizeSelectSQL).results { row in
          sum &+= try row.value(at: 0) as Int
          sum &+= try row.value(at: 1) as Int
          sum &+= try row.value(at: 2) as Int
          sum &+= try row.value(at: 3) as Int
          count += 1
        }
      }
    }
    end = nowNanoseconds()
  } else {
    let handle = try openC(path)
    defer { sqlite3_close_v2(handle) }
    begin = nowNanoseconds()
    try scaleMeasured {
      let statement = try prepareC(handle, sizeSelectSQL)
      defer { sqlite3_finalize(statement) }
      var items: [CItem] = []
      while sqlite3_step(statement) == SQLITE_ROW {
        let item = CItem(
          id: sqlite3_column_int64(statement, 0), a: sqlite3_column_int64(statement, 1),
          b: sqlite3_column_int64(statement, 2), c: sqlite3_column_int64(statement, 3))
        if all {
          items.append(item)
        } else {
          sum &+= Int(item.id &+ item.a &+ item.b &+ item.c)
          count += 1
        }
      }
      if all {
        count = items.count
        for item in items { sum &+= Int(item.id &+ item.a &+ item.b &+ item.c) }
      }
    }
    end = nowNanoseconds()
  }
  return ["rows": count, "checksum": sum, "nanoseconds": end - begin]
}

/// Inserts `rows` rows into the empty size table of a new file in one transaction; returns nanoseconds.
func insert() throws -> [String: Any] {
  let path = arguments.string("path")
  let rows = arguments.int("rows")
  let begin: UInt64
  let end: UInt64
  if contender == "amalgam" {
    let db = try Database(path: path)
    try db.execute(sql: sizeTableSQL)
    begin = nowNanoseconds()
    try scaleMeasured {
      try db.transaction { db in
        let statement = try db.prepare(sql: sizeInsertSQL)
        for id in 1...rows { try statement.bind(id, id * 2, id * 3, id % 1000).execute() }
      }
    }
    end = nowNanoseconds()
  } else {
    let handle = try openC(path)
    defer { sqlite3_close_v2(handle) }
    try check(handle, sqlite3_exec(handle, sizeTableSQL, nil, nil, nil))
    begin = nowNanoseconds()
    try scaleMeasured {
      try check(handle, sqlite3_exec(handle, "BEGIN", nil, nil, nil))
      let statement = try prepareC(handle, sizeInsertSQL)
      for id in 1...rows {
        let id = Int64(id)
        sqlite3_bind_int64(statement, 1, id)
        sqlite3_bind_int64(statement, 2, id * 2)
        sqlite3_bind_int64(statement, 3, id * 3)
        sqlite3_bind_int64(statement, 4, id % 1000)
        try check(handle, sqlite3_step(statement), SQLITE_DONE)
        sqlite3_reset(statement)
      }
      sqlite3_finalize(statement)
      try check(handle, sqlite3_exec(handle, "COMMIT", nil, nil, nil))
    }
    end = nowNanoseconds()
  }
  return ["rows": rows, "nanoseconds": end - begin]
}

/// Makes a fixture file (untimed): `readers` or `size --rows N`, in WAL mode for the readers.
func prepare() throws -> [String: Any] {
  let db = try Database(path: arguments.string("path"))
  switch arguments.string("fixture") {
  case "readers":
    _ = try db.prepare(sql: "PRAGMA journal_mode = WAL").front(String.self)
    for sql in readersFixtureSQL { try db.execute(sql: sql) }
  default:
    for sql in sizeFixtureSQL(rows: arguments.int("rows")) { try db.execute(sql: sql) }
  }
  return [:]
}

do {
  switch arguments.curve {
  case "readers": printPoint(try await readers())
  case "fetch": printPoint(try fetch())
  case "insert": printPoint(try insert())
  case "prepare": printPoint(try prepare())
  default: scaleFail("unknown curve '\(arguments.curve)'")
  }
} catch {
  scaleFail("\(arguments.curve): \(error)")
}
