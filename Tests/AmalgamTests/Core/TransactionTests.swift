import Amalgam
import Foundation
import Testing

@Suite("Transactions")
struct TransactionTests {
  private func database() throws -> Database {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE log(message TEXT UNIQUE)")
    return db
  }

  private func messages(_ db: Database) throws -> [String] {
    try db.prepare(sql: "SELECT message FROM log ORDER BY rowid").column(0, as: String.self)
  }

  @Test func commitPersistsAcrossConnections() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("commit.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE log(message TEXT)")
      try db.begin()
      try db.execute(sql: "INSERT INTO log VALUES ('one'), ('two')")
      // Another connection does not see uncommitted work.
      let other = try Database(path: path)
      #expect(try other.fetchOne(Int.self, sql: "SELECT count(*) FROM log") == 0)
      try db.commit()
      #expect(db.isInAutocommitMode)
      #expect(try other.fetchOne(Int.self, sql: "SELECT count(*) FROM log") == 2)
    }
  }

  @Test func rollbackDiscardsTheTransactionsWork() throws {
    let db = try database()
    try db.execute(sql: "INSERT INTO log VALUES ('before')")
    try db.begin()
    try db.execute(sql: "INSERT INTO log VALUES ('during')")
    try db.execute(sql: "DELETE FROM log WHERE message = 'before'")
    #expect(try messages(db) == ["during"])
    try db.rollback()
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["before"])
  }

  @Test func transactionCommitsWhenTheBodyReturnsAndReturnsItsValue() throws {
    let db = try database()
    let result = try db.transaction { db -> Int in
      #expect(!db.isInAutocommitMode)
      try db.execute(sql: "INSERT INTO log VALUES ('a'), ('b')")
      return db.changes
    }
    #expect(result == 2)
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["a", "b"])
  }

  @Test func transactionRollsBackAndRethrowsTheSameErrorWhenTheBodyThrows() throws {
    let db = try database()
    try db.execute(sql: "INSERT INTO log VALUES ('kept')")
    #expect(throws: TestError(id: 42)) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO log VALUES ('undone')")
        try db.execute(sql: "DELETE FROM log WHERE message = 'kept'")
        throw TestError(id: 42)
      }
    }
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["kept"])
  }

  @Test func constraintViolationInsideTransactionRollsBackEverything() throws {
    let db = try database()
    let error = #expect(throws: SQLiteError.self) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO log VALUES ('first')")
        try db.execute(sql: "INSERT INTO log VALUES ('second')")
        try db.execute(sql: "INSERT INTO log VALUES ('first')")
      }
    }
    #expect(error?.extendedCode == .constraintUnique)
    #expect(error?.message == "UNIQUE constraint failed: log.message")
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == [])
  }

  @Test func transactionWhoseCommitFailsIsRolledBackAndThrowsTheCommitError() throws {
    let db = try Database()
    try db.batch(
      sql: """
        PRAGMA foreign_keys = ON;
        CREATE TABLE parent(id INTEGER PRIMARY KEY);
        CREATE TABLE child(parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
        INSERT INTO parent VALUES (1);
        """)
    // The deferred foreign key is only checked at COMMIT, after the body returned.
    let error = #expect(throws: SQLiteError.self) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO child VALUES (1)")
        try db.execute(sql: "INSERT INTO child VALUES (99)")
      }
    }
    #expect(error?.code == .constraint)
    #expect(error?.extendedCode == .constraintForeignKey)
    #expect(error?.message == "FOREIGN KEY constraint failed")
    #expect(db.isInAutocommitMode)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM child") == 0)
  }

  @Test func transactionInsideATransactionThrowsTransactionState() throws {
    let db = try database()
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO log VALUES ('outer')")
      let error = #expect(throws: DatabaseError.self) {
        try db.transaction { db in try db.execute(sql: "INSERT INTO log VALUES ('inner')") }
      }
      guard case .transactionState(let message) = error else {
        Issue.record("expected transactionState, got \(String(describing: error))")
        return
      }
      #expect(message.contains("savepoint"))
      // The outer transaction is still open and unaffected.
      #expect(!db.isInAutocommitMode)
    }
    #expect(try messages(db) == ["outer"])
  }

  @Test func transactionAfterAManualBeginThrowsTransactionStateAndLeavesItOpen() throws {
    let db = try database()
    try db.begin()
    try db.execute(sql: "INSERT INTO log VALUES ('manual')")
    let error = #expect(throws: DatabaseError.self) { try db.transaction { _ in } }
    guard case .transactionState = error else {
      Issue.record("expected transactionState, got \(String(describing: error))")
      return
    }
    #expect(!db.isInAutocommitMode)
    try db.commit()
    #expect(try messages(db) == ["manual"])
  }

  @Test func beginInsideATransactionAndCommitWithoutOneThrowSQLiteErrors() throws {
    let db = try database()
    let commit = #expect(throws: SQLiteError.self) { try db.commit() }
    #expect(commit?.code == .error)
    #expect(commit?.message == "cannot commit - no transaction is active")
    let rollback = #expect(throws: SQLiteError.self) { try db.rollback() }
    #expect(rollback?.message == "cannot rollback - no transaction is active")
    try db.begin()
    let nested = #expect(throws: SQLiteError.self) { try db.begin() }
    #expect(nested?.code == .error)
    #expect(nested?.message == "cannot start a transaction within a transaction")
    try db.rollback()
  }

  @Test func innerSavepointThatThrowsIsUndoneWhileOuterWorkIsKept() throws {
    let db = try database()
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO log VALUES ('outer')")
      try db.savepoint { db in
        try db.execute(sql: "INSERT INTO log VALUES ('middle')")
        #expect(throws: TestError(id: 1)) {
          try db.savepoint { db in
            try db.execute(sql: "INSERT INTO log VALUES ('inner')")
            try db.execute(sql: "DELETE FROM log WHERE message = 'outer'")
            throw TestError(id: 1)
          }
        }
        #expect(try messages(db) == ["outer", "middle"])
      }
      #expect(!db.isInAutocommitMode)
    }
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["outer", "middle"])
  }

  @Test func savepointWithoutATransactionCommitsOnReturnAndRollsBackOnThrow() throws {
    let db = try database()
    let value = try db.savepoint { db -> String in
      try db.execute(sql: "INSERT INTO log VALUES ('saved')")
      return "done"
    }
    #expect(value == "done")
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["saved"])

    #expect(throws: TestError(id: 2)) {
      try db.savepoint { db in
        try db.execute(sql: "INSERT INTO log VALUES ('discarded')")
        throw TestError(id: 2)
      }
    }
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["saved"])
  }

  @Test func namedSavepointWithQuotesInItsNameWorks() throws {
    let db = try database()
    try db.savepoint("my \"special\" savepoint") { db in
      try db.execute(sql: "INSERT INTO log VALUES ('named')")
    }
    #expect(throws: TestError(id: 3)) {
      try db.savepoint("same") { db in
        try db.savepoint("same") { db in
          try db.execute(sql: "INSERT INTO log VALUES ('nested same name')")
        }
        throw TestError(id: 3)
      }
    }
    #expect(db.isInAutocommitMode)
    #expect(try messages(db) == ["named"])
  }

  @Test func savepointRollsBackAConstraintViolationButTheTransactionContinues() throws {
    let db = try database()
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO log VALUES ('a')")
      let error = #expect(throws: SQLiteError.self) {
        try db.savepoint { db in
          try db.execute(sql: "INSERT INTO log VALUES ('b')")
          try db.execute(sql: "INSERT INTO log VALUES ('a')")
        }
      }
      #expect(error?.extendedCode == .constraintUnique)
      try db.execute(sql: "INSERT INTO log VALUES ('c')")
    }
    #expect(try messages(db) == ["a", "c"])
  }

  @Test func immediateTransactionTakesTheWriteLockAtOnce() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("immediate.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      let other = try Database(path: path)

      try db.begin(.immediate)
      #expect(!db.isInAutocommitMode)
      // Before writing anything, other writers are already locked out; readers are not.
      let error = #expect(throws: SQLiteError.self) { try other.execute(sql: "INSERT INTO t VALUES (2)") }
      #expect(error?.code == .busy)
      #expect(try other.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
      try db.commit()
      try other.execute(sql: "INSERT INTO t VALUES (2)")
      #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }
  }

  @Test func exclusiveTransactionLocksOutReadersInRollbackJournalMode() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("exclusive.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      #expect(try db.fetchOne(String.self, sql: "PRAGMA journal_mode") == "delete")
      let other = try Database(path: path)

      try db.transaction(.exclusive) { db in
        #expect(!db.isInAutocommitMode)
        let error = #expect(throws: SQLiteError.self) {
          _ = try other.fetchOne(Int.self, sql: "SELECT count(*) FROM t")
        }
        #expect(error?.code == .busy)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
      }
      #expect(try other.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
  }

  @Test func deferredTransactionTakesNoLockUntilItWrites() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("deferred.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      let other = try Database(path: path)
      try db.begin(.deferred)
      // Nothing is locked yet: another connection can write.
      try other.execute(sql: "INSERT INTO t VALUES ('other')")
      try db.execute(sql: "INSERT INTO t VALUES ('mine')")
      let error = #expect(throws: SQLiteError.self) { try other.execute(sql: "INSERT INTO t VALUES ('late')") }
      #expect(error?.code == .busy)
      try db.commit()
      #expect(try other.prepare(sql: "SELECT x FROM t ORDER BY rowid").column(0, as: String.self) == ["other", "mine"])
    }
  }

  @Test func transactionTypeRawValuesAreTheSQLKeywords() {
    #expect(TransactionType.deferred.rawValue == "DEFERRED")
    #expect(TransactionType.immediate.rawValue == "IMMEDIATE")
    #expect(TransactionType.exclusive.rawValue == "EXCLUSIVE")
  }
}
