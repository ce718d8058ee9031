import Dispatch

/// Runs a task's jobs on a serial dispatch queue of its own rather than on Swift's cooperative pool, whose
/// two threads (on a 2-core machine) other suites may keep blocked for seconds while a test waits for an
/// event or times an interrupt. Task executors need macOS 15 and its peers (any Linux).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class QueueExecutor: TaskExecutor, @unchecked Sendable {
  // @unchecked Sendable: `queue` is thread-safe and never changes.
  private let queue = DispatchQueue(label: "amalgam.tests.queue-executor")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

/// Starts `operation` in a task that runs on a ``QueueExecutor`` of its own where the system has task
/// executors, and on the cooperative pool elsewhere (Apple systems before macOS 15, iOS 18 and their
/// peers, where the package still runs).
func offThePoolTask<Success: Sendable>(
  _ operation: sending @escaping () async -> Success
) -> Task<Success, Never> {
  if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
    return Task(executorPreference: QueueExecutor(), operation: operation)
  }
  return Task(operation: operation)
}

/// ``offThePoolTask(_:)`` for an operation that throws.
func offThePoolTask<Success: Sendable>(
  _ operation: sending @escaping () async throws -> Success
) -> Task<Success, any Error> {
  if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
    return Task(executorPreference: QueueExecutor(), operation: operation)
  }
  return Task(operation: operation)
}
