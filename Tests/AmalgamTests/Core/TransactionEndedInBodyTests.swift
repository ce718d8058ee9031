import Amalgam
import Foundation
import Testing

/// A `transaction {}` or `savepoint {}` body that ends its own scope (issue 10, item 6). Before, the call
/// threw SQLite's "cannot commit - no transaction is active" while the body's work stayed committed.
@Suite struct TransactionEndedInBodyTests {
  static func database() throws -> Database {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    return db
  }

  static func count(_ db: Database) throws -> Int? {
    try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
  }

  @Test func aBodyThatCommitsIsReportedAsCommitted() throws {
    let db = try Self.database()
    #expect(throws: DatabaseError.transactionEndedInBody(.init(scope: "transaction", outcome: .committed))) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.execute(sql: "COMMIT")
      }
    }
    #expect(try Self.count(db) == 1)
    #expect(db.isInAutocommitMode)
  }

  @Test func aBodyThatRollsBackIsReportedAsRolledBack() throws {
    let db = try Self.database()
    let error = #expect(throws: DatabaseError.self) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.execute(sql: "ROLLBACK")
      }
    }
    #expect(error == .transactionEndedInBody(.init(scope: "transaction", outcome: .rolledBack)))
    #expect(error?.description.contains("its work was rolled back") == true)
    #expect(try Self.count(db) == 0)
  }

  @Test func aTransactionTheBodyBeganAfterEndingItsOwnIsRolledBack() throws {
    let db = try Self.database()
    #expect(throws: DatabaseError.transactionEndedInBody(.init(scope: "transaction", outcome: .committed))) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.execute(sql: "COMMIT")
        try db.execute(sql: "BEGIN")
        try db.execute(sql: "INSERT INTO t VALUES (2)")
      }
    }
    #expect(try Self.count(db) == 1)
    #expect(db.isInAutocommitMode)
  }

  @Test func aReadOnlyBodyThatEndsTheTransactionLosesNothing() throws {
    let db = try Self.database()
    #expect(throws: DatabaseError.transactionEndedInBody(.init(scope: "transaction", outcome: .endedWithoutWrites))) {
      try db.transaction { db in
        _ = try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
        try db.execute(sql: "END")
      }
    }
  }

  @Test func aCommitVetoedByTheCommitHookCountsAsRolledBack() throws {
    let db = try Self.database()
    try db.setCommitHook { .rollback }
    #expect(throws: DatabaseError.transactionEndedInBody(.init(scope: "transaction", outcome: .rolledBack))) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try? db.execute(sql: "COMMIT")
      }
    }
    try db.removeCommitHook()
    #expect(try Self.count(db) == 0)
  }

  @Test func anOutermostSavepointReleasedByItsBodyIsCommitted() throws {
    let db = try Self.database()
    #expect(throws: DatabaseError.transactionEndedInBody(.init(scope: "savepoint \"s\"", outcome: .committed))) {
      try db.savepoint("s") { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.execute(sql: "RELEASE s")
      }
    }
    #expect(try Self.count(db) == 1)
  }

  @Test func aNestedSavepointReleasedByItsBodyKeepsTheWorkInTheTransaction() throws {
    let db = try Self.database()
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      #expect(
        throws: DatabaseError.transactionEndedInBody(
          .init(scope: "savepoint \"inner\"", outcome: .releasedIntoEnclosingTransaction))
      ) {
        try db.savepoint("inner") { db in
          try db.execute(sql: "INSERT INTO t VALUES (2)")
          try db.execute(sql: "RELEASE inner")
        }
      }
      #expect(!db.isInAutocommitMode)
    }
    #expect(try Self.count(db) == 2)
  }

  @Test func aSavepointBodyThatRollsBackTheWholeTransactionIsReported() throws {
    let db = try Self.database()
    let error = #expect(throws: DatabaseError.self) {
      try db.transaction { db in
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.savepoint("inner") { db in
          try db.execute(sql: "ROLLBACK")
        }
      }
    }
    #expect(error == .transactionEndedInBody(.init(scope: "savepoint \"inner\"", outcome: .rolledBack)))
    #expect(try Self.count(db) == 0)
    #expect(db.isInAutocommitMode)
  }

  @Test func anInnerSavepointsErrorDoesNotEndTheOuterSavepoint() throws {
    let db = try Self.database()
    try db.savepoint("outer") { db in
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      do {
        try db.savepoint("middle") { db in
          try db.execute(sql: "INSERT INTO t VALUES (2)")
          try db.savepoint("inner") { db in try db.execute(sql: "RELEASE inner") }
        }
      } catch DatabaseError.transactionEndedInBody(let ended) {
        #expect(ended.scope == "savepoint \"inner\"")
      }
    }
    // "middle" was rolled back by its own error; "outer" committed normally.
    #expect(try Self.count(db) == 1)
  }

  @Test func normalTransactionsAndSavepointsAreUnaffected() throws {
    let db = try Self.database()
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      try db.savepoint { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
    }
    try? db.transaction { db in
      try db.execute(sql: "INSERT INTO t VALUES (3)")
      throw CancellationError()
    }
    #expect(try Self.count(db) == 2)
  }
}
