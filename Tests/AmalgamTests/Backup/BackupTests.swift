import Amalgam
import Dispatch
import Foundation
import Testing

/// Online backup: one call, steps with progress, restarts when another connection writes the source,
/// cancellation, busy retries, schema names, and the queue and pool forms.
@Suite struct BackupTests {
  /// Fills `db` with `rows` rows of 500 random bytes each (about 8 rows a page), in table `t`.
  static func fill(_ db: Database, rows: Int = 400, schema: String = "main") throws {
    try db.batch(
      sql: """
        CREATE TABLE \(schema).t(id INTEGER PRIMARY KEY, payload BLOB);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
        INSERT INTO \(schema).t(id, payload) SELECT i, randomblob(500) FROM n;
        """)
  }

  /// Every row of table `t`, as text, in id order.
  static func rows(_ db: Database, schema: String = "main") throws -> [String] {
    var result: [String] = []
    let statement = try db.prepare(sql: "SELECT id || ':' || hex(payload) FROM \(schema).t ORDER BY id")
    while let row = try statement.step() { result.append(try row.value(at: 0)) }
    return result
  }

  static func integrity(_ db: Database, schema: String = "main") throws -> String? {
    try db.prepare(sql: "PRAGMA \(schema).integrity_check").front(String.self)
  }

  // MARK: - One call

