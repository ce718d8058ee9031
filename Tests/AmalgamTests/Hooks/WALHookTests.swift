import Amalgam
import Foundation
import Testing

@Suite struct WALHookTests {
  func withWALDatabase(_ body: (Database, _ walPath: String) throws -> Void) throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("wal.sqlite").path
      let db = try Database(path: path)
      #expect(try db.fetchOne(String.self, sql: "PRAGMA journal_mode = WAL") == "wal")
      try db.execute(sql: "CREATE TABLE t(x)")
      try body(db, path + "-wal")
    }
  }

  @Test func walHookReportsEachCommitWithTheSchemaAndPageCount() throws {
    try withWALDatabase { db, _ in
      let commits = HookRecorder<(String, Int)>()
      try db.setWALHook { commits.append(($0, $1)) }
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      try db.execute(sql: "INSERT INTO t VALUES (randomblob(10000))")
      #expect(commits.values.map(\.0) == ["main", "main"])
      let pages = commits.values.map(\.1)
      #expect(pages.count == 2)
      #expect(pages[0] > 0)
      #expect(pages[1] > pages[0])  // the log grows: nothing checkpoints it
    }
  }

  @Test func walHookTurnsOffAutomaticCheckpointingAndRemovingRestoresIt() throws {
    try withWALDatabase { db, _ in
      #expect(try db.fetchOne(Int.self, sql: "PRAGMA wal_autocheckpoint") == 1000)
      try db.setWALHook { _, _ in }
      #expect(try db.fetchOne(Int.self, sql: "PRAGMA wal_autocheckpoint") == 0)
      try db.removeWALHook()
      #expect(try db.fetchOne(Int.self, sql: "PRAGMA wal_autocheckpoint") == 1000)
    }
  }

  @Test func walHookMayCheckpointTheDatabase() throws {
    try withWALDatabase { db, walPath in
      var checkpointed = 0
      try db.setWALHook { [unowned db] databaseName, _ in
        if (try? db.execute(sql: "PRAGMA \(databaseName).wal_checkpoint(TRUNCATE)")) != nil { checkpointed += 1 }
      }
      try db.execute(sql: "INSERT INTO t VALUES (randomblob(10000))")
      #expect(checkpointed == 1)
      let size = try FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int
      #expect(size == 0)
    }
  }

  @Test func walHookClosureIsReleased() throws {
    try expectHookClosureReleased(
      install: { db, token in try db.setWALHook { _, _ in _ = token } },
      remove: { try $0.removeWALHook() })
  }
}
