#if ENABLE_SESSION
  @testable import Amalgam
  import AmalgamSQLite
  import Foundation
  import Testing

  @Suite struct ChangesetApplyTests {
    @Test func divergedDatabasesExchangeChangesBothWays() throws {
      let a = try makeSessionDatabase()
      let b = try makeSessionDatabase()
      let fromA = try recordChangeset(
        a, "INSERT INTO item VALUES (10, 'a-only', 1, NULL); UPDATE item SET note = 'a' WHERE id = 1;")
      let fromB = try recordChangeset(b, "DELETE FROM tag WHERE id = 2; UPDATE item SET price = 7 WHERE id = 3;")
      #expect(try sessionContents(a) != sessionContents(b))
      try b.apply(fromA)
      try a.apply(fromB)
      #expect(try sessionContents(a) == sessionContents(b))
      #expect(try a.fetchOne(String.self, sql: "SELECT note FROM item WHERE id = 1") == "a")
      #expect(try a.fetchOne(Double.self, sql: "SELECT price FROM item WHERE id = 3") == 7)
    }

    @Test func tableFilterSkipsRejectedTables() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, "DELETE FROM tag; UPDATE item SET price = 0;")
      let target = try makeSessionDatabase()
      var asked: [String] = []
      try target.apply(
        changeset,
        tableFilter: {
          asked.append($0); return $0 == "item"
        }
      ) { _ in .abort }
      #expect(Set(asked) == ["item", "tag"])
      #expect(try target.fetchOne(Int.self, sql: "SELECT count(*) FROM tag") == 2)
      #expect(try target.fetchOne(Double.self, sql: "SELECT sum(price) FROM item") == 0)
    }

    // MARK: - Conflicts, each kind, each answer

    /// A target where item 2's price was changed locally, so an update or delete of item 2 from the
    /// source conflicts on data.
    private func dataConflict(_ answer: ChangesetConflictResolution, sourceChange: String) throws
      -> (target: Database, conflicts: [ChangesetConflict], error: (any Error)?)
    {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, sourceChange)
      let target = try makeSessionDatabase()
      try target.execute(sql: "UPDATE item SET price = 99 WHERE id = 2")
      var conflicts: [ChangesetConflict] = []
      do {
        try target.apply(changeset) {
          conflicts.append($0); return answer
        }
        return (target, conflicts, nil)
      } catch {
        return (target, conflicts, error)
      }
    }

    @Test func dataConflictOnUpdate() throws {
      let change = "UPDATE item SET price = 5 WHERE id = 2"
      let omitted = try dataConflict(.omit, sourceChange: change)
      #expect(omitted.error == nil)
      #expect(omitted.conflicts.map(\.kind) == [.data])
      #expect(omitted.conflicts.first?.conflictingValues == [.integer(2), .text("ink"), .real(99), .text("blue")])
      #expect(omitted.conflicts.first?.change?.newValues == [nil, nil, .real(5), nil])
      #expect(try omitted.target.fetchOne(Double.self, sql: "SELECT price FROM item WHERE id = 2") == 99)

      let replaced = try dataConflict(.replace, sourceChange: change)
      #expect(replaced.error == nil)
      #expect(try replaced.target.fetchOne(Double.self, sql: "SELECT price FROM item WHERE id = 2") == 5)

      let aborted = try dataConflict(.abort, sourceChange: change)
      #expect((aborted.error as? SQLiteError)?.code == .abort)
      #expect(try aborted.target.fetchOne(Double.self, sql: "SELECT price FROM item WHERE id = 2") == 99)
    }

    @Test func dataConflictOnDelete() throws {
      let change = "DELETE FROM item WHERE id = 2"
      let omitted = try dataConflict(.omit, sourceChange: change)
      #expect(omitted.conflicts.map(\.kind) == [.data])
      #expect(try omitted.target.fetchOne(Int.self, sql: "SELECT count(*) FROM item WHERE id = 2") == 1)
      let replaced = try dataConflict(.replace, sourceChange: change)
      #expect(try replaced.target.fetchOne(Int.self, sql: "SELECT count(*) FROM item WHERE id = 2") == 0)
    }

    @Test func notFoundConflict() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(
        source, "UPDATE item SET price = 5 WHERE id = 3; DELETE FROM item WHERE id = 1;")
      for answer in [ChangesetConflictResolution.omit, .abort] {
        let target = try makeSessionDatabase()
        try target.batch(sql: "DELETE FROM tag; DELETE FROM item WHERE id IN (1, 3);")
        let before = try sessionContents(target)
        var kinds: [ChangesetConflict.Kind] = []
        let result = Result {
          try target.apply(changeset) {
            kinds.append($0.kind); return answer
          }
        }
        #expect(try sessionContents(target) == before)
        if answer == .omit {
          #expect(kinds == [.notFound, .notFound])
          #expect(throws: Never.self) { try result.get() }
        } else {
          #expect(kinds == [.notFound])
          #expect(throws: SQLiteError.self) { try result.get() }
        }
      }
      // Replace is not a possible answer: the apply is undone and the message says why.
      let target = try makeSessionDatabase()
      try target.batch(sql: "DELETE FROM tag; DELETE FROM item WHERE id = 3;")
      let error = expectSQLiteError { try target.apply(changeset) { _ in .replace } }
      #expect(error?.code == .misuse)
      #expect(error?.message.contains("only data and conflict conflicts can be replaced") == true)
      #expect(try target.fetchOne(Int.self, sql: "SELECT count(*) FROM item WHERE id = 1") == 1)
    }

    @Test func conflictOnInsertOfAnExistingKey() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, "INSERT INTO item VALUES (7, 'theirs', 1, NULL)")
      for answer in [ChangesetConflictResolution.omit, .replace, .abort] {
        let target = try makeSessionDatabase()
        try target.execute(sql: "INSERT INTO item VALUES (7, 'ours', 2, NULL)")
        var conflicts: [ChangesetConflict] = []
        let result = Result {
          try target.apply(changeset) {
            conflicts.append($0); return answer
          }
        }
        #expect(conflicts.map(\.kind) == [.conflict])
        #expect(conflicts.first?.conflictingValues == [.integer(7), .text("ours"), .real(2), .null])
        let name = try target.fetchOne(String.self, sql: "SELECT name FROM item WHERE id = 7")
        #expect(name == (answer == .replace ? "theirs" : "ours"))
        #expect((try? result.get()) == nil ? answer == .abort : answer != .abort)
      }
    }

    @Test func constraintConflict() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(
        source, "INSERT INTO tag VALUES (5, 1, 'taken'); INSERT INTO item VALUES (8, 'ok', 1, NULL);")
      for answer in [ChangesetConflictResolution.omit, .abort] {
        let target = try makeSessionDatabase()
        try target.execute(sql: "INSERT INTO tag VALUES (6, 2, 'taken')")
        let before = try sessionContents(target)
        var kinds: [ChangesetConflict.Kind] = []
        let result = Result {
          try target.apply(changeset) {
            kinds.append($0.kind); return answer
          }
        }
        #expect(kinds == [.constraint])
        if answer == .omit {
          #expect(throws: Never.self) { try result.get() }
          #expect(try target.fetchOne(Int.self, sql: "SELECT count(*) FROM tag WHERE id = 5") == 0)
          #expect(try target.fetchOne(String.self, sql: "SELECT name FROM item WHERE id = 8") == "ok")
        } else {
          #expect(throws: SQLiteError.self) { try result.get() }
          #expect(try sessionContents(target) == before)
        }
      }
    }

    @Test func foreignKeyConflict() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, "INSERT INTO tag VALUES (9, 3, 'pads')")
      for answer in [ChangesetConflictResolution.omit, .abort] {
        let target = try makeSessionDatabase(foreignKeys: true)
        try target.batch(sql: "DELETE FROM item WHERE id = 3")
        let before = try sessionContents(target)
        var conflicts: [ChangesetConflict] = []
        let result = Result {
          try target.apply(changeset) {
            conflicts.append($0); return answer
          }
        }
        #expect(conflicts.map(\.kind) == [.foreignKey])
        #expect(conflicts.first?.foreignKeyViolationCount == 1)
        #expect(conflicts.first?.change == nil)
        if answer == .omit {
          #expect(throws: Never.self) { try result.get() }
          #expect(try target.fetchOne(String.self, sql: "SELECT label FROM tag WHERE id = 9") == "pads")
        } else {
          #expect(throws: SQLiteError.self) { try result.get() }
          #expect(try sessionContents(target) == before)
        }
      }
    }

    @Test func anAbortLeavesTheTargetExactlyAsItWasEvenAfterEarlierChanges() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(
        source, "UPDATE item SET price = 0; DELETE FROM tag; INSERT INTO item VALUES (20, 'x', 1, NULL);")
      let target = try makeSessionDatabase()
      try target.execute(sql: "INSERT INTO item VALUES (20, 'mine', 1, NULL)")
      let before = try sessionContents(target)
      var seen = 0
      let error = expectSQLiteError {
        try target.apply(changeset) { _ in
          seen += 1
          return .abort
        }
      }
      #expect(seen == 1)
      #expect(error?.code == .abort)
      #expect(try sessionContents(target) == before)
    }

    @Test func anErrorThrownByTheConflictHandlerIsRethrownAndTheApplyUndone() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(
        source, "UPDATE item SET price = 0; INSERT INTO item VALUES (20, 'x', 1, NULL);")
      let target = try makeSessionDatabase()
      try target.execute(sql: "INSERT INTO item VALUES (20, 'mine', 1, NULL)")
      let before = try sessionContents(target)
      #expect(throws: TestError(id: 3)) {
        try target.apply(changeset) { _ in throw TestError(id: 3) }
      }
      #expect(throws: TestError(id: 4)) {
        try target.apply(changeset, tableFilter: { _ in throw TestError(id: 4) }) { _ in .abort }
      }
      #expect(try sessionContents(target) == before)
    }

    @Test func conflictHandlerMayRunSQLOnTheTarget() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, "INSERT INTO item VALUES (7, 'theirs', 1, NULL)")
      let target = try makeSessionDatabase()
      try target.execute(sql: "INSERT INTO item VALUES (7, 'ours', 2, NULL)")
      try target.apply(changeset) { _ in
        try target.execute(sql: "UPDATE item SET note = 'merged' WHERE id = 7")
        return .omit
      }
      #expect(try target.fetchOne(String.self, sql: "SELECT note FROM item WHERE id = 7") == "merged")
    }

    @Test func closingTheDatabaseInsideTheConflictHandlerIsRefused() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, "INSERT INTO item VALUES (7, 'theirs', 1, NULL)")
      let target = try makeSessionDatabase()
      try target.execute(sql: "INSERT INTO item VALUES (7, 'ours', 2, NULL)")
      var closeError: (any Error)?
      var seenName: String?
      try target.apply(changeset) { _ in
        do { try target.close() } catch { closeError = error }
        // Reading (and writing) the database is still allowed.
        seenName = try target.fetchOne(String.self, sql: "SELECT name FROM item WHERE id = 7")
        return .omit
      }
      #expect(
        closeError as? SQLiteError
          == SQLiteError(
            code: .misuse,
            message: "The database cannot be closed from inside the conflict handler or table filter of a changeset "
              + "apply, which goes on using the connection after the callback returns; close it once the "
              + "operation has returned"))
      #expect(seenName == "ours")
      #expect(target.isOpen)
      try target.close()
      #expect(!target.isOpen)
    }

    @Test func closingTheDatabaseInsideTheTableFilterIsRefused() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(source, "INSERT INTO item VALUES (7, 'theirs', 1, NULL)")
      let target = try makeSessionDatabase()
      var closeError: SQLiteError?
      try target.apply(
        changeset,
        tableFilter: { _ in
          closeError = expectSQLiteError { try target.close() }
          return true
        }
      ) { _ in .abort }
      #expect(closeError?.code == .misuse)
      #expect(try target.fetchOne(String.self, sql: "SELECT name FROM item WHERE id = 7") == "theirs")
      // Once the apply returned, closing works.
      try target.close()
    }

    @Test func applyOptions() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(
        source, "UPDATE item SET price = 0 WHERE id = 1; DELETE FROM item WHERE id = 3;")
      // invert: applying the inverse on the changed database restores the original.
      try source.apply(changeset, options: .invert)
      #expect(try sessionContents(source) == sessionContents(makeSessionDatabase()))
      // ignoreNoOp: a delete of a row already gone is not a conflict.
      let target = try makeSessionDatabase()
      try target.execute(sql: "DELETE FROM item WHERE id = 3")
      var kinds: [ChangesetConflict.Kind] = []
      try target.apply(changeset, options: .ignoreNoOp) {
        kinds.append($0.kind); return .abort
      }
      #expect(kinds.isEmpty)
      // noSavepoint: inside the caller's transaction, which the caller rolls back.
      let inTransaction = try makeSessionDatabase()
      let before = try sessionContents(inTransaction)
      try inTransaction.execute(sql: "BEGIN")
      try inTransaction.apply(changeset, options: .noSavepoint)
      #expect(try sessionContents(inTransaction) != before)
      try inTransaction.execute(sql: "ROLLBACK")
      #expect(try sessionContents(inTransaction) == before)
    }

    @Test func foreignKeyNoActionKeepsCascadesFromFiring() throws {
      func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        try db.batch(
          sql: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id) ON DELETE CASCADE);
            INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1, 1);
            """)
        return db
      }
      let source = try makeDatabase()
      let session = try Session(database: source)
      try session.attach("parent")
      try source.execute(sql: "DELETE FROM parent")
      let changeset = try session.changeset()
      let cascading = try makeDatabase()
      try cascading.apply(changeset)
      #expect(try cascading.fetchOne(Int.self, sql: "SELECT count(*) FROM child") == 0)
      let noAction = try makeDatabase()
      var kinds: [ChangesetConflict.Kind] = []
      try noAction.apply(changeset, options: .foreignKeyNoAction) {
        kinds.append($0.kind); return .omit
      }
      #expect(kinds == [.foreignKey])
      #expect(try noAction.fetchOne(Int.self, sql: "SELECT count(*) FROM child") == 1)
    }

    // MARK: - Invert, concat, changegroup, rebaser

    @Test func anInvertedChangesetUndoesExactly() throws {
      let db = try makeSessionDatabase()
      let original = try sessionContents(db)
      let changeset = try recordChangeset(
        db,
        """
        INSERT INTO item VALUES (4, 'cap', NULL, x'00FF');
        UPDATE item SET note = NULL, price = 5.0 WHERE id = 2;
        DELETE FROM item WHERE id = 3;
        UPDATE tag SET label = 'desk' WHERE id = 1;
        """)
      let changed = try sessionContents(db)
      let inverse = try changeset.inverted()
      try db.apply(inverse)
      #expect(try sessionContents(db) == original)
      try db.apply(try inverse.inverted())
      #expect(try sessionContents(db) == changed)
      // Reading with `inverted: true` gives the inverse's operations.
      #expect(try ChangesetReader(changeset, inverted: true).next() == inverse.operations().first)
      // The streaming inverse is the same bytes.
      var streamed = Data()
      try Changeset.invert(ChangesetStreams.reading(from: changeset.data)) { streamed.append(contentsOf: $0) }
      #expect(streamed == inverse.data)
    }

    @Test func aChangegroupOfManyChangesetsEqualsApplyingThemInOrder() throws {
      let db = try makeSessionDatabase()
      let steps = [
        "INSERT INTO item VALUES (4, 'cap', 1, NULL)",
        "UPDATE item SET price = 2 WHERE id = 4; DELETE FROM item WHERE id = 1;",
        "UPDATE item SET name = 'cap2' WHERE id = 4; INSERT INTO tag VALUES (3, 4, 'new');",
        "DELETE FROM item WHERE id = 4; INSERT INTO item VALUES (1, 'pen again', 3, 'back');",
        "UPDATE tag SET label = 'x' WHERE id = 2; DELETE FROM tag WHERE id = 3;",
      ]
      let changesets = try steps.map { try recordChangeset(db, $0) }

      let sequential = try makeSessionDatabase()
      for changeset in changesets { try sequential.apply(changeset) }
      #expect(try sessionContents(sequential) == sessionContents(db))

      let group = try Changegroup()
      for changeset in changesets { try group.add(changeset) }
      #expect(group.producesPatchset == false)
      let merged = try group.changeset()
      let grouped = try makeSessionDatabase()
      try grouped.apply(merged)
      #expect(try sessionContents(grouped) == sessionContents(sequential))

      // Concatenation has the same effect.
      var concatenated = changesets[0]
      for changeset in changesets.dropFirst() { concatenated = try concatenated + changeset }
      let viaConcat = try makeSessionDatabase()
      try viaConcat.apply(concatenated)
      #expect(try sessionContents(viaConcat) == sessionContents(sequential))

      // Streaming in and out gives the same bytes.
      let streamedGroup = try Changegroup()
      for changeset in changesets { try streamedGroup.add(from: ChangesetStreams.reading(from: changeset.data)) }
      var streamed = Data()
      try streamedGroup.write { streamed.append(contentsOf: $0) }
      #expect(streamed == merged.data)
      var streamedConcat = Data()
      try Changeset.concatenate(
        ChangesetStreams.reading(from: changesets[0].data), ChangesetStreams.reading(from: changesets[1].data)
      ) { streamedConcat.append(contentsOf: $0) }
      #expect(streamedConcat == (try changesets[0].concatenated(with: changesets[1]).data))
    }

    @Test func aChangegroupRefusesToMixChangesetsAndPatchsets() throws {
      let db = try makeSessionDatabase()
      let session = try Session(database: db)
      try session.attach()
      try db.execute(sql: "DELETE FROM item WHERE id = 3")
      let group = try Changegroup()
      try group.add(try session.patchset())
      #expect(group.producesPatchset)
      let error = expectSQLiteError { try group.add(try session.changeset()) }
      #expect(error != nil)
      #expect(throws: SQLiteError.self) { try group.changeset() }
      #expect(try group.patchset() == session.patchset())
    }

    @Test func changesBuiltColumnByColumnEqualRecordedOnes() throws {
      let db = try makeSessionDatabase()
      let recorded = try recordChangeset(
        db, "UPDATE item SET price = 8 WHERE id = 2; INSERT INTO tag VALUES (3, 1, 'x');")

      let group = try Changegroup()
      try group.setSchema(database: try makeSessionDatabase())
      try group.beginChange(.update, table: "item")
      try group.setOldValue(2, at: 0)
      try group.setOldValue(4.0, at: 2)
      try group.setNewValue(8.0, at: 2)
      try group.finishChange()
      // Whole operations go through the same calls.
      try group.add(
        ChangesetOperation(
          table: "tag", operation: .insert, columnCount: 3, primaryKeyColumns: [0], oldValues: [],
          newValues: [3, 1, "x"]))
      let built = try group.changeset()
      #expect(try Set(built.operations()) == Set(recorded.operations()))

      let target = try makeSessionDatabase()
      try target.apply(built)
      #expect(try sessionContents(target) == sessionContents(db))
    }

    @Test func buildingAnInvalidChangeThrowsSQLitesMessage() throws {
      let group = try Changegroup()
      let unknown = expectSQLiteError { try group.beginChange(.insert, table: "nowhere") }
      #expect(unknown?.code == .error)
      try group.setSchema(database: try makeSessionDatabase())
      try group.beginChange(.insert, table: "item")
      let old = expectSQLiteError { try group.setOldValue(1, at: 0) }
      #expect(old?.code == .error)
      let range = expectSQLiteError { try group.setNewValue(1, at: 9) }
      #expect(range?.code == .range)
      try group.setNewValue(1, at: 0)
      let incomplete = expectSQLiteError { try group.finishChange() }
      #expect(incomplete != nil)
      #expect(try group.changeset().isEmpty)
      let notStarted = expectSQLiteError { try group.setNewValue(1, at: 0) }
      #expect(notStarted?.code == .misuse)
    }

    @Test func aChangegroupWithAClosedSchemaDatabaseThrows() throws {
      let schema = try makeSessionDatabase()
      let group = try Changegroup()
      try group.setSchema(database: schema)
      try schema.close()
      #expect(throws: DatabaseError.databaseClosed) { try group.beginChange(.insert, table: "item") }
    }

    /// The example of SQLite's rebaser documentation: both replicas insert the same key into
    /// `t1(a PRIMARY KEY, b)`.
    @Test func rebaserFollowsSQLitesDocumentedExample() throws {
      func replica() throws -> Database {
        let db = try Database()
        try db.execute(sql: "CREATE TABLE t1(a PRIMARY KEY, b)")
        return db
      }
      for resolution in [ChangesetConflictResolution.omit, .replace] {
        let remoteDB = try replica()
        let remote = try recordChangeset(remoteDB, "INSERT INTO t1 VALUES (1, 'v2')")
        let localDB = try replica()
        let session = try Session(database: localDB)
        try session.attach()
        try localDB.execute(sql: "INSERT INTO t1 VALUES (1, 'v1')")
        let local = try session.changeset()
        try session.setEnabled(false)

        let rebaseData = try localDB.apply(remote) { conflict in
          #expect(conflict.kind == .conflict)
          return resolution
        }
        #expect(rebaseData.isEmpty == false)
        let rebaser = try Rebaser()
        try rebaser.configure(rebaseData)
        let rebased = try rebaser.rebase(local)
        var streamed = Data()
        try rebaser.rebase(ChangesetStreams.reading(from: local.data)) { streamed.append(contentsOf: $0) }
        #expect(streamed == rebased.data)

        if resolution == .replace {
          // "the INSERT change is removed from the local changeset (it was overridden)"
          #expect(try rebased.operations().isEmpty)
        } else {
          // "the local changeset is modified to instead contain: UPDATE t1 SET b = ... WHERE a=1"
          let operations = try rebased.operations()
          #expect(operations.count == 1)
          #expect(operations.first?.operation == .update)
          #expect(operations.first?.oldValues == [.integer(1), .text("v2")])
          #expect(operations.first?.newValues.last == .text("v1"))
          // Sent to the remote, it brings the remote to the local state.
          try remoteDB.apply(rebased)
          #expect(try sessionContents(remoteDB) == sessionContents(localDB))
        }
      }
    }

    // MARK: - Corrupt input

    /// A changeset of several operations over two tables, and the database it applies to.
    private func corruptionFixture() throws -> Changeset {
      let db = try makeSessionDatabase()
      return try recordChangeset(
        db,
        """
        INSERT INTO item VALUES (4, 'cap', NULL, x'00FF');
        UPDATE item SET note = 'x', price = 5.0 WHERE id = 2;
        DELETE FROM item WHERE id = 3;
        UPDATE tag SET label = 'desk' WHERE id = 1;
        """)
    }

    /// Applies bytes that may be corrupt: it must either throw and leave the target unchanged, or
    /// succeed. Reading them must not crash either. Returns whether the apply threw.
    private func applyPossiblyCorrupt(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws
      -> Bool
    {
      let changeset = Changeset(uncheckedData: data)
      _ = try? changeset.operations()
      _ = try? changeset.inverted()
      let target = try makeSessionDatabase()
      let before = try sessionContents(target)
      do {
        try target.apply(changeset) { _ in .omit }
        return false
      } catch {
        #expect(try sessionContents(target) == before, "\(error)", sourceLocation: sourceLocation)
        return true
      }
    }

    @Test func truncatedChangesetsThrowAndLeaveTheTargetUnchanged() throws {
      let changeset = try corruptionFixture()
      let data = changeset.data
      // Cut inside the last record: reading and applying both throw SQLITE_CORRUPT.
      let cut = Changeset(uncheckedData: data.dropLast())
      let corrupt = expectSQLiteError { _ = try cut.operations() }
      #expect(corrupt?.code == .corrupt)
      #expect(corrupt?.message.hasPrefix("The changeset is corrupt or truncated: it ends after ") == true)
      let target = try makeSessionDatabase()
      let before = try sessionContents(target)
      let error = expectSQLiteError { try target.apply(cut) { _ in .omit } }
      #expect(error?.code == .corrupt)
      #expect(try sessionContents(target) == before)
      #expect(throws: SQLiteError.self) { try cut.inverted() }
      #expect(throws: SQLiteError.self) { try Changegroup().add(cut) }
      // Every shorter prefix: never a crash; a throw leaves the target unchanged.
      var threw = 0
      for length in 1..<data.count where try applyPossiblyCorrupt(data.prefix(length)) { threw += 1 }
      #expect(threw > data.count / 2)
    }

    @Test func bitFlippedChangesetsNeverCrashAndThrowingLeavesTheTargetUnchanged() throws {
      let data = try corruptionFixture().data
      // Flipping a bit of the table header's marker makes the changeset unreadable.
      var header = data
      header[header.startIndex] ^= 0x01
      #expect(throws: SQLiteError.self) { try Changeset(uncheckedData: header).operations() }
      var threw = 0
      for index in data.indices {
        for bit in 0..<8 {
          var flipped = data
          flipped[index] ^= UInt8(1 << bit)
          if try applyPossiblyCorrupt(flipped) { threw += 1 }
        }
      }
      #expect(threw > 0)
    }

    @Test func randomBytesThrow() throws {
      var random = SessionTestRandom(state: 13)
      for _ in 0..<300 {
        let count = Int.random(in: 1...64, using: &random)
        var bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
        // Neither a table header ('T', 'P') nor a record can come first: the bytes are certainly invalid.
        if bytes[0] == 0x54 || bytes[0] == 0x50 { bytes[0] = 0x01 }
        #expect(throws: SQLiteError.self) { try Changeset(uncheckedData: bytes).operations() }
        #expect(try applyPossiblyCorrupt(bytes))
      }
      // Random bytes after a valid table header: whatever they say, nothing crashes.
      let header = Data([0x54, 0x04, 0x01, 0x00, 0x00, 0x00]) + Data("item".utf8) + Data([0x00])
      for _ in 0..<300 {
        let count = Int.random(in: 0...64, using: &random)
        _ = try applyPossiblyCorrupt(header + Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }))
      }
    }

    // MARK: - Interoperability with SQLite's C API and tools

    @Test func aChangesetAppliedWithTheCAPIGivesTheSameResult() throws {
      let source = try makeSessionDatabase()
      let changeset = try recordChangeset(
        source, "UPDATE item SET price = 3 WHERE id = 1; DELETE FROM tag WHERE id = 1;")
      let target = try makeSessionDatabase()
      let rc = try changeset.data.withUnsafeBytes { bytes in
        sqlite3changeset_apply(
          try target.sqliteHandle, Int32(bytes.count), UnsafeMutableRawPointer(mutating: bytes.baseAddress), nil,
          { _, _, _ in SQLITE_CHANGESET_ABORT }, nil)
      }
      #expect(rc == SQLITE_OK)
      #expect(try sessionContents(target) == sessionContents(source))
    }

    @Test func aChangesetWrittenBySqldiffIsReadAndApplied() throws {
      guard
        let sqldiff = ["/usr/bin/sqldiff", "/usr/local/bin/sqldiff"].first(where: {
          FileManager.default.isExecutableFile(atPath: $0)
        })
      else {
        // Outside CI (which installs Debian's sqlite3-tools), say why nothing was checked.
        print("Skipping the sqldiff interoperability test: sqldiff is not installed (apt-get install sqlite3-tools)")
        return
      }
      try withTemporaryDirectory { directory in
        let fromPath = directory.appendingPathComponent("from.db").path
        let toPath = directory.appendingPathComponent("to.db").path
        let changesPath = directory.appendingPathComponent("changes.bin").path
        do {
          let from = try Database(path: fromPath)
          try from.batch(sql: sessionSchema)
          try from.batch(sql: "INSERT INTO item VALUES (1, 'pen', 1.5, NULL), (2, 'ink', 4.0, 'blue');")
          let to = try Database(path: toPath)
          try to.batch(sql: sessionSchema)
          try to.batch(
            sql: """
              INSERT INTO item VALUES (2, 'ink', 4.5, NULL), (3, 'pad', 2.0, 'new');
              INSERT INTO tag VALUES (1, 2, 'refill');
              """)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sqldiff)
        process.arguments = ["--changeset", changesPath, fromPath, toPath]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let changeset = try Changeset(contentsOfFile: changesPath)
        #expect(try Set(changeset.operations().map(\.operation)) == [.insert, .update, .delete])
        let from = try Database(path: fromPath)
        try from.apply(changeset)
        #expect(try sessionContents(from) == sessionContents(Database(path: toPath)))
      }
    }
  }
#endif
