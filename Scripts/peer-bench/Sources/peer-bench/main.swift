// peer-bench: runs the peer workloads through Amalgam, SQLite's C API on Amalgam's SQLite, and GRDB, each
// run in its own process, in interleaved rounds, checks that the three agree on each workload's checksum,
// and prints one markdown table of times (and, with --instructions, callgrind instruction counts).
import Foundation

let peerWorkloadList = [
  "1 fetch 100k rows x 10 ints by index", "2 fetch 100k rows x 10 ints by name",
  "3 insert 20k rows x 10 ints, positional", "4 insert 20k rows x 10 ints, named parameters",
  "5 fetch 100k Decodable structs (cursor)", "6 insert 20k Encodable records",
  "7 fetch 100k rows of text + blob as String + Data", "8 statement cache: 3 SQL strings x 50k executions",
  "13 fetchAll 100k records with init(row:)", "14 fetchAll 100k Decodable records",
  "16 10k record inserts, each fetched back by primary key",
].joined(separator: "\n  ")

let usage = """
  usage: swift run -c release peer-bench [--only 1,2,...] [--rounds R] [--repetitions N] [--instructions]

  Runs each workload once per round in each contender's own process (peer-amalgam amalgam, peer-amalgam c,
  peer-grdb), rotating which contender goes first, and prints per workload the median over rounds of each
  process's median time, and the ratios Amalgam / C and GRDB / Amalgam. Every process's checksum must
  equal the others' (exit 1 otherwise).

    --only LIST        workloads to run (default: all; numbered as in amalgam-bench)
    --rounds R         rounds (default 5)
    --repetitions N    timed runs per process, after one untimed warm-up (default 3)
    --instructions     also count each workload's instructions with valgrind's callgrind (one run per
                       contender, only inside the timed body; minutes per workload)
    --help             this text

  Workloads:
  \(peerWorkloadList)
  """

struct Contender {
  let name: String
  let executable: String
  let arguments: [String]
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("peer-bench: \(message)\n".utf8))
  exit(1)
}

var only: [Int]?
var rounds = 5
var repetitions = 3
var countInstructions = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--only":
    only = arguments.popFirst()?.split(separator: ",").compactMap { Int($0) }
    if only?.isEmpty ?? true { fail("--only needs workload numbers") }
  case "--rounds":
    guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else { fail("--rounds needs a number") }
    rounds = value
  case "--repetitions":
    guard let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 else {
      fail("--repetitions needs a number")
    }
    repetitions = value
  case "--instructions": countInstructions = true
  case "--help", "-h":
    print(usage)
    exit(0)
  default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
  }
}

let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  .deletingLastPathComponent().path
let contenders = [
  Contender(name: "C API", executable: binDirectory + "/peer-amalgam", arguments: ["c"]),
  Contender(name: "Amalgam", executable: binDirectory + "/peer-amalgam", arguments: ["amalgam"]),
  Contender(name: "GRDB", executable: binDirectory + "/peer-grdb", arguments: []),
]
for contender in contenders where !FileManager.default.isExecutableFile(atPath: contender.executable) {
  fail("\(contender.executable) is missing: build the package first (swift build -c release)")
}
let workloads = peerWorkloadList.split(separator: "\n").compactMap { line -> (Int, String)? in
  let trimmed = line.trimmingCharacters(in: .whitespaces)
  guard let space = trimmed.firstIndex(of: " "), let number = Int(trimmed[..<space]) else { return nil }
  return (number, String(trimmed[trimmed.index(after: space)...]))
}.filter { only?.contains($0.0) ?? true }

