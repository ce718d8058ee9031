// What every contender shares: the workloads' numbers and names, the fixture's SQL (plain SQL that
// Debian's older SQLite runs too), and the run: warm-up, timed runs, one line of output.
import Foundation

public let fetchRowCount = 100_000
public let insertRowCount = 20_000
public let recordLoopCount = 10_000
public let cacheExecutionCount = 50_000
public let cacheSQL = [
  "SELECT v FROM kv WHERE k = ?", "SELECT count(*) FROM kv WHERE k < ?", "SELECT max(v) FROM kv WHERE k <= ?",
]
public let insertSQL = "INSERT INTO inserted VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
public let namedInsertSQL = "INSERT INTO inserted VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)"

/// The fixture, one statement per element: the same rows as amalgam-bench's, made by recursive CTEs.
public let fixtureSQL: [String] = [
  """
  CREATE TABLE items(i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER,
                     i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)
  """,
  """
  CREATE TABLE inserted(i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER,
                        i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)
  """,
  "CREATE TABLE documents(title TEXT, payload BLOB)",
  "CREATE TABLE kv(k INTEGER PRIMARY KEY, v INTEGER)",
  "CREATE TABLE record(id INTEGER PRIMARY KEY, name TEXT, score INTEGER)",
  """
  WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < \(fetchRowCount - 1))
  INSERT INTO items SELECT x * 10, x * 10 + 1, x * 10 + 2, x * 10 + 3, x * 10 + 4,
                           x * 10 + 5, x * 10 + 6, x * 10 + 7, x * 10 + 8, x * 10 + 9 FROM c
  """,
  """
  WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < \(fetchRowCount - 1))
  INSERT INTO documents SELECT printf('%06d', x) || 'abcdefghijabcdefghijabcd',
                               CAST(printf('%064d', x * 7) AS BLOB) FROM c
  """,
  """
  WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100)
  INSERT INTO kv SELECT x, x * 2 FROM c
  """,
]

/// Runs before each run, untimed: the tables the insert workloads fill start empty.
public let resetSQL = ["DELETE FROM inserted", "DELETE FROM record"]

/// The checksum of what an insert workload wrote, read after the run (untimed).
public let insertedChecksumSQL =
  "SELECT CAST(total(i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9) AS INTEGER) + count(*) FROM inserted"

/// The body of one run, never inlined, so that `peer-bench --instructions` has callgrind count exactly it.
@inline(never)
public func peerMeasured(_ body: () throws -> Int) rethrows -> Int {
  try body()
}

/// Runs a contender's command line, `--workload N [--repetitions R]` (in `arguments`): resets, runs the
/// workload once untimed, then `R` times timed, and prints its checksum and median nanoseconds.
public func runContender(
  arguments: [String], reset: () throws -> Void, verify: (Int) throws -> Int,
  workload: (Int) -> (() throws -> Int)?
) -> Never {
  var arguments = arguments[...]
  var number: Int?
  var repetitions = 1
  while let argument = arguments.popFirst() {
    switch argument {
    case "--workload": number = arguments.popFirst().flatMap { Int($0) }
    case "--repetitions": repetitions = arguments.popFirst().flatMap { Int($0) } ?? 0
    default: number = nil
    }
  }
  guard let number, repetitions > 0, let body = workload(number) else {
    FileHandle.standardError.write(Data("usage: \(CommandLine.arguments[0]) --workload N [--repetitions R]\n".utf8))
    exit(2)
  }
  do {
    try reset()
    let expected = try verify(body())  // warm-up
    var times: [UInt64] = []
    for _ in 0..<repetitions {
      try reset()
      let start = DispatchTime.now().uptimeNanoseconds
      let checksum = try peerMeasured(body)
      times.append(DispatchTime.now().uptimeNanoseconds - start)
      guard try verify(checksum) == expected else {
        FileHandle.standardError.write(Data("workload \(number): checksum changed between runs\n".utf8))
        exit(1)
      }
    }
    times.sort()
    print("\(expected) \(times[times.count / 2])")
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("workload \(number): \(error)\n".utf8))
    exit(1)
  }
}