  @Test func oneCallCopiesEveryRowIntoAnEmptyDatabase() throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    try source.backup(to: destination)
    #expect(try Self.rows(destination) == Self.rows(source))
    #expect(try Self.rows(destination).count == 400)
    #expect(try Self.integrity(destination) == "ok")
  }

  @Test func backupReplacesWhatTheDestinationHeld() throws {
    let source = try Database()
    try Self.fill(source, rows: 3)
    let destination = try Database()
    try destination.execute(sql: "CREATE TABLE old(x)")
    try source.backup(to: destination)
    let tables = try destination.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema").front(String.self)
    #expect(tables == "t")
  }

  @Test func fileDatabaseBacksUpToFileAndRestoresIntoMemory() throws {
    try withTemporaryDirectory { directory in
      let source = try Database(path: directory.appendingPathComponent("source.db").path)
      try Self.fill(source)
      let copyPath = directory.appendingPathComponent("copy.db").path
      let copy = try Database(path: copyPath)
      try source.backup(to: copy)
      try copy.close()
      // The file stands on its own: reopened, it holds the rows; restored into memory, too.
      let reopened = try Database(path: copyPath, options: .readOnly)
      let memory = try Database()
      try reopened.backup(to: memory)
      #expect(try Self.rows(memory) == Self.rows(source))
      #expect(try Self.integrity(memory) == "ok")
    }
  }

  @Test func anySchemaNameOnEitherSide() throws {
    let source = try Database()
    try source.execute(sql: "ATTACH ':memory:' AS archive")
    try Self.fill(source, rows: 50, schema: "archive")
    let destination = try Database()
    try destination.execute(sql: "ATTACH ':memory:' AS mirror")
    try source.backup(to: destination, sourceSchema: "archive", destinationSchema: "mirror")
    #expect(try Self.rows(destination, schema: "mirror") == Self.rows(source, schema: "archive"))
    // The destination's main database is untouched.
    #expect(try destination.prepare(sql: "SELECT count(*) FROM main.sqlite_schema").front(Int.self) == 0)
  }

  @Test func tempSchemaIsASourceToo() throws {
    let source = try Database()
    try Self.fill(source, rows: 20, schema: "temp")
    let destination = try Database()
    try source.backup(to: destination, sourceSchema: "temp")
    #expect(try Self.rows(destination) == Self.rows(source, schema: "temp"))
  }

  // MARK: - Errors

  @Test func unknownSchemaThrowsSQLitesError() throws {
    let source = try Database()
    let destination = try Database()
    #expect {
      try source.backup(to: destination, sourceSchema: "nowhere")
    } throws: { error in
      (error as? SQLiteError)?.code == .error && (error as? SQLiteError)?.message.contains("nowhere") == true
    }
  }

  @Test func backupIntoItselfThrows() throws {
    let db = try Database()
    try Self.fill(db, rows: 2)
    #expect {
      try db.backup(to: db)
    } throws: { error in
      (error as? SQLiteError)?.message.contains("distinct") == true
    }
  }

  @Test func closedDatabasesThrowDatabaseClosed() throws {
    let source = try Database()
    try Self.fill(source, rows: 100)
    let destination = try Database()
    let backup = try DatabaseBackup(from: source, to: destination)
    #expect(try backup.step(pages: 1) == false)
    try source.close()
    #expect(throws: DatabaseError.databaseClosed) { try backup.step(pages: 1) }
    try backup.finish()
    #expect(backup.isFinished)
    #expect(throws: DatabaseError.databaseClosed) { try backup.step() }
    try destination.close()
    #expect(throws: DatabaseError.databaseClosed) { try DatabaseBackup(from: try Database(), to: destination) }
  }

  @Test func errorThrownByProgressReachesTheCallerAndStopsTheBackup() throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    var calls = 0
    #expect(throws: TestError(id: 7)) {
      try source.backup(to: destination, pagesPerStep: 1) { _ in
        calls += 1
        throw TestError(id: 7)
      }
    }
    #expect(calls == 1)
    #expect(try destination.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self) == 0)
  }

  // MARK: - Steps and progress

  @Test func stepsReportRemainingAndTotalPages() throws {
    let source = try Database()
    try Self.fill(source)
    let pageCount = try #require(try source.prepare(sql: "PRAGMA page_count").front(Int.self))
    let destination = try Database()
    var reports: [BackupProgress] = []
    try source.backup(to: destination, pagesPerStep: 5) { progress in
      reports.append(progress)
      return true
    }
    #expect(reports.count == (pageCount + 4) / 5)
    #expect(reports.allSatisfy { $0.totalPageCount == pageCount })
    #expect(reports.map(\.remainingPageCount) == reports.indices.map { max(0, pageCount - 5 * ($0 + 1)) })
    #expect(reports.last?.isComplete == true)
    #expect(reports.last?.fractionCompleted == 1)
    #expect(reports.first?.completedPageCount == 5)
  }

  @Test func theStepAPIDecidesWhenEachStepRuns() throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    let backup = try DatabaseBackup(from: source, to: destination)
    #expect(backup.progress == BackupProgress(remainingPageCount: 0, totalPageCount: 0))
    #expect(try backup.step(pages: 10) == false)
    let total = backup.progress.totalPageCount
    #expect(backup.progress.remainingPageCount == total - 10)
    #expect(try backup.step() == true)
    #expect(backup.isFinished)
    #expect(backup.progress.remainingPageCount == 0)
    #expect(try Self.rows(destination) == Self.rows(source))
  }

  @Test func sqliteRestartsTheCopyWhenAnotherConnectionWritesTheSource() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("source.db").path
      let source = try Database(path: path)
      try Self.fill(source)
      let writer = try Database(path: path)
      let destination = try Database()
      var remaining: [Int] = []
      try source.backup(to: destination, pagesPerStep: 10) { progress in
        remaining.append(progress.remainingPageCount)
        if remaining.count == 3 {
          // Another connection writes between steps: SQLite starts the copy over at the next step.
          try writer.execute(sql: "INSERT INTO t(id, payload) VALUES (1000, randomblob(2000))")
        }
        return true
      }
      #expect(remaining.count > 4)
      #expect(remaining[3] > remaining[2], "remaining pages went back up: \(remaining)")
      #expect(try Self.rows(destination) == Self.rows(source))
      #expect(try Self.rows(destination).count == 401)
      #expect(try Self.integrity(destination) == "ok")
    }
  }

  @Test func writesThroughTheSourceConnectionToAFileAreCopiedAlongWithoutRestart() throws {
    try withTemporaryDirectory { directory in
      let source = try Database(path: directory.appendingPathComponent("source.db").path)
      try Self.fill(source)
      let destination = try Database()
      var remaining: [Int] = []
      try source.backup(to: destination, pagesPerStep: 10) { progress in
        remaining.append(progress.remainingPageCount)
        if remaining.count == 3 { try source.execute(sql: "UPDATE t SET payload = x'00' WHERE id = 1") }
        return true
      }
      #expect(remaining == remaining.sorted(by: >))
      #expect(try Self.rows(destination) == Self.rows(source))
    }
  }

  @Test func backupWhileAnotherConnectionKeepsWritingEndsWithAConsistentCopy() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("source.db").path
      let source = try Database(path: path)
      try Self.fill(source, rows: 200)
      try source.setBusyTimeout(5)
      let finished = DispatchSemaphore(value: 0)
      let writerError = Shared<String?>(nil)
      Thread.detachNewThread {
        do {
          let writer = try Database(path: path)
          try writer.setBusyTimeout(5)
          for batch in 0..<20 {
            try writer.transaction { db in
              for row in 0..<10 {
                try db.execute(
                  sql: "INSERT INTO t(id, payload) VALUES (?, randomblob(300))",
                  parameterValues: [1000 + batch * 10 + row])
              }
            }
            usleep(2000)
          }
        } catch {
          writerError.withLock { $0 = "\(error)" }
        }
        finished.signal()
      }
      let destination = try Database()
      try source.backup(to: destination, pagesPerStep: 4) { _ in
        usleep(500)
        return true
      }
      finished.wait()
      #expect(writerError.current == nil)
      // The copy is one committed state of the source: the original rows and whole batches of ten.
      #expect(try Self.integrity(destination) == "ok")
      let ids = try destination.prepare(sql: "SELECT id FROM t ORDER BY id").column(0, as: Int.self)
      let added = ids.count - 200
      #expect(added >= 0 && added % 10 == 0, "\(added) rows added")
      #expect(ids == Array(1...200) + Array(1000..<(1000 + added)))
      // A backup after the writer is done copies everything.
      try source.backup(to: destination, pagesPerStep: 16)
      #expect(try Self.rows(destination) == Self.rows(source))
      #expect(try Self.rows(destination).count == 400)
    }
  }

  @Test func busyStepsAreRetriedForTheBusyTimeout() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("source.db").path
      let source = try Database(path: path)
      try Self.fill(source, rows: 50)
      try source.setBusyTimeout(5)
      let locker = try Database(path: path)
      try locker.execute(sql: "BEGIN EXCLUSIVE")
      try locker.execute(sql: "INSERT INTO t(id, payload) VALUES (999, x'01')")
      // A single step fails with SQLITE_BUSY once the timeout has passed.
      let destination = try Database()
      try source.setBusyTimeout(0.001)
      #expect {
        try DatabaseBackup(from: source, to: destination).step()
      } throws: { error in
        (error as? SQLiteError)?.code == .busy
      }
      let release = DispatchSemaphore(value: 0)
      let unlocker = Shared(locker)
      try source.setBusyTimeout(5)
      // Taken before the unlocker starts, so the 100 ms it waits before committing all count.
      let start = DispatchTime.now()
      Thread.detachNewThread {
        usleep(100_000)
        unlocker.withLock { _ = try? $0.execute(sql: "COMMIT") }
        release.signal()
      }
      try source.backup(to: destination, busyPause: 0.005)
      release.wait()
      #expect(seconds(since: start) >= 0.09)
      #expect(try Self.rows(destination).count == 51)
    }
  }

  @Test func aDestinationLockedByAnotherConnectionEndsWithBusyAfterItsTimeout() async throws {
    try await withTemporaryDirectory { directory in
      let source = try Database()
      try Self.fill(source, rows: 50)
      let path = directory.appendingPathComponent("destination.db").path
      let destination = try Database(path: path)
      try destination.execute(sql: "CREATE TABLE kept(x)")
      let locker = try Database(path: path)
      try locker.execute(sql: "BEGIN IMMEDIATE")
      try locker.execute(sql: "INSERT INTO kept VALUES (1)")
      try destination.setBusyTimeout(0.001)
      let start = DispatchTime.now()
      #expect {
        try source.backup(to: destination, busyPause: 0.001)
      } throws: { error in
        (error as? SQLiteError)?.code == .busy
      }
      // Before, this never returned. (The bound is loose: the suite runs tests side by side.)
      #expect(seconds(since: start) < 5)
      var steps = source.backupSteps(to: destination, busyPause: 0.001).makeAsyncIterator()
      await #expect {
        _ = try await steps.next()
      } throws: { error in
        (error as? SQLiteError)?.code == .busy
      }
      // Without any busy timeout the first busy step ends it.
      try destination.setBusyTimeout(0)
      #expect {
        try source.backup(to: destination, busyPause: 0.001)
      } throws: { error in
        (error as? SQLiteError)?.code == .busy
      }
      try locker.execute(sql: "COMMIT")
      #expect(try destination.prepare(sql: "SELECT count(*) FROM kept").front(Int.self) == 1)
    }
  }

  @Test func backingAFileUpOntoItselfThrowsAtOnce() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("same.db").path
      let first = try Database(path: path)
      try Self.fill(first, rows: 20)
      let second = try Database(path: path)
      try second.setBusyTimeout(1)
      let link = directory.appendingPathComponent("link.db").path
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
      let third = try Database(path: link)
      for destination in [second, third] {
        #expect {
          try first.backup(to: destination)
        } throws: { error in
          let error = error as? SQLiteError
          return error?.code == .misuse && error?.message.contains("onto itself") == true
        }
      }
      #expect(try Self.rows(second).count == 20)
    }
  }

  // MARK: - Cancellation

  @Test func answeringFalseStopsAndLeavesTheDestinationAsItWas() throws {
    try withTemporaryDirectory { directory in
      let source = try Database()
      try Self.fill(source)
      let destinationPath = directory.appendingPathComponent("destination.db").path
      let destination = try Database(path: destinationPath)
      try destination.batch(sql: "CREATE TABLE kept(x); INSERT INTO kept VALUES (42);")
      var steps = 0
      #expect(throws: CancellationError.self) {
        try source.backup(to: destination, pagesPerStep: 3) { _ in
          steps += 1
          return steps < 4
        }
      }
      #expect(steps == 4)
      #expect(try Self.integrity(destination) == "ok")
      #expect(try destination.prepare(sql: "SELECT x FROM kept").front(Int.self) == 42)
      #expect(try destination.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self) == 1)
      // Another connection sees the same consistent file.
      let reader = try Database(path: destinationPath, options: .readOnly)
      #expect(try Self.integrity(reader) == "ok")
      #expect(try reader.prepare(sql: "SELECT x FROM kept").front(Int.self) == 42)
    }
  }

  @Test func interruptingTheSourceStopsTheBackupButAStaleInterruptDoesNot() throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    try destination.execute(sql: "CREATE TABLE kept(x)")
    var steps = 0
    #expect {
      try source.backup(to: destination, pagesPerStep: 2) { _ in
        steps += 1
        if steps == 2 { source.interrupt() }
        return true
      }
    } throws: { error in
      (error as? SQLiteError)?.code == .interrupt
    }
    #expect(steps == 2)
    #expect(try destination.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema").front(String.self) == "kept")
    // The interrupt is still pending (no statement has started since): a new backup is not stopped by it.
    #expect(source.isInterrupted)
    try source.backup(to: destination, pagesPerStep: 50)
    #expect(try Self.rows(destination) == Self.rows(source))
  }

  @Test func finishingEarlyLeavesTheDestinationAsItWas() throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    try destination.execute(sql: "CREATE TABLE kept(x)")
    let backup = try DatabaseBackup(from: source, to: destination)
    try backup.step(pages: 5)
    try backup.finish()
    try backup.finish()
    #expect(try destination.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema").front(String.self) == "kept")
  }

  @Test func taskCancellationStopsTheBackup() async throws {
    let task = Task {
      let source = try Database()
      try Self.fill(source)
      let destination = try Database()
      try destination.execute(sql: "CREATE TABLE kept(x)")
      var steps = 0
      let outcome = Result {
        try source.backup(to: destination, pagesPerStep: 1) { _ in
          steps += 1
          if steps == 3 { withUnsafeCurrentTask { $0?.cancel() } }
          return true
        }
      }
      let tables = try destination.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema").front(String.self)
      return (outcome, steps, tables)
    }
    let (outcome, steps, tables) = try await task.value
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(steps == 3)
    #expect(tables == "kept")
  }

  // MARK: - AsyncSequence

  @Test func backupStepsYieldProgressUntilComplete() async throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    var reports: [BackupProgress] = []
    for try await progress in source.backupSteps(to: destination, pagesPerStep: 20) {
      reports.append(progress)
    }
    let pageCount = try #require(try source.prepare(sql: "PRAGMA page_count").front(Int.self))
    #expect(reports.count == (pageCount + 19) / 20)
    #expect(reports.last?.isComplete == true)
    #expect(try Self.rows(destination) == Self.rows(source))
  }

  @Test func leavingTheLoopEarlyOrCancellingLeavesTheDestinationAsItWas() async throws {
    let source = try Database()
    try Self.fill(source)
    let destination = try Database()
    try destination.execute(sql: "CREATE TABLE kept(x)")
    do {
      var iterator = source.backupSteps(to: destination, pagesPerStep: 2).makeAsyncIterator()
      #expect(try await iterator.next()?.remainingPageCount ?? 0 > 0)
    }
    #expect(try destination.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema").front(String.self) == "kept")

    let task = Task {
      let source = try Database()
      try Self.fill(source)
      let destination = try Database()
      try destination.execute(sql: "CREATE TABLE kept(x)")
      var count = 0
      do {
        for try await _ in source.backupSteps(to: destination, pagesPerStep: 2) {
          count += 1
          if count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
        }
        return "completed"
      } catch is CancellationError {
        let tables = try destination.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema")
          .front(String.self)
        return "cancelled after \(count), tables \(tables ?? "")"
      }
    }
    #expect(try await task.value == "cancelled after 2, tables kept")
  }

  // MARK: - Queues and pools

  @Test func queueAndPoolBackUpToADatabaseAndToEachOther() async throws {
    try await withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("pool.db").path)
      try pool.sync { db in try Self.fill(db) }
      let expected = try await pool.read { db in try Self.rows(db) }

      let memory = try Database()
      try pool.backup(to: memory, pagesPerStep: 8)
      #expect(try Self.rows(memory) == expected)

      let queue = try DatabaseQueue(path: directory.appendingPathComponent("queue.db").path)
      try blocking { try pool.backup(to: queue) }
      #expect(try await queue.read { db in try Self.rows(db) } == expected)

      let second = try DatabaseQueue()
      let reports = Shared(0)
      try await queue.backup(to: second, pagesPerStep: 10) { _ in
        reports.withLock { $0 += 1 }
        return true
      }
      #expect(reports.current > 1)
      #expect(try await second.read { db in try Self.rows(db) } == expected)

      #expect(throws: ConcurrencyError.reentrantAccess) {
        try blocking { try queue.backup(to: queue) }
      }
    }
  }

  @Test func cancellingAQueueBackupStopsItAndLeavesTheDestinationAsItWas() async throws {
    let source = try DatabaseQueue()
    try source.sync { db in try Self.fill(db) }
    let destination = try DatabaseQueue()
    try destination.sync { db in try db.execute(sql: "CREATE TABLE kept(x)") }
    let started = Signal()
    let cancelled = Signal()
    let calls = Shared(0)
    let task = Task {
      try await source.backup(to: destination, pagesPerStep: 1) { _ in
        // The first step waits until the task is cancelled: the backup cannot finish before it is.
        let isFirst = calls.withLock { count in
          count += 1
          return count == 1
        }
        if isFirst {
          started.signal()
          cancelled.wait(seconds: 60)
        }
        return true
      }
    }
    started.wait(seconds: 60)
    task.cancel()
    cancelled.signal()
    await #expect(throws: CancellationError.self) { try await task.value }
    let tables = try destination.sync { db in
      try db.prepare(sql: "SELECT group_concat(name) FROM sqlite_schema").front(String.self)
    }
    #expect(tables == "kept")
  }
}