/// Runs a program and returns its standard output; fails on a non-zero exit.
func run(_ executable: String, _ arguments: [String]) -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  do { try process.run() } catch { fail("cannot run \(executable): \(error)") }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    fail(
      "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
        + String(decoding: errorData, as: UTF8.self))
  }
  return String(decoding: data, as: UTF8.self) + String(decoding: errorData, as: UTF8.self)
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// times[workload][contender index] = each round's median nanoseconds
var times: [Int: [[Double]]] = [:]
var checksums: [Int: Int] = [:]
for round in 0..<rounds {
  FileHandle.standardError.write(Data("round \(round + 1)/\(rounds)\n".utf8))
  for (number, _) in workloads {
    for offset in 0..<contenders.count {
      let index = (offset + round + number) % contenders.count
      let contender = contenders[index]
      let line =
        run(
          contender.executable,
          contender.arguments + ["--workload", "\(number)", "--repetitions", "\(repetitions)"]
        ).split(separator: "\n").first ?? ""
      let fields = line.split(separator: " ")
      guard fields.count == 2, let checksum = Int(fields[0]), let nanoseconds = Double(fields[1]) else {
        fail("\(contender.name), workload \(number): unreadable output '\(line)'")
      }
      if let expected = checksums[number], expected != checksum {
        fail("workload \(number): \(contender.name)'s checksum \(checksum) differs from \(expected)")
      }
      checksums[number] = checksum
      times[number, default: Array(repeating: [], count: contenders.count)][index].append(nanoseconds)
    }
  }
}

// Instructions: one run of each contender under callgrind, counting only inside peerMeasured.
var instructions: [Int: [Double]] = [:]
if countInstructions {
  let work = FileManager.default.temporaryDirectory.appendingPathComponent("peer-bench-\(getpid())").path
  try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: work) }
  // valgrind cannot read the toolchain's DWARF 5 debug information; symbol names are enough.
  var stripped: [String: String] = [:]
  for contender in contenders where stripped[contender.executable] == nil {
    let copy = work + "/" + URL(fileURLWithPath: contender.executable).lastPathComponent
    _ = run("/bin/cp", [contender.executable, copy])
    _ = run("/usr/bin/env", ["strip", "--strip-debug", copy])
    stripped[contender.executable] = copy
  }
  for (number, _) in workloads {
    for (index, contender) in contenders.enumerated() {
      FileHandle.standardError.write(Data("instructions: workload \(number), \(contender.name)\n".utf8))
      let output = run(
        "/usr/bin/env",
        [
          "valgrind", "--tool=callgrind", "--callgrind-out-file=\(work)/out", "--collect-atstart=no",
          "--toggle-collect=*peerMeasured*", stripped[contender.executable] ?? contender.executable,
        ] + contender.arguments + ["--workload", "\(number)", "--repetitions", "1"])
      guard let line = output.split(separator: "\n").first(where: { $0.contains("Collected :") }),
        let count = Double(line.split(separator: " ").last?.replacingOccurrences(of: ",", with: "") ?? "")
      else { fail("no instruction count for workload \(number), \(contender.name)") }
      instructions[number, default: Array(repeating: 0, count: contenders.count)][index] = count
    }
  }
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
print(
  "| # | workload | C ms | Amalgam ms | GRDB ms | Amalgam / C | GRDB / Amalgam |"
    + (countInstructions ? " Amalgam / C instr. | GRDB / Amalgam instr. |" : ""))
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |" + (countInstructions ? " ---: | ---: |" : ""))
for (number, name) in workloads {
  let medians = (times[number] ?? []).map { median($0) / 1e6 }
  guard medians.count == 3, medians[0] > 0, medians[1] > 0 else { continue }
  var row = "| \(number) | \(name) | \(format(medians[0])) | \(format(medians[1])) | \(format(medians[2])) | "
  row += "\(format(medians[1] / medians[0])) | \(format(medians[2] / medians[1])) |"
  if let counts = instructions[number], counts[0] > 0, counts[1] > 0 {
    row += " \(format(counts[1] / counts[0])) | \(format(counts[2] / counts[1])) |"
  }
  print(row)
}
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
print(
  "\n\(rounds) rounds of \(repetitions) timed runs per process; "
    + "\(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(load) at the end.")
