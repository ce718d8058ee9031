import Amalgam
import Foundation
import Testing

/// Callbacks that SQLite forbids to use their connection get `DatabaseError.reentrantCall` when they try
/// (issue 10, item 3). Before, a busy handler that ran SQL on its connection hung with its retry count
/// stuck at 1.
@Suite struct ReentrancyTests {
  @Test func aBusyHandlerThatRunsSQLOnItsConnectionGetsAnErrorAndKeepsCounting() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("busy.sqlite").path
      let holder = try Database(path: path)
      try holder.execute(sql: "CREATE TABLE t(x)")
      let waiter = try Database(path: path)
      // The busy handler captures its database: close it, which releases the handler (a leak otherwise).
      defer { try? waiter.close() }
      var retries: [Int] = []
      var errors: [String] = []
      try waiter.setBusyHandler { retry in
        retries.append(retry)
        do {
          try waiter.execute(sql: "SELECT count(*) FROM t")
        } catch {
          errors.append("\(error)")
        }
        return retry < 3
      }
      try holder.execute(sql: "BEGIN IMMEDIATE")
      let busy = expectSQLiteError { try waiter.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(busy?.code == .busy)
      #expect(retries == [0, 1, 2, 3])
      #expect(errors.count == 4)
      #expect(errors.allSatisfy { $0.contains("busy handler") && $0.contains("forbids") })
      try holder.execute(sql: "COMMIT")
      // Outside the handler the connection works.
      try waiter.execute(sql: "INSERT INTO t VALUES (1)")
      #expect(try waiter.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
  }

  /// Each restricted callback and how to install it; the test's statements fire every one.
  nonisolated(unsafe) static let restrictedCallbacks:
    [(name: String, install: (Database, @escaping () -> Void) throws -> Void)] = {
      var callbacks: [(name: String, install: (Database, @escaping () -> Void) throws -> Void)] = [
        (
          "commit hook",
          { db, touch in
            try db.setCommitHook {
              touch(); return .commit
            }
          }
        ),
        ("rollback hook", { db, touch in try db.setRollbackHook { touch() } }),
        ("update hook", { db, touch in try db.setUpdateHook { _ in touch() } }),
        (
          "authorizer",
          { db, touch in
            try db.setAuthorizer { _ in
              touch(); return .allow
            }
          }
        ),
        (
          "collation function",
          { db, touch in
            try db.addCollation("touching") { left, right in
              touch()
              return left < right ? .orderedAscending : left == right ? .orderedSame : .orderedDescending
            }
          }
        ),
      ]
      #if ENABLE_PREUPDATE_HOOK
        callbacks.append(("pre-update hook", { db, touch in db.setPreUpdateHook { _ in touch() } }))
      #endif
      #if !OMIT_PROGRESS_CALLBACK
        callbacks.append(
          (
            "progress handler",
            { db, touch in
              try db.setProgressHandler(every: 1) {
                touch(); return .continue
              }
            }
          ))
      #endif
      return callbacks
    }()

  @Test(arguments: ReentrancyTests.restrictedCallbacks.indices)
  func aRestrictedCallbackCannotUseItsConnection(index: Int) throws {
    let (name, install) = Self.restrictedCallbacks[index]
    let db = try Database()
    // The callback captures its database: close it, which releases the callback (a leak otherwise).
    defer { try? db.close() }
    try db.batch(sql: "CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('b'), ('a');")
    var errors: [DatabaseError] = []
    var otherErrors: [String] = []
    try install(db) {
      for attempt in [
        { try db.execute(sql: "SELECT 1") },
        { _ = try db.prepare(sql: "SELECT 2") },
        { try db.batch(sql: "SELECT 3") },
        { try db.addFunction("late", arity: 0) { _ in .null } },
      ] as [() throws -> Void] {
        do {
          try attempt()
          otherErrors.append("ran")
        } catch let error as DatabaseError {
          errors.append(error)
        } catch {
          otherErrors.append("\(error)")
        }
      }
    }
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO t VALUES ('c')")
    try db.execute(sql: "UPDATE t SET x = x || '!' WHERE x = 'c'")
    let collation = name == "collation function" ? "COLLATE touching" : ""
    _ = try db.prepare(sql: "SELECT x FROM t ORDER BY x \(collation)").column(0, as: String.self)
    try db.execute(sql: "COMMIT")
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "DELETE FROM t")
    try db.execute(sql: "ROLLBACK")
    #expect(!errors.isEmpty, "the \(name) was never called")
    #expect(otherErrors.isEmpty, "\(name): \(otherErrors)")
    #expect(errors.allSatisfy { $0 == .reentrantCall(callback: name) }, "\(name): \(errors)")
    // The connection is usable again once the callback returned, and nothing half-ran.
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 3)
  }

  @Test func aWALHookMayReadItsConnectionAsSQLiteAllows() throws {
    try withTemporaryDirectory { directory in
      let db = try Database(path: directory.appendingPathComponent("wal.sqlite").path)
      defer { try? db.close() }  // The hook captures its database; closing releases it.
      try db.batch(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t(x);")
      var counts: [Int] = []
      try db.setWALHook { _, _ in
        counts.append((try? db.fetchOne(Int.self, sql: "SELECT count(*) FROM t")) ?? -1)
      }
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      try db.execute(sql: "INSERT INTO t VALUES (2)")
      #expect(counts == [1, 2])
    }
  }

  @Test func aSQLFunctionMayUseItsConnection() throws {
    let db = try Database()
    defer { try? db.close() }  // The function captures its database; closing releases it.
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.batch(sql: "INSERT INTO t VALUES (1), (2), (3)")
    try db.addFunction("row_total", arity: 0) { _ in
      .integer(Int64(try db.prepare(sql: "SELECT sum(x) FROM t").front(Int.self) ?? 0))
    }
    #expect(try db.fetchOne(Int.self, sql: "SELECT row_total()") == 6)
  }

  @Test func articleExample() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE audit(rowid INTEGER)")
    try db.execute(sql: "CREATE TABLE t(x)")
    var failures: [String] = []
    // Reentrancy: begin
    try db.setUpdateHook { event in
      // Throws DatabaseError.reentrantCall(callback: "update hook"); record the event and act later.
      try? db.execute(sql: "INSERT INTO audit(rowid) VALUES (\(event.rowid))")
      // Reentrancy: end
      do { try db.execute(sql: "SELECT 1") } catch { failures.append("\(error)") }
    }
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(failures.count == 1)
    try db.removeUpdateHook()
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM audit") == 0)
  }
}
