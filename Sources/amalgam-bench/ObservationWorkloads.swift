// Workloads 24, 25, 29 and 30: what observation costs. Every side runs on a DatabaseQueue in memory; the
// "C" column is the same work on a queue that nothing observes, the "Amalgam" column on a queue with
// observations running, each consumed by a task of its own, so the ratio is the cost of observing. A
// run ends once the observations delivered their value for its last commit, and
// `Scripts/bench-instructions` counts every thread (the queries run on the queue's thread, the values
// reach their consumers on the cooperative pool's).
import Amalgam
import Foundation

/// A queue, and the observations kept running on it, each consumed by a task of its own.
final class ObservedQueue {
  let queue: DatabaseQueue
  private var consumers: [Task<Void, Never>] = []
  /// The last value delivered by the observation started with ``observeValue(_:)``.
  let latest = LatestValue()
  /// How many observations delivered their first value.
  let started = LatestValue()

  init(schema: String) throws {
    queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
  }

  deinit {
    for consumer in consumers { consumer.cancel() }
  }

  /// Starts an observation of `table` (region declared, so that it is indexed at once).
  func observe(_ table: String) {
    consume(
      queue.observe { db in
        try db.prepare(sql: "SELECT count(*) FROM \(table) WHERE rowid = 1").front(Int.self) ?? 0
      }.tracking(DatabaseRegion(tables: [table])), into: nil)
  }

  /// Starts an observation of `sql`'s integer (region recorded, duplicates removed), whose values go to
  /// ``latest``.
  func observeValue(_ sql: String) {
    consume(
      queue.observe { db in try db.prepare(sql: sql).front(Int.self) ?? 0 }.removingDuplicates(), into: latest)
  }

  private func consume(_ observation: ValueObservation<Int>, into latest: LatestValue?) {
    let started = started
    consumers.append(
      Task.detached {
        do {
          var isFirst = true
          for try await value in observation {
            latest?.set(value)
            if isFirst { started.increment() }
            isFirst = false
          }
        } catch {
          FileHandle.standardError.write(Data("amalgam-bench: observation failed: \(error)\n".utf8))
        }
      })
  }

  /// Waits until the observation of ``observeValue(_:)`` delivered `value`.
  func waitForValue(_ value: Int) throws {
    guard latest.wait(forExactly: value, seconds: 600) else {
      throw BenchmarkFailure(description: "the observation delivered no \(value)")
    }
  }
}

private let otherTableCount = 1_000
private let singleWriteCount = 10_000
private let bulkInsertCount = 100_000

private let oneTableSchema = "CREATE TABLE written(id INTEGER PRIMARY KEY, v INTEGER);"
private let writesSchema =
  oneTableSchema + (0..<otherTableCount).map { "CREATE TABLE other\($0)(id INTEGER PRIMARY KEY);" }.joined()

/// An unobserved queue and an observed one with the same schema. Unchecked: the benchmark's own code
/// runs on one thread.
private typealias QueuePair = (plain: ObservedQueue, observed: ObservedQueue)

private func makePair(schema: String, observe: (ObservedQueue) -> Void) -> QueuePair? {
  guard let plain = try? ObservedQueue(schema: schema), let observed = try? ObservedQueue(schema: schema) else {
    return nil
  }
  observe(observed)
  return (plain, observed)
}

/// Workload 24's queues: the observed one has 1,000 observations of other tables, which ran their first
/// query before anything is counted.
nonisolated(unsafe) private let singleWrites = makePair(schema: writesSchema) { observed in
  for table in 0..<otherTableCount { observed.observe("other\(table)") }
  _ = observed.started.wait(forExactly: otherTableCount, seconds: 600)
}

/// Workload 25's queues: the observed one observes the table it fills.
nonisolated(unsafe) private let bulkInserts = makePair(
  schema: "CREATE TABLE bulk(id INTEGER PRIMARY KEY, a INTEGER, b TEXT);"
) { observed in observed.observeValue("SELECT count(*) FROM bulk WHERE rowid = 1") }

