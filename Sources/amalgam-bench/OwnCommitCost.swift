// `--own-commit-cost COMMITS`: the CPU time (every thread of the process) that each of the app's own
// commits to a database file costs, without observation and with one observation of another table of
// the file, per journal mode. With the observation, the difference is what observing adds to a commit
// that concerns no observation: the change tracker, and the watcher of other connections' commits,
// which the commit's own file writes wake.
import Amalgam
import Foundation

func measureOwnCommitCost(commits: Int) throws -> String {
  var lines = [
    "CPU time per single-row commit to a file (\(commits) commits, synchronous = OFF so that no fsync blurs the figures, median of 5 runs; "
      + "an observation of another table of the file):"
  ]
  for mode in [JournalMode.wal, .delete] {
    var plain: [Double] = []
    var observed: [Double] = []
    for _ in 0..<5 {
      plain.append(try ownCommitCPU(mode: mode, commits: commits, observed: false))
      observed.append(try ownCommitCPU(mode: mode, commits: commits, observed: true))
    }
    let plainMedian = plain.sorted()[plain.count / 2]
    let observedMedian = observed.sorted()[observed.count / 2]
    lines.append(
      String(
        format: "  %@ (%@): %.1f µs unobserved, %.1f µs observed (+%.1f µs)",
        mode == .wal ? "WAL" : "rollback journal", mode == .wal ? "DatabasePool" : "DatabaseQueue",
        plainMedian, observedMedian, observedMedian - plainMedian))
  }
  return lines.joined(separator: "\n")
}

/// Microseconds of CPU per commit, counted until the observation's watcher is idle again (its last
/// look comes 0.3 s after the last file event).
private func ownCommitCPU(mode: JournalMode, commits: Int, observed: Bool) throws -> Double {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "amalgam-own-commit-\(getpid())-\(mode.rawValue)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let path = directory.appendingPathComponent("own.db").path
  let writer: any DatabaseWriter
  let observe: (@escaping @Sendable (Database) throws -> Int) -> ValueObservation<Int>
  if mode == .wal {
    let pool = try DatabasePool(path: path)
    (writer, observe) = (pool, pool.observe)
  } else {
    let queue = try DatabaseQueue(path: path, configuration: Configuration(journalMode: .delete))
    (writer, observe) = (queue, queue.observe)
  }
  try writer.sync { db in
    try db.execute(sql: "PRAGMA synchronous = OFF")
    try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER)")
    try db.execute(sql: "CREATE TABLE o(id INTEGER PRIMARY KEY)")
  }
  var task: Task<Void, any Error>?
  if observed {
    let latest = LatestValue()
    let observation = observe { db in try db.prepare(sql: "SELECT count(*) FROM o").front(Int.self) ?? 0 }
    task = Task.detached {
      for try await value in observation { latest.set(value) }
    }
    guard latest.wait(for: 0) != nil else { throw BenchmarkFailure(description: "no first value") }
  }
  defer { task?.cancel() }
  for value in 0..<100 {  // warm-up
    try writer.sync { db in try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [value]) }
  }
  usleep(400_000)
  let before = processCPUMicroseconds()
  for value in 0..<commits {
    try writer.sync { db in try db.execute(sql: "INSERT INTO t(v) VALUES (?)", arguments: [value]) }
  }
  usleep(400_000)
  return (processCPUMicroseconds() - before) / Double(commits)
}

/// The CPU time of every thread of the process so far, in microseconds.
func processCPUMicroseconds() -> Double {
  #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
  #else
    let who = RUSAGE_SELF
  #endif
  var usage = rusage()
  getrusage(who, &usage)
  func micros(_ time: timeval) -> Double { Double(time.tv_sec) * 1e6 + Double(time.tv_usec) }
  return micros(usage.ru_utime) + micros(usage.ru_stime)
}
