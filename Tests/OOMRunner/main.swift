// A test-only program for OutOfMemoryTests: installs an allocator that fails the N-th allocation
// (Tests/AmalgamTestSupport/FailingMalloc.c) before SQLite starts, then runs a script of public Amalgam
// operations on the database file PATH, checking every result.
//
// Usage: amalgam-oom-runner PATH N once|persistent
// N = 0 fails nothing (and counts the script's allocations). With `once` only the N-th allocation fails;
// with `persistent` every allocation from the N-th on fails, until the script has ended and its
// connections are closed. Prints one line and exits 0:
//   completed allocations=A failures=F             the script ran to its end
//     [dense=FIRST-LAST,...]                       the allocations of the steps to run with every N
//   error allocations=A failures=F step=S: ERROR   a step threw (the expected outcome of a failure)
// Exits 3 with `wrong ...` when a step returned a wrong value without throwing, 2 for bad arguments.
// Any crash is a bug: the parent sees the signal.
import Amalgam
import AmalgamSQLite
import AmalgamTestSupport
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let failAt = Int64(arguments[2]), ["once", "persistent"].contains(arguments[3]) else {
  FileHandle.standardError.write(Data("usage: amalgam-oom-runner PATH N once|persistent\n".utf8))
  exit(2)
}
let path = arguments[1]
let persistent = arguments[3] == "persistent"

guard amalgam_failing_malloc_install() == 0 else {  // SQLITE_OK
  FileHandle.standardError.write(Data("amalgam-oom-runner: sqlite3_config(SQLITE_CONFIG_MALLOC) failed\n".utf8))
  exit(2)
}

/// A step returned without an error, but not what it should have.
struct WrongResult: Error, CustomStringConvertible {
  var description: String
}

func expect<T: Equatable>(_ value: T, _ expected: T, _ what: String) throws {
  if value != expected { throw WrongResult(description: "\(what): \(value), expected \(expected)") }
}

/// The longest text of a group.
struct Longest: SQLAggregateFunction {
  var longest = ""
  mutating func step(_ arguments: FunctionArguments) throws {
    let text = try arguments.value(at: 0, as: String.self)
    if text.count > longest.count { longest = text }
  }
  func final() throws -> DatabaseValue { .text(longest) }
}

/// The length in UTF-8 bytes of the longest text of a group, read with the non-throwing reader.
struct LongestText: SQLAggregateFunction {
  var longest = 0
  mutating func step(_ arguments: FunctionArguments) throws {
    longest = max(longest, arguments.text(at: 0)?.utf8.count ?? 0)
  }
  func final() throws -> DatabaseValue { .integer(Int64(longest)) }
}

/// Steps that OutOfMemoryTests runs with every N, not only a sample: sqlite-vec once crashed in them.
let denseSteps: Set<String> = ["vector first insert", "vector search"]
/// The allocations of each dense step, as `FIRST-LAST`, for the `dense=` field of a completed run.
nonisolated(unsafe) var denseRanges: [String] = []
nonisolated(unsafe) var stepStart: Int64 = 0

nonisolated(unsafe) var step = "start" {
  willSet {
    let count = amalgam_failing_malloc_count()
    if denseSteps.contains(step) && newValue != step && count > stepStart {
      denseRanges.append("\(stepStart + 1)-\(count)")
    }
  }
  didSet {
    if step != oldValue { stepStart = amalgam_failing_malloc_count() }
  }
}

