import Amalgam
import Foundation
import Testing

/// Two processes migrating one file at the same time: each runs `amalgam-migration-fixture` (a test-only
/// executable of this package, built by `swift test` next to the test binary; see Tests/MigrationFixture).
@Suite struct MigrationProcessTests {
  @Test func twoProcessesMigratingOneFileAtOnceApplyEachMigrationExactlyOnce() async throws {
    let executable = try fixtureURL()
    try await withMigrationDirectory { directory in
      let path = directory.appendingPathComponent("shared.sqlite").path
      async let first = run(executable, [path, "first", "2"], in: directory, name: "first")
      async let second = run(executable, [path, "second", "2"], in: directory, name: "second")
      let results = try await [first, second]
      for result in results {
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "13\n")
      }

      let db = try Database(path: path)
      let steps = try db.prepare(sql: "SELECT migration FROM log ORDER BY rowid").column(0, as: String.self)
      #expect(steps == (1...12).map { "step \($0)" })
      let recorded = try db.prepare(sql: "SELECT count(*), count(DISTINCT identifier) FROM amalgam_migrations")
        .firstRow()
      #expect(recorded == [.integer(13), .integer(13)])
      // Both took part: the processes pause between migrations, so each applies some of them.
      let processes = try db.prepare(sql: "SELECT DISTINCT process FROM log ORDER BY process").column(
        0, as: String.self)
      #expect(processes == ["first", "second"])
    }
  }

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The fixture next to the test binary (Linux: `/proc/self/exe`; macOS: beside the `.xctest` bundle).
  func fixtureURL() throws -> URL {
    var directories: [URL] = []
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
    }
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      directories.append(bundle.bundleURL.deletingLastPathComponent())
    }
    for directory in directories {
      let candidate = directory.appendingPathComponent("amalgam-migration-fixture")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    struct NotFound: Error, CustomStringConvertible {
      var searched: [URL]
      var description: String {
        "amalgam-migration-fixture was not found (swift test builds it); searched "
          + searched.map(\.path).joined(separator: ", ")
      }
    }
    throw NotFound(searched: directories)
  }

  /// Runs `executable` with its output in files, and waits for it to exit.
  func run(_ executable: URL, _ arguments: [String], in directory: URL, name: String) async throws -> Result {
    let stdoutURL = directory.appendingPathComponent("\(name).stdout")
    let stderrURL = directory.appendingPathComponent("\(name).stderr")
    try Data().write(to: stdoutURL)
    try Data().write(to: stderrURL)
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
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { process in
        let status = process.terminationStatus
        continuation.resume(returning: process.terminationReason == .exit ? status : -status)
      }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    return Result(
      status: status,
      stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
  }
}
