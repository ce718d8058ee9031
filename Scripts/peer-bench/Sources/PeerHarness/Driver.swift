// What the drivers (peer-bench, peer-scale) share: the contenders they run, running a program and
// reading its output, medians, and callgrind's count of the instructions inside one function.
import Foundation

/// A program run once per point: its name in tables, its executable and its first arguments.
public struct Contender: Sendable {
  public let name: String
  public let executable: String
  public let arguments: [String]

  public init(name: String, executable: String, arguments: [String]) {
    self.name = name
    self.executable = executable
    self.arguments = arguments
  }
}

/// Prints `message` after the program's name and exits with status 1.
public func driverFail(_ message: String) -> Never {
  let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
  FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
  exit(1)
}

/// Prints `message` on the standard error: progress.
public func note(_ message: String) { FileHandle.standardError.write(Data("\(message)\n".utf8)) }

/// The folder of the running program, where the package's other executables are.
public func binaryDirectory() -> String {
  URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
}

/// The value after an option that needs a positive whole number, or a failure naming the option.
public func positiveInt(_ value: String?, for option: String) -> Int {
  guard let value = value.flatMap({ Int($0) }), value > 0 else { driverFail("\(option) needs a number") }
  return value
}

/// Runs a program; returns its standard output and error; fails on a non-zero exit.
@discardableResult
public func runProgram(_ executable: String, _ arguments: [String]) -> (output: String, errors: String) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  do { try process.run() } catch { driverFail("cannot run \(executable): \(error)") }
  let errorReader = DispatchQueue(label: "errors")
  // Read on another thread so that neither pipe fills while the other is read; the group orders the access.
  nonisolated(unsafe) var errorData = Data()
  let group = DispatchGroup()
  errorReader.async(group: group) { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    driverFail(
      "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
        + String(decoding: errorData, as: UTF8.self))
  }
  return (String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
}

public func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return 0 }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Counts, with valgrind's callgrind, the instructions a contender runs inside the functions matching
/// `function` (a callgrind pattern such as `*peerMeasured*`), from copies of the executables in `work`.
public final class InstructionCounter {
  private let work: String
  private let function: String
  /// valgrind cannot read the toolchain's DWARF 5 debug information; symbol names are enough.
  private var stripped: [String: String] = [:]

  public init(work: String, function: String) {
    self.work = work
    self.function = function
  }

  private func strippedCopy(_ executable: String) -> String {
    if let copy = stripped[executable] { return copy }
    let copy = work + "/" + URL(fileURLWithPath: executable).lastPathComponent
    runProgram("/bin/cp", [executable, copy])
    runProgram("/usr/bin/env", ["strip", "--strip-debug", copy])
    stripped[executable] = copy
    return copy
  }

  /// The instructions of one run of `contender` with `arguments` after its own.
  public func count(_ contender: Contender, _ arguments: [String]) -> Double {
    let result = runProgram(
      "/usr/bin/env",
      [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=\(work)/callgrind.out", "--collect-atstart=no",
        "--toggle-collect=\(function)", strippedCopy(contender.executable),
      ] + contender.arguments + arguments)
    guard let line = result.errors.split(separator: "\n").first(where: { $0.contains("Collected :") }),
      let count = Double(line.split(separator: " ").last?.replacingOccurrences(of: ",", with: "") ?? "")
    else { driverFail("no instruction count for \(contender.name) \(arguments.joined(separator: " "))") }
    return count
  }
}
