// `--foreign-commit-latency SECONDS`: how soon an observation sees the commits of another process, with
// Debian's `sqlite3` shell as that process, in WAL and in rollback-journal mode; and what an idle
// observation costs.
import Amalgam
import Foundation

/// The time from each commit of a `sqlite3` shell (100 single-row transactions a second for `seconds`)
/// to the observation's value for it, per journal mode: median, 99th percentile, maximum. A commit's
/// time starts when the benchmark hands its `INSERT` to the shell, so it includes the shell's own
/// commit (its `fsync`s).
func measureForeignCommitLatency(seconds: Int) throws -> String {
  guard let shell = programInPath("sqlite3") else {
    throw BenchmarkFailure(description: "the sqlite3 shell is not in PATH (apt-get install sqlite3)")
  }
  var lines = [
    "commit-to-value latency, Debian's sqlite3 shell committing 100 single-row transactions a second "
      + "for \(seconds) s (default configuration):"
  ]
  for mode in [JournalMode.wal, .delete] {
    let latencies = try shellLatencies(shell: shell, mode: mode, commits: seconds * 100)
    func at(_ fraction: Double) -> Double {
      latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
    }
    lines.append(
      String(
        format: "  %@ (%@): median %.1f ms, 99th percentile %.1f ms, max %.1f ms over %d commits",
        mode == .wal ? "WAL" : "rollback journal", mode == .wal ? "DatabasePool" : "DatabaseQueue",
        at(0.5), at(0.99), latencies.last ?? 0, latencies.count))
  }
  lines.append(try idleCost(seconds: 10))
  return lines.joined(separator: "\n")
}

/// Latencies in milliseconds, sorted.
private func shellLatencies(shell: URL, mode: JournalMode, commits: Int) throws -> [Double] {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "amalgam-foreign-\(getpid())-\(mode.rawValue)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path = directory.appendingPathComponent("foreign.db").path
  let fetch: @Sendable (Database) throws -> Int = { db in
    try db.prepare(sql: "SELECT coalesce(max(id), 0) FROM t").front(Int.self) ?? 0
  }
  let observation: ValueObservation<Int>
  let owner: AnyObject
  if mode == .wal {
    let pool = try DatabasePool(path: path)
    try pool.sync { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY)") }
    observation = pool.observe(fetch)
    owner = pool
  } else {
    let queue = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .delete))
    try queue.sync { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY)") }
    observation = queue.observe(fetch)
    owner = queue
  }
  let arrivals = Arrivals()
  let task = Task.detached {
    for try await value in observation { arrivals.add(value) }
  }
  defer { task.cancel() }
  guard arrivals.wait(for: 0) != nil else { throw BenchmarkFailure(description: "no first value") }

  let process = Process()
  process.executableURL = shell
  process.arguments = [path]
  let input = Pipe()
  process.standardInput = input
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  // The shell waits for locks (the observation's reads) instead of failing.
  input.fileHandleForWriting.write(Data(".timeout 10000\n".utf8))
  var sent: [UInt64] = [0]
  let start = DispatchTime.now().uptimeNanoseconds
  for id in 1...commits {
    let due = start + UInt64(id) * 10_000_000
    let now = DispatchTime.now().uptimeNanoseconds
    if due > now { usleep(UInt32((due - now) / 1000)) }
    sent.append(DispatchTime.now().uptimeNanoseconds)
    input.fileHandleForWriting.write(Data("INSERT INTO t(id) VALUES (\(id));\n".utf8))
  }
  try input.fileHandleForWriting.close()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw BenchmarkFailure(description: "the sqlite3 shell failed (status \(process.terminationStatus))")
  }
  guard arrivals.wait(for: commits) != nil else {
    throw BenchmarkFailure(description: "the observation never saw commit \(commits)")
  }
  withExtendedLifetime(owner) {}
  // Each commit's value is the first value that includes it (later ones coalesce with earlier).
  let log = arrivals.log
  var latencies: [Double] = []
  var position = 0
  for id in 1...commits {
    while log[position].value < id { position += 1 }
    latencies.append(Double(log[position].time - sent[id]) / 1e6)
  }
  return latencies.sorted()
}

/// CPU time and wake-ups of a process whose only activity is one observation of a database file.
private func idleCost(seconds: Int) throws -> String {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-idle-\(getpid())")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let pool = try DatabasePool(path: directory.appendingPathComponent("idle.db").path)
  try pool.sync { db in try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY)") }
  let arrivals = Arrivals()
  let observation = pool.observe { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) ?? 0 }
  let task = Task.detached {
    for try await value in observation { arrivals.add(value) }
  }
  defer { task.cancel() }
  guard arrivals.wait(for: 0) != nil else { throw BenchmarkFailure(description: "no first value") }
  sleep(1)
  #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
  #else
    let who = RUSAGE_SELF
  #endif
  var before = rusage()
  getrusage(who, &before)
  let switchesBefore = threadSwitches()
  sleep(UInt32(seconds))
  var after = rusage()
  getrusage(who, &after)
  let switchesAfter = threadSwitches()
  func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
  let cpu =
    (micros(after.ru_utime) + micros(after.ru_stime) - micros(before.ru_utime) - micros(before.ru_stime))
  // Threads that ended meanwhile count for nothing; a thread that started counts from zero.
  let wakes = switchesAfter.map { after in
    let total = after.reduce(0) { sum, thread in sum + thread.value - (switchesBefore?[thread.key] ?? 0) }
    return Double(total) / Double(seconds)
  }
  return String(
    format: "  an idle observation of a file (DatabasePool, WAL): %.3f %% of a core over %d s, %@",
    cpu / 1e4 / Double(seconds), seconds,
    wakes.map { String(format: "%.1f thread wake-ups a second", $0) } ?? "wake-ups not measured (no /proc)")
}

/// The voluntary context switches of each of the process's threads, by thread id (each one a thread
/// that went to sleep after waking), from /proc on Linux.
private func threadSwitches() -> [String: Int]? {
  guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
  var switches: [String: Int] = [:]
  for task in tasks {
    guard let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else {
      continue
    }
    for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
      switches[task] = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
    }
  }
  return switches
}

private func programInPath(_ name: String) -> URL? {
  for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
    let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
  }
  return nil
}

/// The values an observation delivered, with the time each arrived.
final class Arrivals: @unchecked Sendable {
  // @unchecked Sendable: `entries` is guarded by `condition`.
  private let condition = NSCondition()
  private var entries: [(value: Int, time: UInt64)] = []

  func add(_ value: Int) {
    condition.lock()
    entries.append((value, DispatchTime.now().uptimeNanoseconds))
    condition.broadcast()
    condition.unlock()
  }

  var log: [(value: Int, time: UInt64)] {
    condition.lock()
    defer { condition.unlock() }
    return entries
  }

  /// Waits up to 10 s for a value of at least `expected`; returns when it arrived.
  func wait(for expected: Int) -> UInt64? {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date().addingTimeInterval(10)
    while (entries.last?.value ?? -1) < expected {
      if !condition.wait(until: deadline) { return nil }
    }
    return entries.last?.time
  }
}
