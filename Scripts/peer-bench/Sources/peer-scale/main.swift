// peer-scale: how cost grows with concurrency and size, Amalgam against GRDB (and SQLite's C API on
// Amalgam's SQLite where it applies). Runs every point in its own process (scale-amalgam, scale-grdb),
// writes all points as JSON for Scripts/peer-bench/plot, and prints markdown tables.
import Foundation
import PeerHarness

let usage = """
  usage: swift build -c release && .build/release/peer-scale [--quick] [--only LIST] [--output FILE]
                                                             [--rounds R] [--seconds S] [--no-instructions]
                                                             [--encryption-build FOLDER]

  Curves (each point in a new process, contenders in rotating order):
    readers  a DatabasePool in WAL mode (at most 5 readers, both libraries' default), 1, 2, 4, 8, 16 and 64
             tasks reading one row by primary key in a loop for S seconds, alone and with one writer
             committing a one-row UPDATE every 10 ms: reads per second, p50/p99 read latency, writer
             commit latency p50/p99 (awaited, and the part inside the write closure: BEGIN, UPDATE,
             COMMIT in SQLite). Amalgam and GRDB. Median of R rounds.
    size     fetch every row of a 4-column table through a cursor and into an array (fetchAll), and insert
             the rows in one transaction, at 10^3 ... 10^7 rows: nanoseconds per row (median of R runs,
             one run from 10^6 rows), peak memory (the child's getrusage max RSS), and callgrind
             instructions per row up to 10^5 rows. Amalgam, GRDB and the C API.
    observers  1, 10, 100, 1,000 and 10,000 live value observations on a DatabaseQueue, each reading a
             table of its own, then single-row commits to a table none of them reads, each awaited; and
             the same with one more observation, of the written table, whose new value each commit
             waits for: wall and CPU time (getrusage, every thread) per commit, and the time to start
             each observation. Amalgam and GRDB. Median of R rounds.
    changesets 10^3 ... 10^6 changes (half updates, half inserts, in one transaction) recorded by a
             session, the changeset produced into a file whole in memory or streamed, and applied to a
             copy of the original whole or streamed from the file: nanoseconds per change of each
             phase and the peak memory each phase added. Amalgam and the C API on Amalgam's SQLite
             (GRDB has no sessions). Median of R runs (one at 10^6).
    encryption a DatabasePool of 8 readers opened on a database keyed with a passphrase (ChaCha20,
             SQLite3 Multiple Ciphers' default) and on a plain one, then every reader's first read at
             once: the open, the median and the last reader's time to its first read, CPU time. Needs
             scale-amalgam built with the ENCRYPTION trait (see --encryption-build). Median of R rounds.

    --quick            fewer points: sizes and changes up to 10^5 (instructions up to 10^4), up to 1,000
                       observations and 200 commits a point, 1 s per readers point, one round; for
                       checking that everything runs (about 4 minutes)
    --only LIST        curves to run (default: readers,size,observers,changesets,encryption)
    --output FILE      where the JSON goes (default: scale.json in the current folder); the curves of an
                       existing FILE that this run does not make are kept, each with its run's date and load
    --rounds R         rounds (default 3; 1 with --quick)
    --seconds S        seconds per readers point (default 3; 1 with --quick)
    --no-instructions  skip the callgrind counts (valgrind is needed for them)
    --encryption-build FOLDER
                       where the ENCRYPTION build's scale-amalgam is (default: .build-encryption/release,
                       made by `swift build -c release --traits ENCRYPTION --scratch-path .build-encryption`);
                       the encryption curve is skipped when it is missing
    --help             this text

  Plot the JSON with Scripts/peer-bench/plot (see its --help). The whole run takes about 25 minutes.
  """

func fail(_ message: String) -> Never { driverFail(message) }

