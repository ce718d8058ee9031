import Dispatch

/// The result of a query now and after every commit that can change it, as an `AsyncSequence`: made
/// by `observe(_:)` of a ``DatabaseQueue`` or ``DatabasePool``.
///
/// ```swift
/// for try await names in queue.observe({ db in
///   try db.prepare(sql: "SELECT name FROM player ORDER BY name").column(String.self)
/// }) {
///   print(names)
/// }
/// ```
///
/// The first element is the current value. Then, after each commit that changes a table the query
/// read, the query runs again and its value is the next element. Commits that follow each other faster
/// than the consumer takes values are coalesced, never dropped: the last element always reflects the
/// last commit. The observation starts when iteration starts, and stops (releasing its hooks and
/// connections) when the iterating task is cancelled or stops iterating. An error thrown by the query
/// ends the sequence with that error; closing the queue or pool ends it with
/// ``DatabaseError/databaseClosed``.
///
/// Values are received in the task that iterates, on its actor: iterate from a `@MainActor` task (a
/// SwiftUI `.task { }`) to receive them on the main actor.
///
/// On a ``DatabasePool`` the query runs on a reader, so it never waits for the writer nor blocks it; on
/// a ``DatabaseQueue`` it runs on the queue after the closure that committed. Commits by other
/// connections to the same file or an attached one (another queue or pool, another process) are seen
/// too, woken by file events (see ``Configuration/observationPollInterval``); their changed tables are
/// unknown, so every observation of the file runs its query again: use ``removingDuplicates()`` to skip
/// equal values. When the database file is deleted or replaced, the sequence ends with
/// ``DatabaseError/databaseFileReplaced(path:)``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
public struct ValueObservation<Value: Sendable>: AsyncSequence, Sendable {
  public typealias Element = Value

  let center: ObservationCenter
  let reader: any DatabaseReader
  let fetch: @Sendable (Database) throws -> Value
  var declaredRegion: DatabaseRegion?
  var isDuplicate: (@Sendable (Value, Value) -> Bool)?
  var throttle: Duration?

  /// Skips a value equal to the last one delivered (as `isDuplicate` says).
  public func removingDuplicates(by isDuplicate: @escaping @Sendable (Value, Value) -> Bool) -> Self {
    var observation = self
    observation.isDuplicate = isDuplicate
    return observation
  }

  /// Waits `interval` after a change before running the query again, so that all the commits made
  /// meanwhile cost one query: for heavy writes while observing. The first value is not delayed.
  ///
  /// A negative interval waits not at all; an interval longer than 9 × 10⁹ seconds (about 285 years, the
  /// longest that Dispatch's nanosecond deadlines hold) waits that long.
  public func throttled(_ interval: Duration) -> Self {
    var observation = self
    observation.throttle = Swift.min(Swift.max(interval, .zero), Self.longestThrottle)
    return observation
  }

  /// The longest wait of ``throttled(_:)``: 9 × 10⁹ seconds, the longest whole number of seconds that
  /// Dispatch's nanosecond deadlines can hold.
  static var longestThrottle: Duration { .seconds(9_000_000_000) }

  /// Runs the query again after changes to `region` only, instead of the region the query reads.
  ///
  /// ```swift
  /// let counts = queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
  ///   .tracking(DatabaseRegion(tables: ["note"]))
  /// ```
  public func tracking(_ region: DatabaseRegion) -> Self {
    var observation = self
    observation.declaredRegion = region
    return observation
  }

  /// Starts the observation.
  public func makeAsyncIterator() -> AsyncIterator {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
    let run = ObservationRun(observation: self, continuation: continuation)
    continuation.onTermination = { _ in run.stop() }
    run.start()
    return AsyncIterator(base: stream.makeAsyncIterator())
  }

  /// Iterates over the values of a ``ValueObservation``.
  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<Value, any Error>.AsyncIterator

    /// The next value: the first one at once, the next ones after commits that change them.
    public mutating func next() async throws -> Value? {
      try await base.next()
    }
  }
}

extension ValueObservation where Value: Equatable {
  /// Skips a value equal to the last one delivered: after commits that did not change the result (or
  /// changes made by other connections, whose tables are unknown), nothing is delivered.
  public func removingDuplicates() -> Self {
    removingDuplicates(by: ==)
  }
}

/// One running observation: fetches, one at a time, and delivers.
final class ObservationRun<Value: Sendable>: ObservationEntry, @unchecked Sendable {
  // @unchecked Sendable: every mutable field is in `state`, guarded by its lock.
  private struct State {
    var isFetching = false
    /// The generation of the latest change reported while a fetch ran, if any.
    var pendingGeneration: UInt64?
    var region: DatabaseRegion?
    var lastValue: Value?
    var isStopped = false
  }

