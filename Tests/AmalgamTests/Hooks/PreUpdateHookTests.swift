#if ENABLE_PREUPDATE_HOOK
  import AmalgamSQLite
  import Foundation
  import Testing

  @testable import Amalgam

  /// What one pre-update event showed, copied while the hook ran.
  struct PreUpdateSnapshot: Equatable {
    var operation: DatabaseEvent.Operation
    var databaseName: String
    var tableName: String
    var oldRowid: Int64?
    var newRowid: Int64?
    var columnCount: Int
    var depth: Int
    var blobWriteColumn: Int?
    var old: [DatabaseValue]?
    var new: [DatabaseValue]?

    init(_ event: PreUpdateEvent) {
      operation = event.operation
      databaseName = event.databaseName
      tableName = event.tableName
      oldRowid = event.oldRowid
      newRowid = event.newRowid
      columnCount = event.columnCount
      depth = event.depth
      blobWriteColumn = event.blobWriteColumn
      old = try? event.oldValues()
      new = try? event.newValues()
    }
  }

  @Suite struct PreUpdateHookTests {
    func recordingDatabase() throws -> (Database, HookRecorder<PreUpdateSnapshot>) {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, score REAL, photo BLOB)")
      let recorder = HookRecorder<PreUpdateSnapshot>()
      db.setPreUpdateHook { recorder.append(PreUpdateSnapshot($0)) }
      return (db, recorder)
    }

    @Test func insertShowsNewValuesAndNewRowid() throws {
      let (db, recorder) = try recordingDatabase()
      try db.execute(sql: "INSERT INTO person VALUES (5, 'Ada', 1.5, x'FF00')")
      let event = try #require(recorder.values.first)
      #expect(recorder.values.count == 1)
      #expect(event.operation == .insert)
      #expect(event.databaseName == "main")
      #expect(event.tableName == "person")
      #expect(event.oldRowid == nil)
      #expect(event.newRowid == 5)
      #expect(event.columnCount == 4)
      #expect(event.depth == 0)
      #expect(event.blobWriteColumn == nil)
      #expect(event.old == nil)
      #expect(event.new == [5, "Ada", 1.5, .blob(Data([0xFF, 0x00]))])
    }

    @Test func updateShowsOldAndNewValues() throws {
      let (db, recorder) = try recordingDatabase()
      try db.execute(sql: "INSERT INTO person VALUES (1, 'Ada', NULL, NULL)")
      try db.execute(sql: "UPDATE person SET id = 2, score = 9.5 WHERE id = 1")
      let event = try #require(recorder.values.last)
      #expect(event.operation == .update)
      #expect(event.oldRowid == 1)
      #expect(event.newRowid == 2)
      #expect(event.old == [1, "Ada", nil, nil])
      #expect(event.new == [2, "Ada", 9.5, nil])
    }

    @Test func deleteShowsOldValuesAndOldRowid() throws {
      let (db, recorder) = try recordingDatabase()
      try db.execute(sql: "INSERT INTO person VALUES (3, 'Grace', 2.0, NULL)")
      try db.execute(sql: "DELETE FROM person WHERE id = 3")
      let event = try #require(recorder.values.last)
      #expect(event.operation == .delete)
      #expect(event.oldRowid == 3)
      #expect(event.newRowid == nil)
      #expect(event.old == [3, "Grace", 2.0, nil])
      #expect(event.new == nil)
    }

    @Test func missingSideAndOutOfRangeColumnThrow() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(a, b)")
      var errors: [String] = []
      db.setPreUpdateHook { event in
        do {
          _ = try event.oldValue(at: 0)
        } catch let error as SQLiteError {
          errors.append("\(error.code == .misuse) \(error.message)")
        } catch {
          errors.append("unexpected \(error)")
        }
        do {
          _ = try event.newValue(at: 2)
        } catch let error as DatabaseError {
          errors.append(error.description)
        } catch {
          errors.append("unexpected \(error)")
        }
      }
      try db.execute(sql: "INSERT INTO t VALUES (1, 2)")
      #expect(
        errors == [
          "true An inserted row has no old values",
          "Column index 2 is out of range; the statement has 2 column(s)",
        ])
    }

    @Test func eventKeptAfterTheHookCannotReadValues() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(a)")
      var kept: PreUpdateEvent?
      db.setPreUpdateHook { kept = $0 }
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      let event = try #require(kept)
      #expect(event.operation == .insert)  // the copied facts stay readable
      #expect(throws: DatabaseError.callbackValueExpired("the values of a pre-update event")) {
        _ = try event.newValue(at: 0)
      }
    }

    @Test func changesMadeByTriggersHaveTheirDepth() throws {
      let (db, recorder) = try recordingDatabase()
      try db.batch(
        sql: """
          CREATE TABLE audit(person_id, action);
          CREATE TRIGGER log_insert AFTER INSERT ON person BEGIN
            INSERT INTO audit VALUES (new.id, 'insert');
          END;
          """)
      try db.execute(sql: "INSERT INTO person(id, name) VALUES (1, 'Ada')")
      #expect(recorder.values.map(\.tableName) == ["person", "audit"])
      #expect(recorder.values.map(\.depth) == [0, 1])
      #expect(recorder.values.last?.new == [1, "insert"])
    }

    @Test func firesForWithoutRowidTablesAndTruncatingDeletes() throws {
      let db = try Database()
      try db.batch(sql: "CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID; CREATE TABLE t(x)")
      let recorder = HookRecorder<PreUpdateSnapshot>()
      db.setPreUpdateHook { recorder.append(PreUpdateSnapshot($0)) }
      try db.execute(sql: "INSERT INTO kv VALUES ('a', 1)")
      try db.execute(sql: "INSERT INTO t VALUES (10), (20)")
      recorder.values.removeAll()
      try db.execute(sql: "DELETE FROM t")  // the update hook misses these (truncate optimisation)
      #expect(recorder.values.map(\.old) == [[10], [20]])
      #expect(recorder.values.allSatisfy { $0.operation == .delete })
    }

    @Test func incrementalBlobWriteIsReportedWithItsColumn() throws {
      let (db, recorder) = try recordingDatabase()
      try db.execute(sql: "INSERT INTO person VALUES (1, 'Ada', NULL, zeroblob(4))")
      recorder.values.removeAll()
      var blob: OpaquePointer?
      try #require(sqlite3_blob_open(try db.sqliteHandle, "main", "person", "photo", 1, 1, &blob) == SQLITE_OK)
      defer { sqlite3_blob_close(blob) }
      let bytes: [UInt8] = [1, 2]
      #expect(sqlite3_blob_write(blob, bytes, 2, 0) == SQLITE_OK)
      let event = try #require(recorder.values.first)
      #expect(event.operation == .delete)
      #expect(event.blobWriteColumn == 3)
      #expect(event.old == [1, "Ada", nil, .blob(Data([0, 0, 0, 0]))])
    }

    @Test func removedHookIsNotCalledAndReplacingKeepsOneHook() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(x)")
      var calls: [String] = []
      #expect(db.setPreUpdateHook { _ in calls.append("first") })
      db.setPreUpdateHook { _ in calls.append("second") }
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      db.removePreUpdateHook()
      #expect(db.isPreUpdateHookInUse == false)
      try db.execute(sql: "INSERT INTO t VALUES (2)")
      #expect(calls == ["second"])
    }

    @Test func aSessionHoldingThePreUpdateSlotMakesRegisteringAClearError() throws {
      let db = try Database()
      #expect(db.isPreUpdateHookInUse == false)
      db.setPreUpdateHook { _ in }
      #expect(db.isPreUpdateHookInUse)
      db.removePreUpdateHook()

      // What session code does when it attaches: it takes the slot with an object of its own.
      final class SessionStandIn {}
      db.connection.state(HookRegistry.self).slots[.preUpdate] = SessionStandIn()
      #expect(db.isPreUpdateHookInUse)
      // Refused without throwing (FeistyDB's signature): nothing is registered, the session keeps its slot.
      #expect(db.setPreUpdateHook { _ in } == false)
      #expect(db.connection.existingState(HookRegistry.self)?.slots[.preUpdate] is SessionStandIn)
      // Removing the hook leaves the session's slot alone.
      db.removePreUpdateHook()
      #expect(db.connection.existingState(HookRegistry.self)?.slots[.preUpdate] is SessionStandIn)
    }

    @Test func changeTypeIsFeistyDBsOperationWithItsRowids() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
      var changes: [PreUpdateEvent.ChangeType] = []
      // FeistyDB's call, unchanged: no `try`, and the event read by FeistyDB's names.
      db.setPreUpdateHook { change in changes.append(change.changeType) }
      try db.execute(sql: "INSERT INTO person VALUES (4, 'Ada')")
      try db.execute(sql: "UPDATE person SET id = 7 WHERE id = 4")
      try db.execute(sql: "DELETE FROM person WHERE id = 7")
      #expect(changes == [.insert(4), .update(4, 7), .delete(7)])
      guard case .update(let old, let new) = changes[1] else {
        Issue.record("not an update: \(changes[1])")
        return
      }
      #expect((old, new) == (4, 7))
    }

    @Test func aClosedDatabaseRegistersNoHook() throws {
      let db = try Database()
      try db.close()
      #expect(db.setPreUpdateHook { _ in } == false)
      db.removePreUpdateHook()  // nothing to remove, and no error
    }

    @Test func preUpdateHookClosureIsReleased() throws {
      try expectHookClosureReleased(
        install: { db, token in db.setPreUpdateHook { _ in _ = token } },
        remove: { $0.removePreUpdateHook() })
    }
  }
#endif
