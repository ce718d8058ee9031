import Amalgam
import Dispatch
import Foundation
import Testing

/// The concurrency suites, grouped so that `swift test --filter Concurrency` selects them all.
@Suite enum ConcurrencyTests {}

extension ConcurrencyTests {
  /// A query that runs until it is interrupted.
  static let endlessQuery =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"

  /// A query that takes a few milliseconds.
  static let shortQuery =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT count(*) FROM n"

  /// The path of a database file in a fresh temporary directory, removed when `body` returns.
  static func withDatabasePath<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryDirectory { try body($0.appendingPathComponent("test.sqlite").path) }
  }

  /// The path of a database file in a fresh temporary directory, removed when `body` returns.
  static func withDatabasePath<T>(_ body: (String) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { try await body($0.appendingPathComponent("test.sqlite").path) }
  }

  /// Runs `body` on a new thread (not a Swift concurrency thread, which must never block).
  static func onThread(_ body: @escaping @Sendable () -> Void) {
    Thread.detachNewThread(body)
  }
}