/// Workload 29's queues: 1,001 tables, one observation of the written one.
nonisolated(unsafe) private let writtenAmongMany = makePair(schema: writesSchema) { observed in
  observed.observeValue("SELECT count(*) FROM written")
}

/// Workload 30's queues: the written table alone, observed once.
nonisolated(unsafe) private let writtenAlone = makePair(schema: oneTableSchema) { observed in
  observed.observeValue("SELECT count(*) FROM written")
}

private func queues(_ pair: QueuePair?) throws -> QueuePair {
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

/// Empties `table` on both queues (untimed: while observed, a DELETE goes row by row, see
/// ChangeTracker) and waits until the observed queue's observation, if any, delivered `emptyValue`.
private func empty(_ table: String, _ pair: QueuePair?, emptyValue: Int?) throws {
  let pair = try queues(pair)
  for side in [pair.plain, pair.observed] {
    try side.queue.sync { db in try db.execute(sql: "DELETE FROM \(table)") }
  }
  if let emptyValue { try pair.observed.waitForValue(emptyValue) }
}

/// One observation of the written table under 10,000 single-row commits, on a queue whose schema is
/// `pair`'s: the run ends once the observation delivered the last count.
private func observedWrites(_ number: Int, _ name: String, _ pair: @autoclosure @escaping () -> QueuePair?)
  -> Workload
{
  Workload(
    number: number, name: name, target: 2.5,
    prepareRun: { _ in try empty("written", pair(), emptyValue: 0) },
    c: { _ in try singleWriteTransactions(queues(pair()).plain.queue) },
    amalgam: { _ in
      let observed = try queues(pair()).observed
      let checksum = try singleWriteTransactions(observed.queue)
      try observed.waitForValue(singleWriteCount)
      return checksum
    })
}

func observationWorkloads() -> [Workload] {
  [
    Workload(
      number: 24, name: "observation: 10k single-row commits, 1,000 observations of other tables (ratio to none)",
      target: 1.05,
      prepareRun: { _ in try empty("written", singleWrites, emptyValue: nil) },
      c: { _ in try singleWriteTransactions(queues(singleWrites).plain.queue) },
      amalgam: { _ in try singleWriteTransactions(queues(singleWrites).observed.queue) }),
    Workload(
      number: 25, name: "observation: 100k inserts in one transaction into an observed table (ratio to none)",
      target: 1.10,
      prepareRun: { _ in try empty("bulk", bulkInserts, emptyValue: 0) },
      c: { _ in try bulkInsert(queues(bulkInserts).plain.queue) },
      amalgam: { _ in
        let observed = try queues(bulkInserts).observed
        let checksum = try bulkInsert(observed.queue)
        try observed.waitForValue(1)
        return checksum
      }),
    observedWrites(
      29, "observation: 10k single-row commits, one observation of the written table, 1,001 tables (ratio to none)",
      writtenAmongMany),
    observedWrites(
      30, "observation: 10k single-row commits, one observation of the written table, 1 table (ratio to none)",
      writtenAlone),
  ]
}

/// `--observation-latency`: the time from a commit to the observation's value for it, median and 90th
/// percentile over `commits` commits, each waiting for its value: on a pool, for a commit of the pool's
/// own writer, and for a commit of another connection to the same file (seen by the watcher's file
/// events, as another process's commit is; `--foreign-commit-latency` measures another process).
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
  // Another connection commits at a random moment, as an independent writer would.
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
    commit-to-value latency over \(commits) commits (pool, one observed table, default configuration):
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

  /// Adds one to the value.
  func increment() {
    condition.lock()
    value = max(value, 0) + 1
    time = DispatchTime.now().uptimeNanoseconds
    condition.broadcast()
    condition.unlock()
  }

  /// Waits up to `seconds` for the value to be `expected`; returns whether it came.
  func wait(forExactly expected: Int, seconds: Double) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date().addingTimeInterval(seconds)
    while value != expected {
      if !condition.wait(until: deadline) { return false }
    }
    return true
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
