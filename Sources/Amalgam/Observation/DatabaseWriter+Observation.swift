/// A stream of change notifications: the region each commit changed, yielded on the writer.
final class ChangeNotifications: ObservationEntry, @unchecked Sendable {
  // @unchecked Sendable: immutable after init; the continuation is Sendable.
  let observedRegion: DatabaseRegion?
  private let continuation: AsyncStream<DatabaseRegion>.Continuation

  init(region: DatabaseRegion, continuation: AsyncStream<DatabaseRegion>.Continuation) {
    observedRegion = region
    self.continuation = continuation
  }

  func databaseDidChange(_ changes: DatabaseRegion, generation: UInt64) {
    continuation.yield(changes)
  }

  func databaseDidClose() {
    continuation.finish()
  }

  /// An `AsyncStream` cannot end with an error: the stream ends.
  func observationFailed(_ error: any Error) {
    continuation.finish()
  }

  static func stream(_ center: ObservationCenter, region: DatabaseRegion) -> AsyncStream<DatabaseRegion> {
    let (stream, continuation) = AsyncStream.makeStream(of: DatabaseRegion.self)
    let entry = ChangeNotifications(region: region, continuation: continuation)
    continuation.onTermination = { [weak center] _ in center?.remove(entry) }
    center.add(entry)
    return stream
  }
}

extension DatabaseQueue {
  /// Observes the value that `fetch` reads: the current value first, then a new value after each
  /// commit that changes a table `fetch` read. See ``ValueObservation``.
  ///
  /// ```swift
  /// for try await count in queue.observe({ db in
  ///   try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
  /// }).removingDuplicates() {
  ///   print("notes:", count)
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
  public func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Database) throws -> Value) -> ValueObservation<
    Value
  > {
    ValueObservation(center: observationCenter, reader: self, fetch: fetch)
  }

  /// The changes that each commit makes to `region`, without fetching anything: one element per commit
  /// (or per commit of another connection, whose changes are ``DatabaseRegion/fullDatabase``), yielded
  /// on the writer right after the commit, before the next closure starts. Notifications start at once
  /// and stop when the stream is released or its iterating task is cancelled; the stream ends when the
  /// queue is closed.
  ///
  /// ```swift
  /// for await changes in queue.changes(in: DatabaseRegion(tables: ["product"])) {
  ///   cache.removeAll()   // changes.tableNames says which tables changed
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func changes(in region: DatabaseRegion = .fullDatabase) -> AsyncStream<DatabaseRegion> {
    ChangeNotifications.stream(observationCenter, region: region)
  }
}

extension DatabasePool {
  /// Observes the value that `fetch` reads: the current value first, then a new value after each
  /// commit that changes a table `fetch` read, read on a reader so that the writer never waits. See
  /// ``ValueObservation``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
  public func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Database) throws -> Value) -> ValueObservation<
    Value
  > {
    ValueObservation(center: observationCenter, reader: self, fetch: fetch)
  }

  /// The changes that each commit makes to `region`, without fetching anything; see
  /// ``DatabaseQueue/changes(in:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/commit_hook.html>
  public func changes(in region: DatabaseRegion = .fullDatabase) -> AsyncStream<DatabaseRegion> {
    ChangeNotifications.stream(observationCenter, region: region)
  }
}
