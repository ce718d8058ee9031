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
  try queue.sync { db in try db.execute(sql: "DELETE FROM written") }
  for index in 0..<singleWriteCount {
    try queue.sync { db in
      try db.cachedStatement(sql: "INSERT INTO written(v) VALUES (?)").bind(value: index, toParameter: 1).execute()
    }
  }
  return try queue.sync { db in try db.prepare(sql: "SELECT sum(v) FROM written").front(Int.self) ?? 0 }
}

/// 100,000 inserts in one transaction.
private func bulkInsert(_ queue: DatabaseQueue) throws -> Int {
  try queue.sync { db in try db.execute(sql: "DELETE FROM bulk") }
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
      c: { _ in try singleWriteTransactions(queues(singleWrites).plain.queue) },
      amalgam: { _ in try singleWriteTransactions(queues(singleWrites).observed.queue) }),
    Workload(
      number: 25, name: "observation: 100k inserts in one transaction into an observed table (ratio to none)",
      target: 1.10,
      c: { _ in try bulkInsert(queues(bulkInserts).plain.queue) },
      amalgam: { _ in try bulkInsert(queues(bulkInserts).observed.queue) }),
  ]
}