/// The script: everyday public operations, each result checked.
func runScript() throws {
  step = "open"
  let db = try Database(path: path)
  step = "journal mode"
  try expect(try db.prepare(sql: "PRAGMA journal_mode = WAL").front(String.self), "wal", "journal mode")
  step = "schema"
  try db.batch(
    sql: """
      CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB);
      CREATE INDEX item_name ON item(name);
      CREATE TABLE total(id INTEGER PRIMARY KEY CHECK (id = 1), amount INTEGER NOT NULL);
      INSERT INTO total VALUES (1, 0);
      """)

  step = "insert in a transaction"
  try db.transaction { db in
    let insert = try db.prepare(sql: "INSERT INTO item(id, name, score, data) VALUES (?, ?, ?, ?)")
    for id in 1...20 {
      try insert.bind(parameterValues: [
        id, "name \(id) " + String(repeating: "x", count: id * 3), Double(id) / 4,
        Data(repeating: UInt8(id), count: id * 10),
      ]).execute()
      try db.execute(sql: "UPDATE total SET amount = amount + ? WHERE id = 1", parameterValues: [id])
    }
  }

  step = "select into Swift values"
  var count = 0
  try db.prepare(sql: "SELECT id, name, score, data FROM item ORDER BY id").results { row in
    count += 1
    let id = try row.value(at: 0, as: Int.self)
    try expect(id, count, "id")
    try expect(try row.value(at: 1, as: String.self), "name \(id) " + String(repeating: "x", count: id * 3), "name")
    try expect(try row.value(at: 2, as: Double.self), Double(id) / 4, "score")
    try expect(try row.value(at: 3, as: Data.self), Data(repeating: UInt8(id), count: id * 10), "data")
    try expect(try row[1], .text("name \(id) " + String(repeating: "x", count: id * 3)), "name as DatabaseValue")
  }
  try expect(count, 20, "row count")

  step = "text converted from numbers"
  try expect(
    try db.prepare(sql: "SELECT group_concat(score, ',') FROM item WHERE id <= 3").front(String.self), "0.25,0.5,0.75",
    "group_concat")
  try expect(
    try db.prepare(sql: "SELECT CAST(id * 1000 AS TEXT) FROM item WHERE id = 7").front(String.self), "7000",
    "number read as text")

  step = "scalar functions"
  try db.addFunction("twice") { (value: Int) in value * 2 }
  try db.addFunction("shout") { (text: String) in text.uppercased() }
  try expect(try db.prepare(sql: "SELECT sum(twice(id)) FROM item").front(Int.self), 420, "twice")
  try expect(
    try db.prepare(sql: "SELECT shout(name) FROM item WHERE id = 2").front(String.self), "NAME 2 XXXXXX", "shout")

  step = "numbers read as text in a function"
  try db.addFunction("digits", arity: 1) { arguments, context in
    let text = arguments.text(at: 0)
    let count = arguments.withUnsafeBytes(at: 0) { $0.count }
    context.setResult(text.map { .integer(Int64($0.count * 100 + count)) } ?? .null)
  }
  // 1000...9000 have 4 digits, 10000...20000 have 5: 9 * 404 + 11 * 505.
  try expect(try db.prepare(sql: "SELECT sum(digits(id * 1000)) FROM item").front(Int.self), 9191, "digits")

  step = "UTF-16 text read as UTF-8"
  // In a UTF-16 database every read of text as UTF-8 converts it, in memory SQLite allocates.
  let utf16 = try Database()
  try utf16.execute(sql: "PRAGMA encoding = 'UTF-16'")
  try utf16.batch(sql: "CREATE TABLE t(x TEXT); INSERT INTO t VALUES (printf('%.*c', 3000, 'a') || 'é');")
  let long = String(repeating: "a", count: 3000) + "é"
  try expect(try utf16.prepare(sql: "SELECT x FROM t").front(String.self), long, "UTF-16 column")
  try expect(try utf16.prepare(sql: "SELECT x FROM t").firstRow(), [.text(long)], "UTF-16 row")

  step = "UTF-16 function arguments"
  // Each reader converts its own argument to UTF-8 (or expands a zero-filled BLOB): when that fails, the
  // non-throwing readers give empty text, and the statement must then fail with SQLITE_NOMEM rather
  // than return a result computed from it.
  try utf16.addFunction("text_length", arity: 1) { arguments, context in
    context.setResult(.integer(Int64(arguments.text(at: 0)?.utf8.count ?? -1)))
  }
  try utf16.addFunction("byte_length", arity: 1) { arguments, context in
    context.setResult(.integer(Int64(arguments.withUnsafeBytes(at: 0) { $0.count })))
  }
  try utf16.addFunction("value_length", arity: 1) { arguments, context in
    guard case .text(let text) = arguments[0] else { return context.setResult(.integer(-1)) }
    context.setResult(.integer(Int64(text.utf8.count)))
  }
  try utf16.addFunction("typed_length") { (text: String) in text.utf8.count }
  // SQLite notes a failed allocation on the connection and fails the statement at its next row, but a
  // statement that the function runs on the same connection clears that note: only the function's own
  // failure then stops the empty text. (`unowned`: the closure is kept by the database.)
  try utf16.addFunction("text_length_after_query", arity: 1) { [unowned utf16] arguments, context in
    let length = arguments.text(at: 0)?.utf8.count ?? -1
    _ = try? utf16.prepare(sql: "SELECT 1").front(Int.self)
    context.setResult(.integer(Int64(length)))
  }
  try utf16.addAggregateFunction("longest", arity: 1, LongestText.self)
  try expect(
    try utf16.prepare(
      sql: "SELECT text_length(x), byte_length(x), value_length(x), typed_length(x), longest(x) FROM t"
    ).firstRow(), [.integer(3002), .integer(3002), .integer(3002), .integer(3002), .integer(3002)],
    "UTF-16 arguments read as UTF-8")
  try expect(
    try utf16.prepare(sql: "SELECT text_length_after_query(x) FROM t").front(Int.self), 3002,
    "UTF-16 argument read before a query")
  // The failed conversion fails the call itself: the statement stops there, and runs no later function
  // (SQLite alone would go on to the end of the row before noticing the failed allocation).
  var laterCalls = 0
  try utf16.addFunction("later", arity: 0) { _, context in
    laterCalls += 1
    context.setResult(.integer(1))
  }
  do {
    try expect(
      try utf16.prepare(sql: "SELECT text_length(x), later() FROM t").firstRow(), [.integer(3002), .integer(1)],
      "a function after a UTF-16 argument")
  } catch let error as SQLiteError where error.code == .noMemory && laterCalls > 0 {
    throw WrongResult(description: "later() ran after the statement's failed conversion")
  }
  try expect(
    try utf16.prepare(sql: "SELECT byte_length(zeroblob(5000)), value_length(CAST(x AS BLOB)) FROM t").firstRow(),
    [.integer(5000), .integer(-1)], "zero-filled BLOB argument")
  try utf16.close()

  step = "aggregate function"
  try db.addAggregateFunction("longest", arity: 1, Longest.self)
  try expect(
    try db.prepare(sql: "SELECT longest(name) FROM item").front(String.self),
    "name 20 " + String(repeating: "x", count: 60), "longest")

  step = "a function that throws"
  struct Refused: Error {}
  try db.addFunction("refuse", arity: 0) { _ in throw Refused() }
  do {
    _ = try db.prepare(sql: "SELECT refuse()").front(Int.self)
    throw WrongResult(description: "refuse() returned")
  } catch is SQLiteError {}

  step = "bad statement"
  do {
    _ = try db.prepare(sql: "SELEKT 1")
    throw WrongResult(description: "SELEKT 1 prepared")
  } catch let error as SQLiteError where error.code == .error {}

  step = "rolled-back transaction"
  struct Abandon: Error {}
  do {
    try db.transaction { db in
      try db.execute(sql: "DELETE FROM item")
      throw Abandon()
    }
  } catch is Abandon {}
  try expect(try db.prepare(sql: "SELECT count(*) FROM item").front(Int.self), 20, "count after rollback")

  step = "serialize"
  let bytes = try db.serialize()
  let copy = try Database()
  try copy.deserialize(bytes)
  try expect(try copy.prepare(sql: "SELECT sum(id) FROM item").front(Int.self), 210, "deserialized sum")

  step = "backup"
  let backup = try Database()
  try db.backup(to: backup)
  try expect(try backup.prepare(sql: "SELECT amount FROM total").front(Int.self), 210, "backed-up total")

  #if ENABLE_FTS5
    step = "FTS5"
    try db.batch(
      sql: """
        CREATE VIRTUAL TABLE doc USING fts5(body);
        INSERT INTO doc(body) VALUES ('an apple a day'), ('apple pie'), ('pear tart');
        """)
    try expect(
      try db.prepare(sql: "SELECT count(*) FROM doc WHERE doc MATCH 'apple'").front(Int.self), 2, "FTS5 matches")
  #endif

  #if VECTOR
    step = "vector table"
    try db.create(vectorTable: "item_embedding") { t in
      t.vector("embedding", dimensions: 8, distance: .cosine)
      t.vector("code", dimensions: 16, elementType: .bit)
      t.metadata("kind", .text)
    }
    let insertVector = try db.prepare(
      sql: "INSERT INTO item_embedding(rowid, embedding, code, kind) VALUES (?, ?, vec_bit(?), ?)")
    for id in 1...20 {
      // The first row makes the table's first chunk.
      step = id == 1 ? "vector first insert" : "vector insert"
      let embedding = Float32Vector((0..<8).map { Float(($0 * 7 + id * 3) % 11) - 5 })
      try insertVector.bind(
        id, embedding, try BitVector(quantizing: embedding.elements + embedding.elements),
        id % 2 == 0 ? "even" : "odd"
      ).execute()
    }
    step = "vector search"
    let query = Float32Vector((0..<8).map { Float(($0 * 7 + 5 * 3) % 11) - 5 })
    let nearest = try db.nearestNeighbors(
      to: query, in: "item_embedding", column: "embedding", k: 3, filter: "kind = 'odd'")
    try expect(nearest.first?.rowid, 5, "nearest vector")
    // The query vector as JSON text, among a set of rowids.
    let json = "[" + query.elements.map { String(Int($0)) }.joined(separator: ",") + "]"
    try expect(
      try db.prepare(
        sql:
          "SELECT rowid FROM item_embedding WHERE embedding MATCH ? AND k = 2 AND rowid IN (2, 5, 9) ORDER BY distance"
      ).bind(parameterValues: [json]).column(0, as: Int.self), [5, 9], "nearest vectors among rowids")
    try expect(
      try db.prepare(sql: "SELECT vec_length(embedding) FROM item_embedding WHERE rowid = 1").front(Int.self), 8,
      "vec_length")
  #endif

  step = "checkpoint"
  _ = try db.checkpoint(.truncate)

  step = "close"
  try copy.close()
  try backup.close()
  try db.close()
}

