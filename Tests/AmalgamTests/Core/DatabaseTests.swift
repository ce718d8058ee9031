import Amalgam
import Foundation
import Testing

@Suite("Database: opening and closing")
struct DatabaseOpeningTests {
  @Test func inMemoryDatabaseIsEmptyWritableAndHasNoFilename() throws {
    let db = try Database()
    #expect(db.path == ":memory:")
    #expect(db.isOpen)
    #expect(db.filename() == nil)
    #expect(!db.isReadOnly)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 0)
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.execute(sql: "INSERT INTO t VALUES (41), (1)")
    #expect(try db.fetchOne(Int.self, sql: "SELECT sum(x) FROM t") == 42)
  }

  @Test func twoInMemoryDatabasesDoNotShareTables() throws {
    let first = try Database()
    let second = try Database()
    try first.execute(sql: "CREATE TABLE only_in_first(x)")
    #expect(try first.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 1)
    #expect(try second.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 0)
  }

  @Test func temporaryDatabaseHasEmptyPathNoFilenameAndHoldsData() throws {
    let db = try Database.temporary()
    #expect(db.path == "")
    #expect(db.filename() == nil)
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.execute(
      sql:
        "INSERT INTO t SELECT value FROM (WITH RECURSIVE c(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM c WHERE value < 1000) SELECT value FROM c)"
    )
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1000)
    #expect(try db.fetchOne(Int.self, sql: "SELECT sum(x) FROM t") == 500_500)
  }

  @Test func openingByPathCreatesTheFileAndReportsItsFilename() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("created.sqlite").path
      #expect(!FileManager.default.fileExists(atPath: path))
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      #expect(FileManager.default.fileExists(atPath: path))
      #expect(db.path == path)
      let filename = try #require(db.filename())
      #expect(
        URL(fileURLWithPath: filename).resolvingSymlinksInPath().path
          == URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
      #expect(db.filename(schema: "temp") == nil)
      try db.close()
    }
  }

  @Test func openingByFileURLUsesItsPath() throws {
    try withTemporaryDirectory { directory in
      let url = directory.appendingPathComponent("by-url.sqlite")
      let db = try Database(url: url)
      #expect(db.path == url.path)
      try db.execute(sql: "CREATE TABLE t(x)")
      try db.execute(sql: "INSERT INTO t VALUES ('via url')")
      try db.close()
      let reopened = try Database(path: url.path)
      #expect(try reopened.fetchOne(String.self, sql: "SELECT x FROM t") == "via url")
    }
  }

  @Test func openingANonFileURLThrowsCannotOpen() throws {
    let url = try #require(URL(string: "https://example.com/db.sqlite"))
    let error = #expect(throws: SQLiteError.self) { _ = try Database(url: url) }
    #expect(error?.code == .cannotOpen)
    #expect(error?.message.contains("Not a file URL") == true)
  }

  @Test func committedDataIsReadableByANewConnectionAfterClose() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("durable.sqlite").path
      do {
        let writer = try Database(path: path)
        try writer.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try writer.execute(sql: "INSERT INTO person(name) VALUES (?)", parameterValues: ["Ada"])
        try writer.transaction { db in
          try db.execute(sql: "INSERT INTO person(name) VALUES (?)", parameterValues: ["Grace"])
        }
        try writer.close()
      }
      let reader = try Database(path: path)
      let names = try reader.prepare(sql: "SELECT name FROM person ORDER BY id").column(0, as: String.self)
      #expect(names == ["Ada", "Grace"])
    }
  }

  @Test func dataIsKeptWhenTheDatabaseIsReleasedWithoutClose() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("released.sqlite").path
      do {
        let writer = try Database(path: path)
        try writer.execute(sql: "CREATE TABLE t(x)")
        try writer.execute(sql: "INSERT INTO t VALUES (7)")
      }
      let reader = try Database(path: path)
      #expect(try reader.fetchOne(Int.self, sql: "SELECT x FROM t") == 7)
    }
  }

  @Test func readOnlyConnectionReadsButWritingThrowsReadOnly() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("ro.sqlite").path
      let writer = try Database(path: path)
      try writer.execute(sql: "CREATE TABLE t(x)")
      try writer.execute(sql: "INSERT INTO t VALUES (1)")
      #expect(!writer.isReadOnly)
      try writer.close()

      let reader = try Database(path: path, options: .readOnly)
      #expect(reader.isReadOnly)
      #expect(reader.isReadOnly(schema: "main"))
      #expect(try reader.fetchOne(Int.self, sql: "SELECT x FROM t") == 1)
      let error = #expect(throws: SQLiteError.self) {
        try reader.execute(sql: "INSERT INTO t VALUES (2)")
      }
      #expect(error?.code == .readOnly)
      #expect(error?.message == "attempt to write a readonly database")
      #expect(error?.sql == "INSERT INTO t VALUES (2)")
      #expect(try reader.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
  }

  @Test func readOnlyOptionOnAMissingFileThrowsCannotOpenAndCreatesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("missing.sqlite").path
      let error = #expect(throws: SQLiteError.self) {
        _ = try Database(path: path, options: Database.OpenOptions(readOnly: true))
      }
      #expect(error?.code == .cannotOpen)
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test func createFalseOnAMissingFileThrowsCannotOpenAndCreatesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("missing.sqlite").path
      let error = #expect(throws: SQLiteError.self) {
        _ = try Database(path: path, options: Database.OpenOptions(create: false))
      }
      #expect(error?.code == .cannotOpen)
      #expect(error?.extendedCode.primary == .cannotOpen)
      #expect(error?.message == "unable to open database file")
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test func openingAFileInAMissingDirectoryThrowsCannotOpen() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("no/such/dir/db.sqlite").path
      let error = #expect(throws: SQLiteError.self) { _ = try Database(path: path) }
      #expect(error?.code == .cannotOpen)
      #expect(error?.message == "unable to open database file")
    }
  }

  @Test func defaultOpenOptionsAreReadWriteCreateWithExtendedCodes() {
    let options = Database.OpenOptions.default
    #expect(!options.readOnly)
    #expect(options.create)
    #expect(!options.uri)
    #expect(!options.noFollow)
    #expect(options.extendedResultCodes)
    #expect(options.vfs == nil)
    #expect(Database.OpenOptions.readOnly == Database.OpenOptions(readOnly: true, create: false))
  }

  @Test func createFalseOpensAnExistingFileReadWrite() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("existing.sqlite").path
      try Database(path: path).execute(sql: "CREATE TABLE t(x)")
      let db = try Database(path: path, options: Database.OpenOptions(create: false))
      #expect(!db.isReadOnly)
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
  }

  @Test func noFollowRefusesASymbolicLinkWithCantOpenSymlink() throws {
    try withTemporaryDirectory { directory in
      let target = directory.appendingPathComponent("target.sqlite").path
      let link = directory.appendingPathComponent("link.sqlite").path
      try Database(path: target).execute(sql: "CREATE TABLE t(x)")
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)

      // Without noFollow the link is followed.
      let followed = try Database(path: link)
      #expect(try followed.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 1)
      try followed.close()

      let error = #expect(throws: SQLiteError.self) {
        _ = try Database(path: link, options: Database.OpenOptions(noFollow: true))
      }
      #expect(error?.code == .cannotOpen)
      // SQLite reports SQLITE_CANTOPEN_SYMLINK (14 | 6 << 8 = 1550) for this.
      #expect(error?.extendedCode.rawValue == 1550)
      #expect(error?.extendedCode == .cannotOpenSymlink)
    }
  }

  @Test func uriOptionOpensAFileURIWithItsQueryParameters() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("uri.sqlite").path
      try Database(path: path).execute(sql: "CREATE TABLE t(x)")
      let db = try Database(path: "file:\(path)?mode=ro", options: Database.OpenOptions(uri: true))
      #expect(db.isReadOnly)
      let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(error?.code == .readOnly)
    }
  }

  @Test func openingAFileThatIsNotADatabaseFailsWithNotADatabaseOnFirstUse() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("garbage.sqlite").path
      try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
      let db = try Database(path: path)
      let error = #expect(throws: SQLiteError.self) {
        _ = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema")
      }
      #expect(error?.code == .notADatabase)
      // SQLite's message; with the ENCRYPTION trait it goes on to say the file looks encrypted.
      #expect(error?.message.hasPrefix("file is not a database") == true)
    }
  }

  @Test func closingTwiceIsSafe() throws {
    let db = try Database()
    #expect(db.isOpen)
    try db.close()
    #expect(!db.isOpen)
    try db.close()
    #expect(!db.isOpen)
  }

  @Test func everyOperationAfterCloseThrowsDatabaseClosed() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.close()

    #expect(throws: DatabaseError.databaseClosed) { try db.execute(sql: "SELECT 1") }
    #expect(throws: DatabaseError.databaseClosed) { try db.execute(sql: "SELECT ?", parameterValues: [1]) }
    #expect(throws: DatabaseError.databaseClosed) { try db.execute(sql: "SELECT :a", parameters: ["a": 1]) }
    #expect(throws: DatabaseError.databaseClosed) { try db.batch(sql: "SELECT 1; SELECT 2") }
    #expect(throws: DatabaseError.databaseClosed) { _ = try db.prepare(sql: "SELECT 1") }
    #expect(throws: DatabaseError.databaseClosed) { _ = try db.cachedStatement(sql: "SELECT 1") }
    #expect(throws: DatabaseError.databaseClosed) { try db.begin() }
    #expect(throws: DatabaseError.databaseClosed) { try db.commit() }
    #expect(throws: DatabaseError.databaseClosed) { try db.rollback() }
    #expect(throws: DatabaseError.databaseClosed) { try db.transaction { _ in } }
    #expect(throws: DatabaseError.databaseClosed) { try db.savepoint { _ in } }
    #expect(throws: DatabaseError.databaseClosed) { try db.setBusyTimeout(1) }
    #expect(throws: DatabaseError.databaseClosed) { _ = try db.sqliteHandle }
    #expect(throws: DatabaseError.databaseClosed) { _ = try Statement(database: db, sql: "SELECT 1") }
    #expect(db.lastInsertRowid == 0)
    #expect(db.changes == 0)
    #expect(db.totalChanges == 0)
    #expect(db.isInAutocommitMode)
    #expect(db.filename() == nil)
    db.interrupt()  // does nothing, and must not crash
  }

  @Test func statementPreparedBeforeCloseThrowsDatabaseClosedAfterClose() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
    let select = try db.prepare(sql: "SELECT x FROM t WHERE x > ?")
    try select.bind(parameterValues: [0])
    let cached = try db.cachedStatement(sql: "SELECT count(*) FROM t")
    try db.close()

    #expect(throws: DatabaseError.databaseClosed) { _ = try select.step() }
    #expect(throws: DatabaseError.databaseClosed) { try select.execute() }
    #expect(throws: DatabaseError.databaseClosed) { try select.results { _ in } }
    #expect(throws: DatabaseError.databaseClosed) { _ = try select.front(Int.self) }
    #expect(throws: DatabaseError.databaseClosed) { _ = try select.firstRow() }
    #expect(throws: DatabaseError.databaseClosed) { try select.bind(value: 1, toParameter: 1) }
    #expect(throws: DatabaseError.databaseClosed) { try select.bind(parameterValues: [1]) }
    #expect(throws: DatabaseError.databaseClosed) { try select.clearBindings() }
    #expect(throws: DatabaseError.databaseClosed) { try select.reset() }
    #expect(throws: DatabaseError.databaseClosed) { _ = try cached.step() }
    // The SQL text stays available for diagnostics.
    #expect(select.sql == "SELECT x FROM t WHERE x > ?")
  }

  @Test func closeRollsBackAnOpenTransaction() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("rollback-on-close.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      try db.execute(sql: "INSERT INTO t VALUES ('committed')")
      try db.begin()
      try db.execute(sql: "INSERT INTO t VALUES ('uncommitted')")
      try db.close()

      let reopened = try Database(path: path)
      let values = try reopened.prepare(sql: "SELECT x FROM t").column(0, as: String.self)
      #expect(values == ["committed"])
    }
  }
}

