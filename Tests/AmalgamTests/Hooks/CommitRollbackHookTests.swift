import Amalgam
import Testing

@Suite struct CommitRollbackHookTests {
  @Test func commitHookIsCalledOnceForEachCommittedWriteTransaction() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var commits = 0
    try db.setCommitHook {
      commits += 1
      return .commit
    }
    try db.execute(sql: "INSERT INTO t VALUES (1)")  // autocommit
    #expect(commits == 1)
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO t VALUES (2)")
      try db.execute(sql: "INSERT INTO t VALUES (3)")
    }
    #expect(commits == 2)
    _ = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t")  // a read commits nothing
    #expect(commits == 2)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 3)
  }

  @Test func vetoedCommitFailsWithCommitHookConstraintAndRollsBack() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    try db.setCommitHook { .rollback }
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    let error = expectSQLiteError { try db.execute(sql: "COMMIT") }
    #expect(error?.extendedCode == .constraintCommitHook)
    #expect(error?.code == .constraint)
    #expect(error?.message == "constraint failed: the commit hook turned the commit into a rollback")
    #expect(db.isInAutocommitMode)
    try db.removeCommitHook()
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
  }

  @Test func vetoedAutocommitStatementFailsAndChangesNothing() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var allow = false
    try db.setCommitHook { allow ? .commit : .rollback }
    let error = expectSQLiteError { try db.execute(sql: "INSERT INTO t VALUES (1)") }
    #expect(error?.extendedCode == .constraintCommitHook)
    allow = true
    try db.execute(sql: "INSERT INTO t VALUES (2)")
    #expect(try db.prepare(sql: "SELECT x FROM t").column(0, as: Int.self) == [2])
  }

  @Test func registeringAgainReplacesTheCommitHook() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var calls: [String] = []
    try db.setCommitHook {
      calls.append("first")
      return .commit
    }
    try db.setCommitHook {
      calls.append("second")
      return .commit
    }
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(calls == ["second"])
  }

  @Test func removedCommitHookIsNotCalled() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var commits = 0
    try db.setCommitHook {
      commits += 1
      return .rollback
    }
    try db.removeCommitHook()
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(commits == 0)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
  }

  @Test func rollbackHookSeesExplicitRollbacksAndVetoedCommitsButNotCommits() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var rollbacks = 0
    try db.setRollbackHook { rollbacks += 1 }

    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(rollbacks == 0)

    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO t VALUES (2)")
    try db.execute(sql: "ROLLBACK")
    #expect(rollbacks == 1)

    try db.setCommitHook { .rollback }
    _ = expectSQLiteError { try db.execute(sql: "INSERT INTO t VALUES (3)") }
    #expect(rollbacks == 2)
    try db.removeCommitHook()

    try db.removeRollbackHook()
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "ROLLBACK")
    #expect(rollbacks == 2)
  }

  @Test func rollbackToSavepointDoesNotCallTheRollbackHook() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var rollbacks = 0
    try db.setRollbackHook { rollbacks += 1 }
    try db.batch(sql: "BEGIN; SAVEPOINT s; INSERT INTO t VALUES (1); ROLLBACK TO s; RELEASE s; COMMIT")
    #expect(rollbacks == 0)
  }

  @Test func rollbackHookIsCalledWhenClosingRollsBackAnOpenTransaction() throws {
    // SQLite's documentation says otherwise, but SQLite 3.53.4 does call it.
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var rollbacks = 0
    try db.setRollbackHook { rollbacks += 1 }
    try db.batch(sql: "BEGIN; INSERT INTO t VALUES (1)")
    try db.close()
    #expect(rollbacks == 1)
  }

  @Test func commitAndRollbackHookClosuresAreReleased() throws {
    try expectHookClosureReleased(
      install: { db, token in
        try db.setCommitHook { withExtendedLifetime(token) { .commit } }
      },
      remove: { try $0.removeCommitHook() })
    try expectHookClosureReleased(
      install: { db, token in try db.setRollbackHook { _ = token } },
      remove: { try $0.removeRollbackHook() })
  }

  @Test func registeringOnAClosedDatabaseThrows() throws {
    let db = try Database()
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.setCommitHook { .commit } }
    #expect(throws: DatabaseError.databaseClosed) { try db.setRollbackHook {} }
    #expect(throws: DatabaseError.databaseClosed) { try db.setUpdateHook { _ in } }
    #expect(throws: DatabaseError.databaseClosed) { try db.removeCommitHook() }
  }
}

@Suite struct UpdateHookTests {
  @Test func updateHookReportsInsertsUpdatesAndDeletesWithTableAndRowid() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
    let events = HookRecorder<DatabaseEvent>()
    try db.setUpdateHook { events.append($0) }
    try db.execute(sql: "INSERT INTO person(id, name) VALUES (7, 'Ada'), (8, 'Grace')")
    try db.execute(sql: "UPDATE person SET name = 'Ada L.' WHERE id = 7")
    try db.execute(sql: "UPDATE person SET id = 9 WHERE id = 8")
    try db.execute(sql: "DELETE FROM person WHERE id = 7")
    #expect(
      events.values == [
        DatabaseEvent(operation: .insert, databaseName: "main", tableName: "person", rowid: 7),
        DatabaseEvent(operation: .insert, databaseName: "main", tableName: "person", rowid: 8),
        DatabaseEvent(operation: .update, databaseName: "main", tableName: "person", rowid: 7),
        // An update reports the rowid after the change.
        DatabaseEvent(operation: .update, databaseName: "main", tableName: "person", rowid: 9),
        DatabaseEvent(operation: .delete, databaseName: "main", tableName: "person", rowid: 7),
      ])
  }

  @Test func updateHookNamesTemporaryAndAttachedSchemas() throws {
    let db = try Database()
    try db.batch(sql: "ATTACH ':memory:' AS other; CREATE TABLE other.t(x); CREATE TEMP TABLE scratch(x)")
    let events = HookRecorder<DatabaseEvent>()
    try db.setUpdateHook { events.append($0) }
    try db.execute(sql: "INSERT INTO other.t VALUES (1)")
    try db.execute(sql: "INSERT INTO scratch VALUES (1)")
    #expect(events.values.map(\.databaseName) == ["other", "temp"])
    #expect(events.values.map(\.tableName) == ["t", "scratch"])
  }

  @Test func updateHookIsNotCalledForWithoutRowidTables() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID")
    var calls = 0
    try db.setUpdateHook { _ in calls += 1 }
    try db.execute(sql: "INSERT INTO kv VALUES ('a', 1)")
    #expect(calls == 0)
  }

  @Test func updateHookReportsChangesThatLaterRollBack() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    let events = HookRecorder<DatabaseEvent>()
    try db.setUpdateHook { events.append($0) }
    try db.batch(sql: "BEGIN; INSERT INTO t VALUES (1); ROLLBACK")
    #expect(events.values.map(\.operation) == [.insert])
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
  }

  @Test func removedUpdateHookIsNotCalledAndItsClosureIsReleased() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    var calls = 0
    try db.setUpdateHook { _ in calls += 1 }
    try db.removeUpdateHook()
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(calls == 0)
    try expectHookClosureReleased(
      install: { db, token in try db.setUpdateHook { _ in _ = token } },
      remove: { try $0.removeUpdateHook() })
  }
}
