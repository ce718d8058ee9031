import Foundation
import Testing

@testable import Amalgam

private let schema = """
  CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
  CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);
  """

/// The writer's own commits to a file wake the watcher of other connections' commits, as any write
/// does; its commit hooks vouch for them, so that they cost no `PRAGMA data_version` check on the
/// writer, while every commit of another connection is still seen.
@Suite struct OwnCommitCoverageTests {
  private func settings(_ mode: JournalMode) -> Configuration {
    var configuration = Configuration(journalMode: mode)
    // File events wake the watcher; its tick, which checks whatever it saw, stays out of the way.
    configuration.observationPollInterval = .seconds(60)
    return configuration
  }

  @Test(arguments: [JournalMode.delete, .wal])
  func ownCommitsCostNoDataVersionCheck(mode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("own.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(mode))
      try queue.sync { db in try db.batch(sql: schema) }
      // No fsync: the commits follow each other closely, on a busy machine too.
      try queue.sync { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
      let collector = Collector(
        queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM tag").front(Int.self) ?? 0 })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      let commits = 300
      let before = try queue.sync { _ in queue.observationCenter.dataVersionChecks }
      // When each commit (and its hook) was done.
      var done: [UInt64] = []
      for index in 0..<commits {
        done.append(
          try queue.sync { db in
            try db.execute(sql: "INSERT INTO note(text) VALUES (?)", arguments: ["\(index)"])
            return DispatchTime.now().uptimeNanoseconds
          })
      }
      let checks = try queue.sync { _ in queue.observationCenter.dataVersionChecks } - before
      // The first hook after the watcher started compares with nothing and checks once; the last
      // commits are checked once no hook follows them, and so is a commit that the next one follows
      // only after 5 ms (a busy machine stalls this thread or the writer's: the bound counts those).
      // Without the hooks' word, most commits cost a check.
      let wait = UInt64(ForeignCommitWatcher.coverageWait.nanosecondsClamped)
      let slow = zip(done, done.dropFirst()).count { $1 &- $0 >= wait }
      #expect(
        checks <= commits / 30 + slow,
        "\(checks) data_version checks for \(commits) commits, \(slow) of them followed only after 5 ms")
      #expect(collector.current == [0])
    }
  }

  /// Another connection (a second queue in the same process) commits right after the writer's own
  /// commit, with the writer committing again after it or not: every commit is seen.
  @Test(arguments: [JournalMode.delete, .wal])
  func anotherConnectionsCommitRightAfterAnOwnCommitIsSeen(mode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("mixed.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(mode))
      try queue.sync { db in try db.batch(sql: schema) }
      let other = try DatabaseQueue(path: path, configuration: settings(mode))
      let collector = Collector(
        queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0 })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      // The writer's own commits go to a table that the observation does not read: only the watcher
      // can make it see the other connection's.
      for round in 1...12 {
        try queue.sync { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('own')") }
        try other.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('other')") }
        if round.isMultiple(of: 2) {
          // The writer's next commit hook is the one that must find the other connection's commit.
          try queue.sync { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('own')") }
        }
        #expect(await eventually { collector.current.last == round }, "\(collector.current)")
      }
    }
  }
}
