// Workloads 24 and 25: what observation costs the writer. Both sides run on a DatabaseQueue in memory;
// the "C" column is the same work on a queue that nothing observes, the "Amalgam" column on a queue
// with observations running, so the ratio is the cost of observing.
import Amalgam
import Foundation

/// A queue, and the observations kept running on it (their iterators keep them alive).
final class ObservedQueue {
  let queue: DatabaseQueue
  var iterators: [ValueObservation<Int>.AsyncIterator] = []

  init(schema: String) throws {
    queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
  }

  /// Starts an observation of `table` (region declared, so that it is indexed at once).
  func observe(_ table: String) {
    let observation = queue.observe { db in
      try db.prepare(sql: "SELECT count(*) FROM \(table) WHERE rowid = 1").front(Int.self) ?? 0
    }.tracking(DatabaseRegion(tables: [table]))
    iterators.append(observation.makeAsyncIterator())
  }
}

private let otherTableCount = 1_000
private let singleWriteCount = 10_000
private let bulkInsertCount = 100_000

private let writesSchema =
  "CREATE TABLE written(id INTEGER PRIMARY KEY, v INTEGER);"
  + (0..<otherTableCount).map { "CREATE TABLE other\($0)(id INTEGER PRIMARY KEY);" }.joined()

/// Workload 24's queues: one unobserved, one with 1,000 observations of other tables. Unchecked: the
/// benchmark runs on one thread.
nonisolated(unsafe) private let singleWrites: (plain: ObservedQueue, observed: ObservedQueue)? = {
  guard let plain = try? ObservedQueue(schema: writesSchema),
    let observed = try? ObservedQueue(schema: writesSchema)
  else { return nil }
  for table in 0..<otherTableCount { observed.observe("other\(table)") }
  return (plain, observed)
}()

/// Workload 25's queues: one unobserved, one observing the table it fills.
nonisolated(unsafe) private let bulkInserts: (plain: ObservedQueue, observed: ObservedQueue)? = {
  let schema = "CREATE TABLE bulk(id INTEGER PRIMARY KEY, a INTEGER, b TEXT);"
  guard let plain = try? ObservedQueue(schema: schema), let observed = try? ObservedQueue(schema: schema) else {
    return nil
  }
  observed.observe("bulk")
  return (plain, observed)
}()

private func queues(
  _ pair: (plain: ObservedQueue, observed: ObservedQueue)?
) throws -> (plain: ObservedQueue, observed: ObservedQueue) {
  guard let pair else { throw BenchmarkFailure(description: "could not open the observation workloads' queues") }
  return pair
}

/// 10,000 single-row write transactions, each through `sync`.
private func singleWriteTransactions(_ queue: DatabaseQueue) throws -> Int {
  for index in 0..<singleWriteCount {
    try queue.sync { db in
      try db.cachedStatement(sql: "INSERT INTO written(v) VALUES (?)").bind(value: index, toParameter: 1).execute()
    }
  }
  return try queue.sync { db in try db.prepare(sql: "SELECT sum(v) FROM written").front(Int.self) ?? 0 }
}

/// 100,000 inserts in one transaction.
private func bulkInsert(_ queue: DatabaseQueue) throws -> Int {
  try queue.sync { db in
    try db.transaction { db in
      let insert = try db.prepare(sql: "INSERT INTO bulk(a, b) VALUES (?, ?)")
      for index in 0..<bulkInsertCount { try insert.bind(index, "row").execute() }
    }
  }
  return try queue.sync { db in try db.prepare(sql: "SELECT sum(a) FROM bulk").front(Int.self) ?? 0 }
}

