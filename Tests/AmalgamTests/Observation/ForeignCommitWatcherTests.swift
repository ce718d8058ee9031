import Foundation
import Testing

@testable import Amalgam

/// Debian's `sqlite3` shell as another process, fed commands through its standard input, so that a
/// test decides when it takes a lock, commits, or is killed.
private final class SQLiteShell {
  let process = Process()
  private let input = Pipe()
  private let directory: URL

  init(_ path: String, in directory: URL) throws {
    guard let shell = ChildProcess.inPath("sqlite3") else {
      throw ChildProcess.Failure("the sqlite3 shell is not installed (apt-get install sqlite3)")
    }
    self.directory = directory
    process.executableURL = shell
    process.arguments = ["-batch", "-cmd", ".timeout 5000", path]
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
  }

  /// Sends `sql` and waits until the shell has run it (it then writes a marker file).
  func run(_ sql: String) async -> Bool {
    let marker = directory.appendingPathComponent("marker-\(UUID().uuidString)")
    input.fileHandleForWriting.write(Data("\(sql)\n.once \(marker.path)\nSELECT 1;\n".utf8))
    return await eventually { FileManager.default.fileExists(atPath: marker.path) }
  }

  /// Kills the shell (SIGKILL): whatever it was doing stays half done.
  func kill() async {
    _ = Foundation.kill(process.processIdentifier, SIGKILL)
    _ = await eventually { !process.isRunning }
  }

  /// Closes the shell's input and waits for it to end.
  func finish() async {
    try? input.fileHandleForWriting.close()
    _ = await eventually { !process.isRunning }
  }
}

/// A ``ForeignCommitWatcher`` of the file at `path`, which records its wakes, the files it found
/// replaced, and how many times it opened a connection. Its tick is a minute by default, so that what it
/// sees comes from file events.
private final class WatcherProbe: Sendable {
  let wakes = Shared(0)
  let replaced = Shared<[String]>([])
  let opens = Shared(0)
  let watcher: ForeignCommitWatcher

  init(path: String, interval: Duration = .seconds(60)) {
    let configuration = Configuration(busyTimeout: 0.05)
    let (wakes, replaced, opens) = (wakes, replaced, opens)
    let file = WatchedFile(path: path, identity: FileStatus.of(path)?.identity)
    watcher = ForeignCommitWatcher(
      interval: interval,
      open: { path in
        opens.withLock { $0 += 1 }
        return try configuration.openDatabase(path: path, role: .reader)
      },
      files: { [file] }, onPossibleCommit: { wakes.withLock { $0 += 1 } },
      onFileReplaced: { path in replaced.withLock { $0.append(path) } })
    watcher.start()
  }

  deinit { watcher.stop() }
}

private func createDatabase(at path: String, _ sql: String) throws {
  let db = try Database(path: path)
  try db.batch(sql: sql)
  try db.close()
}

private func countNotes(_ db: Database) throws -> Int {
  try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) ?? 0
}

