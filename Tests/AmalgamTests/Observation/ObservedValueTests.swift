#if canImport(Observation)
  import Foundation
  import Observation
  import Testing

  @testable import Amalgam

  /// A flag that `withObservationTracking` raises when what `read` reads changes.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @MainActor private func tracking(_ read: () -> Void) -> Shared<Bool> {
    let changed = Shared(false)
    withObservationTracking(read) { changed.withLock { $0 = true } }
    return changed
  }

  /// Waits on the main actor (which stays free meanwhile) until `condition` holds, up to `timeout`
  /// seconds; returns whether it did.
  @MainActor func mainActorEventually(timeout: Double = waitBound, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    var polls = 0
    while !condition(), Date() < deadline || polls < minimumPolls {
      polls += 1
      try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
  }

  /// Waits on the main actor until `flag` is raised; returns whether it was.
  @MainActor func raised(_ flag: Shared<Bool>) async -> Bool {
    await mainActorEventually { flag.current }
  }

  private func countNotes(_ db: Database) throws -> Int {
    try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
  }

  /// ObservedValue (and the Observation framework) need macOS 14 and its peers: each test says so.
  @MainActor @Suite struct ObservedValueTests {
    private func makeQueue() throws -> DatabaseQueue {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)") }
      return queue
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func observationTrackingSeesEachNewValue() async throws {
      let queue = try makeQueue()
      let count = ObservedValue(initialValue: -1, queue.observe(countNotes))
      #expect(count.value == -1)
      var changed = tracking { _ = count.value }
      #expect(await raised(changed))
      #expect(count.value == 0)
      for expected in 1...3 {
        changed = tracking { _ = count.value }
        try await queue.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('n')") }
        #expect(await raised(changed))
        #expect(count.value == expected)
      }
      #expect(count.error == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func theObservationStopsWithItsOwner() async throws {
      let queue = try makeQueue()
      var count: ObservedValue<Int>? = ObservedValue(initialValue: -1, queue.observe(countNotes))
      let changed = tracking { _ = count?.value }
      #expect(await raised(changed))
      #expect(!queue.observationCenter.isEmpty)
      weak let released = count
      count = nil
      #expect(released == nil)
      #expect(await mainActorEventually { queue.observationCenter.isEmpty })

      let cancelled = ObservedValue(initialValue: -1, queue.observe(countNotes))
      let first = tracking { _ = cancelled.value }
      #expect(await raised(first))
      cancelled.cancel()
      #expect(await mainActorEventually { queue.observationCenter.isEmpty })
      try await queue.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('n')") }
      #expect(cancelled.value == 0)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test func anErrorIsKeptWithTheLastValue() async throws {
      let queue = try makeQueue()
      let count = ObservedValue(initialValue: -1, queue.observe(countNotes))
      let first = tracking { _ = count.value }
      #expect(await raised(first))
      let failed = tracking { _ = count.error }
      try queue.close()
      #expect(await raised(failed))
      #expect(count.value == 0)
      #expect("\(count.error.map { "\($0)" } ?? "")".contains("closed"))
    }
  }
#endif