  private let observation: ValueObservation<Value>
  private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
  private let state = LockedState(State())

  init(observation: ValueObservation<Value>, continuation: AsyncThrowingStream<Value, any Error>.Continuation) {
    self.observation = observation
    self.continuation = continuation
    state.withLock { $0.region = observation.declaredRegion }
  }

  var observedRegion: DatabaseRegion? { state.withLock { $0.region } }

  func start() {
    state.withLock { $0.isFetching = true }
    observation.center.add(self)
    fetch()
  }

  func stop() {
    let wasRunning = state.withLock { state in
      defer { state.isStopped = true }
      return !state.isStopped
    }
    if wasRunning { observation.center.remove(self) }
  }

  func databaseDidChange(_ changes: DatabaseRegion, generation: UInt64) {
    let startNow = state.withLock { state -> Bool in
      guard !state.isStopped else { return false }
      if state.isFetching {
        state.pendingGeneration = max(state.pendingGeneration ?? 0, generation)
        return false
      }
      state.isFetching = true
      return true
    }
    guard startNow else { return }
    if let throttle = observation.throttle {
      // Weak: a long wait must not keep an observation that ended alive.
      DispatchQueue.global().asyncAfter(deadline: .now() + throttle.dispatchInterval) { [weak self] in
        self?.fetch()
      }
    } else {
      fetch()
    }
  }

  func databaseDidClose() {
    guard state.withLock({ !$0.isStopped }) else { return }
    continuation.finish(throwing: DatabaseError.databaseClosed)
    stop()
  }

  func observationFailed(_ error: any Error) {
    guard state.withLock({ !$0.isStopped }) else { return }
    continuation.finish(throwing: error)
    stop()
  }

  /// Runs the query on the reader; the value goes to the consumer, then the query runs again if a
  /// commit that the read may have missed was reported meanwhile.
  private func fetch() {
    let observation = observation
    let center = observation.center
    let recordsRegion = observation.declaredRegion == nil
    observation.reader.asyncRead { db -> Fetched in
      // Every commit reported or counted up to now is visible to this read, which has not started yet.
      let generation = center.generation
      let commits = center.commits
      if recordsRegion {
        let (value, region) = try RegionRecorder.record(db) { try observation.fetch(db) }
        return Fetched(value: value, region: region, generation: generation, commits: commits)
      }
      return Fetched(value: try observation.fetch(db), region: nil, generation: generation, commits: commits)
    } completion: { [self] result in
      deliver(result)
    }
  }

  /// What a fetch read, with the center's counters when it started.
  private struct Fetched: Sendable {
    var value: Value
    var region: DatabaseRegion?
    var generation: UInt64
    var commits: UInt64
  }

  private func deliver(_ result: Result<Fetched, any Error>) {
    switch result {
    case .failure(let error):
      guard state.withLock({ !$0.isStopped }) else { return }
      continuation.finish(throwing: error)
      stop()
    case .success(let fetched):
      let (value, region, generation) = (fetched.value, fetched.region, fetched.generation)
      let (send, again, newRegion, hadRegion) = state.withLock { state -> (Bool, Bool, DatabaseRegion?, Bool) in
        guard !state.isStopped else { return (false, false, nil, false) }
        var newRegion: DatabaseRegion?
        let hadRegion = state.region != nil
        if let region, region != state.region {
          state.region = region
          newRegion = region
        }
        var send = true
        if let isDuplicate = observation.isDuplicate {
          if let last = state.lastValue, isDuplicate(last, value) { send = false } else { state.lastValue = value }
        }
        if let pending = state.pendingGeneration, pending > generation {
          state.pendingGeneration = nil
          return (send, true, newRegion, hadRegion)
        }
        state.pendingGeneration = nil
        state.isFetching = false
        return (send, false, newRegion, hadRegion)
      }
      // A commit reported while the entry was indexed under its old region may have been missed; so may
      // a commit to a table that the old region did not hold, which nothing reported (an entry without
      // a region yet is told of every commit).
      let missed =
        newRegion.map {
          observation.center.regionDidChange(self, $0) > generation
            || (hadRegion && observation.center.commits != fetched.commits)
        } ?? false
      if send { continuation.yield(value) }
      if again {
        fetch()
      } else if missed {
        databaseDidChange(.fullDatabase, generation: observation.center.generation)
      }
    }
  }
}

extension ValueObservation {
  init(center: ObservationCenter, reader: any DatabaseReader, fetch: @escaping @Sendable (Database) throws -> Value) {
    self.center = center
    self.reader = reader
    self.fetch = fetch
  }
}
