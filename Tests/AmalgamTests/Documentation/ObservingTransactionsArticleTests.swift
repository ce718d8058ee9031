import Foundation
import Testing

@testable import Amalgam

#if canImport(Observation)
  import Observation

  /// The example of ObservingTheDatabase.md (and of ObservedValue's documentation).
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @MainActor @Observable final class NoteList {
    let titles: ObservedValue<[String]>

    init(queue: DatabaseQueue) {
      titles = ObservedValue(
        initialValue: [],
        queue.observe { db in
          try db.prepare(sql: "SELECT title FROM note ORDER BY title").column(0, as: String.self)
        }.removingDuplicates())
    }
  }
// In a view: ForEach(list.titles.value, id: \.self) { Text($0) }
#endif

/// The audit log of ObservingTheDatabase.md.
final class AuditLog: TransactionObserver {
  let observedRegion = DatabaseRegion(tables: ["product"])
  let db: Database
  init(_ db: Database) { self.db = db }
  func databaseDidCommit(changes: DatabaseRegion) {
    try? db.execute(sql: "INSERT INTO audit(tables) VALUES (?)", parameterValues: [changes.tableNames.joined()])
  }
}

struct InsufficientFunds: Error {}

/// The examples of the sections of ObservingTheDatabase.md on transaction observers, commit checks and
/// ObservedValue, run.
@Suite struct ObservingTransactionsArticleTests {
  private let article = "ObservingTheDatabase.md"

  @Test func theExamplesAreTheOnesRunHere() throws {
    #if canImport(Observation)
      try ArticleCodeBlocks.expectBlock(
        of: article, containing: "let titles: ObservedValue<[String]>", isIn: #filePath)
    #endif
    try ArticleCodeBlocks.expectBlock(
      of: article, containing: "final class AuditLog: TransactionObserver {", isIn: #filePath)
    try ArticleCodeBlocks.expectBlock(of: article, containing: "struct InsufficientFunds: Error {}", isIn: #filePath)
  }

  @Test func theAuditLogRecordsEachCommitOfItsTable() throws {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE product(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE audit(tables TEXT);
        """)
    let audit = AuditLog(db)
    try db.add(transactionObserver: audit)  // held weakly: keep `audit` alive
    try db.execute(sql: "INSERT INTO product(name) VALUES ('p')")
    try db.transaction { db in try db.execute(sql: "UPDATE product SET name = 'q'") }
    #expect(try db.prepare(sql: "SELECT tables FROM audit").column(0, as: String.self) == ["product", "product"])
  }

  @Test func theCommitCheckRefusesANegativeBalance() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.batch(
        sql:
          "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER); INSERT INTO account VALUES (1, 100), (2, 0);")
    }
    try queue.sync { db in
      try db.setCommitCheck("balances", on: DatabaseRegion(tables: ["account"])) { db in
        if try db.prepare(sql: "SELECT count(*) FROM account WHERE balance < 0").front(Int.self) != 0 {
          throw InsufficientFunds()
        }
      }
    }
    var refused = false
    do {
      try await queue.transaction { db in
        try db.execute(sql: "UPDATE account SET balance = balance - 150 WHERE id = 1")
        try db.execute(sql: "UPDATE account SET balance = balance + 150 WHERE id = 2")
      }
    } catch is InsufficientFunds {
      // Rolled back: both balances are as they were.
      refused = true
    }
    #expect(refused)
    #expect(
      try queue.sync { db in try db.prepare(sql: "SELECT balance FROM account").column(0, as: Int.self) } == [100, 0])
  }

  #if canImport(Observation)
    /// A flag that `withObservationTracking` raises when the list's titles change.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor private func trackingChange(of list: NoteList) -> Shared<Bool> {
      let changed = Shared(false)
      withObservationTracking {
        _ = list.titles.value
      } onChange: {
        changed.withLock { $0 = true }
      }
      return changed
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor @Test func theModelShowsTheTitles() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)") }
      let list = NoteList(queue: queue)
      try await queue.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('b'), ('a')") }
      var titles: [String] = []
      for _ in 0..<10 where titles != ["a", "b"] {
        titles = list.titles.value
        let changed = trackingChange(of: list)
        if titles != ["a", "b"] { _ = await raised(changed) }
      }
      #expect(titles == ["a", "b"])
    }
  #endif
}
