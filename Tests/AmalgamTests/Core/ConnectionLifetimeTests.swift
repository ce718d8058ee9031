import Amalgam
import Foundation
import Testing

/// A closure registered on a database that captures the database makes a reference cycle, which
/// `close()` breaks by releasing the closures (as the documentation of `addFunction` promises). The
/// leak check (`Scripts/sanitize --leaks`) found tests that kept such cycles alive; these tests pin the
/// behaviour the fixes rely on.
@Suite struct ConnectionLifetimeTests {
  /// Registers closures of several kinds that capture `db`, and uses them once.
  private func registerCapturingClosures(on db: Database) throws {
    try db.addFunction("count_t", arity: 0) { _ in
      .integer(Int64(try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) ?? -1))
    }
    try db.setBusyHandler { _ in db.isOpen && false }
    try db.setWALHook { _, _ in _ = db.isOpen }
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
    #expect(try db.prepare(sql: "SELECT count_t()").front(Int.self) == 2)
  }

  @Test func closingADatabaseReleasesClosuresThatCaptureIt() throws {
    weak var released: Database?
    do {
      let db = try Database()
      released = db
      try registerCapturingClosures(on: db)
      try db.close()
    }
    #expect(released == nil, "the closures still hold the closed database")
  }

  @Test func withoutCloseAClosureCapturingItsDatabaseKeepsItAlive() throws {
    // The documented cycle: a database keeps its closures until close(). Break it here by hand so that
    // the test itself does not leak.
    weak var released: Database?
    var kept: Database?
    do {
      let db = try Database()
      released = db
      kept = db
      try registerCapturingClosures(on: db)
    }
    #expect(released != nil)
    try kept?.close()
    kept = nil
    #expect(released == nil)
  }

  /// A closure that captures a statement of its own database made a cycle through the zombie
  /// connection (closure -> statement -> connection -> closure), which `close()` did not break while a
  /// statement was alive: `close()` now makes SQLite forget every callback and releases them.
  @Test func closingReleasesClosuresThatCaptureAStatementOfTheirDatabase() throws {
    final class Token {}
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("cycle.sqlite").path

      weak var releasedToken: Token?
      weak var releasedStatement: Statement?
      weak var releasedDatabase: Database?
      var kept: Statement?
      do {
        let db = try Database(path: path)
        releasedDatabase = db
        try db.batch(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('a'), ('b')")
        let lookup = try db.prepare(sql: "SELECT count(*) FROM t")
        releasedStatement = lookup
        kept = try db.prepare(sql: "SELECT x FROM t ORDER BY x")
        let token = Token()
        releasedToken = token
        try db.addFunction("f", arity: 0) { _ in withExtendedLifetime((token, lookup)) { .integer(1) } }
        try db.addAggregateFunction("longest", arity: 1) { LongestText(keep: (token, lookup)) }
        try db.addCollation("backwards") { a, b in withExtendedLifetime((token, lookup)) { b.compare(a) } }
        try db.setUpdateHook { _ in withExtendedLifetime((token, lookup)) {} }
        try db.setCommitHook { withExtendedLifetime((token, lookup)) { .commit } }
        try db.setRollbackHook { withExtendedLifetime((token, lookup)) {} }
        try db.setTraceHandler { _ in withExtendedLifetime((token, lookup)) {} }
        try db.setWALHook { _, _ in withExtendedLifetime((token, lookup)) {} }
        #if !OMIT_PROGRESS_CALLBACK
          try db.setProgressHandler(every: 100) { withExtendedLifetime((token, lookup)) { .continue } }
        #endif
        try db.setAuthorizer { _ in withExtendedLifetime((token, lookup)) { .allow } }
        try db.execute(sql: "INSERT INTO t VALUES ('c')")
        #expect(
          try db.prepare(
            sql: "SELECT f(), longest(x), group_concat(x, '') FROM (SELECT x FROM t ORDER BY x COLLATE backwards)"
          )
          .firstRow() == [.integer(1), .text("c"), .text("cba")])
        try db.close()
      }
      // A statement kept after close() throws, and does not crash.
      #expect(throws: DatabaseError.databaseClosed) { try kept?.front(String.self) }
      #expect(releasedToken == nil, "the closures still hold what they captured")
      #expect(releasedStatement == nil, "the captured statement is still alive")
      // SQLite closes the connection when the last statement goes: the last connection of a WAL database
      // removes its -wal file then. The kept statement keeps its database until it goes.
      #expect(FileManager.default.fileExists(atPath: path + "-wal"))
      #expect(releasedDatabase != nil)
      kept = nil
      #expect(releasedDatabase == nil)
      #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "SQLite still holds the connection open")
      let reopened = try Database(path: path)
      #expect(try reopened.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 3)
      try reopened.close()
    }
  }

  /// A statement of a closed database whose last step returned a row (still running) keeps SQLite from
  /// deleting the functions it uses; those closures go when the statement does, and are never called.
  @Test func aStatementRunningAtCloseReleasesItsClosuresWhenItGoes() throws {
    final class Token {}
    weak var releasedToken: Token?
    var running: Statement?
    var calls = 0
    do {
      let db = try Database()
      let token = Token()
      releasedToken = token
      try db.addFunction("g", arity: 1) { arguments in
        withExtendedLifetime(token) { calls += 1 }
        return arguments[0]
      }
      let statement = try db.prepare(sql: "SELECT g(column1) FROM (VALUES (1), (2), (3))")
      // Step once: the statement is running when the database closes.
      _ = try statement.step()
      try db.close()
      running = statement
    }
    #expect(calls == 1)
    #expect(throws: DatabaseError.databaseClosed) { try running?.front(Int.self) }
    #expect(calls == 1)
    running = nil
    #expect(releasedToken == nil)
  }

  @Test func aClosureCapturingAWeakDatabaseDoesNotKeepItAlive() throws {
    weak var released: Database?
    do {
      let db = try Database()
      released = db
      try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
      try db.addFunction("count_t", arity: 0) { [weak db] _ in
        .integer(Int64(try db?.prepare(sql: "SELECT count(*) FROM t").front(Int.self) ?? -1))
      }
      #expect(try db.prepare(sql: "SELECT count_t()").front(Int.self) == 1)
    }
    #expect(released == nil)
  }
}

/// The length of the longest text of a group, keeping `keep` alive as long as the aggregate is registered.
private struct LongestText: SQLAggregateFunction {
  var keep: Any?
  var longest = ""
  init() {}
  init(keep: Any) { self.keep = keep }
  mutating func step(_ arguments: FunctionArguments) throws {
    if let text = arguments.text(at: 0), text.count > longest.count || longest.isEmpty { longest = text }
  }
  func final() throws -> DatabaseValue { .text(longest) }
}
