import Amalgam
import Foundation
import Testing

/// The CustomFunctionsAndHooks article's hooks example, verbatim between the markers
/// (with `#if` guards for the trait-dependent parts), followed by checks of what it did. If the article changes,
/// change this copy too. The error-log example lives in `SQLiteLogTests`, which owns the process-wide log.
@Suite struct HooksReadmeExampleTests {
  @Test func readmeExampleCompilesAndRuns() throws {
    // hooks article example: begin
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, email TEXT)")

    // Observe writes, and veto commits.
    var changes: [DatabaseEvent] = []
    try db.setUpdateHook { event in changes.append(event) }  // operation, databaseName, tableName, rowid
    var frozen = false
    try db.setCommitHook { frozen ? .rollback : .commit }  // .rollback fails the COMMIT with constraintCommitHook
    try db.setRollbackHook { print("rolled back") }

    #if ENABLE_PREUPDATE_HOOK
      // Values before and after each change (ENABLE_PREUPDATE_HOOK trait, on by default).
      db.setPreUpdateHook { event in
        if event.operation == .update, let old = try? event.oldValues(), let new = try? event.newValues() {
          print(event.tableName, old, "→", new)
        }
      }
    #endif

    // SQL from an untrusted source: an authorizer and lower limits.
    try db.setAuthorizer { request in
      switch request.action {
      case .delete, .dropTable, .attach: .deny  // preparing fails with SQLITE_AUTH, "not authorized"
      case .read(table: "person", column: "email"): .ignore  // the column reads as NULL
      default: .allow
      }
    }
    try db.setLimit(.sqlLength, to: 10_000)
    try db.setLimit(.attachedDatabases, to: 0)

    #if !OMIT_PROGRESS_CALLBACK
      // Stop a runaway query (unless the OMIT_PROGRESS_CALLBACK trait is on): it fails with SQLITE_INTERRUPT.
      var budget = 10_000
      try db.setProgressHandler(every: 1_000) {
        budget -= 1
        return budget > 0 ? .continue : .interrupt
      }
    #endif

    // Statements with their bound values, and how long they ran.
    try db.setTraceHandler(for: [.statement, .profile]) { event in
      if case .profile(let sql, let nanoseconds) = event { print(sql, nanoseconds / 1_000, "µs") }
    }

    // Another connection holds a lock: retry (or return false to fail with SQLITE_BUSY).
    try db.setBusyHandler { retryCount in retryCount < 100 }

    // Commits to a WAL database. A WAL hook turns off automatic checkpointing: checkpoint yourself.
    try db.setWALHook { databaseName, pageCount in
      if pageCount > 1_000 { print("checkpoint \(databaseName) soon") }
    }

    // Settings, counters.
    try db.setEnabled(.foreignKeys, to: true)
    try db.setEnabled(.defensive, to: true)
    try db.setEnabled(.trustedSchema, to: false)
    try db.execute(sql: "INSERT INTO person(name, email) VALUES ('Ada', 'ada@example.com')")
    let statement = try db.prepare(sql: "SELECT name, email FROM person WHERE name = 'Ada'")
    let row = try statement.firstRow()  // ["Ada", NULL]: the authorizer hides email
    let scanned = statement.status(.fullscanStep)  // rows stepped through without an index
    let cacheBytes = try db.status(.cacheUsed).current

    // Every hook can be removed; registering again replaces it. Closures are released when removed,
    // replaced, or when the database closes.
    try db.removeAuthorizer()
    // hooks article example: end

    #expect(changes == [DatabaseEvent(operation: .insert, databaseName: "main", tableName: "person", rowid: 1)])
    #expect(row == ["Ada", nil])
    #expect(scanned == 0)  // a single row: the scan never steps forward
    #expect(cacheBytes > 0)
    #expect(try db.limit(.sqlLength) == 10_000)
    #expect(try db.isEnabled(.defensive))
    #expect(try db.prepare(sql: "SELECT email FROM person").front(String.self) == "ada@example.com")
    frozen = true
    let error = expectSQLiteError { try db.execute(sql: "DELETE FROM person") }
    #expect(error?.extendedCode == .constraintCommitHook)
  }

  @Test func articleExamplesMatchTheirTests() throws {
    // Keeps the copies honest: every code line of the article's examples appears in the test that runs it.
    try ArticleCodeBlocks.expectBlock(
      of: "CustomFunctionsAndHooks.md", containing: "var frozen = false", isIn: #filePath)
    let logTests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Configuration/SQLiteLogTests.swift")
    try ArticleCodeBlocks.expectBlock(
      of: "CustomFunctionsAndHooks.md", containing: "SQLiteLog.removeHandler()", isIn: logTests.path)
  }
}
