#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value that threads share, guarded by a mutex. The concurrency types keep all their mutable
/// bookkeeping (who is running, cancellation, the reader pool) in one of these.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15; a pthread mutex works everywhere.
final class LockedState<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only read or written inside `withLock`, while `mutex` is held.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  init(_ value: Value) {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    self.value = value
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with exclusive access to the value. `body` must not block or call back into code
  /// that takes this lock.
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}

/// The identity of a thread, for telling whether the calling thread is the one running a closure.
struct ThreadID: Equatable, @unchecked Sendable {
  // @unchecked Sendable: an opaque identifier that is only compared (pthread_equal), never dereferenced.
  private let thread: pthread_t

  /// The calling thread.
  static var current: ThreadID { ThreadID(thread: pthread_self()) }

  static func == (lhs: ThreadID, rhs: ThreadID) -> Bool {
    pthread_equal(lhs.thread, rhs.thread) != 0
  }
}
