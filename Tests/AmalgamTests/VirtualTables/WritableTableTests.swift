import Amalgam
import Foundation
import Testing

@Suite("Virtual tables: a writable key-value table")
struct WritableTableTests {
  private func makeTable(_ store: KeyValueStore = KeyValueStore()) throws -> (Database, KeyValueStore) {
    let db = try Database()
    try db.addModule("keyvalue", type: KeyValueTable.self)
    let id = TestObjects.shared.register(store)
    try db.execute(sql: "CREATE VIRTUAL TABLE kv USING keyvalue(id=\(id))")
    return (db, store)
  }

  @Test func insertUpdateAndDeleteReachTheSwiftStorage() throws {
    let (db, store) = try makeTable()
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('a', 1), ('b', 'two'), ('c', x'03')")
    #expect(store.contents == ["a": .integer(1), "b": .text("two"), "c": .blob(Data([3]))])
    #expect(db.lastInsertRowid == 3)
    try db.execute(sql: "UPDATE kv SET value = value + 10 WHERE key = 'a'")
    try db.execute(sql: "DELETE FROM kv WHERE key = 'c'")
    #expect(store.contents == ["a": .integer(11), "b": .text("two")])
    #expect(
      try db.prepare(sql: "SELECT key, value FROM kv ORDER BY key").allRows() == [
        [.text("a"), .integer(11)], [.text("b"), .text("two")],
      ])
  }

  @Test func insertWithAnExplicitRowidAndUpdateThatChangesTheRowid() throws {
    let (db, store) = try makeTable()
    try db.execute(sql: "INSERT INTO kv(rowid, key, value) VALUES (42, 'x', 1)")
    #expect(store.rowid(of: "x") == 42)
    try db.execute(sql: "UPDATE kv SET rowid = 7 WHERE key = 'x'")
    #expect(store.rowid(of: "x") == 7)
    #expect(try db.fetchOne(sql: "SELECT rowid FROM kv WHERE key = 'x'") == 7)
  }

  @Test func updateThatLeavesAColumnAloneDoesNotReadIt() throws {
    let (db, store) = try makeTable()
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('a', 'big value')")
    store.resetCounters()
    try db.execute(sql: "UPDATE kv SET key = 'renamed' WHERE key = 'a'")
    #expect(store.contents == ["renamed": .text("big value")])
    #expect(store.valueReads == 0)
  }

  @Test func aConstraintErrorFromInsertFailsTheStatementAndOrReplaceReplaces() throws {
    let (db, store) = try makeTable()
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('a', 1)")
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('a', 2)") }
    #expect(error?.code == .constraint)
    #expect(error?.message.contains("UNIQUE constraint failed: kv.key (a)") == true)
    try db.execute(sql: "INSERT OR REPLACE INTO kv(key, value) VALUES ('a', 3)")
    #expect(store.contents == ["a": .integer(3)])
  }

  @Test func aRolledBackTransactionRestoresThePreviousContents() throws {
    let (db, store) = try makeTable()
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('a', 1)")
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('b', 2)")
    try db.execute(sql: "UPDATE kv SET value = 100 WHERE key = 'a'")
    #expect(store.contents == ["a": .integer(100), "b": .integer(2)])
    try db.execute(sql: "ROLLBACK")
    #expect(store.contents == ["a": .integer(1)])
    #expect(store.events.contains("rollback"))
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('c', 3)")
    #expect(Array(store.events.suffix(3)) == ["begin", "sync", "commit"])
  }

  @Test func savepointsNest() throws {
    let (db, store) = try makeTable()
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('a', 1)")
    try db.execute(sql: "SAVEPOINT one")
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('b', 2)")
    try db.execute(sql: "SAVEPOINT two")
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('c', 3)")
    try db.execute(sql: "ROLLBACK TO two")
    #expect(store.contents == ["a": .integer(1), "b": .integer(2)])
    try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('d', 4)")
    try db.execute(sql: "RELEASE two")
    try db.execute(sql: "ROLLBACK TO one")
    #expect(store.contents == ["a": .integer(1)])
    try db.execute(sql: "COMMIT")
    #expect(store.contents == ["a": .integer(1)])
    #expect(store.events.contains { $0.hasPrefix("savepoint") })
    #expect(store.events.contains { $0.hasPrefix("rollbackTo") })
    #expect(store.events.last == "commit")
  }

  @Test func theDatabaseTransactionAPIDrivesTheTable() throws {
    let (db, store) = try makeTable()
    struct Abort: Error {}
    _ = try? db.transaction { db in
      try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('gone', 1)")
      throw Abort()
    }
    #expect(store.contents.isEmpty)
    try db.transaction { db in
      try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('kept', 1)")
      try? db.savepoint("inner") { db in
        try db.execute(sql: "INSERT INTO kv(key, value) VALUES ('inner', 1)")
        throw Abort()
      }
    }
    #expect(store.contents == ["kept": .integer(1)])
  }

  @Test func aReadOnlyModuleRefusesChanges() throws {
    let db = try Database()
    try db.addModule("counted", type: CountedTable.self)
    let log = LifetimeLog()
    try db.execute(sql: "CREATE VIRTUAL TABLE t USING counted(id=\(TestObjects.shared.register(log)))")
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
    #expect(error?.message.contains("may not be modified") == true)
  }
}