var quick = false
var only = ["readers", "size", "observers", "changesets", "encryption"]
var encryptionBuild = ".build-encryption/release"
var output = "scale.json"
var rounds: Int?
var seconds: Double?
var countInstructions = true
var commandLine = CommandLine.arguments.dropFirst()
while let argument = commandLine.popFirst() {
  switch argument {
  case "--quick": quick = true
  case "--only": only = commandLine.popFirst()?.split(separator: ",").map(String.init) ?? []
  case "--output":
    guard let value = commandLine.popFirst() else { fail("--output needs a file") }
    output = value
  case "--rounds": rounds = positiveInt(commandLine.popFirst(), for: "--rounds")
  case "--seconds":
    guard let value = commandLine.popFirst().flatMap({ Double($0) }), value > 0 else {
      fail("--seconds needs a number")
    }
    seconds = value
  case "--no-instructions": countInstructions = false
  case "--encryption-build":
    guard let value = commandLine.popFirst() else { fail("--encryption-build needs a folder") }
    encryptionBuild = value
  case "--help", "-h":
    print(usage)
    exit(0)
  default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
  }
}
let roundCount = rounds ?? (quick ? 1 : 3)
let pointSeconds = seconds ?? (quick ? 1 : 3)
let sizes = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000, 10_000_000]
let instructionsUpTo = quick ? 10_000 : 100_000

let binDirectory = binaryDirectory()
let amalgamBinary = binDirectory + "/scale-amalgam"
let grdbBinary = binDirectory + "/scale-grdb"
for binary in [amalgamBinary, grdbBinary] where !FileManager.default.isExecutableFile(atPath: binary) {
  fail("\(binary) is missing: build the package first (swift build -c release)")
}
if countInstructions && !FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind") {
  note("valgrind not found: no instruction counts")
  countInstructions = false
}

let amalgam = Contender(name: "Amalgam", executable: amalgamBinary, arguments: ["amalgam"])
let grdb = Contender(name: "GRDB", executable: grdbBinary, arguments: [])
let capi = Contender(name: "C API", executable: amalgamBinary, arguments: ["c"])

let work = FileManager.default.temporaryDirectory.appendingPathComponent("peer-scale-\(getpid())").path
try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

@discardableResult
func run(_ executable: String, _ arguments: [String]) -> (output: String, errors: String) {
  runProgram(executable, arguments)
}

/// Runs one point and returns its JSON object.
func point(_ contender: Contender, _ arguments: [String]) -> [String: Any] {
  let line =
    run(contender.executable, contender.arguments + arguments).output
    .split(separator: "\n").last.map(String.init) ?? ""
  guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
    fail("\(contender.name) \(arguments.joined(separator: " ")): unreadable output '\(line)'")
  }
  return object
}

func copyFile(_ from: String, _ to: String) {
  for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: to + suffix) }
  do { try FileManager.default.copyItem(atPath: from, toPath: to) } catch { fail("cannot copy \(from): \(error)") }
}

