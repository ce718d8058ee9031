import Amalgam
import Testing

/// Records the tables of each commit it is told about.
private final class CommitRecorder: TransactionObserver {
  var commits: [DatabaseRegion] = []
  var observedRegion: DatabaseRegion { DatabaseRegion(tables: ["item"]) }
  func databaseDidCommit(changes: DatabaseRegion) { commits.append(changes) }
}

/// The user's authorizer and the library's own use of SQLite's one authorizer callback (by transaction
/// observers) share it: removing one leaves the other working.
@Suite struct AuthorizerWithObserverTests {
  @Test func removingTheAuthorizerKeepsATransactionObserverWorking() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)")
    let observer = CommitRecorder()
    try db.add(transactionObserver: observer)
    try db.setAuthorizer { request in
      if case .delete = request.action { return .deny }
      return .allow
    }
    let denied = expectSQLiteError { try db.execute(sql: "DELETE FROM item") }
    #expect(denied?.code == .authorization)
    try db.execute(sql: "INSERT INTO item(name) VALUES ('a')")
    #expect(observer.commits.count == 1)

    try db.removeAuthorizer()
    // Deleting is allowed again, and the observer still hears of the commit.
    try db.execute(sql: "DELETE FROM item")
    #expect(observer.commits.count == 2)
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM item") == 0)
  }
}
