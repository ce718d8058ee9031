// peer-scale: how cost grows with concurrency and size, Amalgam against GRDB (and SQLite's C API on
// Amalgam's SQLite where it applies). Runs every point in its own process (scale-amalgam, scale-grdb),
// writes all points as JSON for Scripts/peer-bench/plot, and prints markdown tables.
import Foundation

let usage = """
  usage: swift build -c release && .build/release/peer-scale [--quick] [--only readers,size]
                                                             [--output FILE] [--rounds R] [--seconds S]
                                                             [--no-instructions]

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

    --quick            fewer points: sizes up to 10^5 (instructions up to 10^4), 1 s per readers point,
                       one round; for checking that everything runs (about 2 minutes)
    --only LIST        curves to run (default: readers,size)
    --output FILE      where the JSON goes (default: scale.json in the current folder)
    --rounds R         rounds (default 3; 1 with --quick)
    --seconds S        seconds per readers point (default 3; 1 with --quick)
    --no-instructions  skip the callgrind counts (valgrind is needed for them)
    --help             this text

  Plot the JSON with Scripts/peer-bench/plot (see its --help). The whole run takes about 15 minutes.
  """

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("peer-scale: \(message)\n".utf8))
  exit(1)
}

func note(_ message: String) { FileHandle.standardError.write(Data("\(message)\n".utf8)) }

var quick = false
var only = ["readers", "size"]
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
  case "--rounds":
    guard let value = commandLine.popFirst().flatMap({ Int($0) }), value > 0 else { fail("--rounds needs a number") }
    rounds = value
  case "--seconds":
    guard let value = commandLine.popFirst().flatMap({ Double($0) }), value > 0 else {
      fail("--seconds needs a number")
    }
    seconds = value
  case "--no-instructions": countInstructions = false
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

let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  .deletingLastPathComponent().path
let amalgamBinary = binDirectory + "/scale-amalgam"
let grdbBinary = binDirectory + "/scale-grdb"
for binary in [amalgamBinary, grdbBinary] where !FileManager.default.isExecutableFile(atPath: binary) {
  fail("\(binary) is missing: build the package first (swift build -c release)")
}
if countInstructions && !FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind") {
  note("valgrind not found: no instruction counts")
  countInstructions = false
}

struct Contender {
  let name: String
  let executable: String
  let arguments: [String]
}
let amalgam = Contender(name: "Amalgam", executable: amalgamBinary, arguments: ["amalgam"])
let grdb = Contender(name: "GRDB", executable: grdbBinary, arguments: [])
let capi = Contender(name: "C API", executable: amalgamBinary, arguments: ["c"])

let work = FileManager.default.temporaryDirectory.appendingPathComponent("peer-scale-\(getpid())").path
try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }

/// Runs a program; returns its standard output and error; fails on a non-zero exit.
@discardableResult
func run(_ executable: String, _ arguments: [String]) -> (output: String, errors: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  do { try process.run() } catch { fail("cannot run \(executable): \(error)") }
  let errorReader = DispatchQueue(label: "errors")
  // Read on another thread so that neither pipe fills while the other is read; the group orders the access.
  nonisolated(unsafe) var errorData = Data()
  let group = DispatchGroup()
  errorReader.async(group: group) { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    fail(
      "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
        + String(decoding: errorData, as: UTF8.self))
  }
  return (String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
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

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
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

/// valgrind cannot read the toolchain's DWARF 5 debug information; symbol names are enough.
var stripped: [String: String] = [:]
func strippedCopy(_ executable: String) -> String {
  if let copy = stripped[executable] { return copy }
  let copy = work + "/" + URL(fileURLWithPath: executable).lastPathComponent
  run("/bin/cp", [executable, copy])
  run("/usr/bin/env", ["strip", "--strip-debug", copy])
  stripped[executable] = copy
  return copy
}

/// Instructions inside `scaleMeasured` for one run of a point under callgrind.
func instructions(_ contender: Contender, _ arguments: [String]) -> Double {
  let result = run(
    "/usr/bin/env",
    [
      "valgrind", "--tool=callgrind", "--callgrind-out-file=\(work)/callgrind.out", "--collect-atstart=no",
      "--toggle-collect=*scaleMeasured*", strippedCopy(contender.executable),
    ] + contender.arguments + arguments)
  guard let line = result.errors.split(separator: "\n").first(where: { $0.contains("Collected :") }),
    let count = Double(line.split(separator: " ").last?.replacingOccurrences(of: ",", with: "") ?? "")
  else { fail("no instruction count for \(contender.name) \(arguments.joined(separator: " "))") }
  return count
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

results["loadAverageAtEnd"] = loadAverage()
results["finished"] = ISO8601DateFormatter().string(from: Date())
do {
  let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
  try data.write(to: URL(fileURLWithPath: output))
} catch {
  fail("cannot write \(output): \(error)")
}
print(
  "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(format(loadAtStart, 2)) at the start, "
    + "\(format(results["loadAverageAtEnd"], 2)) at the end. JSON: \(output)")
