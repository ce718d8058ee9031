import Amalgam
import Dispatch
import Foundation
import Testing

/// Escapes Swift's Sendable checking on purpose, to simulate a caller who shares a `Database` across
/// threads unsafely. Nothing guards `database`: guarding it is what the library's check is for.
private final class UnsafeShared: @unchecked Sendable {
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

/// A value shared between test threads, guarded by `lock`.
private final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func withLock<R>(_ body: (inout Value) -> R) -> R {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