func observationWorkloads() -> [Workload] {
  [
    Workload(
      number: 24, name: "observation: 10k single-row commits, 1,000 observations of other tables (ratio to none)",
      target: 1.05,
      prepareRun: { _ in
        // Untimed: while observed, a DELETE goes row by row (see ChangeTracker), which is not what is measured.
        for side in try [queues(singleWrites).plain, queues(singleWrites).observed] {
          try side.queue.sync { db in try db.execute(sql: "DELETE FROM written") }
        }
      },
      c: { _ in try singleWriteTransactions(queues(singleWrites).plain.queue) },
      amalgam: { _ in try singleWriteTransactions(queues(singleWrites).observed.queue) }),
    Workload(
      number: 25, name: "observation: 100k inserts in one transaction into an observed table (ratio to none)",
      target: 1.10,
      prepareRun: { _ in
        for side in try [queues(bulkInserts).plain, queues(bulkInserts).observed] {
          try side.queue.sync { db in try db.execute(sql: "DELETE FROM bulk") }
        }
      },
      c: { _ in try bulkInsert(queues(bulkInserts).plain.queue) },
      amalgam: { _ in try bulkInsert(queues(bulkInserts).observed.queue) }),
  ]
}

/// `--observation-latency`: the time from a commit to the observation's value for it, median and 90th
/// percentile over `commits` commits, each waiting for its value: on a pool, for a commit of the pool's
/// own writer, and for a commit of another connection to the same file (seen by polling
/// `PRAGMA data_version`, as another process's commit is).
func measureObservationLatency(commits: Int) throws -> String {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-latency-\(getpid())")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path = directory.appendingPathComponent("latency.db").path
  let pool = try DatabasePool(path: path)
  try pool.sync { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)") }
  let other = try DatabaseQueue(path: path)
  let latest = LatestValue()
  let observation = pool.observe { db in try db.prepare(sql: "SELECT max(v) FROM t").front(Int.self) ?? 0 }
  let task = Task.detached {
    for try await value in observation { latest.set(value) }
  }
  defer { task.cancel() }
  guard latest.wait(for: 0) != nil else { throw BenchmarkFailure(description: "no first value") }
  /// `write` commits its value and returns the time just before the commit.
  func run(_ write: (Int) throws -> UInt64, base: Int) throws -> [Double] {
    var latencies: [Double] = []
    for index in 1...commits {
      let value = base + index
      let start = try write(value)
      guard let end = latest.wait(for: value) else {
        throw BenchmarkFailure(description: "no value for commit \(value)")
      }
      latencies.append(Double(end - start) / 1e6)
    }
    return latencies.sorted()
  }
  let own = try run(
    { value in
      let start = DispatchTime.now().uptimeNanoseconds
      try pool.sync { db in try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [value]) }
      return start
    },
    base: 0)
  // Another connection commits at a random moment of the poll period, as an independent writer would.
  let foreign = try run(
    { value in
      usleep(UInt32.random(in: 0..<200_000))
      let start = DispatchTime.now().uptimeNanoseconds
      try other.sync { db in try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [value]) }
      return start
    },
    base: commits)
  func summary(_ values: [Double]) -> String {
    String(format: "median %.2f ms, 90th percentile %.2f ms", values[values.count / 2], values[values.count * 9 / 10])
  }
  return """
    commit-to-value latency over \(commits) commits (pool, one observed table, poll interval 200 ms):
      the pool's own commits:          \(summary(own))
      another connection's commits:    \(summary(foreign))
    """
}

/// The latest value an observation delivered, and the time it arrived.
final class LatestValue: @unchecked Sendable {
  // @unchecked Sendable: `value` and `time` are guarded by `condition`.
  private let condition = NSCondition()
  private var value = -1
  private var time: UInt64 = 0

  func set(_ newValue: Int) {
    condition.lock()
    value = newValue
    time = DispatchTime.now().uptimeNanoseconds
    condition.broadcast()
    condition.unlock()
  }

  /// Waits up to 5 s for `expected` and returns when it arrived.
  func wait(for expected: Int) -> UInt64? {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date().addingTimeInterval(5)
    while value < expected {
      if !condition.wait(until: deadline) { return nil }
    }
    return time
  }
}
