import AmalgamSQLite
import Foundation
import Testing

@testable import Amalgam

/// Waits until `condition` holds, up to `timeout` seconds; returns whether it did.
///
/// The default bound is only reached when the condition never holds: it is generous because CI runs the
/// whole suite in parallel on 2 cores, and the observation tests again under ThreadSanitizer, where a
/// commit's report, a fetch and a delivery that take milliseconds alone can take seconds.
///
/// It also looks at least ``minimumPolls`` times, however late each look comes: other tests' synchronous
/// work can hold the threads that resume this task for longer than the timeout, and an awaited event
/// that needs those threads too must still get its turn once they are free.
func eventually(timeout: Double = waitBound, _ condition: () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  var polls = 0
  while Date() < deadline || polls < minimumPolls {
    if condition() { return true }
    polls += 1
    try? await Task.sleep(nanoseconds: 5_000_000)
  }
  return condition()
}

/// How many times ``eventually(timeout:_:)`` looks at least, 5 ms apart.
let minimumPolls = 200

/// How long ``eventually(timeout:_:)`` and ``Collector/waitFor(count:timeout:)`` wait by default, in
/// seconds.
let waitBound: Double = 30

/// Iterates `sequence` in a task of its own, collecting its values (and the error that ended it).
final class Collector<Value: Sendable>: Sendable {
  let values = Shared<[Value]>([])
  let failure = Shared<(any Error)?>(nil)
  let finished = Shared(false)
  let task: Task<Void, Never>

  init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Value {
    let values = values
    let failure = failure
    let finished = finished
    task = offThePoolTask {
      do {
        for try await value in sequence { values.withLock { $0.append(value) } }
      } catch {
        failure.withLock { $0 = error }
      }
      finished.withLock { $0 = true }
    }
  }

  var current: [Value] { values.current }

  /// Waits until `count` values arrived.
  func waitFor(count: Int, timeout: Double = waitBound) async -> Bool {
    await eventually(timeout: timeout) { values.current.count >= count }
  }
}

private let schema = """
  CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
  CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);
  """

private func countNotes(_ db: Database) throws -> Int {
  try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
}

