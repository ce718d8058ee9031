import Amalgam
import Foundation
import Testing

/// Crash safety: `amalgam-crash-writer` (Tests/CrashWriter) commits numbered transactions to a WAL
/// database and prints `committed N` after each commit returns; this test kills it with SIGKILL at a
/// random moment, reopens the file, and checks that SQLite finds it intact, that every printed commit is
/// there, and that no transaction is half applied. The runs continue on one file, so each also recovers
/// from the previous kill. `swift test` does a few runs; `Scripts/stress/crash-test --runs 500` does more
/// (it sets AMALGAM_CRASH_RUNS).
@Suite struct CrashSafetyTests {
  @Test func everyPrintedCommitSurvivesSIGKILL() async throws {
    let executable = try ChildProcess.executable("amalgam-crash-writer")
    let runs = Reliability.count("AMALGAM_CRASH_RUNS", default: 24)
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("crash.sqlite").path
      var generator = SystemRandomNumberGenerator()
      var committed = 0
      var killedDuringWork = 0
      var startupScale = 1.0
      for run in 1...runs {
        // Each run starts where the last one stopped; OFF is as safe as FULL here, because a killed
        // process loses nothing that it handed to the operating system.
        let synchronous = ["NORMAL", "FULL", "OFF"][run % 3]
        // A slow start (a loaded machine, a sanitizer) pushes the kill window later, so that the runs are
        // still killed while committing rather than before the first commit.
        let delay = Double.random(in: 0.005...0.150, using: &generator) * startupScale
        let outcome = try await ChildProcess.run(executable, [path, synchronous], in: directory, killAfter: delay)
        #expect(outcome.signaled && outcome.status == SIGKILL, "run \(run): \(outcome.status) \(outcome.stderr)")
        let printed = outcome.stdout.split(separator: "\n").compactMap { line in
          line.hasPrefix("committed ") ? Int(line.dropFirst("committed ".count)) : nil
        }
        // The numbers printed in one run are consecutive, starting after the previous run's last row.
        if printed.isEmpty { startupScale = min(startupScale * 2, 32) }
        if let first = printed.first {
          #expect(printed == Array(first..<(first + printed.count)), "run \(run)")
          #expect(first >= committed + 1 && first <= committed + 2, "run \(run): starts at \(first) after \(committed)")
          killedDuringWork += 1
        }

        let db = try Database(path: path)
        let integrity = try db.prepare(sql: "PRAGMA integrity_check").column(0, as: String.self)
        #expect(integrity == ["ok"], "run \(run)")
        guard try db.tableExists("entry") else {
          // Killed before the first transaction committed.
          #expect(printed.isEmpty && committed == 0, "run \(run)")
          try db.close()
          continue
        }
        let row = try db.prepare(
          sql: "SELECT count(*), coalesce(max(n), 0), coalesce(sum(amount), 0), (SELECT amount FROM total) FROM entry"
        ).firstRow()
        guard let row, case .integer(let count) = row[0], case .integer(let maximum) = row[1] else {
          Issue.record("run \(run): no counts")
          return
        }
        // Rows 1...maximum, none missing; the last printed commit is there (one more may have committed
        // without being printed); the running total matches the rows, so no transaction is half applied.
        #expect(count == maximum, "run \(run)")
        let lastPrinted = printed.last ?? committed
        #expect(
          Int(maximum) >= lastPrinted && Int(maximum) <= lastPrinted + 1,
          "run \(run): \(maximum) rows, printed \(lastPrinted)")
        #expect(row[2] == row[3], "run \(run): total \(row[3]) for rows summing to \(row[2])")
        committed = Int(maximum)
        try db.close()
      }
      // Many runs are killed while committing, not before the first commit (a loaded machine starts
      // the writer slowly, so not all).
      #expect(killedDuringWork >= runs / 4, "only \(killedDuringWork) of \(runs) runs committed anything")
      print("CrashSafetyTests: \(runs) runs killed, \(killedDuringWork) while committing, \(committed) commits in all")
    }
  }
}
