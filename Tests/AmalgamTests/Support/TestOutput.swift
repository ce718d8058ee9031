import Foundation

/// What the tests print: the output of the README's and the articles' examples (which call `print` as a
/// user's code does) and the figures of the stress and reliability tests. It goes to a log file rather than
/// to standard output, so that `swift test` shows only the test results: the file `$AMALGAM_TEST_LOG` when
/// the variable is set, else `amalgam-test-output.log` in the temporary folder, emptied when a test run
/// first prints.
enum TestOutput {
  /// Collects what ``print(_:separator:terminator:)`` writes in the current task (and the tasks it
  /// starts), for a test that checks an example's output: see ``printedOutput(of:)``.
  @TaskLocal static var capture: Shared<String>?

  /// The log file's path.
  static let path =
    ProcessInfo.processInfo.environment["AMALGAM_TEST_LOG"]
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-test-output.log").path

  /// The log file, opened on first use; -1 if it cannot be opened (then the text is dropped).
  private static let descriptor: Int32 = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o644)

  /// Appends `text` to the log. Each call is one `write` to a file opened with `O_APPEND`, so lines that
  /// tests print at the same time do not interleave.
  static func append(_ text: String) {
    guard descriptor >= 0 else { return }
    var text = text
    text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return }
      var offset = 0
      while offset < bytes.count {
        let written = write(descriptor, base + offset, bytes.count - offset)
        if written <= 0 { return }
        offset += written
      }
    }
  }
}

/// Shadows the standard library's `print` in the whole test target: the text goes to ``TestOutput``'s log
/// (and to the capture of the current task, if any), not to standard output.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let text = items.map { String(describing: $0) }.joined(separator: separator) + terminator
  TestOutput.capture?.withLock { $0 += text }
  TestOutput.append(text)
}

/// Runs `body` and returns what it printed.
func printedOutput(of body: () throws -> Void) rethrows -> String {
  let capture = Shared("")
  try TestOutput.$capture.withValue(capture) { try body() }
  return capture.current
}
