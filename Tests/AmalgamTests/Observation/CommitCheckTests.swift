import Foundation
import Testing

@testable import Amalgam

private struct Overdrawn: Error {}

@Suite struct CommitCheckTests {
  /// A database with two accounts, and a check that refuses a negative balance, counting its runs.
  private func makeDatabase(runs: Shared<Int> = Shared(0)) throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
        CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO account VALUES (1, 100), (2, 0);
        """)
    try db.setCommitCheck("balances", on: DatabaseRegion(tables: ["account"])) { db in
      runs.withLock { $0 += 1 }
      if try db.prepare(sql: "SELECT count(*) FROM account WHERE balance < 0").front(Int.self) != 0 {
        throw Overdrawn()
      }
    }
    return db
  }

  private func balances(_ db: Database) throws -> [Int] {
    try db.prepare(sql: "SELECT balance FROM account ORDER BY id").column(0, as: Int.self)
  }

  private func transfer(_ amount: Int, in db: Database) throws {
    try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = 1", parameterValues: [amount])
    try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = 2", parameterValues: [amount])
  }

  @Test func aCheckRefusesATransactionWithTheCallersError() throws {
    let runs = Shared(0)
    let db = try makeDatabase(runs: runs)
    #expect(throws: Overdrawn.self) { try db.transaction { db in try transfer(150, in: db) } }
    #expect(try balances(db) == [100, 0])
    #expect(db.isInAutocommitMode)
    try db.transaction { db in try transfer(60, in: db) }
    #expect(try balances(db) == [40, 60])
    #expect(runs.current == 2)
    // A transaction that changes no checked table commits without running the check.
    try db.transaction { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    try db.transaction { db in _ = try balances(db) }
    #expect(runs.current == 2)
  }

  @Test func explicitCommitsAndOutermostSavepointsAreChecked() throws {
    let db = try makeDatabase()
    try db.begin()
    try transfer(500, in: db)
    #expect(throws: Overdrawn.self) { try db.commit() }
    #expect(db.isInAutocommitMode)
    #expect(throws: Overdrawn.self) { try db.savepoint { db in try transfer(500, in: db) } }
    #expect(try balances(db) == [100, 0])
    // Inside a transaction, a savepoint's release does not commit: the transaction's commit is checked.
    #expect(throws: Overdrawn.self) {
      try db.transaction { db in
        try db.savepoint { db in try transfer(500, in: db) }
      }
    }
    try db.savepoint { db in try transfer(10, in: db) }
    #expect(try balances(db) == [90, 10])
  }

  @Test func commitsThatSQLiteMakesOnItsOwnAreRefusedWhenTheyConcernACheck() throws {
    let db = try makeDatabase()
    let error = expectSQLiteError { try db.execute(sql: "UPDATE account SET balance = 1 WHERE id = 1") }
    #expect(error?.extendedCode == .constraintCommitHook)
    #expect(error?.message.contains("\"balances\"") == true)
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "UPDATE account SET balance = 1 WHERE id = 1")
    #expect(expectSQLiteError { try db.execute(sql: "COMMIT") }?.extendedCode == .constraintCommitHook)
    #expect(db.isInAutocommitMode)
    #expect(try balances(db) == [100, 0])
    // Other tables are not the check's business.
    try db.execute(sql: "INSERT INTO note(text) VALUES ('free')")
    // Once removed, the check neither runs nor refuses, and the connection's hooks are released.
    try db.removeCommitCheck("balances")
    try db.execute(sql: "UPDATE account SET balance = -5 WHERE id = 1")
    #expect(try balances(db) == [-5, 0])
    #expect(UpdateHookDispatcher.existing(on: db.connection) == nil)
  }

  @Test func aCheckIsSetOutsideATransactionAndReplacedByName() throws {
    let db = try makeDatabase()
    try db.begin()
    #expect(throws: DatabaseError.self) {
      try db.setCommitCheck("late", on: .fullDatabase) { _ in }
    }
    try db.rollback()
    try db.setCommitCheck("balances", on: DatabaseRegion(tables: ["account"])) { db in
      if try db.prepare(sql: "SELECT sum(balance) FROM account").front(Int.self) != 100 { throw Overdrawn() }
    }
    // The replacement allows a negative balance but not money from nowhere.
    try db.transaction { db in try transfer(150, in: db) }
    #expect(throws: Overdrawn.self) {
      try db.transaction { db in try db.execute(sql: "UPDATE account SET balance = 0") }
    }
    #expect(try balances(db) == [-50, 150])
  }

  @Test func aQueuesTransactionsAreChecked() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)")
      try db.execute(sql: "INSERT INTO account VALUES (1, 100), (2, 0)")
      try db.setCommitCheck("balances", on: DatabaseRegion(tables: ["account"])) { db in
        if try db.prepare(sql: "SELECT min(balance) FROM account").front(Int.self) ?? 0 < 0 {
          throw Overdrawn()
        }
      }
    }
    await #expect(throws: Overdrawn.self) {
      try await queue.transaction { db in try transfer(101, in: db) }
    }
    #expect(throws: Overdrawn.self) { try queue.transaction { db in try transfer(101, in: db) } }
    try await queue.transaction { db in try transfer(100, in: db) }
    #expect(try queue.sync { db in try balances(db) } == [0, 100])
  }

  @Test func anObserversCommitIsStillChecked() throws {
    /// Writes in `databaseDidCommit`, outside a transaction: a commit SQLite makes on its own.
    final class Meddler: TransactionObserver {
      let observedRegion = DatabaseRegion(tables: ["note"])
      unowned let db: Database
      var error: (any Error)?
      init(_ db: Database) { self.db = db }
      func databaseDidCommit(changes: DatabaseRegion) {
        do { try db.execute(sql: "UPDATE account SET balance = -1") } catch { self.error = error }
      }
    }
    let db = try makeDatabase()
    let meddler = Meddler(db)
    try db.add(transactionObserver: meddler)
    try db.transaction { db in try db.execute(sql: "INSERT INTO note(text) VALUES ('n')") }
    #expect((meddler.error as? SQLiteError)?.extendedCode == .constraintCommitHook)
    #expect(try balances(db) == [100, 0])
  }
}
