// What the scaling contenders (scale-amalgam, scale-grdb) share: the fixtures' SQL, the measured
// region that callgrind counts, the arguments of one point, and the one JSON line a point prints.
import Foundation

/// The readers curve's table: `readersKeyCount` rows read by primary key.
public let readersKeyCount = 10_000
public let readersFixtureSQL = [
  "CREATE TABLE kv(k INTEGER PRIMARY KEY, v INTEGER NOT NULL)",
  """
  WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(readersKeyCount))
  INSERT INTO kv SELECT x, x * 2 FROM c
  """,
]
public let readersSelectSQL = "SELECT v FROM kv WHERE k = ?"
public let readersUpdateSQL = "UPDATE kv SET v = v + 1 WHERE k = ?"

/// The size curve's table: four integer columns, `rows` rows.
public let sizeTableSQL = "CREATE TABLE items(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER)"
public func sizeFixtureSQL(rows: Int) -> [String] {
  [
    sizeTableSQL,
    """
    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows))
    INSERT INTO items SELECT x, x * 2, x * 3, x % 1000 FROM n
    """,
  ]
}
public let sizeSelectSQL = "SELECT id, a, b, c FROM items"
public let sizeInsertSQL = "INSERT INTO items(id, a, b, c) VALUES (?, ?, ?, ?)"

/// The body that `peer-scale --instructions` has callgrind count, never inlined.
@inline(never)
public func scaleMeasured<T>(_ body: () throws -> T) rethrows -> T {
  try body()
}

/// Nanoseconds on a monotonic clock.
@inline(__always)
public func nowNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The peak resident set of this process, in bytes.
public func maxResidentBytes() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
}

/// Seconds of CPU this process has used, user and system.
public func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
    + Double(usage.ru_stime.tv_usec) / 1e6
}

/// The `p`-th percentile (0...1) of `values`, sorted in place; 0 for none.
public func percentile(_ values: inout [UInt64], _ p: Double) -> Double {
  guard !values.isEmpty else { return 0 }
  values.sort()
  let index = min(values.count - 1, Int((Double(values.count) * p).rounded(.up)) - 1)
  return Double(values[max(0, index)])
}

/// The arguments of one point: `--name value` pairs after the curve's name.
public struct ScaleArguments {
  public let curve: String
  private var values: [String: String] = [:]

  public init(_ arguments: [String]) {
    var rest = arguments[...]
    curve = rest.popFirst() ?? ""
    while let name = rest.popFirst() {
      values[String(name.drop { $0 == "-" })] = rest.popFirst() ?? ""
    }
  }

  public func string(_ name: String) -> String {
    guard let value = values[name] else { scaleFail("missing --\(name)") }
    return value
  }

  public func int(_ name: String) -> Int {
    guard let value = Int(string(name)) else { scaleFail("--\(name) needs a number") }
    return value
  }

  public func double(_ name: String) -> Double {
    guard let value = Double(string(name)) else { scaleFail("--\(name) needs a number") }
    return value
  }

  public func has(_ name: String) -> Bool { values[name] != nil }
}

public func scaleFail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("\(CommandLine.arguments[0]): \(message)\n".utf8))
  exit(1)
}

/// Prints one point as one line of JSON (the driver reads it), with the process's peak memory added.
public func printPoint(_ fields: [String: Any]) {
  var fields = fields
  fields["maxRSSBytes"] = maxResidentBytes()
  guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else {
    scaleFail("cannot encode \(fields)")
  }
  print(String(decoding: data, as: UTF8.self))
}

/// Collects the latencies of one task of the readers curve (or of its writer).
public struct LatencyLog: Sendable {
  public var latencies: [UInt64] = []
  public var isWriter = false
  /// For the writer: the part of each commit spent inside the write closure (BEGIN, UPDATE, COMMIT).
  public var inside: [UInt64] = []
  /// For the writer: from the call of the awaited write to its closure starting on the writer's thread.
  public var toWriter: [UInt64] = []
  /// For the writer: from the end of the write closure to the awaiting task running again.
  public var back: [UInt64] = []
  public init(isWriter: Bool = false) {
    self.isWriter = isWriter
    latencies.reserveCapacity(1 << 16)
  }
}

