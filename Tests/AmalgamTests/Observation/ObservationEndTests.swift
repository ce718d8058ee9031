import Foundation
import Testing

@testable import Amalgam

private let schema = "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)"

private func countNotes(_ db: Database) throws -> Int {
  try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
}

/// How observations end when their queue or pool closes, and throttle intervals at the limits.
@Suite struct ObservationEndTests {
  /// Checks that `collector` ended with ``DatabaseError/databaseClosed``.
  private func expectEndedByClose<Value>(
    _ collector: Collector<Value>, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    #expect(await eventually { collector.finished.current }, sourceLocation: sourceLocation)
    let failure = collector.failure.current
    #expect(
      (failure as? DatabaseError).map { if case .databaseClosed = $0 { true } else { false } } == true,
      "ended with \(String(describing: failure))", sourceLocation: sourceLocation)
    #expect("\(failure.map { "\($0)" } ?? "")".contains("closed"), sourceLocation: sourceLocation)
  }

  @Test func closingAQueueEndsItsObservationsWithAnError() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.execute(sql: schema) }
    let values = Collector(queue.observe(countNotes))
    let changes = Collector(queue.changes())
    defer {
      values.task.cancel()
      changes.task.cancel()
    }
    #expect(await values.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    #expect(await changes.waitFor(count: 1))
    try queue.close()
    await expectEndedByClose(values)
    // Change notifications cannot throw: their sequence ends.
    #expect(await eventually { changes.finished.current })
    #expect(queue.observationCenter.isEmpty)
    // An observation started after the close ends at once with the same error.
    let late = Collector(queue.observe(countNotes))
    defer { late.task.cancel() }
    await expectEndedByClose(late)
    let lateChanges = Collector(queue.changes())
    defer { lateChanges.task.cancel() }
    #expect(await eventually { lateChanges.finished.current })
  }

  @Test func closingThePoolEndsItsObservationsAndTheirWatcher() async throws {
    try await withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("pool.db").path)
      try pool.sync { db in try db.execute(sql: schema) }
      let values = Collector(pool.observe(countNotes).throttled(.milliseconds(10)))
      defer { values.task.cancel() }
      #expect(await values.waitFor(count: 1))
      try pool.close()
      await expectEndedByClose(values)
      #expect(pool.observationCenter.isEmpty)
    }
  }

  @Test func closingTheWriterInsideAClosureEndsTheObservations() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.execute(sql: schema) }
    let values = Collector(queue.observe(countNotes))
    defer { values.task.cancel() }
    #expect(await values.waitFor(count: 1))
    try queue.sync { db in try db.close() }
    await expectEndedByClose(values)
  }

  @Test func throttleIntervalsAtTheLimitsNeitherTrapNorStall() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.execute(sql: schema) }
    let forever = Collector(queue.observe(countNotes).throttled(.seconds(Int64.max)))
    let negative = Collector(queue.observe(countNotes).throttled(.seconds(Int64.min)))
    defer { negative.task.cancel() }
    #expect(await forever.waitFor(count: 1))
    #expect(await negative.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    // A negative interval is no wait at all.
    #expect(await negative.waitFor(count: 2))
    #expect(negative.current == [0, 1])
    // The longest interval waits (the change is reported on the writer, which has handled it by now).
    try queue.sync { _ in }
    #expect(forever.current == [0])
    forever.task.cancel()
    #expect(await eventually { forever.finished.current })
  }
}