#if ENCRYPTION
  // SQLite3 Multiple Ciphers 2.4.0 does not check the allocations of its one-time initialisation (its cipher
  // tables: a failed one is written through a NULL pointer in sqlite3mc_initialize, called by the first
  // sqlite3_initialize). Vendor/SQLite3MultipleCiphers/patches fixes what opening a connection does, not
  // that: initialise before the failures are armed, so that the runs test everything after it.
  guard sqlite3_initialize() == SQLITE_OK else {
    FileHandle.standardError.write(Data("amalgam-oom-runner: sqlite3_initialize failed\n".utf8))
    exit(2)
  }
#endif
amalgam_failing_malloc_arm(failAt, persistent ? 1 : 0)
var outcome: String
var status: Int32 = 0
do {
  try runScript()
  outcome = "completed" + (denseRanges.isEmpty ? "" : " dense=" + denseRanges.joined(separator: ","))
} catch let error as WrongResult {
  outcome = "wrong step=\(step): \(error)"
  status = 3
} catch {
  outcome = "error step=\(step): \(error)"
}
// Every connection of the script is closed by now (even after an error), so the last allocations of
// `persistent` failed too. Stop failing before reporting.
let allocations = amalgam_failing_malloc_count()
let failures = amalgam_failing_malloc_failures()
amalgam_failing_malloc_arm(0, 0)
let words = outcome.split(separator: " ", maxSplits: 1)
print("\(words[0]) allocations=\(allocations) failures=\(failures)" + (words.count > 1 ? " \(words[1])" : ""))
exit(status)