/// Reduces the readers curve's logs to its point: reads per second, p99 read latency, commit median and p99.
public func readersPoint(logs: [LatencyLog], seconds: Double) -> [String: Any] {
  let cpu = cpuSeconds()
  var reads = logs.filter { !$0.isWriter }.flatMap(\.latencies)
  var commits = logs.filter(\.isWriter).flatMap(\.latencies)
  var inside = logs.filter(\.isWriter).flatMap(\.inside)
  var point: [String: Any] = [
    "reads": reads.count, "readsPerSecond": Double(reads.count) / seconds,
    "cpuSeconds": cpu, "readP50Microseconds": percentile(&reads, 0.5) / 1000, "readP99Microseconds": percentile(&reads, 0.99) / 1000,
  ]
  if !commits.isEmpty {
    if ProcessInfo.processInfo.environment["SCALE_RAW_COMMITS"] != nil {
      point["commitLatencies"] = commits.map { Double($0) / 1000 }
    }
    point["commits"] = commits.count
    point["commitP50Microseconds"] = percentile(&commits, 0.5) / 1000
    point["commitP99Microseconds"] = percentile(&commits, 0.99) / 1000
    point["commitInSQLiteP50Microseconds"] = percentile(&inside, 0.5) / 1000
    point["commitInSQLiteP99Microseconds"] = percentile(&inside, 0.99) / 1000
    var toWriter = logs.filter(\.isWriter).flatMap(\.toWriter)
    var back = logs.filter(\.isWriter).flatMap(\.back)
    if !toWriter.isEmpty {
      point["toWriterP50Microseconds"] = percentile(&toWriter, 0.5) / 1000
      point["toWriterP99Microseconds"] = percentile(&toWriter, 0.99) / 1000
      point["backP50Microseconds"] = percentile(&back, 0.5) / 1000
      point["backP99Microseconds"] = percentile(&back, 0.99) / 1000
    }
  }
  return point
}

