import Amalgam
import Foundation
import Testing

@Suite struct BusyHandlerTests {
  /// Runs `body` with two connections to one new database file; `holder` holds its write lock.
  func withLockedDatabase(_ body: (_ writer: Database, _ holder: Database) throws -> Void) throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("busy.sqlite").path
      let writer = try Database(path: path)
      try writer.execute(sql: "CREATE TABLE t(x)")
      let holder = try Database(path: path)
      try holder.execute(sql: "BEGIN IMMEDIATE")
      try body(writer, holder)
      if !holder.isInAutocommitMode { try holder.execute(sql: "ROLLBACK") }
    }
  }

  @Test func busyHandlerIsCalledWithTheRetryCountUntilItGivesUp() throws {
    try withLockedDatabase { writer, _ in
      var retries: [Int] = []
      try writer.setBusyHandler { retryCount in
        retries.append(retryCount)
        return retryCount < 3
      }
      let error = expectSQLiteError { try writer.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(error?.code == .busy)
      #expect(error?.message == "database is locked")
      #expect(retries == [0, 1, 2, 3])
    }
  }

  @Test func retryingAfterTheLockIsReleasedSucceeds() throws {
    try withLockedDatabase { writer, holder in
      var retries = 0
      try writer.setBusyHandler { retryCount in
        retries += 1
        if retryCount == 1 { try? holder.execute(sql: "COMMIT") }  // another connection: allowed
        return true
      }
      try writer.execute(sql: "INSERT INTO t VALUES (1)")
      #expect(retries == 2)
      #expect(try writer.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
  }

  @Test func withoutABusyHandlerALockedTableFailsAtOnce() throws {
    try withLockedDatabase { writer, _ in
      var calls = 0
      try writer.setBusyHandler { _ in
        calls += 1
        return false
      }
      try writer.removeBusyHandler()
      let error = expectSQLiteError { try writer.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(error?.code == .busy)
      #expect(calls == 0)
    }
  }

  @Test func aBusyTimeoutReplacesTheBusyHandler() throws {
    try withLockedDatabase { writer, _ in
      var calls = 0
      try writer.setBusyHandler { _ in
        calls += 1
        return false
      }
      try writer.setBusyTimeout(0.02)
      let error = expectSQLiteError { try writer.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(error?.code == .busy)
      #expect(calls == 0)
    }
  }

  @Test func busyHandlerClosureIsReleased() throws {
    try expectHookClosureReleased(
      install: { db, token in
        try db.setBusyHandler { _ in withExtendedLifetime(token) { false } }
      },
      remove: { try $0.removeBusyHandler() })
  }
}
