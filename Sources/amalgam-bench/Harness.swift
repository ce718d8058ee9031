import Amalgam
import AmalgamSQLite
import Dispatch

/// One benchmark workload: the same job done through SQLite's C API and through Amalgam's API, on the
/// same connection, each returning a checksum of what it read or wrote so the two can be compared and
/// nothing can be optimised away.
struct Workload {
  let number: Int
  let name: String
  /// The highest acceptable ratio of Amalgam's median to C's median.
  let target: Double
  /// Runs before each timed run, untimed (for example, emptying the table an insert fills).
  var prepareRun: (Database) throws -> Void = { _ in }
  /// Runs after each run of either side, untimed and uncounted, and returns a checksum of what the run
  /// left in the database (for example, a sum over the rows an insert wrote), added to the run's own.
  /// Writes are checked here rather than inside the run, so that the scan does not dilute the ratio.
  var verifyRun: (Database) throws -> Int = { _ in 0 }
  let c: (OpaquePointer) throws -> Int
  let amalgam: (Database) throws -> Int
}

/// The timings of one workload.
struct Measurement {
  let workload: Workload
  var cNanoseconds: [UInt64] = []
  var amalgamNanoseconds: [UInt64] = []
  var checksum = 0

  static func median(_ values: [UInt64]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? Double(sorted[middle]) : Double(sorted[middle - 1] + sorted[middle]) / 2
  }

  var cMedian: Double { Self.median(cNanoseconds) }
  var amalgamMedian: Double { Self.median(amalgamNanoseconds) }
  var cMinimum: Double { Double(cNanoseconds.min() ?? 0) }
  var amalgamMinimum: Double { Double(amalgamNanoseconds.min() ?? 0) }
  var ratio: Double { cMedian > 0 ? amalgamMedian / cMedian : 0 }
  var meetsTarget: Bool { ratio <= workload.target }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
  let description: String
}

/// Runs `workload` `repetitions` times each way, alternating C and Amalgam, after one untimed warm-up of each.
func measure(_ workload: Workload, database: Database, repetitions: Int) throws -> Measurement {
  var measurement = Measurement(workload: workload)
  let handle = try database.sqliteHandle
  func time(_ body: () throws -> Int) throws -> (UInt64, Int) {
    try workload.prepareRun(database)
    let start = DispatchTime.now().uptimeNanoseconds
    let checksum = try body()
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    return (elapsed, try checksum &+ workload.verifyRun(database))
  }
  // Warm-up: page cache, statement cache, lazily built lookup tables.
  let (_, expected) = try time { try runCSide(workload, handle) }
  let (_, warmAmalgam) = try time { try runAmalgamSide(workload, database) }
  guard warmAmalgam == expected else {
    throw BenchmarkFailure(
      description: "workload \(workload.number): Amalgam checksum \(warmAmalgam) != C checksum \(expected)")
  }
  for repetition in 0..<repetitions {
    // Alternate which side goes first so drift in machine load hits both.
    let order = repetition % 2 == 0 ? [true, false] : [false, true]
    for runC in order {
      let (elapsed, checksum) =
        try runC ? time { try runCSide(workload, handle) } : time { try runAmalgamSide(workload, database) }
      guard checksum == expected else {
        throw BenchmarkFailure(
          description: "workload \(workload.number) (\(runC ? "C" : "Amalgam")): checksum \(checksum) != \(expected)")
      }
      if runC { measurement.cNanoseconds.append(elapsed) } else { measurement.amalgamNanoseconds.append(elapsed) }
    }
  }
  measurement.checksum = expected
  return measurement
}

/// Runs a workload's C side. Never inlined, so that a profiler can count exactly this side:
/// `Scripts/bench-instructions` has callgrind collect inside this function only.
@inline(never)
func runCSide(_ workload: Workload, _ handle: OpaquePointer) throws -> Int {
  try workload.c(handle)
}

/// Runs a workload's Amalgam side; never inlined, like ``runCSide(_:_:)``.
@inline(never)
func runAmalgamSide(_ workload: Workload, _ database: Database) throws -> Int {
  try workload.amalgam(database)
}

/// Throws SQLite's error for a failed C call.
@inline(__always)
func checkC(_ rc: Int32, _ handle: OpaquePointer, _ expected: Int32 = SQLITE_OK) throws {
  if rc != expected {
    throw BenchmarkFailure(description: "SQLite C API error \(rc): \(String(cString: sqlite3_errmsg(handle)))")
  }
}

/// Prepares `sql` with the C API.
func prepareC(_ handle: OpaquePointer, _ sql: String) throws -> OpaquePointer {
  var statement: OpaquePointer?
  try checkC(sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil), handle)
  guard let statement else { throw BenchmarkFailure(description: "no statement in \(sql)") }
  return statement
}
