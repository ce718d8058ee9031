import Amalgam
import Foundation
import Testing

/// Messages received by the process-wide log handler; the handler runs on any thread.
final class LogMessages: @unchecked Sendable {
  // Guarded by `lock`.
  private var messages: [(ResultCode, String)] = []
  private let lock = NSLock()

  func append(_ code: ResultCode, _ message: String) {
    lock.withLock { messages.append((code, message)) }
  }

  /// The messages that contain `marker` (other tests, running in parallel, make SQLite log too).
  func containing(_ marker: String) -> [(ResultCode, String)] {
    lock.withLock { messages.filter { $0.1.contains(marker) } }
  }
}

/// The error log is process-wide, so every test of it is in this one serialized suite.
@Suite(.serialized) struct SQLiteLogTests {
  @Test func handlerReceivesSQLiteErrorsAndWrittenMessagesUntilRemoved() throws {
    let messages = LogMessages()
    try SQLiteLog.setHandler { code, message in messages.append(code, message) }
    defer { SQLiteLog.removeHandler() }

    // A real SQLite error: preparing SQL that names a missing table.
    let table = "missing_\(UUID().uuidString.prefix(8))"
    let db = try Database()
    _ = expectSQLiteError { _ = try db.prepare(sql: "SELECT * FROM \(table)") }
    let errors = messages.containing(table)
    #expect(errors.count == 1)
    #expect(errors.first?.0 == .error)
    #expect(errors.first?.1 == "no such table: \(table) in \"SELECT * FROM \(table)\"")

    // A message written through SQLite's log.
    let marker = "amalgam-log-\(UUID().uuidString)"
    SQLiteLog.write(marker, code: .warning)
    #expect(messages.containing(marker).map(\.0) == [.warning])

    // Replacing the handler: only the new one receives messages.
    let replacement = LogMessages()
    try SQLiteLog.setHandler { code, message in replacement.append(code, message) }
    SQLiteLog.write(marker, code: .notice)
    #expect(messages.containing(marker).count == 1)
    #expect(replacement.containing(marker).map(\.0) == [.notice])

    // After removal, nothing is delivered.
    SQLiteLog.removeHandler()
    SQLiteLog.write(marker, code: .notice)
    #expect(replacement.containing(marker).count == 1)
  }

  /// The CustomFunctionsAndHooks article's error-log example, verbatim between the markers
  /// (HooksReadmeExampleTests checks it).
  @Test func readmeLogExampleCompilesAndRuns() throws {
    // log article example: begin
    try SQLiteLog.setHandler { code, message in
      print("SQLite \(code.rawValue): \(message)")  // SQLite 1: no such table: missing in "SELECT * FROM missing"
    }
    SQLiteLog.write("application started", code: .notice)  // goes through SQLite's log to the handler
    SQLiteLog.removeHandler()
    // log article example: end
  }
}