/// The resident set of this process now, in bytes (`/proc/self/statm`; 0 where it is missing).
public func currentResidentBytes() -> Int {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
  let fields = text.split(separator: " ")
  guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

// MARK: Observers

/// The observers curve's database: `count` tables `o0 ...` of one row, each read by one observation, and
/// the table `w` that the writer updates.
public func observersFixtureSQL(count: Int) -> [String] {
  var sql = ["CREATE TABLE w(id INTEGER PRIMARY KEY, v INTEGER NOT NULL)", "INSERT INTO w VALUES (1, 0)"]
  for index in 0..<count {
    sql.append("CREATE TABLE o\(index)(id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    sql.append("INSERT INTO o\(index) VALUES (1, \(index))")
  }
  return sql
}
/// What the observation of table `o<index>` reads.
public func observedTableSQL(_ index: Int) -> String { "SELECT v FROM o\(index) WHERE id = 1" }
/// What the observation of the written table reads.
public let writtenTableSQL = "SELECT v FROM w WHERE id = 1"
/// The single-row commit of the observers curve.
public let writtenUpdateSQL = "UPDATE w SET v = ? WHERE id = 1"

/// Reduces the observers curve's measures to its point: per commit, wall and CPU time.
public func observersPoint(
  count: Int, written: Bool, commits: Int, setupNanoseconds: UInt64, nanoseconds: UInt64, cpuSeconds: Double
) -> [String: Any] {
  [
    "observations": count, "written": written, "commits": commits,
    "setupNanosecondsPerObservation": Double(setupNanoseconds) / Double(max(count + (written ? 1 : 0), 1)),
    "nanosecondsPerCommit": Double(nanoseconds) / Double(commits),
    "cpuNanosecondsPerCommit": cpuSeconds * 1e9 / Double(commits),
  ]
}

// MARK: Changesets

/// The changesets curve's table, holding `changes / 2` rows before the recorded transaction, which
/// updates each of them and inserts as many new ones: `changes` changes.
public let changesetTableSQL = "CREATE TABLE chg(id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT NOT NULL)"
public func changesetFixtureSQL(changes: Int) -> [String] {
  [
    changesetTableSQL,
    """
    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(changes / 2))
    INSERT INTO chg SELECT x, x * 2, printf('row %08d', x) FROM n
    """,
  ]
}
public let changesetUpdateSQL = "UPDATE chg SET a = a + 1 WHERE id = ?"
public let changesetInsertSQL = "INSERT INTO chg(id, a, b) VALUES (?1, ?1 * 3, 'new ' || ?1)"
/// A checksum of the table, equal on the recorded database and on the copy the changeset is applied to.
public let changesetChecksumSQL = "SELECT count(*) + sum(a) * 7 + sum(length(b)) * 13 FROM chg"

// MARK: The timed loops, the same for every library

/// An error of a scaling point.
public struct ScaleFailure: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// The readers curve's timed part: first `readerCount` reads at once (a pool opens its readers on
/// demand), then `tasks` tasks calling `read(key)` in a loop for `seconds`, and with `withWriter` one more
/// task calling `write(key)` every 10 ms, which returns the nanoseconds spent inside the write closure.
public func measureReaders(
  tasks: Int, seconds: Double, withWriter: Bool, readerCount: Int,
  read: @escaping @Sendable (Int) async throws -> Int?,
  write: @escaping @Sendable (Int) async throws -> (closureStart: UInt64, closureEnd: UInt64)
) async throws -> [String: Any] {
  try await withThrowingTaskGroup(of: Void.self) { group in
    for _ in 0..<min(tasks, readerCount) { group.addTask { _ = try await read(1) } }
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
          guard try await read(key) != nil else { throw ScaleFailure("key \(key) not found") }
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
          let (closureStart, closureEnd) = try await write(key)
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

/// The observers curve's timed part: starts `count` observations of the tables `o0 ...` (and with
/// `written` one of the written table) through `observe(sql)`, waits for each first value, then times
/// `commits` calls of `write(value)`, each followed, with `written`, by the delivery of `value`.
public func measureObservers<Iterator: AsyncIteratorProtocol>(
  count: Int, written: Bool, commits: Int, observe: (String) -> Iterator,
  write: @escaping (Int) async throws -> Void
) async throws -> [String: Any] where Iterator.Element == Int? {
  let setupStart = nowNanoseconds()
  var others: [Iterator] = []
  others.reserveCapacity(count)
  for index in 0..<count { others.append(observe(observedTableSQL(index))) }
  for index in others.indices {
    guard try await others[index].next() == index else { throw ScaleFailure("o\(index): wrong value") }
  }
  var watched = written ? observe(writtenTableSQL) : nil
  if written { _ = try await watched?.next() }
  let setup = nowNanoseconds() - setupStart
  var value = 0
  func commit() async throws {
    value += 1
    try await write(value)
    guard written else { return }
    while true {
      guard let delivered = try await watched?.next() else { throw ScaleFailure("the observation ended") }
      if delivered == value { return }
    }
  }
  for _ in 0..<20 { try await commit() }  // warm-up
  let cpuStart = cpuSeconds()
  let start = nowNanoseconds()
  for _ in 0..<commits { try await commit() }
  let end = nowNanoseconds()
  let cpu = cpuSeconds() - cpuStart
  withExtendedLifetime(others) {}
  return observersPoint(
    count: count, written: written, commits: commits, setupNanoseconds: setup, nanoseconds: end - start,
    cpuSeconds: cpu)
}
