// amalgam-bench: Amalgam's API against SQLite's C API on the same compiled SQLite.
//
//     swift run -c release amalgam-bench [--repetitions N] [--only 1,3,5] [--json]
//
// Each workload runs through both APIs on the same connection, alternating, and reports the median and
// minimum time of each and the ratio of medians (Amalgam / C). Each run's checksum must match, so the
// work cannot be skipped. Exits 1 if a checksum differs; targets are reported, not enforced.
import Amalgam
import Foundation

struct Options {
  var repetitions = 7
  var only: Set<Int>?
  var json = false
  var observationLatency: Int?
  var encryptionOpenCost: Int?
  var foreignCommitLatency: Int?
  var ownCommitCost: Int?
}

func parseOptions() -> Options? {
  var options = Options()
  var arguments = CommandLine.arguments.dropFirst()
  while let argument = arguments.popFirst() {
    switch argument {
    case "--json": options.json = true
    case "--observation-latency":
      guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { return nil }
      options.observationLatency = value
    case "--foreign-commit-latency":
      guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { return nil }
      options.foreignCommitLatency = value
    case "--own-commit-cost":
      guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { return nil }
      options.ownCommitCost = value
    case "--encryption-open-cost":
      guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { return nil }
      options.encryptionOpenCost = value
    case "--repetitions":
      guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { return nil }
      options.repetitions = value
    case "--only":
      guard let list = arguments.popFirst() else { return nil }
      let numbers = list.split(separator: ",").compactMap { Int($0) }
      guard !numbers.isEmpty else { return nil }
      options.only = Set(numbers)
    default: return nil
    }
  }
  return options
}

let usage = """
  usage: amalgam-bench [--repetitions N] [--only 1,2,...] [--json]
         amalgam-bench --observation-latency COMMITS
         amalgam-bench --foreign-commit-latency SECONDS   (needs the sqlite3 shell in PATH)
         amalgam-bench --own-commit-cost COMMITS
         amalgam-bench --encryption-open-cost OPENS   (built with the ENCRYPTION trait)
    Runs each workload through SQLite's C API and Amalgam's API (build with -c release); or measures the
    time from a commit to the observation's value (of the pool's own writer; of another process, the
    sqlite3 shell, per journal mode); or the CPU time of each of the app's own commits to a file, with
    and without an observation; or the time to open an encrypted file (key derivation).
  """

guard let options = parseOptions() else {
  FileHandle.standardError.write(Data((usage + "\n").utf8))
  exit(CommandLine.arguments.contains("--help") ? 0 : 2)
}

#if DEBUG
  FileHandle.standardError.write(
    Data("warning: debug build; run `swift run -c release amalgam-bench` for real figures\n".utf8))
#endif

if let opens = options.encryptionOpenCost {
  #if ENCRYPTION
    do {
      print(try measureEncryptionOpenCost(count: opens))
      exit(0)
    } catch {
      FileHandle.standardError.write(Data("amalgam-bench: \(error)\n".utf8))
      exit(1)
    }
  #else
    FileHandle.standardError.write(Data("amalgam-bench: --encryption-open-cost needs the ENCRYPTION trait\n".utf8))
    exit(2)
  #endif
}

if let seconds = options.foreignCommitLatency {
  do {
    print(try measureForeignCommitLatency(seconds: seconds))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("amalgam-bench: \(error)\n".utf8))
    exit(1)
  }
}

if let commits = options.ownCommitCost {
  do {
    print(try measureOwnCommitCost(commits: commits))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("amalgam-bench: \(error)\n".utf8))
    exit(1)
  }
}

if let commits = options.observationLatency {
  do {
    print(try measureObservationLatency(commits: commits))
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("amalgam-bench: \(error)\n".utf8))
    exit(1)
  }
}

do {
  let database = try makeBenchmarkDatabase()
  var results: [Measurement] = []
  for workload in allWorkloads() + transferWorkloads() + observationWorkloads() + encryptionWorkloads()
    + vectorWorkloads()
  where options.only?.contains(workload.number) ?? true {
    if !options.json { FileHandle.standardError.write(Data("running \(workload.number): \(workload.name)\n".utf8)) }
    results.append(try measure(workload, database: database, repetitions: options.repetitions))
  }
  if options.json {
    let objects: [[String: Any]] = results.map { result in
      [
        "workload": result.workload.number, "name": result.workload.name,
        "c_median_ms": result.cMedian / 1e6, "c_min_ms": result.cMinimum / 1e6,
        "amalgam_median_ms": result.amalgamMedian / 1e6, "amalgam_min_ms": result.amalgamMinimum / 1e6,
        "ratio": result.ratio, "target": result.workload.target, "meets_target": result.meetsTarget,
        "checksum": result.checksum, "repetitions": options.repetitions,
      ]
    }
    let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
  } else {
    func ms(_ nanoseconds: Double) -> String { String(format: "%8.2f", nanoseconds / 1e6) }
    print("| # | workload | C median ms | C min ms | Amalgam median ms | Amalgam min ms | ratio | target |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for result in results {
      let mark = result.meetsTarget ? "" : " (missed)"
      print(
        "| \(result.workload.number) | \(result.workload.name) | \(ms(result.cMedian)) | \(ms(result.cMinimum)) | "
          + "\(ms(result.amalgamMedian)) | \(ms(result.amalgamMinimum)) | \(String(format: "%.2f", result.ratio))\(mark) | "
          + "\(String(format: "%.2f", result.workload.target)) |")
    }
    print(
      "\nSQLite \(SQLite.version), \(options.repetitions) repetitions, traits: \(SQLite.enabledTraits.count) enabled")
  }
} catch {
  FileHandle.standardError.write(Data("amalgam-bench: \(error)\n".utf8))
  exit(1)
}
