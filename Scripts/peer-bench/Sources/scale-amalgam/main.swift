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

let contender = CommandLine.arguments.dropFirst().first ?? ""
guard contender == "amalgam" || contender == "c" else {
  scaleFail("usage: scale-amalgam amalgam|c CURVE --name value ...")
}
nonisolated(unsafe) let arguments = ScaleArguments(Array(CommandLine.arguments.dropFirst(2)))

func check(_ handle: OpaquePointer, _ rc: Int32, _ expected: Int32 = SQLITE_OK) throws {
  if rc != expected { throw ScaleFailure(String(cString: sqlite3_errmsg(handle))) }
}

/// Opens `path` with the C API (on Amalgam's SQLite).
func openC(_ path: String) throws -> OpaquePointer {
  var handle: OpaquePointer?
  let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
  guard rc == SQLITE_OK, let handle else { throw ScaleFailure("cannot open \(path): \(rc)") }
  return handle
}

func prepareC(_ handle: OpaquePointer, _ sql: String) throws -> OpaquePointer {
  var statement: OpaquePointer?
  try check(handle, sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil))
  guard let statement else { throw ScaleFailure("no statement") }
  return statement
}

/// The readers curve: `tasks` tasks reading by primary key for `seconds`, and optionally one writer
/// committing every 10 ms, on a DatabasePool.
func readers() async throws -> [String: Any] {
  let kind: TransactionType =
    arguments.has("transaction") && arguments.string("transaction") == "immediate"
    ? .immediate : .deferred
  let pool = try DatabasePool(path: arguments.string("path"))
  defer { try? pool.close() }
  return try await measureReaders(
    tasks: arguments.int("tasks"), seconds: arguments.double("seconds"), withWriter: arguments.int("writer") != 0,
    readerCount: pool.configuration.maximumReaderCount,
    read: { key in try await pool.read { db in try db.fetchOne(Int.self, sql: readersSelectSQL, arguments: [key]) } },
    write: { key in
      // `pool.transaction(kind) { ... }`, written out to time the part spent in SQLite apart.
      try await pool.write { (db: Database) -> (closureStart: UInt64, closureEnd: UInt64) in
        let start = nowNanoseconds()
        try db.transaction(kind) { db in try db.execute(sql: readersUpdateSQL, arguments: [key]) }
        return (start, nowNanoseconds())
      }
    })
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

/// The observers curve: `count` observations of other tables (and, with `written`, one of the written
/// table) on a DatabaseQueue, then `commits` single-row commits to the written table, each awaited, and
/// with `written` each followed by the delivery of its value.
func observers() async throws -> [String: Any] {
  let queue = try DatabaseQueue(path: arguments.string("path"))
  defer { try? queue.close() }
  try queue.sync { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
  return try await measureObservers(
    count: arguments.int("count"), written: arguments.int("written") != 0, commits: arguments.int("commits"),
    observe: { sql in queue.observe { db in try db.fetchOne(Int.self, sql: sql) }.makeAsyncIterator() },
    write: { value in
      try await queue.write { db in
        try db.transaction { db in try db.execute(sql: writtenUpdateSQL, arguments: [value]) }
      }
    })
}

/// The C API's file callbacks for the streaming changeset functions: the context is a `FILE*`.
let writeToFile: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int32) -> Int32 = { file, data, count in
  guard let file, count > 0 else { return SQLITE_OK }
  return fwrite(data, 1, Int(count), file.assumingMemoryBound(to: FILE.self)) == Int(count) ? SQLITE_OK : SQLITE_IOERR
}
let readFromFile:
  @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> Int32 = {
    file, data, count in
    guard let file, let count else { return SQLITE_MISUSE }
    count.pointee = Int32(fread(data, 1, Int(count.pointee), file.assumingMemoryBound(to: FILE.self)))
    return SQLITE_OK
  }
let abortOnConflict: @convention(c) (UnsafeMutableRawPointer?, Int32, OpaquePointer?) -> Int32 = { _, _, _ in
  SQLITE_CHANGESET_ABORT
}

func openFile(_ path: String, _ mode: String) throws -> UnsafeMutablePointer<FILE> {
  guard let file = fopen(path, mode) else { throw ScaleFailure("cannot open \(path)") }
  return file
}

/// The changesets curve, recording: a session attached to the table while one transaction makes
/// `changes` changes (updates half of them, inserts the other half), then the changeset produced into
/// `file`, whole in memory (`--mode memory`) or streamed (`--mode stream`). Times and memory of each phase.
func changesetRecord() throws -> [String: Any] {
  let path = arguments.string("path")
  let file = arguments.string("file")
  let changes = arguments.int("changes")
  let stream = arguments.string("mode") == "stream"
  let half = changes / 2
  var result: [String: Any] = ["changes": changes]
  if contender == "amalgam" {
    let db = try Database(path: path)
    let update = try db.prepare(sql: changesetUpdateSQL)
    let insert = try db.prepare(sql: changesetInsertSQL)
    let baseline = maxResidentBytes()
    let recordStart = nowNanoseconds()
    let session = try Session(database: db)
    try session.attach("chg")
    try db.transaction { _ in
      for id in 1...half {
        try update.bind(value: id, toParameter: 1).execute()
        try insert.bind(value: half + id, toParameter: 1).execute()
      }
    }
    result["recordNanoseconds"] = nowNanoseconds() - recordStart
    result["recordPeakBytes"] = maxResidentBytes() - baseline
    result["sessionBytes"] = session.memoryUsed
    let beforeProduce = max(maxResidentBytes(), currentResidentBytes())
    let produceStart = nowNanoseconds()
    if stream {
      try session.writeChangeset(to: ChangesetStreams.writing(toFile: file))
    } else {
      try session.changeset().write(toFile: file)
    }
    result["produceNanoseconds"] = nowNanoseconds() - produceStart
    result["producePeakBytes"] = max(0, maxResidentBytes() - beforeProduce)
    result["checksum"] = try db.prepare(sql: changesetChecksumSQL).front(Int.self) ?? 0
  } else {
    let handle = try openC(path)
    defer { sqlite3_close_v2(handle) }
    let update = try prepareC(handle, changesetUpdateSQL)
    let insert = try prepareC(handle, changesetInsertSQL)
    defer {
      sqlite3_finalize(update)
      sqlite3_finalize(insert)
    }
    let baseline = maxResidentBytes()
    let recordStart = nowNanoseconds()
    var session: OpaquePointer?
    try check(handle, sqlite3session_create(handle, "main", &session))
    defer { sqlite3session_delete(session) }
    try check(handle, sqlite3session_attach(session, "chg"))
    try check(handle, sqlite3_exec(handle, "BEGIN", nil, nil, nil))
    for id in 1...half {
      sqlite3_bind_int64(update, 1, Int64(id))
      try check(handle, sqlite3_step(update), SQLITE_DONE)
      sqlite3_reset(update)
      sqlite3_bind_int64(insert, 1, Int64(half + id))
      try check(handle, sqlite3_step(insert), SQLITE_DONE)
      sqlite3_reset(insert)
    }
    try check(handle, sqlite3_exec(handle, "COMMIT", nil, nil, nil))
    result["recordNanoseconds"] = nowNanoseconds() - recordStart
    result["recordPeakBytes"] = maxResidentBytes() - baseline
    result["sessionBytes"] = Int(sqlite3session_memory_used(session))
    let beforeProduce = max(maxResidentBytes(), currentResidentBytes())
    let produceStart = nowNanoseconds()
    let output = try openFile(file, "wb")
    if stream {
      try check(handle, sqlite3session_changeset_strm(session, writeToFile, output))
    } else {
      var size: Int32 = 0
      var bytes: UnsafeMutableRawPointer?
      try check(handle, sqlite3session_changeset(session, &size, &bytes))
      let written = fwrite(bytes, 1, Int(size), output)
      sqlite3_free(bytes)
      if written != Int(size) { throw ScaleFailure("cannot write \(file)") }
    }
    fclose(output)
    result["produceNanoseconds"] = nowNanoseconds() - produceStart
    result["producePeakBytes"] = max(0, maxResidentBytes() - beforeProduce)
    let checksum = try prepareC(handle, changesetChecksumSQL)
    defer { sqlite3_finalize(checksum) }
    try check(handle, sqlite3_step(checksum), SQLITE_ROW)
    result["checksum"] = Int(sqlite3_column_int64(checksum, 0))
  }
  result["changesetBytes"] = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
  return result
}

/// The changesets curve, applying `file` to a copy of the database it was recorded from: read whole into
/// memory (`--mode memory`) or streamed from the file (`--mode stream`), aborting on a conflict.
func changesetApply() throws -> [String: Any] {
  let path = arguments.string("path")
  let file = arguments.string("file")
  let stream = arguments.string("mode") == "stream"
  var result: [String: Any] = ["changes": arguments.int("changes")]
  if contender == "amalgam" {
    let db = try Database(path: path)
    let baseline = maxResidentBytes()
    let start = nowNanoseconds()
    if stream {
      try db.applyChangeset(from: ChangesetStreams.reading(fromFile: file))
    } else {
      try db.apply(Changeset(contentsOfFile: file))
    }
    result["applyNanoseconds"] = nowNanoseconds() - start
    result["applyPeakBytes"] = maxResidentBytes() - baseline
    result["checksum"] = try db.prepare(sql: changesetChecksumSQL).front(Int.self) ?? 0
  } else {
    let handle = try openC(path)
    defer { sqlite3_close_v2(handle) }
    let baseline = maxResidentBytes()
    let start = nowNanoseconds()
    let input = try openFile(file, "rb")
    if stream {
      try check(
        handle,
        sqlite3changeset_apply_v2_strm(handle, readFromFile, input, nil, abortOnConflict, nil, nil, nil, 0))
    } else {
      fseek(input, 0, SEEK_END)
      let size = ftell(input)
      fseek(input, 0, SEEK_SET)
      let bytes = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 8)
      defer { bytes.deallocate() }
      guard fread(bytes, 1, size, input) == size else { throw ScaleFailure("cannot read \(file)") }
      try check(
        handle, sqlite3changeset_apply_v2(handle, Int32(size), bytes, nil, abortOnConflict, nil, nil, nil, 0))
    }
    fclose(input)
    result["applyNanoseconds"] = nowNanoseconds() - start
    result["applyPeakBytes"] = maxResidentBytes() - baseline
    let checksum = try prepareC(handle, changesetChecksumSQL)
    defer { sqlite3_finalize(checksum) }
    try check(handle, sqlite3_step(checksum), SQLITE_ROW)
    result["checksum"] = Int(sqlite3_column_int64(checksum, 0))
  }
  return result
}

