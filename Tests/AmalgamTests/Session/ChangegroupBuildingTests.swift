#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  /// A table with a BLOB column, for changes built by hand.
  private func makeFiles() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE file(id INTEGER PRIMARY KEY, name TEXT, bytes BLOB);
        INSERT INTO file VALUES (1, 'a', x'0102'), (2, 'b', x'');
        """)
    return db
  }

  /// Changes built one by one in a ``Changegroup``, the files that streams read and write, and the
  /// errors of each.
  @Suite struct ChangegroupBuildingTests {
    @Test func aGroupSetToProducePatchsetsBuildsAPatchsetAndRefusesChangeset() throws {
      let db = try makeFiles()
      let group = try Changegroup()
      try group.setSchema(database: db)
      #expect(!group.producesPatchset)
      try group.setProducesPatchset(true)
      #expect(group.producesPatchset)
      try group.beginChange(.insert, table: "file")
      try group.setNewValue(3, at: 0)
      try group.setNewValue("c", at: 1)
      try group.setNewValue(.blob(Data([0xFF, 0x00])), at: 2)
      try group.finishChange()
      let patchset = try group.patchset()
      let operations = try patchset.operations()
      #expect(operations.map(\.operation) == [.insert])
      #expect(operations.first?.newValues == [.integer(3), .text("c"), .blob(Data([0xFF, 0x00]))])
      let error = expectSQLiteError { _ = try group.changeset() }
      #expect(error?.code == .misuse)
      #expect(error?.message == "This changegroup holds patchsets; use patchset()")
      // Applied, the patchset inserts the row with its bytes.
      try db.apply(patchset)
      #expect(try db.fetchOne(Data.self, sql: "SELECT bytes FROM file WHERE id = 3") == Data([0xFF, 0x00]))
    }

    @Test func aGroupOfChangesetsRefusesPatchset() throws {
      let group = try Changegroup()
      let error = expectSQLiteError { _ = try group.patchset() }
      #expect(error?.code == .misuse)
      #expect(error?.message == "This changegroup holds changesets; use changeset()")
    }

    @Test func operationsWithOldValuesAndBlobsGoThroughAGroupUnchanged() throws {
      let source = try makeFiles()
      let session = try Session(database: source)
      try session.attach()
      try source.batch(
        sql: """
          UPDATE file SET bytes = x'AABB' WHERE id = 1;
          DELETE FROM file WHERE id = 2;
          """)
      let recorded = try session.changeset()
      let operations = try recorded.operations()
      #expect(operations.count == 2)

      let group = try Changegroup()
      try group.setSchema(database: source)
      for operation in operations { try group.add(operation) }
      let rebuilt = try group.changeset()
      #expect(try rebuilt.operations() == operations)
      // The rebuilt changeset turns a copy of the original rows into the changed ones.
      let target = try Database()
      try target.batch(
        sql: """
          CREATE TABLE file(id INTEGER PRIMARY KEY, name TEXT, bytes BLOB);
          INSERT INTO file VALUES (1, 'a', x'0102'), (2, 'b', x'');
          """)
      try target.apply(rebuilt)
      #expect(try target.fetchAll(Data.self, sql: "SELECT bytes FROM file ORDER BY id") == [Data([0xAA, 0xBB])])
    }

    @Test func anOperationWithAColumnTheTableLacksIsDroppedAndTheGroupStaysUsable() throws {
      let db = try makeFiles()
      let group = try Changegroup()
      try group.setSchema(database: db)
      let tooWide = ChangesetOperation(
        table: "file", operation: .delete, columnCount: 4, primaryKeyColumns: [0],
        oldValues: [.integer(1), .text("a"), .blob(Data([1, 2])), .integer(9)], newValues: [])
      let error = expectSQLiteError { try group.add(tooWide) }
      #expect(error?.code == .range)
      #expect(error?.message == "Column 3 is out of range for the change being built")
      // The half-built change was discarded: another one can be built, and only it is in the output.
      try group.beginChange(.delete, table: "file")
      try group.setOldValue(2, at: 0)
      try group.setOldValue("b", at: 1)
      try group.setOldValue(.blob(Data()), at: 2)
      try group.finishChange()
      let operations = try group.changeset().operations()
      #expect(operations.count == 1)
      #expect(operations.first?.oldValues == [.integer(2), .text("b"), .blob(Data())])
    }

    @Test func aColumnNumberBeyondSQLitesRangeIsRefused() throws {
      let db = try makeFiles()
      let group = try Changegroup()
      try group.setSchema(database: db)
      try group.beginChange(.insert, table: "file")
      let error = expectSQLiteError { try group.setNewValue(1, at: Int.max) }
      #expect(error?.code == .range)
      #expect(error?.message == "Column \(Int.max) is out of range")
      try group.finishChange(discard: true)
    }

    @Test func concatenatingChangesetsOfOneTableWithOtherColumnsThrowsSchema() throws {
      let narrow = try Database()
      try narrow.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
      let wide = try Database()
      try wide.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)")
      var changesets: [Changeset] = []
      for db in [narrow, wide] {
        let session = try Session(database: db)
        try session.attach()
        try db.execute(sql: "INSERT INTO t(id, a) VALUES (1, 'x')")
        changesets.append(try session.changeset())
      }
      let error = expectSQLiteError { _ = try changesets[0].concatenated(with: changesets[1]) }
      #expect(error?.code == .schema)
      #expect(
        error?.message == "The two changesets record a table with other columns, or another primary key, in each")
    }

    @Test func aChangesetWrittenToAFileReadsBack() throws {
      let db = try makeFiles()
      let changeset = try recordChangeset(db, "INSERT INTO file VALUES (5, 'e', x'05')")
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("changes.bin").path
        try changeset.write(toFile: path)
        #expect(try Changeset(contentsOfFile: path) == changeset)
        // A file that cannot be written is the file system's error.
        #expect(throws: (any Error).self) {
          try changeset.write(toFile: directory.appendingPathComponent("missing/changes.bin").path)
        }
      }
    }

    @Test func fileStreamsThatCannotOpenTheirFileThrowCannotOpen() throws {
      try withTemporaryDirectory { directory in
        let missing = directory.appendingPathComponent("missing/changes.bin").path
        let reading = expectSQLiteError { _ = try ChangesetStreams.reading(fromFile: missing) }
        #expect(reading?.code == .cannotOpen)
        #expect(reading?.message == "Cannot open \(missing) for reading")
        let writing = expectSQLiteError { _ = try ChangesetStreams.writing(toFile: missing) }
        #expect(writing?.code == .cannotOpen)
        #expect(writing?.message == "Cannot open \(missing) for writing")
      }
    }

    #if os(Linux)
      @Test func aFileStreamThatCannotReadOrWriteThrowsIOError() throws {
        // A directory opens for reading on Linux, but reading it fails (EISDIR).
        try withTemporaryDirectory { directory in
          let input = try ChangesetStreams.reading(fromFile: directory.path)
          let error = expectSQLiteError { _ = try ChangesetReader(from: input).next() }
          #expect(error?.code == .ioError)
          #expect(error?.message == "Cannot read \(directory.path)")
        }
        // /dev/full opens for writing, and every write to it fails (ENOSPC).
        let db = try makeFiles()
        let changeset = try recordChangeset(db, "INSERT INTO file VALUES (5, 'e', x'05')")
        let group = try Changegroup()
        try group.add(changeset)
        let output = try ChangesetStreams.writing(toFile: "/dev/full")
        let error = expectSQLiteError { try group.write(to: output) }
        #expect(error?.code == .ioError)
        #expect(error?.message == "Cannot write /dev/full")
      }
    #endif

    @Test func anInputStreamThatClaimsMoreBytesThanItsBufferIsMisuse() throws {
      let error = expectSQLiteError {
        let reader = try ChangesetReader(from: { buffer in buffer.count + 1 })
        _ = try reader.next()
      }
      #expect(error?.code == .misuse)
      #expect(error?.message.hasPrefix("A changeset input stream returned ") == true)
      #expect(error?.message.contains("bytes") == true)
    }
  }
#endif
