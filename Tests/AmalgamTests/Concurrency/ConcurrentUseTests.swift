import Amalgam
import Dispatch
import Foundation
import Testing

/// Escapes Swift's Sendable checking on purpose, to simulate a caller who shares a `Database` across
/// threads unsafely. Nothing guards `database`: guarding it is what the library's check is for.
final class UnsafeShared: @unchecked Sendable {
  let database: Database
  init(_ database: Database) { self.database = database }
}

@Suite struct ConcurrentUseTests {
  /// A query that runs until interrupted.
  static let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"

  @Test func aSecondThreadUsingABusyConnectionGetsConcurrentUse() throws {
    let shared = UnsafeShared(try Database())
    let started = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let outcome = Locked<(any Error)?>(nil)
    // SQLite calls started() from inside sqlite3_step: once it has, the first thread holds the connection.
    try shared.database.addFunction("started", flags: []) { () -> Int in
      started.signal()
      return 1
    }
    let statement = UnsafeShared(shared.database)
    Thread.detachNewThread {
      do {
        let query = try statement.database.prepare(
          sql: "WITH RECURSIVE n(i) AS (SELECT started() UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
        _ = try query.step()
      } catch {
        outcome.withLock { $0 = error }
      }
      finished.signal()
    }
    #expect(started.wait(timeout: .now() + 60) == .success)
    #expect(throws: DatabaseError.concurrentUse) {
      try shared.database.execute(sql: "SELECT 1")
    }
    shared.database.interrupt()
    finished.wait()
    let error = outcome.withLock { $0 }
    #expect((error as? SQLiteError)?.code == .interrupt)
    // Once the first thread is done, the connection serves the next caller normally.
    let one: Int? = try shared.database.prepare(sql: "SELECT 1").front()
    #expect(one == 1)
  }

  @Test func nestedUseOnTheSameThreadIsAllowed() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); CREATE TABLE copy(x); INSERT INTO t VALUES (1), (2), (3);")
    var copied = 0
    try db.prepare(sql: "SELECT x FROM t").results { row in
      // A statement run from inside another's row callback, on the same thread, is not concurrent use.
      // (It writes to another table: rows inserted into the table being read could be read again.)
      try db.execute(sql: "INSERT INTO copy VALUES (?)", parameterValues: [try row.value(at: 0) as Int + 10])
      copied += 1
    }
    #expect(copied == 3)
    let total: Int? = try db.prepare(sql: "SELECT sum(x) FROM copy").front()
    #expect(total == 11 + 12 + 13)
  }

  @Test func sequentialUseFromDifferentThreadsIsAllowed() async throws {
    let shared = UnsafeShared(try Database())
    try shared.database.execute(sql: "CREATE TABLE t(x)")
    for value in 0..<4 {
      let done = DispatchSemaphore(value: 0)
      let failure = Locked<(any Error)?>(nil)
      Thread.detachNewThread {
        do { try shared.database.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [value]) } catch {
          failure.withLock { $0 = error }
        }
        done.signal()
      }
      done.wait()
      #expect(failure.withLock { $0 } == nil)
    }
    let count: Int? = try shared.database.prepare(sql: "SELECT count(*) FROM t").front()
    #expect(count == 4)
  }
}

/// A connection that escaped its queue's closure, hammered from two threads at once: every call either
/// works or throws ``DatabaseError/concurrentUse`` (or ``DatabaseError/databaseClosed`` once one thread
/// closed it), and nothing crashes. The interleavings that matter (a statement finalized, reset or bound
/// while the other thread steps, a close racing a call that already passed its checks) are rare per
/// call, so each thread makes thousands of calls; under ThreadSanitizer (`Scripts/sanitize --thread`)
/// any call that touches the connection without holding it is reported.
@Suite struct ConcurrentUseStressTests {
  /// What one thread saw: calls that worked, and errors that were not the expected ones.
  struct Tally: Sendable {
    var succeeded = 0
    var refused = 0
    var unexpected: [String] = []
  }

