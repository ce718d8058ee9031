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
