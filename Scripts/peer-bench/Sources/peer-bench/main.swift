// peer-bench: runs the peer workloads through Amalgam, SQLite's C API on Amalgam's SQLite, and GRDB, each
// run in its own process, in interleaved rounds, checks that the three agree on each workload's checksum,
// and prints one markdown table of times (and, with --instructions, callgrind instruction counts).
import Foundation
import PeerHarness

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

func fail(_ message: String) -> Never { driverFail(message) }

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
  case "--rounds": rounds = positiveInt(arguments.popFirst(), for: "--rounds")
  case "--repetitions": repetitions = positiveInt(arguments.popFirst(), for: "--repetitions")
  case "--instructions": countInstructions = true
  case "--help", "-h":
    print(usage)
    exit(0)
  default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
  }
}

let binDirectory = binaryDirectory()
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

/// Runs a program and returns its standard output, then its standard error; fails on a non-zero exit.
func run(_ executable: String, _ arguments: [String]) -> String {
  let result = runProgram(executable, arguments)
  return result.output + result.errors
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
  let counter = InstructionCounter(work: work, function: "*peerMeasured*")
  for (number, _) in workloads {
    for (index, contender) in contenders.enumerated() {
      FileHandle.standardError.write(Data("instructions: workload \(number), \(contender.name)\n".utf8))
      let count = counter.count(contender, ["--workload", "\(number)", "--repetitions", "1"])
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
