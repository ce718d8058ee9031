import Foundation
import Testing

@testable import Amalgam

/// The examples of ObservingTheDatabase.md, run.
@MainActor final class NoteListModel {
  var titles: [String] = []

  func observeTitles(in queue: DatabaseQueue) async throws {
    let titles = queue.observe { db in
      try db.prepare(sql: "SELECT title FROM note ORDER BY title").column(0, as: String.self)
    }
    for try await titles in titles.removingDuplicates() {
      self.titles = titles
    }
  }
}
// In the view: .task { try? await model.observeTitles(in: queue) }

/// A cache that forgets what a commit changed.
private final class ProductCache: Sendable {
  let invalidated = Shared<[[String]]>([])
  func invalidate(_ tables: [String]) { invalidated.withLock { $0.append(tables) } }
}

@Suite struct ObservingArticleTests {
  private func makeQueue() throws -> DatabaseQueue {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT);
          CREATE TABLE product(id INTEGER PRIMARY KEY, name TEXT);
          """)
    }
    return queue
  }

  @Test func theFirstExampleCountsNotes() async throws {
    let queue = try makeQueue()
    let counts = Shared<[Int]>([])
    let task = offThePoolTask {
      for try await count in queue.observe({ db in
        try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
      }).removingDuplicates() {
        print("notes:", count)
        counts.withLock { $0.append(count) }
      }
    }
    defer { task.cancel() }
    #expect(await eventually { counts.current == [0] })
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
    try queue.sync { db in try db.execute(sql: "INSERT INTO product(name) VALUES ('p')") }
    #expect(await eventually { counts.current == [0, 1] })
  }

  @Test func theAppExampleKeepsTheModelUpToDate() async throws {
    let queue = try makeQueue()
    let model = NoteListModel()
    let task = Task { @MainActor in try await model.observeTitles(in: queue) }
    defer { task.cancel() }
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('b'), ('a')") }
    // Waits for the model's titles, as `eventually` does: up to its time bound, and at least its number
    // of looks (the model's task and this one both need the threads that other tests can hold).
    var titles: [String] = []
    let deadline = Date().addingTimeInterval(waitBound)
    var polls = 0
    while titles != ["a", "b"], Date() < deadline || polls < minimumPolls {
      polls += 1
      try await Task.sleep(nanoseconds: 5_000_000)
      titles = await model.titles
    }
    #expect(titles == ["a", "b"])
  }

  @Test func theServerExampleInvalidatesTheCache() async throws {
    let queue = try makeQueue()
    let productCache = ProductCache()
    let task = offThePoolTask {
      let changes = queue.changes(in: DatabaseRegion(tables: ["product"]))
      for await change in changes {
        productCache.invalidate(change.tableNames)
      }
    }
    defer { task.cancel() }
    // Notifications start when the task has called changes(in:). A commit in a closure that ends while
    // the stream is being added is reported as a change of the whole database (the tracker that tells
    // tables apart is installed at the end of the writer's next closure): this empty closure is that one.
    #expect(await eventually { !queue.observationCenter.isEmpty })
    try queue.sync { _ in }
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('n')") }
    try queue.sync { db in try db.execute(sql: "INSERT INTO product(name) VALUES ('p')") }
    #expect(await eventually { productCache.invalidated.current == [["product"]] })
  }

  @Test func theThrottledExampleDeliversTheLastCount() async throws {
    let queue = try makeQueue()
    let throttled = queue.observe { db in
      try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
    }.throttled(.milliseconds(250))
    let collector = Collector(throttled)
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    let start = ContinuousClock.now
    for _ in 0..<10 { try queue.sync { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('n')") } }
    let span = ContinuousClock.now - start
    #expect(await eventually { collector.current.last == 10 })
    // The first value, then about one per 250 ms that the commits spanned (a few ms, unless the machine is
    // busy enough to stall this thread between them); unthrottled, each commit would bring one.
    let laterWindows = max(0, Int((span / .milliseconds(250)).rounded(.up)) - 1)
    #expect(collector.current.count <= 5 + 2 * laterWindows, "\(collector.current) for commits over \(span)")
  }
}
