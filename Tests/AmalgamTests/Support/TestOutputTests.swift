import Foundation
import Testing

/// `print` in the test target writes to the test log, so that `swift test` shows only the test results.
@Suite struct TestOutputTests {
  @Test func printWritesToTheLogFileAndToTheCaptureOfItsTask() throws {
    let marker = "test-output-\(UUID().uuidString)"
    let printed = printedOutput {
      print(marker, 42, separator: ", ", terminator: ".\n")
    }
    #expect(printed == "\(marker), 42.\n")
    let log = try String(contentsOfFile: TestOutput.path, encoding: .utf8)
    #expect(log.contains("\(marker), 42.\n"))
  }

  @Test func printOutsideACaptureOnlyWritesTheLog() throws {
    let marker = "uncaptured-\(UUID().uuidString)"
    let printed = printedOutput {}
    print(marker)
    #expect(printed.isEmpty)
    #expect(try String(contentsOfFile: TestOutput.path, encoding: .utf8).contains(marker + "\n"))
  }
}
