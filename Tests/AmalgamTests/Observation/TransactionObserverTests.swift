import AmalgamSQLite
import Foundation
import Testing

@testable import Amalgam

/// Records what a ``TransactionObserver`` is told.
private final class Recorder: TransactionObserver {
  let observedRegion: DatabaseRegion
  var events: [DatabaseEvent] = []
  var commits: [DatabaseRegion] = []
  var rollbacks = 0
  var refusal: (any Error)?

  init(_ region: DatabaseRegion = .fullDatabase) {
    observedRegion = region
  }

  func databaseDidChange(_ event: DatabaseEvent) { events.append(event) }
  func databaseWillCommit() throws { if let refusal { throw refusal } }
  func databaseDidCommit(changes: DatabaseRegion) { commits.append(changes) }
  func databaseDidRollback() { rollbacks += 1 }

  /// The tables of the commits so far, then forgets them.
  func takeCommits() -> [[String]] {
    defer { commits = [] }
    return commits.map { $0.isFullDatabase ? ["*"] : $0.tableNames }
  }
}

private struct Refusal: Error, CustomStringConvertible {
  var description: String { "not today" }
}

@Suite struct TransactionObserverTests {
  private func makeDatabase() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
        CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
        """)
    return db
  }

  @Test func reportsEachKindOfStatementWithItsTables() throws {
    let db = try makeDatabase()
    let recorder = Recorder()
    try db.add(transactionObserver: recorder)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('a'), ('b')")
    #expect(recorder.takeCommits() == [["note"]])
    #expect(recorder.events.map(\.rowid) == [1, 2])
    #expect(recorder.events.allSatisfy { $0.tableName == "note" && $0.operation == .insert })
    try db.execute(sql: "UPDATE tag SET name = 'x'")  // no row: nothing changed
    #expect(recorder.takeCommits() == [])
    try db.execute(sql: "INSERT INTO tag(name) VALUES ('t')")
    try db.execute(sql: "UPDATE tag SET name = 'u'")
    #expect(recorder.takeCommits() == [["tag"], ["tag"]])
    // DELETE without WHERE would use the truncate optimisation, which reports no row.
    recorder.events = []
    try db.execute(sql: "DELETE FROM note")
    #expect(recorder.takeCommits() == [["note"]])
    #expect(recorder.events.map(\.operation) == [.delete, .delete])
    // A WITHOUT ROWID table has no row events, but its commit is reported.
    try db.execute(sql: "INSERT INTO kv VALUES ('a', 1)")
    #expect(recorder.takeCommits().map { $0.contains("kv") } == [true])
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO note(text) VALUES ('c')")
      try db.execute(sql: "INSERT INTO tag(name) VALUES ('d')")
    }
    #expect(recorder.takeCommits().map { Set($0).isSuperset(of: ["note", "tag"]) } == [true])
  }

  @Test func aCachedStatementRunAgainIsReportedEachTime() throws {
    let db = try makeDatabase()
    let recorder = Recorder()
    try db.execute(sql: "INSERT INTO kv VALUES ('warm', 0)")
    let insert = try db.cachedStatement(sql: "INSERT INTO note(text) VALUES (?)")
    let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO kv VALUES (?, ?)")
    try db.add(transactionObserver: recorder)
    for index in 0..<3 {
      try insert.bind(value: "n\(index)", toParameter: 1).execute()
      try upsert.bind(value: "k", toParameter: 1).bind(value: index, toParameter: 2).execute()
    }
    let commits = recorder.takeCommits()
    #expect(commits.count == 6)
    #expect(commits.enumerated().allSatisfy { index, tables in tables.contains(index % 2 == 0 ? "note" : "kv") })
  }

  @Test func triggersForeignKeysAndViewsReportTheTablesTheyChange() throws {
    let db = try makeDatabase()
    try db.batch(
      sql: """
        PRAGMA foreign_keys = ON;
        CREATE TABLE parent(id INTEGER PRIMARY KEY);
        CREATE TABLE child(id INTEGER PRIMARY KEY, parent REFERENCES parent(id) ON DELETE CASCADE);
        CREATE TABLE log(message TEXT);
        CREATE TRIGGER note_log AFTER INSERT ON note BEGIN INSERT INTO log VALUES (new.text); END;
        INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1, 1);
        """)
    let recorder = Recorder(DatabaseRegion(tables: ["log", "child"]))
    try db.add(transactionObserver: recorder)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('logged')")
    #expect(recorder.takeCommits() == [["log", "note"]])
    try db.execute(sql: "DELETE FROM parent WHERE id = 1")
    #expect(recorder.takeCommits() == [["child", "parent"]])
    #expect(recorder.events.map(\.tableName) == ["log", "child"])
    // A commit that changes no observed table is not reported to this observer.
    try db.execute(sql: "INSERT INTO tag(name) VALUES ('t')")
    #expect(recorder.takeCommits() == [])
  }

  @Test func schemaChangesAreReportedAsTheWholeDatabase() throws {
    let db = try makeDatabase()
    let recorder = Recorder(DatabaseRegion(tables: ["note"]))
    try db.add(transactionObserver: recorder)
    try db.execute(sql: "ALTER TABLE note ADD COLUMN extra")
    #expect(recorder.takeCommits() == [["*"]])
    try db.batch(
      sql: """
        CREATE VIEW tag_names AS SELECT name FROM tag;
        DROP VIEW tag_names; DROP TABLE tag;
        """)
    #expect(recorder.takeCommits() == [["*"], ["*"], ["*"]])
    // Every DROP happened: the DELETE that SQLite authorizes with each is not ignored.
    #expect(try db.prepare(sql: "SELECT name FROM sqlite_schema WHERE name LIKE 'tag%'").allRows().isEmpty)
  }

  @Test func attachedSchemasAreReportedByTheirName() throws {
    try withTemporaryDirectory { directory in
      let db = try makeDatabase()
      try db.execute(sql: "ATTACH ? AS other", parameterValues: [directory.appendingPathComponent("o.db").path])
      try db.execute(sql: "CREATE TABLE other.note(id INTEGER PRIMARY KEY)")
      let recorder = Recorder(DatabaseRegion(tables: ["note"], schema: "other"))
      try db.add(transactionObserver: recorder)
      try db.execute(sql: "INSERT INTO main.note(text) VALUES ('main')")
      #expect(recorder.takeCommits() == [])
      try db.execute(sql: "INSERT INTO other.note DEFAULT VALUES")
      #expect(recorder.takeCommits() == [["other.note"]])
    }
  }

  @Test func writesThroughTheCHandleAreReported() throws {
    let db = try makeDatabase()
    let recorder = Recorder()
    try db.add(transactionObserver: recorder)
    #expect(sqlite3_exec(try db.sqliteHandle, "INSERT INTO note(text) VALUES ('raw')", nil, nil, nil) == SQLITE_OK)
    // The commit completes inside SQLite; the next statement of the connection reports it.
    _ = try db.prepare(sql: "SELECT 1")
    #expect(recorder.takeCommits() == [["note"]])
  }

  #if ENABLE_SESSION && ENABLE_PREUPDATE_HOOK
    @Test func aChangesetAppliedIsReported() throws {
      let source = try makeDatabase()
      let session = try Session(database: source)
      try session.attach()
      try source.execute(sql: "INSERT INTO note(text) VALUES ('synced')")
      try source.execute(sql: "INSERT INTO kv VALUES ('s', 1)")
      let changeset = try session.changeset()

      let db = try makeDatabase()
      let recorder = Recorder()
      try db.add(transactionObserver: recorder)
      try db.apply(changeset)
      let commits = recorder.takeCommits()
      #expect(commits.count == 1)
      #expect(Set(commits.first ?? []).isSuperset(of: ["kv", "note"]))
    }
  #endif

  @Test func rolledBackTransactionsAndSavepointsAreForgotten() throws {
    let db = try makeDatabase()
    let recorder = Recorder()
    try db.add(transactionObserver: recorder)
    try db.begin()
    try db.execute(sql: "INSERT INTO note(text) VALUES ('gone')")
    try db.rollback()
    #expect(recorder.takeCommits() == [])
    #expect(recorder.rollbacks == 1)

    recorder.events = []
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO tag(name) VALUES ('kept')")
      try? db.savepoint { db in
        try db.execute(sql: "INSERT INTO note(text) VALUES ('undone')")
        throw Refusal()
      }
    }
    #expect(recorder.takeCommits() == [["tag"]])
    #expect(recorder.events.map(\.tableName) == ["tag"])
    #expect(try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) == 0)

    // A read-only transaction reports nothing.
    try db.transaction { db in _ = try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
    #expect(recorder.takeCommits() == [])
  }

  @Test func anObserverCanRefuseACommit() throws {
    let db = try makeDatabase()
    let recorder = Recorder(DatabaseRegion(tables: ["note"]))
    recorder.refusal = Refusal()
    try db.add(transactionObserver: recorder)
    let error = expectSQLiteError { try db.execute(sql: "INSERT INTO note(text) VALUES ('refused')") }
    #expect(error?.extendedCode == .constraintCommitHook)
    #expect(error?.message.contains("not today") == true)
    #expect(try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) == 0)
    #expect(recorder.rollbacks == 1)
    // Other tables are not its business.
    try db.execute(sql: "INSERT INTO tag(name) VALUES ('fine')")
    #expect(try db.prepare(sql: "SELECT count(*) FROM tag").front(Int.self) == 1)
  }

  @Test func anObserverMustNotUseTheConnectionBeforeTheCommitIsDone() throws {
    final class Meddler: TransactionObserver {
      let observedRegion = DatabaseRegion.fullDatabase
      let db: Database
      var error: (any Error)?
      init(_ db: Database) { self.db = db }
      func databaseWillCommit() throws {
        do { try db.execute(sql: "SELECT 1") } catch { self.error = error }
      }
      func databaseDidCommit(changes: DatabaseRegion) {}
    }
    let db = try makeDatabase()
    let meddler = Meddler(db)
    try db.add(transactionObserver: meddler)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('x')")
    #expect("\(meddler.error.map { "\($0)" } ?? "")".contains("transaction observer"))
  }

  @Test func observersAreHeldWeaklyAndCanBeRemoved() throws {
    let db = try makeDatabase()
    var recorder: Recorder? = Recorder()
    weak let weakRecorder = recorder
    try db.add(transactionObserver: recorder!)
    recorder = nil
    #expect(weakRecorder == nil)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('x')")

    let kept = Recorder()
    try db.add(transactionObserver: kept)
    try db.remove(transactionObserver: kept)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('y')")
    #expect(kept.takeCommits() == [])
    // With no observer left, the connection's callbacks are released.
    #expect(UpdateHookDispatcher.existing(on: db.connection) == nil)
    #expect(AuthorizerDispatcher.existing(on: db.connection) == nil)
  }

  @Test func theUsersHooksKeepWorkingBesideObservers() throws {
    let db = try makeDatabase()
    var updates: [String] = []
    try db.setUpdateHook { updates.append($0.tableName) }
    try db.setAuthorizer { request in
      if case .read(table: "note", column: "text") = request.action { return .ignore }
      return .allow
    }
    let recorder = Recorder()
    try db.add(transactionObserver: recorder)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('hidden')")
    #expect(updates == ["note"])
    #expect(recorder.takeCommits() == [["note"]])
    #expect(try db.prepare(sql: "SELECT text FROM note").front(String.self) == nil)
    try db.remove(transactionObserver: recorder)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('again')")
    #expect(updates == ["note", "note"])
    #expect(try db.prepare(sql: "SELECT count(*) FROM note WHERE text IS NOT NULL").front(Int.self) == 0)
    try db.removeAuthorizer()
    #expect(try db.prepare(sql: "SELECT count(*) FROM note WHERE text IS NOT NULL").front(Int.self) == 2)
  }

  /// An observer that removes itself when told about a commit leaves the connection's other transaction
  /// listeners (the user's commit hook) in place, each told once per commit, and can be added again.
  @Test func anObserverThatRemovesItselfOnCommitLeavesTheCommitHookInPlace() throws {
    final class OneShot: TransactionObserver {
      let observedRegion = DatabaseRegion.fullDatabase
      unowned let db: Database
      var commits = 0
      var error: (any Error)?
      init(_ db: Database) { self.db = db }
      func databaseDidCommit(changes: DatabaseRegion) {
        commits += 1
        do { try db.remove(transactionObserver: self) } catch { self.error = error }
      }
    }
    let db = try makeDatabase()
    let observer = OneShot(db)
    // The observer's listener first, the commit hook's after it.
    try db.add(transactionObserver: observer)
    var hookCalls = 0
    try db.setCommitHook {
      hookCalls += 1
      return .commit
    }
    try db.execute(sql: "INSERT INTO note(text) VALUES ('a')")
    #expect(observer.error == nil)
    #expect((observer.commits, hookCalls) == (1, 1))
    try db.execute(sql: "INSERT INTO note(text) VALUES ('b')")
    #expect((observer.commits, hookCalls) == (1, 2))
    try db.add(transactionObserver: observer)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('c')")
    #expect((observer.commits, hookCalls) == (2, 3))
    try db.execute(sql: "INSERT INTO note(text) VALUES ('d')")
    #expect((observer.commits, hookCalls) == (2, 4))
    #expect(try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) == 4)
  }

  @Test func anObserverCanWriteInDatabaseDidCommitAndEachCommitIsReportedOnce() throws {
    /// Writes an audit log of the commits that change `note`, as the observer's documentation allows.
    final class AuditLog: TransactionObserver {
      let observedRegion = DatabaseRegion(tables: ["note"])
      unowned let db: Database
      var error: (any Error)?
      init(_ db: Database) { self.db = db }
      func databaseDidCommit(changes: DatabaseRegion) {
        do {
          try db.execute(sql: "INSERT INTO tag(name) VALUES (?)", parameterValues: [changes.tableNames.joined()])
        } catch {
          self.error = error
        }
      }
    }
    let db = try makeDatabase()
    let audit = AuditLog(db)
    let everything = Recorder()
    try db.add(transactionObserver: audit)
    try db.add(transactionObserver: everything)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('a')")
    #expect(audit.error == nil)
    #expect(try db.prepare(sql: "SELECT name FROM tag").column(0, as: String.self) == ["note"])
    // The observer after the writer is told about the two commits in their order, each once.
    #expect(everything.takeCommits() == [["note"], ["tag"]])
    #expect(everything.events.map(\.tableName) == ["note", "tag"])
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO note(text) VALUES ('b')")
      try db.execute(sql: "INSERT INTO note(text) VALUES ('c')")
    }
    #expect(try db.prepare(sql: "SELECT count(*) FROM tag").front(Int.self) == 2)
    #expect(everything.takeCommits() == [["note"], ["tag"]])
  }

  @Test func rowEventsMustNotUseTheConnection() throws {
    final class Meddler: TransactionObserver {
      let observedRegion = DatabaseRegion(tables: ["note"])
      let db: Database
      var errors: [String] = []
      init(_ db: Database) { self.db = db }
      func databaseDidChange(_ event: DatabaseEvent) {
        do { try db.execute(sql: "INSERT INTO tag(name) VALUES ('inside')") } catch { errors.append("\(error)") }
        do { _ = try db.prepare(sql: "SELECT 1").front(Int.self) } catch { errors.append("\(error)") }
        do { try db.close() } catch { errors.append("\(error)") }
      }
      func databaseDidCommit(changes: DatabaseRegion) {}
    }
    let db = try makeDatabase()
    let meddler = Meddler(db)
    try db.add(transactionObserver: meddler)
    try db.execute(sql: "INSERT INTO note(text) VALUES ('x')")
    #expect(meddler.errors.count == 3)
    #expect(meddler.errors.allSatisfy { $0.contains("transaction observer") })
    #expect(db.isOpen)
    #expect(try db.prepare(sql: "SELECT count(*) FROM tag").front(Int.self) == 0)
    // Row events held by a savepoint are restricted too when they are told.
    meddler.errors = []
    try db.transaction { db in
      try db.savepoint { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('y')") }
    }
    #expect(meddler.errors.count == 3)
    #expect(try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) == 2)
  }
}
