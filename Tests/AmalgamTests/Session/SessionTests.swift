#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  @Suite struct SessionTests {
    @Test func recordsInsertUpdateAndDeleteWithTheirValues() throws {
      let db = try makeSessionDatabase()
      let changeset = try recordChangeset(
        db,
        """
        INSERT INTO item VALUES (4, 'cap', NULL, 'new');
        UPDATE item SET note = NULL, price = 5.0 WHERE id = 2;
        DELETE FROM item WHERE id = 3;
        """)
      let operations = try changeset.operations()
      #expect(operations.count == 3)
      let byKind = Dictionary(grouping: operations, by: \.operation)

      let insert = try #require(byKind[.insert]?.first)
      #expect(insert.table == "item")
      #expect(insert.columnCount == 4)
      #expect(insert.primaryKeyColumns == [0])
      #expect(insert.oldValues.isEmpty)
      #expect(insert.newValues == [.integer(4), .text("cap"), .null, .text("new")])
      #expect(insert.isIndirect == false)

      let update = try #require(byKind[.update]?.first)
      // The primary key's old value is recorded; an unchanged column is nil, a column set to NULL is .null.
      #expect(update.oldValues == [.integer(2), nil, .real(4.0), .text("blue")])
      #expect(update.newValues == [nil, nil, .real(5.0), .null])

      let delete = try #require(byKind[.delete]?.first)
      #expect(delete.oldValues == [.integer(3), .text("pad"), .real(2.25), .null])
      #expect(delete.newValues.isEmpty)
    }

    @Test func attachingOneTableRecordsOnlyThatTable() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach("tag")
      try db.batch(sql: "DELETE FROM item WHERE id = 3; UPDATE tag SET label = 'desk' WHERE id = 1;")
      #expect(try session.changeset().operations().map(\.table) == ["tag"])
    }

    @Test func tableFilterChoosesTablesWhenAllAreAttached() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      var asked: [String] = []
      try session.setTableFilter { table in
        asked.append(table)
        return table == "item"
      }
      try session.attach()
      try db.batch(sql: "DELETE FROM tag; DELETE FROM item WHERE id = 3;")
      #expect(try session.changeset().operations().map(\.table) == ["item"])
      #expect(Set(asked) == ["item", "tag"])
    }

    @Test func disabledSessionRecordsNothingAndIndirectFlagIsRecorded() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      #expect(session.isEnabled)
      #expect(session.isEmpty)
      try session.setEnabled(false)
      #expect(session.isEnabled == false)
      try db.execute(sql: "DELETE FROM item WHERE id = 3")
      #expect(session.isEmpty)
      try session.setEnabled(true)
      try session.setIndirect(true)
      #expect(session.isIndirect)
      try db.execute(sql: "DELETE FROM item WHERE id = 2")
      try session.setIndirect(false)
      try db.execute(sql: "DELETE FROM item WHERE id = 1")
      #expect(session.isEmpty == false)
      #expect(session.memoryUsed > 0)
      let operations = try session.changeset().operations()
      let indirectByID = Dictionary(uniqueKeysWithValues: operations.map { ($0.oldValues[0], $0.isIndirect) })
      #expect(indirectByID == [.integer(2): true, .integer(1): false])
    }

    @Test func sizeTrackingReportsTheChangesetSize() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.setOption(.sizeTracking, enabled: true)
      try session.attach()
      try db.execute(sql: "UPDATE item SET price = price * 2")
      let size = session.changesetSize
      #expect(size > 0)
      #expect(size == (try session.changeset().data.count))

      let untracked = try Session(database: db)
      try untracked.attach()
      try db.execute(sql: "UPDATE item SET price = price * 2")
      #expect(untracked.changesetSize == 0)
      let error = expectSQLiteError { try untracked.setOption(.sizeTracking, enabled: true) }
      #expect(error?.code == .misuse)
      #expect(error?.message == "Session options must be set before a table is attached")
    }

    @Test func rowidTablesWithoutPrimaryKeyAreRecordedWhenAsked() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE log(line TEXT)")
      let plain = try Session(database: db)
      try plain.attach()
      let rowid = try Session(database: db)
      try rowid.setOption(.rowidTables, enabled: true)
      try rowid.attach()
      try db.execute(sql: "INSERT INTO log VALUES ('started')")
      #expect(plain.isEmpty)
      let operations = try rowid.changeset().operations()
      #expect(operations.count == 1)
      // Column 0 is the rowid.
      #expect(operations.first?.newValues == [.integer(1), .text("started")])
      #expect(operations.first?.primaryKeyColumns == [0])
    }

    @Test func diffRecordsWhatTurnsAnotherDatabasesTableIntoThisOne() throws {
      try withTemporaryDirectory { directory in
        let oldPath = directory.appendingPathComponent("old.db").path
        do {
          let old = try Database(path: oldPath)
          try old.batch(sql: sessionSchema)
          try old.batch(sql: "INSERT INTO item VALUES (1, 'pen', 1.0, NULL), (9, 'gone', NULL, NULL);")
        }
        let db = try makeSessionDatabase()
        try db.execute(sql: "ATTACH ? AS old", parameterValues: [oldPath])
        let session = try Session(database: db)
        try session.diff(fromSchema: "old", table: "item")
        let changeset = try session.changeset()

        let old = try Database(path: oldPath)
        try old.apply(changeset)
        #expect(
          try old.prepare(sql: "SELECT * FROM item ORDER BY id").allRows()
            == db.prepare(sql: "SELECT * FROM item ORDER BY id").allRows())
      }
    }

    @Test func diffOfTablesWithDifferentColumnsThrowsSQLitesMessage() throws {
      let db = try makeSessionDatabase()
      try db.execute(sql: "ATTACH ':memory:' AS other")
      try db.execute(sql: "CREATE TABLE other.item(id INTEGER PRIMARY KEY, label TEXT)")
      let session = try Session(database: db)
      let error = expectSQLiteError { try session.diff(fromSchema: "other", table: "item") }
      #expect(error?.code == .schema)
      #expect(error?.message == "table schemas do not match")
    }

    @Test func patchsetKeepsOnlyThePrimaryKeyOfDeletesAndNewValuesOfUpdates() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach("item")
      try db.batch(sql: "DELETE FROM item WHERE id = 3; UPDATE item SET name = 'quill' WHERE id = 1;")
      let patchset = try session.patchset()
      #expect(patchset.data.count < (try session.changeset().data.count))
      let operations = try patchset.operations()
      let delete = try #require(operations.first { $0.operation == .delete })
      #expect(delete.oldValues == [.integer(3), nil, nil, nil])
      let update = try #require(operations.first { $0.operation == .update })
      #expect(update.oldValues == [.integer(1), nil, nil, nil])
      #expect(update.newValues == [nil, .text("quill"), nil, nil])

      let replica = try makeSessionDatabase()
      try replica.apply(patchset)
      #expect(try sessionContents(replica) == sessionContents(db))
    }

    @Test func streamedOutputEqualsTheValueAndReadsBack() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      try db.batch(sql: "UPDATE item SET price = 9; DELETE FROM tag WHERE id = 2;")
      var streamed = Data()
      try session.writeChangeset { streamed.append(contentsOf: $0) }
      #expect(streamed == (try session.changeset().data))
      var patch = Data()
      try session.writePatchset { patch.append(contentsOf: $0) }
      #expect(patch == (try session.patchset().data))

      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("changes.bin").path
        try session.writeChangeset(to: ChangesetStreams.writing(toFile: path))
        #expect(try Changeset(contentsOfFile: path) == session.changeset())
        let reader = try ChangesetReader(from: ChangesetStreams.reading(fromFile: path))
        var streamedOperations: [ChangesetOperation] = []
        while let operation = try reader.next() { streamedOperations.append(operation) }
        #expect(try streamedOperations == session.changeset().operations())

        let replica = try makeSessionDatabase()
        try replica.applyChangeset(from: ChangesetStreams.reading(fromFile: path))
        #expect(try sessionContents(replica) == sessionContents(db))
      }
    }

    @Test func anOutputStreamErrorReachesTheCaller() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      try db.execute(sql: "UPDATE item SET price = 9")
      #expect(throws: TestError(id: 7)) {
        try session.writeChangeset { _ in throw TestError(id: 7) }
      }
      #expect(throws: TestError(id: 8)) {
        _ = try ChangesetReader(from: { _ in throw TestError(id: 8) }).next()
      }
    }

    @Test func sessionsAndThePreUpdateHookRefuseEachOther() throws {
      let db = try makeSessionDatabase()
      db.setPreUpdateHook { _ in }
      let refused = expectSQLiteError { _ = try Session(database: db) }
      #expect(refused?.code == .misuse)
      #expect(refused?.message == "The pre-update hook is set on this connection; remove it before creating a session")
      db.removePreUpdateHook()

      do {
        let first = try Session(database: db)
        let second = try Session(database: db)
        try first.attach()
        try second.attach("item")
        #expect(db.isPreUpdateHookInUse)
        #expect(db.setPreUpdateHook { _ in } == false)
        try db.execute(sql: "DELETE FROM item WHERE id = 3")
        #expect(try first.changeset().operations().count == 1)
        #expect(try second.changeset().operations().count == 1)
      }
      // With the last session released, the slot is free again and the hook works.
      #expect(db.isPreUpdateHookInUse == false)
      var events: [String] = []
      db.setPreUpdateHook { events.append($0.tableName) }
      try db.execute(sql: "DELETE FROM item WHERE id = 2")
      #expect(events == ["item"])
    }

    @Test func closingTheDatabaseEndsItsSessions() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      try db.execute(sql: "DELETE FROM item WHERE id = 3")
      try db.close()
      #expect(throws: DatabaseError.databaseClosed) { try session.changeset() }
      #expect(throws: DatabaseError.databaseClosed) { try session.attach("item") }
      #expect(session.isEnabled == false)
      #expect(session.isEmpty)
    }

    @Test func tableFilterClosureIsReleasedWithTheSession() throws {
      let db = try makeSessionDatabase()
      weak var weakToken: LifetimeProbe?
      do {
        let token = LifetimeProbe()
        weakToken = token
        let session = try Session(database: db)
        try session.setTableFilter { _ in
          _ = token; return true
        }
        #expect(weakToken != nil)
      }
      #expect(weakToken == nil)
    }
  }
#endif
