import Dispatch
import Foundation

/// Runs `body` in a synchronous context, where the blocking overloads of `read`, `transaction` and
/// `savepoint` are chosen over the async ones.
func blocking<T>(_ body: () throws -> T) rethrows -> T {
  try body()
}

/// Seconds elapsed since `start`.
func seconds(since start: DispatchTime) -> Double {
  Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

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
