import Amalgam
import Foundation
import Testing

/// GRDB's spellings, reached through protocols so that this file calls the deprecated declarations
/// without deprecation warnings (the build allows none). Each requirement is GRDB's signature.
private protocol GRDBWriter {
  func write<T>(_ body: (Database) throws -> T) throws -> T
}
extension DatabaseQueue: GRDBWriter {}
extension DatabasePool: GRDBWriter {}

private protocol GRDBConfiguration {
  mutating func prepareDatabase(_ body: @escaping @Sendable (Database) throws -> Void)
}
extension Configuration: GRDBConfiguration {}

private func prepare<C: GRDBConfiguration>(
  _ configuration: inout C, _ body: @escaping @Sendable (Database) throws -> Void
) {
  configuration.prepareDatabase(body)
}

@Suite struct GRDBCompatibilityTests {
  @Test func grdbsBlockingWriteRunsInATransaction() throws {
    let queue = try DatabaseQueue()
    let writer: any GRDBWriter = queue
    let inTransaction = try writer.write { db in
      try db.execute(sql: "CREATE TABLE player(name TEXT NOT NULL)")
      try db.execute(sql: "INSERT INTO player VALUES ('Ada')")
      return !db.isInAutocommitMode
    }
    #expect(inTransaction)
    // An error rolls the whole closure back, as GRDB's write does.
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try writer.write { db in
        try db.execute(sql: "INSERT INTO player VALUES ('Grace')")
        throw Stop()
      }
    }
    #expect(try queue.sync { db in try db.fetchAll(String.self, sql: "SELECT name FROM player") } == ["Ada"])
  }

  @Test func grdbsBlockingWriteOnAPoolGoesToItsWriter() throws {
    try withTemporaryDirectory { directory in
      let pool = try DatabasePool(path: directory.appendingPathComponent("pool.sqlite").path)
      let writer: any GRDBWriter = pool
      try writer.write { db in try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
      #expect(try pool.read { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM t") } == 1)
    }
  }

  @Test func grdbsPrepareDatabaseAddsToWhatIsThere() throws {
    let calls = Shared<[String]>([])
    var configuration = Configuration()
    configuration.prepareDatabase = { _ in calls.withLock { $0.append("assigned") } }
    prepare(&configuration) { db in
      calls.withLock { $0.append("added") }
      try db.execute(sql: "PRAGMA user_version = 7")
    }
    let queue = try DatabaseQueue(configuration: configuration)
    #expect(calls.current == ["assigned", "added"])
    #expect(try queue.sync { db in try db.fetchValue(Int.self, sql: "PRAGMA user_version") } == 7)
  }
}
