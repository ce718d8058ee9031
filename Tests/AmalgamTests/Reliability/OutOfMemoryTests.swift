import Amalgam
import Foundation
import Testing

/// Out of memory: `amalgam-oom-runner` (Tests/OOMRunner) installs an allocator that fails the N-th
/// allocation (sqlite3_config is process-wide and must come before SQLite starts, hence a process of its
/// own), then runs a script of public operations. Every run must end cleanly, with the script completed
/// or a thrown error, never a crash or a wrong value, and leave a database file that SQLite finds intact
/// with no half transaction. `swift test` runs the first N densely and then a sample up to the script's
/// allocation count; `Scripts/stress/oom-test` runs every N (it sets AMALGAM_OOM_EVERY_N).
@Suite struct OutOfMemoryTests {
  struct Run {
    var failAt: Int
    var line: String
    var completed: Bool { line.hasPrefix("completed") }
    var failures: Int { Int(field("failures") ?? "") ?? -1 }
    var allocations: Int { Int(field("allocations") ?? "") ?? -1 }
    var step: String? {
      guard let range = line.range(of: " step=") else { return nil }
      return String(line[range.upperBound...].prefix { $0 != ":" })
    }
    /// The allocations of the steps to run with every N (`dense=FIRST-LAST,...` in a completed run).
    var denseRanges: [ClosedRange<Int>] {
      (field("dense") ?? "").split(separator: ",").compactMap { range in
        let bounds = range.split(separator: "-").compactMap { Int($0) }
        return bounds.count == 2 && bounds[0] <= bounds[1] ? bounds[0]...bounds[1] : nil
      }
    }
    var error: String? {
      guard let range = line.range(of: ": ") else { return nil }
      return String(line[range.upperBound...])
    }
    func field(_ name: String) -> String? {
      guard let range = line.range(of: " \(name)=") else { return nil }
      return String(line[range.upperBound...].prefix { $0 != " " })
    }
  }

