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

  /// A fresh directory for database files, removed with everything in it when `body` returns.
  static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
  }

  /// A fresh directory for database files, removed with everything in it when `body` returns.
  static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
  }

  /// The path of a database file in a fresh temporary directory, removed when `body` returns.
  static func withDatabasePath<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryDirectory { try body($0.appendingPathComponent("test.sqlite").path) }
  }

  /// The path of a database file in a fresh temporary directory, removed when `body` returns.
  static func withDatabasePath<T>(_ body: (String) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { try await body($0.appendingPathComponent("test.sqlite").path) }
  }

  private static func makeTemporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("AmalgamConcurrencyTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// Runs `body` in a synchronous context, where the blocking overloads of `read`, `transaction` and
  /// `savepoint` are chosen over the async ones.
  static func blocking<T>(_ body: () throws -> T) rethrows -> T {
    try body()
  }

  /// Seconds elapsed since `start`.
  static func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
  }

  /// Runs `body` on a new thread (not a Swift concurrency thread, which must never block).
  static func onThread(_ body: @escaping @Sendable () -> Void) {
    Thread.detachNewThread(body)
  }
}

extension ConcurrencyTests {
  /// A value shared between test threads and tasks, guarded by a lock.
  final class Shared<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only accessed inside `withLock`, holding `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
      lock.lock()
      defer { lock.unlock() }
      return try body(&value)
    }
    var current: Value { withLock { $0 } }
  }

  /// A one-shot signal between threads: `wait` blocks until `signal`, or until the timeout.
  struct Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    /// True when signalled within `seconds`.
    @discardableResult
    func wait(seconds: Double = 10) -> Bool {
      semaphore.wait(timeout: .now() + seconds) == .success
    }
  }
}