  /// Runs `body` `iterations` times on each of two threads started together, tallying the outcomes.
  static func hammer(
    _ shared: UnsafeShared, iterations: Int, allowing allowed: Set<String>,
    _ body: @escaping @Sendable (Database, Int, Int) throws -> Void
  ) -> [Tally] {
    let tallies = Locked<[Tally]>([Tally(), Tally()])
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for worker in 0..<2 {
      Thread.detachNewThread {
        var tally = Tally()
        ready.signal()
        go.wait()
        // A refused call is tried again (a refusal is quick, so one thread can be refused many times
        // while the other runs), until each thread has made its calls or the bound is reached.
        var iteration = 0
        var attempts = 0
        while iteration < iterations, attempts < iterations * 1000 {
          attempts += 1
          do {
            try body(shared.database, worker, iteration)
            tally.succeeded += 1
            iteration += 1
          } catch let error as DatabaseError where allowed.contains(ExpectedError.caseName(error)) {
            tally.refused += 1
            if ExpectedError.caseName(error) == "databaseClosed" { iteration += 1 }
          } catch {
            if tally.unexpected.count < 5 { tally.unexpected.append("\(error)") }
            iteration += 1
          }
        }
        tallies.withLock { $0[worker] = tally }
        done.signal()
      }
    }
    for _ in 0..<2 { ready.wait() }
    for _ in 0..<2 { go.signal() }
    for _ in 0..<2 { #expect(done.wait(timeout: .now() + 300) == .success) }
    return tallies.withLock { $0 }
  }

  /// Prepares, binds, steps, reads, resets and finalizes statements (fresh and cached) on both threads.
  @Test func twoThreadsRunningStatementsGetConcurrentUseAndNeverCrash() throws {
    try withTemporaryDirectory { directory in
      let queue = try DatabaseQueue(path: directory.appendingPathComponent("db.sqlite").path)
      let shared = try queue.sync { db in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, worker INTEGER, name TEXT)")
        return UnsafeShared(db)
      }
      let tallies = Self.hammer(shared, iterations: 2000, allowing: ["concurrentUse"]) { db, worker, iteration in
        switch iteration % 5 {
        case 0:
          try db.execute(sql: "INSERT INTO t(worker, name) VALUES (?, ?)", arguments: [worker, "n\(iteration)"])
        case 1:
          _ = try db.cachedStatement(sql: "SELECT count(*) FROM t WHERE worker = ?").bind(parameterValues: [worker])
            .front(Int.self)
        case 2:
          _ = try db.prepare(sql: "SELECT id, name FROM t ORDER BY id DESC LIMIT 3").allRows()
        case 3:
          let statement = try db.prepare(sql: "SELECT name FROM t WHERE worker = ? LIMIT 2")
          try statement.bind(parameterValues: [worker])
          while let row = try statement.step() { _ = try row.value(at: 0) as String? }
          try statement.reset()
        default:
          try db.batch(sql: "UPDATE t SET name = name WHERE id = 1; SELECT 1")
        }
      }
      for tally in tallies {
        #expect(tally.unexpected == [])
        #expect(tally.succeeded == 2000, "\(tallies)")
      }
      // The connection is intact: it serves its queue, and holds every insert (a fifth of each thread's
      // calls).
      let count = try queue.sync { db in try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) }
      #expect(count == 2 * 400)
    }
  }

  /// One thread closes the connection while the other runs statements on it: each call works, or throws
  /// ``DatabaseError/concurrentUse`` or ``DatabaseError/databaseClosed``.
  @Test func closingWhileAnotherThreadRunsStatementsNeverCrashes() throws {
    for round in 0..<40 {
      let shared = UnsafeShared(try Database())
      try shared.database.execute(sql: "CREATE TABLE t(x)")
      // Statements kept alive by the closing thread, finalized after the close.
      let kept = Locked<[Statement]>([])
      let tallies = Self.hammer(shared, iterations: 200, allowing: ["concurrentUse", "databaseClosed"]) {
        db, worker, iteration in
        if worker == 0 {
          if iteration == 10 + round % 50 { try db.close() }
          if iteration % 3 == 0 {
            let statement = try db.prepare(sql: "SELECT x FROM t")
            kept.withLock { $0.append(statement) }
          }
          try db.execute(sql: "SELECT 1")
        } else {
          try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [iteration])
          _ = try db.cachedStatement(sql: "SELECT count(*) FROM t").front(Int.self)
        }
      }
      for tally in tallies { #expect(tally.unexpected == []) }
      kept.withLock { $0.removeAll() }
    }
  }
}

/// A value shared between test threads, guarded by `lock`.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func withLock<R>(_ body: (inout Value) -> R) -> R {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
