import Amalgam
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