#if ENCRYPTION
  /// Waits until `count` threads have arrived (or 60 seconds went by).
  final class Barrier: @unchecked Sendable {
    // @unchecked Sendable: `arrived` is guarded by `condition`.
    private let condition = NSCondition()
    private var arrived = 0
    private let count: Int
    init(count: Int) { self.count = count }
    func arriveAndWait() {
      condition.lock()
      defer { condition.unlock() }
      arrived += 1
      if arrived >= count { condition.broadcast() }
      let deadline = Date().addingTimeInterval(60)
      while arrived < count && condition.wait(until: deadline) {}
    }
  }

  /// The encrypted-pool curve: opens a DatabasePool of `readers` readers on `path`, keyed with the
  /// passphrase `key` (or not: `--key none`), then has every reader make its first read at once (each
  /// read waits for the others, so that each runs on a reader of its own). Times the open and each
  /// reader's first read, from the end of the open.
  func encryptedPool() async throws -> [String: Any] {
    let readers = arguments.int("readers")
    let passphrase = arguments.string("key")
    var configuration = Configuration()
    configuration.maximumReaderCount = readers
    if passphrase != "none" { configuration.key = .passphrase(passphrase) }
    let cpuStart = cpuSeconds()
    let start = nowNanoseconds()
    let pool = try DatabasePool(path: arguments.string("path"), configuration: configuration)
    defer { try? pool.close() }
    let opened = nowNanoseconds()
    let barrier = Barrier(count: readers)
    var firstReads: [UInt64] = try await withThrowingTaskGroup(of: UInt64.self) { group in
      for _ in 0..<readers {
        group.addTask {
          try await pool.read { db in
            guard try db.fetchOne(Int.self, sql: "SELECT count(*) FROM kv") == readersKeyCount else {
              throw ScaleFailure("wrong row count")
            }
            let done = nowNanoseconds() - opened
            barrier.arriveAndWait()
            return done
          }
        }
      }
      var times: [UInt64] = []
      for try await time in group { times.append(time) }
      return times
    }
    let cpu = cpuSeconds() - cpuStart
    return [
      "keyed": passphrase != "none", "readers": readers, "openNanoseconds": opened - start,
      "firstReadMedianNanoseconds": percentile(&firstReads, 0.5),
      "firstReadMaxNanoseconds": percentile(&firstReads, 1), "cpuNanoseconds": cpu * 1e9,
    ]
  }