@Suite("Database: running SQL")
struct DatabaseExecutionTests {
  @Test func invalidSQLThrowsSyntaxErrorWithMessageAndOffset() throws {
    let db = try Database()
    let sql = "SELECT 1 +* 2"
    let error = #expect(throws: SQLiteError.self) { _ = try db.prepare(sql: sql) }
    #expect(error?.code == .error)
    #expect(error?.extendedCode == .error)
    #expect(error?.message.contains("syntax error") == true)
    #expect(error?.message == "near \"*\": syntax error")
    #expect(error?.sql == sql)
    #expect(error?.offset == 10)  // the byte offset of "*"
  }

  @Test func misspelledKeywordIsReportedAtItsOffsetByExecute() throws {
    let db = try Database()
    let sql = "SELEC 1"
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: sql) }
    #expect(error?.code == .error)
    #expect(error?.message == "near \"SELEC\": syntax error")
    #expect(error?.offset == 0)
    #expect(error?.sql == sql)
  }

  @Test func unknownTableThrowsNoSuchTable() throws {
    let db = try Database()
    let error = #expect(throws: SQLiteError.self) { _ = try db.prepare(sql: "SELECT * FROM missing") }
    #expect(error?.code == .error)
    #expect(error?.message == "no such table: missing")
    #expect(error?.sql == "SELECT * FROM missing")
  }

  @Test func emptySQLThrowsEmptyStatement() throws {
    let db = try Database()
    for sql in ["", "   \n\t", "-- just a comment", "/* block */", ";"] {
      #expect(throws: DatabaseError.emptyStatement(sql: sql)) { _ = try db.prepare(sql: sql) }
      #expect(throws: DatabaseError.emptyStatement(sql: sql)) { try db.execute(sql: sql) }
    }
  }

  @Test func twoStatementsThrowMultipleStatementsFromPrepareAndExecute() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let sql = "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"
    #expect(throws: DatabaseError.multipleStatements(sql: sql)) { _ = try db.prepare(sql: sql) }
    #expect(throws: DatabaseError.multipleStatements(sql: sql)) { try db.execute(sql: sql) }
    #expect(throws: DatabaseError.multipleStatements(sql: sql)) { try db.execute(sql: sql, parameterValues: []) }
    #expect(throws: DatabaseError.multipleStatements(sql: sql)) { try db.execute(sql: sql, parameters: [:]) }
    #expect(throws: DatabaseError.multipleStatements(sql: sql)) { _ = try db.cachedStatement(sql: sql) }
    // Nothing ran.
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
  }

  @Test func trailingSemicolonsWhitespaceAndCommentsAfterOneStatementAreAccepted() throws {
    let db = try Database()
    #expect(try db.fetchOne(Int.self, sql: "SELECT 1;") == 1)
    #expect(try db.fetchOne(Int.self, sql: "SELECT 2;  -- trailing comment\n") == 2)
    #expect(try db.fetchOne(Int.self, sql: "SELECT 3 /* c */ ; /* another */ ") == 3)
    #expect(try db.fetchOne(Int.self, sql: "SELECT 4;;") == 4)
  }

  @Test func aSecondStatementThatDoesNotCompileIsStillReportedAsASecondStatement() throws {
    let db = try Database()
    // A syntax error in the second statement, and a second statement that needs the first one's table:
    // both are two statements where one is expected (not "no such table: t").
    for sql in ["SELECT 1; SELEC 2", "CREATE TABLE t(x); INSERT INTO t VALUES (1)"] {
      #expect(throws: DatabaseError.multipleStatements(sql: sql)) { _ = try db.prepare(sql: sql) }
      #expect(throws: DatabaseError.multipleStatements(sql: sql)) { try db.execute(sql: sql) }
    }
    // Nothing ran.
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 0)
  }

  @Test func executeWithPositionalAndNamedParametersInsertsTheValues() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a, b)")
    try db.execute(sql: "INSERT INTO t VALUES (?, ?)", parameterValues: [1, "one"])
    try db.execute(sql: "INSERT INTO t VALUES (:a, :b)", parameters: ["a": 2, "b": "two"])
    try db.execute(sql: "INSERT INTO t VALUES (?, ?)", parameterValues: [3, nil])
    let rows = try db.prepare(sql: "SELECT a, b FROM t ORDER BY a").allRows()
    #expect(rows == [[.integer(1), .text("one")], [.integer(2), .text("two")], [.integer(3), .null]])
  }

  @Test func batchRunsSeveralStatementsAndDiscardsRows() throws {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE t(x);
        INSERT INTO t VALUES (1);
        SELECT * FROM t;
        INSERT INTO t VALUES (2);
        -- a comment
        INSERT INTO t VALUES (3);
        """)
    #expect(try db.prepare(sql: "SELECT x FROM t ORDER BY x").column(0, as: Int.self) == [1, 2, 3])
  }

  @Test func emptyBatchDoesNothing() throws {
    let db = try Database()
    try db.batch(sql: "")
    try db.batch(sql: "  -- nothing here\n")
    #expect(db.totalChanges == 0)
  }

  @Test func batchStopsAtTheFirstErrorAndReportsItsMessage() throws {
    let db = try Database()
    let sql = """
      CREATE TABLE t(x);
      INSERT INTO t VALUES (1);
      INSERT INTO missing VALUES (2);
      INSERT INTO t VALUES (3);
      """
    let error = #expect(throws: SQLiteError.self) { try db.batch(sql: sql) }
    #expect(error?.code == .error)
    #expect(error?.message == "no such table: missing")
    #expect(error?.sql == sql)
    #expect(try db.prepare(sql: "SELECT x FROM t").column(0, as: Int.self) == [1])
  }

  @Test func batchReportsSyntaxErrorMessage() throws {
    let db = try Database()
    let error = #expect(throws: SQLiteError.self) { try db.batch(sql: "CREATE TABLE t(x); SELEC 1;") }
    #expect(error?.code == .error)
    #expect(error?.message == "near \"SELEC\": syntax error")
  }

  @Test func batchReportsConstraintViolationWithExtendedCode() throws {
    let db = try Database()
    let error = #expect(throws: SQLiteError.self) {
      try db.batch(sql: "CREATE TABLE t(x UNIQUE); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1);")
    }
    #expect(error?.code == .constraint)
    #expect(error?.extendedCode == .constraintUnique)
    #expect(error?.message == "UNIQUE constraint failed: t.x")
  }
}

@Suite("Database: connection state")
struct DatabaseStateTests {
  @Test func lastInsertRowidChangesAndTotalChangesTrackWrites() throws {
    let db = try Database()
    #expect(db.lastInsertRowid == 0)
    #expect(db.totalChanges == 0)
    try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
    try db.execute(sql: "INSERT INTO t(x) VALUES ('a')")
    #expect(db.lastInsertRowid == 1)
    #expect(db.changes == 1)
    try db.execute(sql: "INSERT INTO t(id, x) VALUES (100, 'b')")
    #expect(db.lastInsertRowid == 100)
    try db.execute(sql: "INSERT INTO t(x) VALUES ('c'), ('d'), ('e')")
    #expect(db.lastInsertRowid == 103)
    #expect(db.changes == 3)
    #expect(db.totalChanges == 5)
    try db.execute(sql: "UPDATE t SET x = 'z' WHERE id >= 101")
    #expect(db.changes == 3)
    #expect(db.totalChanges == 8)
    // A SELECT leaves changes as they were.
    _ = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t")
    #expect(db.changes == 3)
    try db.execute(sql: "DELETE FROM t")
    #expect(db.changes == 5)
    #expect(db.totalChanges == 13)
    #expect(db.lastInsertRowid == 103)
  }

  @Test func isInAutocommitModeIsFalseOnlyInsideATransaction() throws {
    let db = try Database()
    #expect(db.isInAutocommitMode)
    try db.begin()
    #expect(!db.isInAutocommitMode)
    try db.rollback()
    #expect(db.isInAutocommitMode)
  }

  @Test func interruptFromAnotherThreadStopsALongQueryWithInterrupt() throws {
    let db = try Database()
    let box = CoreInterruptBox(db)
    // Counting to a billion takes far longer than the 0.2 s before the interrupt.
    let statement = try db.prepare(
      sql: """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000)
        SELECT count(*) FROM c
        """)
    // Taken before the interrupt is scheduled, so that the 0.2 s before it all count.
    let start = ContinuousClock.now
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { box.database.interrupt() }
    let error = #expect(throws: SQLiteError.self) { _ = try statement.step() }
    let elapsed = ContinuousClock.now - start
    #expect(error?.code == .interrupt)
    #expect(error?.message == "interrupted")
    #expect(elapsed >= .milliseconds(150))
    #expect(elapsed < .seconds(20))
    // The interrupt is over: the connection runs statements again.
    #expect(try db.fetchOne(Int.self, sql: "SELECT 42") == 42)
  }

  @Test func busyTimeoutWaitsThenThrowsBusyWhileAnotherConnectionHoldsTheWriteLock() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("busy.sqlite").path
      let holder = try Database(path: path)
      try holder.execute(sql: "CREATE TABLE t(x)")
      let waiter = try Database(path: path)
      try waiter.setBusyTimeout(0.1)

      try holder.begin(.immediate)
      let start = ContinuousClock.now
      let error = #expect(throws: SQLiteError.self) { try waiter.begin(.immediate) }
      let elapsed = ContinuousClock.now - start
      #expect(error?.code == .busy)
      #expect(error?.message == "database is locked")
      #expect(elapsed >= .milliseconds(90))
      #expect(elapsed < .seconds(3))
      #expect(waiter.isInAutocommitMode)

      try holder.execute(sql: "INSERT INTO t VALUES (1)")
      try holder.commit()
      // Once the lock is released the waiter gets it.
      try waiter.begin(.immediate)
      try waiter.execute(sql: "INSERT INTO t VALUES (2)")
      try waiter.commit()
      #expect(try holder.prepare(sql: "SELECT x FROM t ORDER BY x").column(0, as: Int.self) == [1, 2])
    }
  }

  @Test func aNegativeOrNaNBusyTimeoutThrowsAndLeavesTheTimeoutAsItWas() throws {
    let db = try Database()
    try db.setBusyTimeout(2.5)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA busy_timeout") == 2500)
    // SQLite would read them as zero: the connection would stop waiting for locks, silently.
    for seconds in [-1, -0.001, -Double.infinity, .nan] {
      let error = #expect(throws: SQLiteError.self, "\(seconds)") { try db.setBusyTimeout(seconds) }
      #expect(error?.code == .misuse)
      #expect(error?.message == "A busy timeout is zero or more seconds, not \(seconds)")
      #expect(try db.fetchOne(Int.self, sql: "PRAGMA busy_timeout") == 2500)
    }
    try db.setBusyTimeout(0)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA busy_timeout") == 0)
    try db.setBusyTimeout(0.0001)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA busy_timeout") == 1)
    try db.setBusyTimeout(.infinity)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA busy_timeout") == Int(Int32.max))
    // A queue's configuration feeds the same call: a bad timeout fails the opening of its connection.
    for seconds in [-1, Double.nan] {
      var configuration = Configuration()
      configuration.busyTimeout = seconds
      #expect(throws: SQLiteError.self, "\(seconds)") { _ = try DatabaseQueue(configuration: configuration) }
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("pool.sqlite").path
        #expect(throws: SQLiteError.self, "\(seconds)") {
          _ = try DatabasePool(path: path, configuration: configuration)
        }
      }
    }
  }

  @Test func withoutBusyTimeoutALockedDatabaseThrowsBusyAtOnce() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("busy0.sqlite").path
      let holder = try Database(path: path)
      try holder.execute(sql: "CREATE TABLE t(x)")
      let waiter = try Database(path: path)
      try holder.begin(.immediate)
      let start = ContinuousClock.now
      let error = #expect(throws: SQLiteError.self) { try waiter.execute(sql: "INSERT INTO t VALUES (1)") }
      #expect(error?.code == .busy)
      #expect(ContinuousClock.now - start < .seconds(1))
      try holder.rollback()
    }
  }

  @Test func busyTimeoutLetsAWriterWaitForALockReleasedInTime() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("busy-wait.sqlite").path
      let holder = try Database(path: path)
      try holder.execute(sql: "CREATE TABLE t(x)")
      let waiter = try Database(path: path)
      try waiter.setBusyTimeout(10)
      try holder.begin(.immediate)
      let box = CoreInterruptBox(holder)
      // Only the other thread touches `holder` until the waiter got the lock.
      let start = ContinuousClock.now
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { try? box.database.commit() }
      try waiter.execute(sql: "INSERT INTO t VALUES (1)")
      let elapsed = ContinuousClock.now - start
      #expect(elapsed >= .milliseconds(150))
      #expect(elapsed < .seconds(9))
      #expect(try waiter.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
  }
}

/// Carries a `Database` to another thread for a single call. `sqlite3_interrupt` is documented as safe
/// to call from another thread while the connection runs a statement, which is what the interrupt test
/// does; the busy test hands `holder` over entirely (the test thread does not use it meanwhile).
final class CoreInterruptBox: @unchecked Sendable {
  let database: Database
  init(_ database: Database) { self.database = database }
}