func removeDatabase(_ path: String) {
  for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

func loadAverage() -> Double {
  Double((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "") ?? -1
}

/// The median over rounds of each numeric field of the points that share a key.
func medians(_ points: [[String: Any]], key: [String]) -> [[String: Any]] {
  var groups: [String: [[String: Any]]] = [:]
  var order: [String] = []
  for point in points {
    let id = key.map { "\(point[$0] ?? "")" }.joined(separator: "|")
    if groups[id] == nil { order.append(id) }
    groups[id, default: []].append(point)
  }
  return order.map { id in
    let group = groups[id] ?? []
    var merged = group[0]
    for (name, value) in group[0] where !key.contains(name) && value is NSNumber {
      merged[name] = median(group.compactMap { ($0[name] as? NSNumber)?.doubleValue })
    }
    merged["rounds"] = group.count
    return merged
  }
}

let loadAtStart = loadAverage()
var results: [String: Any] = [
  "quick": quick, "rounds": roundCount, "cores": ProcessInfo.processInfo.activeProcessorCount,
  "loadAverageAtStart": loadAtStart, "started": ISO8601DateFormatter().string(from: Date()),
]
let allCurves = ["readers", "size", "observers", "changesets", "encryption"]
/// Each curve's run: when it started, with which load, quick or not (the plot titles read it).
var runs: [String: Any] = [:]
// The curves of an existing output file that this run does not make stay, with their run's details.
if let data = FileManager.default.contents(atPath: output),
  let previous = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
{
  let previousRuns = previous["runs"] as? [String: Any] ?? [:]
  for curve in allCurves where !only.contains(curve) && previous[curve] != nil {
    results[curve] = previous[curve]
    runs[curve] =
      previousRuns[curve]
      ?? [
        "started": previous["started"] ?? "", "loadAverageAtStart": previous["loadAverageAtStart"] ?? -1,
        "loadAverageAtEnd": previous["loadAverageAtEnd"] ?? -1, "quick": previous["quick"] ?? false,
        "rounds": previous["rounds"] ?? 0,
      ]
  }
}

func format(_ value: Any?, _ digits: Int = 0) -> String {
  guard let number = (value as? NSNumber)?.doubleValue else { return "-" }
  return String(format: "%.\(digits)f", number)
}

// MARK: Readers

if only.contains("readers") {
  let fixture = work + "/readers.sqlite"
  run(amalgamBinary, ["c", "prepare", "--fixture", "readers", "--path", fixture])
  var points: [[String: Any]] = []
  let taskCounts = [1, 2, 4, 8, 16, 64]
  for round in 0..<roundCount {
    for (index, tasks) in taskCounts.enumerated() {
      for writer in [0, 1] {
        let contenders = (round + index + writer) % 2 == 0 ? [amalgam, grdb] : [grdb, amalgam]
        for contender in contenders {
          note("readers: round \(round + 1)/\(roundCount), \(contender.name), \(tasks) tasks, writer \(writer)")
          let path = work + "/readers-point.sqlite"
          copyFile(fixture, path)
          var result = point(
            contender,
            ["readers", "--path", path, "--tasks", "\(tasks)", "--writer", "\(writer)", "--seconds", "\(pointSeconds)"])
          result["library"] = contender.name
          result["tasks"] = tasks
          result["writer"] = writer == 1
          points.append(result)
          removeDatabase(path)
        }
      }
    }
  }
  let merged = medians(points, key: ["library", "tasks", "writer"])
  results["readers"] = merged
  print("### Readers (DatabasePool, WAL, 5 readers; median of \(roundCount) rounds of \(pointSeconds) s)\n")
  print(
    "| tasks | writer | Amalgam reads/s | GRDB reads/s | Amalgam read p99 µs | GRDB read p99 µs | "
      + "Amalgam commit p50 / p99 µs | GRDB commit p50 / p99 µs | Amalgam in SQLite p50 / p99 µs | "
      + "GRDB in SQLite p50 / p99 µs |")
  print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
  for tasks in taskCounts {
    for writer in [false, true] {
      let a = merged.first {
        $0["library"] as? String == "Amalgam" && $0["tasks"] as? Int == tasks && $0["writer"] as? Bool == writer
      }
      let g = merged.first {
        $0["library"] as? String == "GRDB" && $0["tasks"] as? Int == tasks && $0["writer"] as? Bool == writer
      }
      let commits = { (p: [String: Any]?, prefix: String) in
        writer ? "\(format(p?[prefix + "P50Microseconds"])) / \(format(p?[prefix + "P99Microseconds"]))" : "-"
      }
      print(
        "| \(tasks) | \(writer ? "yes" : "no") | \(format(a?["readsPerSecond"])) | \(format(g?["readsPerSecond"])) | "
          + "\(format(a?["readP99Microseconds"])) | \(format(g?["readP99Microseconds"])) | \(commits(a, "commit")) | \(commits(g, "commit")) | "
          + "\(commits(a, "commitInSQLite")) | \(commits(g, "commitInSQLite")) |"
      )
    }
  }
  print("")
}

// MARK: Size

/// Instructions inside `scaleMeasured` for one run of a point under callgrind.
let instructionCounter = InstructionCounter(work: work, function: "*scaleMeasured*")
func instructions(_ contender: Contender, _ arguments: [String]) -> Double {
  instructionCounter.count(contender, arguments)
}

if only.contains("size") {
  var points: [[String: Any]] = []
  let operations = ["cursor", "fetchAll", "insert"]
  for rows in sizes {
    let fixture = work + "/size-\(rows).sqlite"
    note("size: making the \(rows)-row fixture")
    run(amalgamBinary, ["c", "prepare", "--fixture", "size", "--rows", "\(rows)", "--path", fixture])
    let runs = rows >= 1_000_000 ? 1 : roundCount
    for operation in operations {
      for (offset, _) in [capi, amalgam, grdb].enumerated() {
        let order = [capi, amalgam, grdb]
        let contender = order[(offset + rows.trailingZeroBitCount) % 3]
        note("size: \(contender.name), \(operation), \(rows) rows")
        let insertPath = work + "/insert.sqlite"
        let arguments =
          operation == "insert"
          ? ["insert", "--rows", "\(rows)", "--path", insertPath]
          : ["fetch", "--mode", operation == "cursor" ? "cursor" : "all", "--path", fixture]
        var times: [Double] = []
        var memory: [Double] = []
        for _ in 0..<runs {
          removeDatabase(insertPath)
          let result = point(contender, arguments)
          if operation != "insert", (result["rows"] as? Int) != rows { fail("\(contender.name) read \(result)") }
          times.append((result["nanoseconds"] as? NSNumber)?.doubleValue ?? 0)
          memory.append((result["maxRSSBytes"] as? NSNumber)?.doubleValue ?? 0)
        }
        var entry: [String: Any] = [
          "library": contender.name, "operation": operation, "rows": rows,
          "nanosecondsPerRow": median(times) / Double(rows), "maxRSSBytes": median(memory), "runs": runs,
        ]
        if countInstructions && rows <= instructionsUpTo {
          removeDatabase(insertPath)
          entry["instructionsPerRow"] = instructions(contender, arguments) / Double(rows)
        }
        removeDatabase(insertPath)
        points.append(entry)
      }
    }
    removeDatabase(fixture)
  }
  results["size"] = points
  print("### Size (one process per point; ns per row: median of \(roundCount) runs, one from 10^6 rows)\n")
  print(
    "| operation | rows | C API ns/row | Amalgam ns/row | GRDB ns/row | C API instr./row | Amalgam instr./row | "
      + "GRDB instr./row | C API max RSS MB | Amalgam max RSS MB | GRDB max RSS MB |")
  print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
  for operation in operations {
    for rows in sizes {
      let row = ["C API", "Amalgam", "GRDB"].map { name in
        points.first {
          $0["library"] as? String == name && $0["operation"] as? String == operation && $0["rows"] as? Int == rows
        }
      }
      print(
        "| \(operation) | \(rows) | " + row.map { format($0?["nanosecondsPerRow"], 1) }.joined(separator: " | ") + " | "
          + row.map { format($0?["instructionsPerRow"]) }.joined(separator: " | ") + " | "
          + row.map { format(($0?["maxRSSBytes"] as? NSNumber).map { $0.doubleValue / 1_048_576 }, 1) }
          .joined(separator: " | ") + " |")
    }
  }
  print("")
}

// MARK: Observers

if only.contains("observers") {
  let counts = quick ? [1, 10, 100, 1_000] : [1, 10, 100, 1_000, 10_000]
  let commits = quick ? 200 : 500
  var points: [[String: Any]] = []
  for (index, count) in counts.enumerated() {
    let fixture = work + "/observers-\(count).sqlite"
    note("observers: making the fixture of \(count) tables")
    run(amalgamBinary, ["c", "prepare", "--fixture", "observers", "--count", "\(count)", "--path", fixture])
    for round in 0..<roundCount {
      for written in [0, 1] {
        let contenders = (round + index + written) % 2 == 0 ? [amalgam, grdb] : [grdb, amalgam]
        for contender in contenders {
          note("observers: round \(round + 1)/\(roundCount), \(contender.name), \(count), written \(written)")
          let path = work + "/observers-point.sqlite"
          copyFile(fixture, path)
          var result = point(
            contender,
            [
              "observers", "--path", path, "--count", "\(count)", "--written", "\(written)", "--commits",
              "\(commits)",
            ])
          result["library"] = contender.name
          points.append(result)
          removeDatabase(path)
        }
      }
    }
    removeDatabase(fixture)
  }
  let merged = medians(points, key: ["library", "observations", "written"])
  results["observers"] = merged
  print("### Observers (DatabaseQueue; \(commits) commits a point; median of \(roundCount) rounds)\n")
  print(
    "| observations | written table observed | Amalgam µs/commit | GRDB µs/commit | Amalgam CPU µs/commit | "
      + "GRDB CPU µs/commit | Amalgam start µs/observation | GRDB start µs/observation |")
  print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
  for count in counts {
    for written in [false, true] {
      let row = ["Amalgam", "GRDB"].map { name in
        merged.first {
          $0["library"] as? String == name && $0["observations"] as? Int == count && $0["written"] as? Bool == written
        }
      }
      let micro = { (p: [String: Any]?, field: String) in
        format((p?[field] as? NSNumber).map { $0.doubleValue / 1000 }, 1)
      }
      print(
        "| \(count) | \(written ? "yes" : "no") | "
          + row.map { micro($0, "nanosecondsPerCommit") }.joined(separator: " | ")
          + " | " + row.map { micro($0, "cpuNanosecondsPerCommit") }.joined(separator: " | ") + " | "
          + row.map { micro($0, "setupNanosecondsPerObservation") }.joined(separator: " | ") + " |")
    }
  }
  print("")
}

// MARK: Changesets

if only.contains("changesets") {
  let sizes = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000]
  var points: [[String: Any]] = []
  for changes in sizes {
    let fixture = work + "/changesets-\(changes).sqlite"
    note("changesets: making the fixture of \(changes / 2) rows")
    run(amalgamBinary, ["c", "prepare", "--fixture", "changesets", "--changes", "\(changes)", "--path", fixture])
    let runs = changes >= 1_000_000 ? 1 : roundCount
    let source = work + "/changesets-source.sqlite"
    let target = work + "/changesets-target.sqlite"
    let file = work + "/changeset.bin"
    for mode in ["memory", "stream"] {
      let order = changes.trailingZeroBitCount % 2 == 0 ? [capi, amalgam] : [amalgam, capi]
      for contender in order {
        note("changesets: \(contender.name), \(changes) changes, \(mode)")
        var samples: [String: [Double]] = [:]
        for _ in 0..<runs {
          copyFile(fixture, source)
          copyFile(fixture, target)
          try? FileManager.default.removeItem(atPath: file)
          let arguments = ["--changes", "\(changes)", "--mode", mode, "--file", file]
          let recorded = point(contender, ["changeset-record", "--path", source] + arguments)
          let applied = point(contender, ["changeset-apply", "--path", target] + arguments)
          guard (recorded["checksum"] as? Int) == (applied["checksum"] as? Int) else {
            fail("\(contender.name) \(changes) \(mode): the applied copy differs from the recorded database")
          }
          for (name, value) in recorded.merging(applied, uniquingKeysWith: { first, _ in first }) {
            if let number = value as? NSNumber { samples[name, default: []].append(number.doubleValue) }
          }
        }
        var entry: [String: Any] = ["library": contender.name, "changes": changes, "mode": mode, "runs": runs]
        for (name, values) in samples where entry[name] == nil { entry[name] = median(values) }
        for phase in ["record", "produce", "apply"] {
          entry[phase + "NanosecondsPerChange"] = (entry[phase + "Nanoseconds"] as? Double ?? 0) / Double(changes)
        }
        points.append(entry)
      }
    }
    for path in [source, target, fixture] { removeDatabase(path) }
    try? FileManager.default.removeItem(atPath: file)
  }
  results["changesets"] = points
  print("### Changesets (one process per phase; median of \(roundCount) runs, one at 10^6 changes)\n")
  print(
    "| changes | produce and apply | C API record ns/change | Amalgam record ns/change | C API produce | Amalgam produce | "
      + "C API apply | Amalgam apply | C API produce MB | Amalgam produce MB | C API apply MB | Amalgam apply MB |")
  print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
  for changes in sizes {
    for mode in ["memory", "stream"] {
      let row = ["C API", "Amalgam"].map { name in
        points.first {
          $0["library"] as? String == name && $0["changes"] as? Int == changes && $0["mode"] as? String == mode
        }
      }
      let megabytes = { (p: [String: Any]?, field: String) in
        format((p?[field] as? NSNumber).map { $0.doubleValue / 1_048_576 }, 1)
      }
      print(
        "| \(changes) | \(mode) | "
          + ["record", "produce", "apply"].map { phase in
            row.map { format($0?[phase + "NanosecondsPerChange"], 0) }.joined(separator: " | ")
          }.joined(separator: " | ") + " | " + row.map { megabytes($0, "producePeakBytes") }.joined(separator: " | ")
          + " | " + row.map { megabytes($0, "applyPeakBytes") }.joined(separator: " | ") + " |")
    }
  }
  print("")
}

// MARK: Encryption

if only.contains("encryption") {
  let binary = URL(fileURLWithPath: encryptionBuild).appendingPathComponent("scale-amalgam").path
  if !FileManager.default.isExecutableFile(atPath: binary) {
    note(
      "encryption: \(binary) is missing (swift build -c release --traits ENCRYPTION --scratch-path "
        + ".build-encryption): skipped")
  } else {
    let encrypted = Contender(name: "Amalgam", executable: binary, arguments: ["amalgam"])
    let passphrase = "peer-scale passphrase"
    var fixtures: [Bool: String] = [:]
    for keyed in [false, true] {
      let fixture = work + "/encryption-\(keyed ? "keyed" : "plain").sqlite"
      run(
        binary,
        ["amalgam", "prepare", "--fixture", "readers", "--path", fixture] + (keyed ? ["--key", passphrase] : []))
      fixtures[keyed] = fixture
    }
    var points: [[String: Any]] = []
    for round in 0..<roundCount {
      for keyed in round % 2 == 0 ? [false, true] : [true, false] {
        note("encryption: round \(round + 1)/\(roundCount), \(keyed ? "keyed" : "plain")")
        let path = work + "/encryption-point.sqlite"
        copyFile(fixtures[keyed] ?? "", path)
        points.append(
          point(encrypted, ["encrypted-pool", "--path", path, "--readers", "8", "--key", keyed ? passphrase : "none"]))
        removeDatabase(path)
      }
    }
    for fixture in fixtures.values { removeDatabase(fixture) }
    let merged = medians(points, key: ["keyed"])
    results["encryption"] = merged
    print("### Encrypted pool (8 readers, every first read at once; median of \(roundCount) rounds)\n")
    print("| database | open ms | first read, median reader ms | first read, last reader ms | CPU ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for point in merged {
      let milli = { (field: String) in format((point[field] as? NSNumber).map { $0.doubleValue / 1e6 }, 1) }
      print(
        "| \(point["keyed"] as? Bool == true ? "keyed (ChaCha20)" : "plain") | \(milli("openNanoseconds")) | "
          + "\(milli("firstReadMedianNanoseconds")) | \(milli("firstReadMaxNanoseconds")) | \(milli("cpuNanoseconds")) |"
      )
    }
    print("")
  }
}

results["loadAverageAtEnd"] = loadAverage()
results["finished"] = ISO8601DateFormatter().string(from: Date())
for curve in allCurves where only.contains(curve) && results[curve] != nil {
  runs[curve] = [
    "started": results["started"] ?? "", "loadAverageAtStart": loadAtStart,
    "loadAverageAtEnd": results["loadAverageAtEnd"] ?? -1, "quick": quick, "rounds": roundCount,
  ]
}
results["runs"] = runs
do {
  let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
  try data.write(to: URL(fileURLWithPath: output))
} catch {
  fail("cannot write \(output): \(error)")
}
print(
  "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(format(loadAtStart, 2)) at the start, "
    + "\(format(results["loadAverageAtEnd"], 2)) at the end. JSON: \(output)")
