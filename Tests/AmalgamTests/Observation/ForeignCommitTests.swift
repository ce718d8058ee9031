import Foundation
import Testing

@testable import Amalgam

private let schema = """
  CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
  """

private func countNotes(_ db: Database) throws -> Int {
  try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
}

/// Debian's `sqlite3` shell, the other process of these tests (CI installs it).
private func sqlite3Shell() throws -> URL {
  try #require(ChildProcess.inPath("sqlite3"), "Debian's sqlite3 shell is needed (apt-get install sqlite3)")
}

/// Runs `script` (SQL and dot-commands) in the `sqlite3` shell on `path`, a process of its own.
@discardableResult
private func runShell(_ path: String, _ script: String, in directory: URL) async throws -> ChildProcess.Outcome {
  let scriptURL = directory.appendingPathComponent("script-\(UUID().uuidString).sql")
  try Data(script.utf8).write(to: scriptURL)
  defer { try? FileManager.default.removeItem(at: scriptURL) }
  return try await ChildProcess.run(try sqlite3Shell(), ["-bail", path, ".read \(scriptURL.path)"], in: directory)
}

/// Commits of other processes (Debian's `sqlite3` shell) and other connections, as observations see
/// them: every one is seen, whatever happens to the watcher, in both journal modes.
@Suite struct ForeignCommitTests {
  private func settings(_ mode: JournalMode, poll: Duration? = .milliseconds(200)) -> Configuration {
    var configuration = Configuration(journalMode: mode)
    configuration.observationPollInterval = poll
    return configuration
  }