@Suite struct ForeignCommitWatcherTests {
  /// Another process holds `BEGIN EXCLUSIVE` (rollback journal) longer than the busy timeout: the
  /// watcher, which reads the header without a lock, neither fails nor reconnects meanwhile, and wakes
  /// for the commit.
  @Test func aCommitAfterALockLongerThanTheBusyTimeoutWakesTheWatcher() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("locked.db").path
      try createDatabase(at: path, "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)")
      let probe = WatcherProbe(path: path)
      let shell = try SQLiteShell(path, in: directory)
      #expect(await shell.run("BEGIN EXCLUSIVE; INSERT INTO note(text) VALUES ('locked');"))
      let before = probe.wakes.current
      #expect(await shell.run("COMMIT;"))
      #expect(await eventually { probe.wakes.current > before })
      #expect(probe.opens.current == 1)
      #expect(probe.replaced.current.isEmpty)
      await shell.finish()
    }
  }

  /// Another process is killed in the middle of a transaction and leaves a hot journal, which a
  /// read-only connection cannot roll back (SQLITE_READONLY_ROLLBACK); then a third process commits:
  /// the watcher wakes for that commit.
  @Test func aCommitAfterAHotJournalWakesTheWatcher() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("hot.db").path
      try createDatabase(at: path, "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)")
      let probe = WatcherProbe(path: path)
      let shell = try SQLiteShell(path, in: directory)
      // A cache of 2 pages spills the transaction's pages to the file, after syncing the journal.
      #expect(
        await shell.run(
          """
          PRAGMA cache_size = 2; BEGIN;
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
          INSERT INTO note(text) SELECT hex(randomblob(500)) FROM n;
          """))
      await shell.kill()
      #expect(FileManager.default.fileExists(atPath: path + "-journal"))
      // The spilled pages may wake it: what counts is a wake after the third process's commit.
      _ = await eventually(timeout: 2) { probe.wakes.current > 0 }
      let before = probe.wakes.current

      let sqlite3 = try #require(ChildProcess.inPath("sqlite3"))
      let outcome = try await ChildProcess.run(
        sqlite3, ["-cmd", ".timeout 5000", path, "INSERT INTO note(text) VALUES ('third')"], in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await eventually { probe.wakes.current > before })
      #expect(probe.replaced.current.isEmpty)
    }
  }

  /// A file the watcher is told of later (the writer attached it) is read for the first time some time
  /// after the attach: another connection's commit made in between still wakes the watcher. The commit
  /// is made while the watcher asks for the new list of files, so that it lands before that first read.
  @Test func aCommitBeforeANewFileIsFirstReadWakesTheWatcher() async throws {
    try await withTemporaryDirectory { directory in
      let main = directory.appendingPathComponent("main.db").path
      let attached = directory.appendingPathComponent("attached.db").path
      for path in [main, attached] {
        try createDatabase(at: path, "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)")
      }
      let watched = Shared([WatchedFile(path: main, identity: FileStatus.of(main)?.identity)])
      let commitWhenAsked = Shared<String?>(nil)
      let wakes = Shared(0)
      let configuration = Configuration(busyTimeout: 0.05)
      let watcher = ForeignCommitWatcher(
        interval: .seconds(60),
        open: { path in try configuration.openDatabase(path: path, role: .reader) },
        files: {
          if let path = commitWhenAsked.withLock({ path in
            defer { path = nil }
            return path
          }) {
            #expect(throws: Never.self) { try createDatabase(at: path, "INSERT INTO note(text) VALUES ('other')") }
          }
          return watched.current
        },
        onPossibleCommit: { wakes.withLock { $0 += 1 } }, onFileReplaced: { _ in })
      watcher.start()
      defer { watcher.stop() }
      let before = wakes.current
      watched.withLock { $0.append(WatchedFile(path: attached, identity: FileStatus.of(attached)?.identity)) }
      commitWhenAsked.withLock { $0 = attached }
      watcher.filesDidChange()
      #expect(await eventually { wakes.current > before })
      #expect(commitWhenAsked.current == nil)
    }
  }

  /// The file is replaced by a rename (how an app restores a backup), or deleted and created again:
  /// the watcher reports it replaced (the observed queue's or pool's connections still see the old
  /// file).
  @Test(arguments: [false, true]) func aReplacedFileIsReported(byRename: Bool) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("replaced.db").path
      try createDatabase(at: path, "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)")
      let probe = WatcherProbe(path: path)
      let replacement = directory.appendingPathComponent("backup.db").path
      let sql = "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO note(text) VALUES ('restored')"
      if byRename {
        try createDatabase(at: replacement, sql)
        #expect(rename(replacement, path) == 0)
      } else {
        try FileManager.default.removeItem(atPath: path)
        try createDatabase(at: path, sql)
      }
      #expect(await eventually { probe.replaced.current == [path] })
    }
  }

  /// The application opens a transaction in one closure and commits it in another; another process
  /// commits in between. Its commit is reported once the transaction ends.
  @Test(arguments: [JournalMode.delete, .wal])
  func aCommitDuringTheWritersTransactionIsReported(journalMode: JournalMode) async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("transaction.db").path
      var configuration = Configuration(journalMode: journalMode)
      configuration.observationPollInterval = .milliseconds(20)
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      try queue.sync { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)") }
      let collector = Collector(queue.observe { db in try countNotes(db) })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))

      try queue.sync { db in try db.execute(sql: "BEGIN") }
      let sqlite3 = try #require(ChildProcess.inPath("sqlite3"))
      let outcome = try await ChildProcess.run(
        sqlite3, ["-cmd", ".timeout 5000", path, "INSERT INTO note(text) VALUES ('other')"], in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      // Lets the watcher see the commit while the transaction is open (the check must then wait).
      try await Task.sleep(nanoseconds: 300_000_000)
      try queue.sync { db in try db.execute(sql: "COMMIT") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == [0, 1])
    }
  }

  /// Another process commits to a file the writer has attached.
  @Test func aCommitToAnAttachedFileIsReported() async throws {
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("main.db").path
      let attached = directory.appendingPathComponent("attached.db").path
      try createDatabase(at: attached, "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)")
      var configuration = Configuration()
      configuration.observationPollInterval = .milliseconds(20)
      let queue = try DatabaseQueue(path: path, configuration: configuration)
      try queue.sync { db in try db.execute(sql: "ATTACH DATABASE ? AS aux", parameterValues: [attached]) }
      let collector = Collector(
        queue.observe { db in try db.prepare(sql: "SELECT count(*) FROM aux.note").front(Int.self) ?? 0 }
          .removingDuplicates())
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))

      let sqlite3 = try #require(ChildProcess.inPath("sqlite3"))
      let outcome = try await ChildProcess.run(
        sqlite3, ["-cmd", ".timeout 5000", attached, "INSERT INTO note(text) VALUES ('other')"], in: directory)
      #expect(outcome.status == 0, "\(outcome.stderr)")
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == [0, 1])
    }
  }

  /// A poll interval too long for Dispatch's nanoseconds is the longest one Dispatch can take.
  @Test func aHugePollIntervalSaturates() async throws {
    #expect(Duration.seconds(10_000_000_000).dispatchInterval == .nanoseconds(Int.max))
    #expect(Duration.seconds(-10_000_000_000).dispatchInterval == .nanoseconds(Int.min))
    #expect(Duration.milliseconds(1500).dispatchInterval == .nanoseconds(1_500_000_000))

    try await withTemporaryDirectory { directory in
      var configuration = Configuration()
      configuration.observationPollInterval = .seconds(10_000_000_000)
      let queue = try DatabaseQueue(
        path: directory.appendingPathComponent("huge.db").path, configuration: configuration)
      try queue.sync { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT)") }
      let collector = Collector(queue.observe { db in try countNotes(db) })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('own')") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == [0, 1])
    }
  }
}