#endif

/// Makes a fixture file (untimed): `readers` or `size --rows N`, in WAL mode for the readers.
func prepare() throws -> [String: Any] {
  var options = Database.OpenOptions()
  #if ENCRYPTION
    if arguments.has("key") { options.key = .passphrase(arguments.string("key")) }
  #endif
  let db = try Database(path: arguments.string("path"), options: options)
  switch arguments.string("fixture") {
  case "readers":
    _ = try db.prepare(sql: "PRAGMA journal_mode = WAL").front(String.self)
    for sql in readersFixtureSQL { try db.execute(sql: sql) }
  case "observers":
    _ = try db.prepare(sql: "PRAGMA journal_mode = WAL").front(String.self)
    try db.transaction { db in
      for sql in observersFixtureSQL(count: arguments.int("count")) { try db.execute(sql: sql) }
    }
  case "changesets":
    for sql in changesetFixtureSQL(changes: arguments.int("changes")) { try db.execute(sql: sql) }
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
  case "observers": printPoint(try await observers())
  case "changeset-record": printPoint(try changesetRecord())
  case "changeset-apply": printPoint(try changesetApply())
  case "encrypted-pool":
    #if ENCRYPTION
      printPoint(try await encryptedPool())
    #else
      scaleFail("encrypted-pool needs a build with --traits ENCRYPTION")
    #endif
  default: scaleFail("unknown curve '\(arguments.curve)'")
  }
} catch {
  scaleFail("\(arguments.curve): \(error)")
}
