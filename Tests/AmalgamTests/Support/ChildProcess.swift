import Foundation

/// Runs the test-only executables of this package (the reliability drivers, the migration fixture) as
/// child processes.
enum ChildProcess {
  /// A test-only executable of this package, built by `swift test` next to the test binary (Linux:
  /// `/proc/self/exe`; macOS: beside the `.xctest` bundle).
  static func executable(_ name: String) throws -> URL {
    var directories: [URL] = []
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
    }
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      directories.append(bundle.bundleURL.deletingLastPathComponent())
    }
    for directory in directories {
      let candidate = directory.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw Failure("\(name) was not found (swift test builds it); searched \(directories.map(\.path))")
  }

  /// An installed program found in `PATH`, or nil.
  static func inPath(_ name: String) -> URL? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  /// How a child process ended.
  struct Outcome {
    /// The exit status, or the signal number when `signaled`.
    var status: Int32
    /// Whether a signal ended the process.
    var signaled: Bool
    var stdout: String
    var stderr: String
  }

  /// Runs `executable` with its output in files; `killAfter` sends SIGKILL after that many seconds
  /// (if the process is still running). Waits for the process to end.
  static func run(_ executable: URL, _ arguments: [String], in directory: URL, killAfter: Double? = nil)
    async throws -> Outcome
  {
    let name = UUID().uuidString
    let stdoutURL = directory.appendingPathComponent("\(name).stdout")
    let stderrURL = directory.appendingPathComponent("\(name).stderr")
    try Data().write(to: stdoutURL)
    try Data().write(to: stderrURL)
    defer {
      try? FileManager.default.removeItem(at: stdoutURL)
      try? FileManager.default.removeItem(at: stderrURL)
    }
    let stdoutHandle = try FileHandle(forWritingTo: stdoutURL)
    let stderrHandle = try FileHandle(forWritingTo: stderrURL)
    defer {
      try? stdoutHandle.close()
      try? stderrHandle.close()
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = stdoutHandle
    process.standardError = stderrHandle
    let ended: (status: Int32, signaled: Bool) = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { process in
        continuation.resume(returning: (process.terminationStatus, process.terminationReason == .uncaughtSignal))
      }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
        return
      }
      if let killAfter {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) {
          // Skip a process that has ended already (its pid could be reused). The window between this
          // check and kill() is microseconds, far shorter than any pid reuse.
          if process.isRunning { kill(pid, SIGKILL) }
        }
      }
    }
    return Outcome(
      status: ended.status, signaled: ended.signaled,
      stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
  }

  /// A test failure with a message.
  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