  static func run(_ executable: URL, failAt: Int, mode: String, in directory: URL) async throws -> Run {
    let path = directory.appendingPathComponent("oom.sqlite").path
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let outcome = try await ChildProcess.run(executable, [path, String(failAt), mode], in: directory)
    #expect(!outcome.signaled, "N=\(failAt) \(mode): killed by signal \(outcome.status)\n\(outcome.stderr)")
    #expect(outcome.status == 0, "N=\(failAt) \(mode): \(outcome.stdout)\(outcome.stderr)")
    let run = Run(failAt: failAt, line: outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(run.completed || run.line.hasPrefix("error"), "N=\(failAt) \(mode): \(run.line)")

    // Whatever the run left on disk is intact, and holds whole transactions only.
    if FileManager.default.fileExists(atPath: path) {
      let db = try Database(path: path)
      defer { try? db.close() }
      let integrity = try db.prepare(sql: "PRAGMA integrity_check").column(0, as: String.self)
      #expect(integrity == ["ok"], "N=\(failAt) \(mode)")
      if try db.tableExists("item") {
        let items = try db.prepare(sql: "SELECT coalesce(sum(id), 0) FROM item").front(Int.self) ?? -1
        let total = try db.tableExists("total") ? try db.prepare(sql: "SELECT amount FROM total").front(Int.self) : nil
        #expect(items == (total ?? 0), "N=\(failAt) \(mode): items sum to \(items), total \(String(describing: total))")
        #expect(items == 0 || items == 210, "N=\(failAt) \(mode): \(items)")
      }
    }
    return run
  }

  /// Runs N = 1, 2, ... (every N, or densely at first and then a sample) until the script completes with
  /// no failure injected; returns the runs.
  static func runs(mode: String) async throws -> [Run] {
    let executable = try ChildProcess.executable("amalgam-oom-runner")
    let everyN = Reliability.count("AMALGAM_OOM_EVERY_N", default: 0) > 0
    return try await withTemporaryDirectory { directory in
      let reference = try await run(executable, failAt: 0, mode: mode, in: directory)
      #expect(reference.completed && reference.failures == 0, "\(reference.line)")
      let allocations = reference.allocations
      // The steps where a failure once crashed sqlite-vec run with every N (the runner names them).
      let denseRanges = reference.denseRanges
      #expect(allocations > 100)
      // In swift test: the first 40 N, then about 80 more spread over the whole script.
      let stride = everyN ? 1 : max(1, allocations / 80)
      var runs: [Run] = []
      var failAt = 1
      var previous = 0
      var walkedUTF16Step = false
      while true {
        let run = try await run(executable, failAt: failAt, mode: mode, in: directory)
        runs.append(run)
        if run.completed && run.failures == 0 { break }
        if failAt > allocations * 2 {
          Issue.record("N=\(failAt) \(mode): still failing past twice the script's \(allocations) allocations")
          break
        }
        // Every N of the steps that read UTF-16 text as UTF-8, where a failed conversion once crashed
        // the Swift layer (and once gave function arguments as empty text): when a sample first lands
        // in them, go back to just after the previous sample.
        let inUTF16Step = run.step?.hasPrefix("UTF-16 ") == true
        if inUTF16Step && !walkedUTF16Step {
          walkedUTF16Step = true
          let next = previous + 1 < failAt ? previous + 1 : failAt + 1
          previous = failAt
          failAt = next
          continue
        }
        previous = failAt
        var next = failAt + (failAt < 40 || inUTF16Step ? 1 : stride)
        if denseRanges.contains(where: { $0.contains(failAt + 1) }) {
          next = failAt + 1
        } else if let range = denseRanges.first(where: { $0.lowerBound > failAt && $0.lowerBound < next }) {
          next = range.lowerBound
        }
        failAt = next
      }
      let errors = runs.filter { !$0.completed }
      let absorbed = runs.filter { $0.completed && $0.failures > 0 }
      var kinds: [String: Int] = [:]
      for run in errors { kinds[kind(of: run.error ?? ""), default: 0] += 1 }
      print(
        "OutOfMemoryTests \(mode): \(allocations) allocations in the script; \(runs.count) runs up to N=\(failAt): "
          + "\(errors.count) threw, \(absorbed.count) completed despite the failure; errors: "
          + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
      return runs
    }
  }

  /// A short name for an error message, to count the kinds of error.
  static func kind(of error: String) -> String {
    if error.contains("SQLITE_NOMEM") || error.lowercased().contains("out of memory") { return "NOMEM" }
    return String(error.prefix(60))
  }

  @Test func failingOneAllocationEndsInCompletionOrAnError() async throws {
    let runs = try await Self.runs(mode: "once")
    #expect(runs.contains { $0.step == "UTF-16 text read as UTF-8" })
    // A failed conversion of a function argument fails its statement with SQLITE_NOMEM (a wrong result
    // would have ended the runner with `wrong`, which run(_:failAt:mode:in:) rejects).
    #expect(runs.contains { $0.step == "UTF-16 function arguments" && Self.kind(of: $0.error ?? "") == "NOMEM" })
    #expect(runs.contains { !$0.completed }, "no run threw: the allocator did not fail anything")
    #if VECTOR
      // Every N of a vec0 KNN query and of the insert that makes a table's first chunk: each failure is
      // SQLITE_NOMEM (sqlite-vec 0.1.9 crashed in both; Vendor/sqlite-vec/patches carries the fix).
      for vectorStep in ["vector first insert", "vector search"] {
        let inStep = runs.filter { $0.step == vectorStep }
        #expect(inStep.count >= 10, "\(vectorStep): \(inStep.count) runs")
        #expect(inStep.contains { Self.kind(of: $0.error ?? "") == "NOMEM" }, "\(vectorStep)")
      }
    #endif
  }

  @Test func failingEveryAllocationFromTheNthEndsInAnError() async throws {
    let runs = try await Self.runs(mode: "persistent")
    // With every later allocation failing, the script cannot complete until N is past its end.
    #expect(runs.dropLast().allSatisfy { !$0.completed }, "\(runs.filter(\.completed).map(\.failAt))")
  }
}