@Suite struct ValueObservationTests {
  @Test func aQueueDeliversTheCurrentValueThenOneAfterEachCommit() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    let fetches = Shared(0)
    let collector = Collector(
      queue.observe { db in
        fetches.withLock { $0 += 1 }
        return try countNotes(db)
      })
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    for expected in 1...3 {
      try await queue.write { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
      #expect(await collector.waitFor(count: expected + 1))
    }
    #expect(collector.current == [0, 1, 2, 3])
    // Commits to a table the query does not read run no query at all.
    let before = fetches.current
    for _ in 0..<20 {
      try await queue.write { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('t')") }
    }
    // Nor do updates of columns it does not read (count(*) reads none), where the pre-update hook tells
    // which columns changed; without it, the update runs the query again (same value: delivered again).
    try await queue.write { db in try db.execute(sql: "UPDATE note SET text = 'same' WHERE id = 1") }
    try await queue.write { db in try db.execute(sql: "DELETE FROM note WHERE id = 3") }
    #if ENABLE_PREUPDATE_HOOK
      #expect(await collector.waitFor(count: 5))
      #expect(fetches.current == before + 1)
      #expect(collector.current == [0, 1, 2, 3, 2])
    #else
      #expect(await collector.waitFor(count: 6))
      #expect(fetches.current == before + 2)
      #expect(collector.current == [0, 1, 2, 3, 3, 2])
    #endif
  }

  @Test func aThousandUnrelatedCommitsRunNoQuery() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.batch(sql: schema)
      try db.execute(
        sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
          + "INSERT INTO note(text) SELECT 'note ' || i FROM n")
    }
    let fetches = Shared(0)
    let collector = Collector(
      queue.observe { db in
        fetches.withLock { $0 += 1 }
        return try db.prepare(sql: "SELECT text FROM note ORDER BY id").column(0, as: String.self)
      }.removingDuplicates())
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    #expect(collector.current.first?.count == 1000)
    for index in 0..<1000 {
      try queue.sync { db in try db.execute(sql: "INSERT INTO tag(name) VALUES (?)", arguments: ["t\(index)"]) }
    }
    try queue.sync { _ in }
    #expect(fetches.current == 1)
    #expect(collector.current.count == 1)
  }

  @Test func commitsFasterThanTheConsumerAreCoalescedNeverDropped() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    let collector = Collector(queue.observe(countNotes))
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    for _ in 0..<200 {
      try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    }
    #expect(await eventually { collector.current.last == 200 })
    let values = collector.current
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
  }

  @Test func writesOfEveryKindAreSeen() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.batch(
        sql: schema + """
          CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
          CREATE VIEW note_count AS SELECT count(*) AS n FROM note;
          """)
    }
    let viaView = Collector(queue.observe { db in try db.prepare(sql: "SELECT n FROM note_count").front(Int.self) })
    let withoutRowid = Collector(queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM kv").front(Int.self) })
    defer {
      viaView.task.cancel()
      withoutRowid.task.cancel()
    }
    #expect(await viaView.waitFor(count: 1))
    #expect(await withoutRowid.waitFor(count: 1))
    let rc = try queue.sync { db in
      sqlite3_exec(try db.sqliteHandle, "INSERT INTO note(text) VALUES ('raw')", nil, nil, nil)
    }
    #expect(rc == SQLITE_OK)
    #expect(await viaView.waitFor(count: 2))
    try queue.sync { db in try db.execute(sql: "INSERT INTO kv VALUES ('a', 1)") }
    #expect(await withoutRowid.waitFor(count: 2))
    #expect(viaView.current.last == 1)
    #expect(withoutRowid.current.last == 1)
    // A schema change concerns every observation.
    try queue.sync { db in try db.execute(sql: "DROP VIEW note_count") }
    #expect(await eventually { viaView.finished.current })
    #expect("\(viaView.failure.current.map { "\($0)" } ?? "")".contains("no such table"))
  }

  #if ENABLE_FTS5
    @Test func writesToAnFTS5TableAreSeenThroughItsShadowTables() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.execute(sql: "CREATE VIRTUAL TABLE doc USING fts5(body)") }
      let collector = Collector(
        queue.observe { db in
          try db.prepare(sql: "SELECT count(*) FROM doc WHERE doc MATCH 'swift'").front(Int.self)
        })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "INSERT INTO doc(body) VALUES ('swift and sqlite')") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == [0, 1])
    }
  #endif

  @Test func aPoolDeliversTheInitialValueOnceWithoutWaitingForALongWrite() async throws {
    try await withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("pool.db").path)
      try pool.sync { db in try db.batch(sql: schema) }
      let writing = Signal()
      let finish = Signal()
      pool.asyncTransaction(
        .deferred,
        { db in
          try db.execute(sql: "INSERT INTO note(text) VALUES ('long')")
          writing.signal()
          finish.wait(seconds: 120)
        }, completion: { _ in })
      #expect(await eventually { writing.wait(seconds: 0) })
      let collector = Collector(pool.observe(countNotes))
      defer { collector.task.cancel() }
      // The first value comes from a reader while the write still runs.
      #expect(await collector.waitFor(count: 1))
      #expect(collector.current == [0])
      finish.signal()
      #expect(await collector.waitFor(count: 2))
      try await Task.sleep(nanoseconds: 300_000_000)
      #expect(collector.current == [0, 1])
    }
  }

  @Test func otherConnectionsAndProcessesAreSeen() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("shared.db").path
      let pool = try DatabasePool(path: path)
      try pool.sync { db in try db.batch(sql: schema) }
      let fetches = Shared(0)
      let collector = Collector(
        pool.observe { db in
          fetches.withLock { $0 += 1 }
          return try countNotes(db)
        }.removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))

      let other = try DatabaseQueue(path: path)
      try other.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('other')") }
      #expect(await collector.waitFor(count: 2))
      // Another connection's changes to other tables run the query, but an equal value is not delivered.
      let before = fetches.current
      try other.sync { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('t')") }
      #expect(await eventually { fetches.current > before })
      try await Task.sleep(nanoseconds: 100_000_000)
      #expect(collector.current == [0, 1])

      let tool = try CommandLineToolTests.AmalgamTool.executableURL()
      let outcome = try await ChildProcess.run(
        tool, ["sql", path, "INSERT INTO note(text) VALUES ('from another process')"], in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await collector.waitFor(count: 3))
      #expect(collector.current == [0, 1, 2])
    }
  }

  @Test func anErrorFromTheQueryEndsTheSequence() async throws {
    struct TooMany: Error {}
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    let collector = Collector(
      queue.observe { db in
        let count = try countNotes(db)
        if count > 1 { throw TooMany() }
        return count
      })
    #expect(await collector.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('1')") }
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('2')") }
    #expect(await eventually { collector.finished.current })
    #expect(collector.failure.current is TooMany)
    #expect(collector.current.first == 0)
    #expect(await eventually { queue.observationCenter.isEmpty })
  }

  @Test func cancellingReleasesTheObservationAndTheHooks() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    weak var weakProbe: LifetimeProbe?
    let collector: Collector<Int>
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      let captured = Shared(probe)
      collector = Collector(
        queue.observe { db in
          _ = captured
          return try countNotes(db)
        })
    }
    #expect(await collector.waitFor(count: 1))
    #expect(try queue.sync { db in UpdateHookDispatcher.existing(on: db.connection) } != nil)
    collector.task.cancel()
    #expect(await eventually { collector.finished.current })
    #expect(await eventually { weakProbe == nil })
    #expect(queue.observationCenter.isEmpty)
    // The writer leaves the hooks after its next closure (each `sync` below is one).
    #expect(
      await eventually {
        (try? queue.sync { db in UpdateHookDispatcher.existing(on: db.connection) == nil }) == true
      })
    #expect(try queue.sync { db in AuthorizerDispatcher.existing(on: db.connection) } == nil)
  }

  @Test func throttlingCoalescesABurstOfCommits() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    let fetches = Shared(0)
    let collector = Collector(
      queue.observe { db in
        fetches.withLock { $0 += 1 }
        return try countNotes(db)
      }.throttled(.milliseconds(300)))
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    let start = ContinuousClock.now
    for _ in 0..<100 {
      try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    }
    let span = ContinuousClock.now - start
    #expect(await eventually { collector.current.last == 100 })
    // Without throttling, a query per commit would be run; with it, one per 300 ms of commits (100
    // commits take well under a second even under a sanitizer, unless the machine is busy enough to
    // stall this thread between them: the bound follows the time they spanned).
    let laterWindows = max(0, Int((span / .milliseconds(300)).rounded(.up)) - 1)
    #expect(fetches.current <= 10 + 2 * laterWindows, "\(fetches.current) queries for commits over \(span)")
  }

  @Test func changeNotificationsNameTheTablesOfEachCommit() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    let collector = Collector(queue.changes(in: DatabaseRegion(tables: ["note"])))
    defer { collector.task.cancel() }
    try await Task.sleep(nanoseconds: 20_000_000)
    try queue.sync { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('ignored')") }
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('seen')") }
    try blocking {
      try queue.transaction { db in
        try db.execute(sql: "INSERT INTO note(text) VALUES ('both')")
        try db.execute(sql: "INSERT INTO tag(name) VALUES ('both')")
      }
    }
    #expect(await collector.waitFor(count: 2))
    #expect(collector.current.map(\.tableNames) == [["note"], ["note", "tag"]])
  }
}