  @Test(arguments: [JournalMode.delete, .wal])
  func commitsOfTheSQLiteShellAreSeen(mode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("shell.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(mode))
      try queue.sync { db in try db.batch(sql: schema) }
      let collector = Collector(queue.observe(countNotes).removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      for expected in 1...5 {
        let outcome = try await runShell(path, "INSERT INTO note(text) VALUES ('shell');", in: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(await eventually { collector.current.last == expected }, "\(collector.current)")
      }
    }
  }

  /// File events wake the watcher: with a poll interval of a minute, a commit is still seen at once.
  @Test(arguments: [JournalMode.delete, .wal])
  func fileEventsWakeTheWatcherWithoutPolling(mode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("events.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(mode, poll: .seconds(60)))
      try queue.sync { db in try db.batch(sql: schema) }
      let collector = Collector(queue.observe(countNotes).removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      let outcome = try await runShell(path, "INSERT INTO note(text) VALUES ('shell');", in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      // Well within the minute of the poll, however busy the machine.
      #expect(await eventually(timeout: 20) { collector.current == [0, 1] }, "\(collector.current)")
    }
  }

  /// Another process holds `BEGIN EXCLUSIVE` longer than the busy timeout: the watcher's reads fail
  /// meanwhile, and the commit is still seen.
  @Test func aCommitAfterALockHeldLongerThanTheBusyTimeoutIsSeen() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("locked.db").path
      var configuration = settings(.delete)
      configuration.busyTimeout = 0.05
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      try queue.sync { db in try db.batch(sql: schema) }
      let collector = Collector(queue.observe(countNotes).removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      let outcome = try await runShell(
        path,
        """
        BEGIN EXCLUSIVE;
        INSERT INTO note(text) VALUES ('held');
        .shell sleep 1.5
        COMMIT;
        """, in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await eventually { collector.current == [0, 1] }, "\(collector.current)")
    }
  }

  /// A process killed in a transaction that spilled pages to the file leaves a hot journal, which a
  /// read-only connection cannot roll back (`SQLITE_READONLY_ROLLBACK`); a third process commits after
  /// it: the commit is seen.
  @Test func aCommitAfterAHotJournalIsSeen() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("hot.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(.delete))
      try queue.sync { db in try db.batch(sql: schema) }
      let collector = Collector(queue.observe(countNotes).removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      let killed = try await runShell(
        path,
        """
        PRAGMA cache_size = 2;
        BEGIN;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
          INSERT INTO note(text) SELECT hex(randomblob(300)) FROM n;
        .shell kill -9 $PPID
        """, in: directory)
      #expect(killed.signaled && killed.status == SIGKILL)
      // The watcher looks at the file while the hot journal is there (several polls).
      try await Task.sleep(nanoseconds: 700_000_000)
      let outcome = try await runShell(path, "INSERT INTO note(text) VALUES ('after');", in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await eventually { collector.current.last == 1 }, "\(collector.current)")
      #expect(try queue.sync(countNotes) == 1)
    }
  }

  /// The application opens a transaction in one closure and commits it in a later one; another process
  /// commits in between: its commit is seen once the transaction ends.
  @Test(arguments: [JournalMode.delete, .wal])
  func aCommitMadeWhileTheWriterIsInATransactionIsSeen(mode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("transaction.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(mode, poll: .milliseconds(50)))
      try queue.sync { db in try db.batch(sql: schema) }
      let collector = Collector(queue.observe(countNotes).removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "BEGIN") }
      let outcome = try await runShell(path, "INSERT INTO note(text) VALUES ('other');", in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      // The watcher sees the commit while the queue's transaction is open (several polls).
      try await Task.sleep(nanoseconds: 500_000_000)
      try queue.sync { db in try db.execute(sql: "COMMIT") }
      #expect(await eventually { collector.current == [0, 1] }, "\(collector.current)")
    }
  }

  /// Commits of another process to an attached file are seen.
  @Test(arguments: [JournalMode.delete, .wal])
  func commitsToAnAttachedFileAreSeen(mode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let main = directory.appendingPathComponent("main.db").path
      let attached = directory.appendingPathComponent("attached.db").path
      let created = try await runShell(
        attached, "PRAGMA journal_mode = \(mode.rawValue);\n\(schema)", in: directory)
      #expect(created.status == 0, "\(created.stderr)")
      let queue = try DatabaseQueue(path: main, configuration: settings(mode, poll: .seconds(60)))
      try queue.sync { db in try db.execute(sql: "ATTACH DATABASE ? AS aux", arguments: [attached]) }
      let collector = Collector(
        queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM aux.note").front(Int.self) ?? 0 }
          .removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      for expected in 1...2 {
        let outcome = try await runShell(attached, "INSERT INTO note(text) VALUES ('attached');", in: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(await eventually { collector.current.last == expected }, "\(collector.current)")
      }
    }
  }

  /// Files attached while observations run are watched from the closure that attached them on, and a
  /// file attached under the name of a detached one replaces it (a poll of a minute: only file events
  /// and the writer's look after each closure can see them).
  @Test func filesAttachedWhileObservingAreWatched() async throws {
    try await withTemporaryDirectory { directory in
      let main = directory.appendingPathComponent("main.db").path
      let first = directory.appendingPathComponent("first.db").path
      let second = directory.appendingPathComponent("second.db").path
      for path in [first, second] {
        let created = try await runShell(path, "PRAGMA journal_mode = wal;\n\(schema)", in: directory)
        #expect(created.status == 0, "\(created.stderr)")
      }
      let queue = try DatabaseQueue(path: main, configuration: settings(.wal, poll: .seconds(60)))
      try queue.sync { db in try db.batch(sql: schema) }
      let mainNotes = Collector(queue.observe(countNotes))
      defer { mainNotes.task.cancel() }
      #expect(await mainNotes.waitFor(count: 1))

      try queue.sync { db in try db.execute(sql: "ATTACH DATABASE ? AS aux", arguments: [first]) }
      let collector = Collector(
        queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM aux.note").front(Int.self) ?? 0 }
          .removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      var outcome = try await runShell(first, "INSERT INTO note(text) VALUES ('first');", in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await eventually { collector.current.last == 1 }, "\(collector.current)")

      try queue.sync { db in try db.execute(sql: "DETACH DATABASE aux") }
      try queue.sync { db in try db.execute(sql: "ATTACH DATABASE ? AS aux", arguments: [second]) }
      outcome = try await runShell(second, "INSERT INTO note(text) VALUES ('a'), ('b'), ('c');", in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await eventually { collector.current.last == 3 }, "\(collector.current)")
    }
  }

  /// A file renamed over the database (restoring a backup), or the database deleted and created again:
  /// the queue still sees the old file, so the observation ends with an error that says so.
  @Test(arguments: [false, true])
  func replacingTheFileEndsTheObservation(byRename: Bool) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("replaced.db").path
      let queue = try DatabaseQueue(path: path, configuration: settings(.delete, poll: .seconds(60)))
      try queue.sync { db in try db.batch(sql: schema) }
      let filename = try #require(try queue.sync { db in db.filename() })
      let collector = Collector(queue.observe(countNotes))
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      let backup = directory.appendingPathComponent("backup.db").path
      let created = try await runShell(
        byRename ? backup : path + ".new",
        "\(schema)\nINSERT INTO note(text) VALUES ('restored'), ('restored');", in: directory)
      #expect(created.status == 0, "\(created.stderr)")
      if byRename {
        #expect(rename(backup, path) == 0)
      } else {
        try FileManager.default.removeItem(atPath: path)
        #expect(rename(path + ".new", path) == 0)
      }
      #expect(await eventually { collector.finished.current })
      #expect((collector.failure.current as? DatabaseError) == DatabaseError.databaseFileReplaced(path: filename))
      #expect(collector.current == [0])
      #expect(await eventually { queue.observationCenter.isEmpty })

      // An observation started afterwards ends the same way, at once.
      let later = Collector(queue.observe(countNotes))
      defer { later.task.cancel() }
      #expect(await eventually { later.finished.current })
      #expect((later.failure.current as? DatabaseError) == DatabaseError.databaseFileReplaced(path: filename))
      #expect(later.current.allSatisfy { $0 == 0 })
    }
  }

  /// A poll interval too long for Dispatch's nanoseconds neither traps nor stops the queue's own
  /// commits from being seen.
  @Test func aHugePollIntervalIsClamped() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("huge.db").path
      var configuration = Configuration()
      configuration.observationPollInterval = .seconds(10_000_000_000)
      let pool = try DatabasePool(path: path, configuration: configuration)
      try pool.sync { db in try db.batch(sql: schema) }
      let collector = Collector(pool.observe(countNotes))
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try pool.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('own')") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == [0, 1])
    }
  }

  @Test func durationsConvertToDispatchIntervalsSaturating() {
    #expect(Duration.milliseconds(1).dispatchInterval == .nanoseconds(1_000_000))
    #expect(Duration.seconds(2).dispatchInterval == .nanoseconds(2_000_000_000))
    #expect(Duration.seconds(10_000_000_000).dispatchInterval == .nanoseconds(Int.max))
    #expect(Duration.seconds(Int64.max).dispatchInterval == .nanoseconds(Int.max))
    #expect(Duration.seconds(-10_000_000_000).dispatchInterval == .nanoseconds(Int.min))
    #expect(Duration.seconds(Int64.max).nanosecondsClamped == Int.max)
  }

  /// A throttle too long for Dispatch's nanoseconds does not trap: the first value comes at once.
  @Test func aHugeThrottleDoesNotTrap() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: schema) }
    let collector = Collector(queue.observe(countNotes).throttled(.seconds(Int64.max)))
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    #expect(try queue.sync(countNotes) == 1)
    #expect(collector.current == [0])
  }
}
