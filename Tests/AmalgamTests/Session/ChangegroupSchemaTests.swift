#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// A changegroup with a schema database, given a changeset for a table that database lacks: SQLite
  /// 3.53.4 crashes there (a null pointer in sqlite3changegroup_add, found by Scripts/stress/fuzz
  /// fuzz-changeset); the Swift layer throws SQLITE_SCHEMA instead.
  @Suite struct ChangegroupSchemaTests {
    @Test func aChangesetForATableTheSchemaLacksThrows() throws {
      let source = try makeSessionDatabase()
      try source.execute(sql: "CREATE TABLE extra(id INTEGER PRIMARY KEY, v)")
      let changeset = try recordChangeset(
        source, "INSERT INTO item VALUES (9, 'nib', 0.5, NULL); INSERT INTO extra VALUES (1, 'x')")
      let target = try makeSessionDatabase()  // has item and tag, not extra
      let group = try Changegroup()
      try group.setSchema(database: target)
      let error = try #require(throws: SQLiteError.self) { try group.add(changeset) }
      #expect(error.code == .schema)
      #expect(error.message.contains("\"extra\""))
      // The group is still usable, and a changeset for known tables goes in.
      try group.add(try recordChangeset(source, "INSERT INTO item VALUES (10, 'cap', 1.0, NULL)"))
      #expect(try group.changeset().operations().map(\.table) == ["item"])
    }

    /// The streamed `add(from:)` reached the same null pointer in sqlite3changegroup_add_strm: without
    /// the check this test crashes the process.
    @Test func aStreamedChangesetForATableTheSchemaLacksThrows() throws {
      let source = try makeSessionDatabase()
      try source.execute(sql: "CREATE TABLE extra(id INTEGER PRIMARY KEY, v)")
      let changeset = try recordChangeset(
        source, "INSERT INTO item VALUES (9, 'nib', 0.5, NULL); INSERT INTO extra VALUES (1, 'x')")
      let target = try makeSessionDatabase()  // has item and tag, not extra
      let group = try Changegroup()
      try group.setSchema(database: target)
      let error = try #require(throws: SQLiteError.self) {
        try group.add(from: Self.chunked(changeset.data, by: 5))
      }
      #expect(error.code == .schema)
      #expect(error.message.contains("\"extra\""))
      // The change read before the unknown table went in; the group is still usable.
      try group.add(
        from: Self.chunked(try recordChangeset(source, "INSERT INTO item VALUES (10, 'cap', 1.0, NULL)").data, by: 3))
      let operations = try group.changeset().operations()
      #expect(operations.map(\.table) == ["item", "item"])
      #expect(Set(operations.compactMap { $0.newValues.first ?? nil }) == [.integer(9), .integer(10)])
    }

    /// With a schema, the streamed path adds change by change: the result is what the one-piece add gives,
    /// including a changeset recorded before a column was added, widened with the column's default.
    @Test func aStreamedChangesetWithASchemaMergesAsTheOnePieceAddDoes() throws {
      let old = try makeSessionDatabase()
      let first = try recordChangeset(
        old, "INSERT INTO item VALUES (9, 'nib', 0.5, NULL); UPDATE item SET price = 8 WHERE id = 2; DELETE FROM tag")
      let second = try recordChangeset(old, "UPDATE item SET name = 'nub' WHERE id = 9; DELETE FROM item WHERE id = 3")
      let schema = try makeSessionDatabase()
      try schema.execute(sql: "ALTER TABLE item ADD COLUMN stock INTEGER DEFAULT 7")

      let whole = try Changegroup()
      try whole.setSchema(database: schema)
      try whole.add(first)
      try whole.add(second)
      let streamed = try Changegroup()
      try streamed.setSchema(database: schema)
      try streamed.add(from: Self.chunked(first.data, by: 4))
      try streamed.add(from: Self.chunked(second.data, by: 1))
      let expected = try whole.changeset()
      let merged = try streamed.changeset()
      #expect(merged.data == expected.data)
      // Widened: the insert of item 9 carries the new column's default.
      let insert = try #require(try merged.operations().first { $0.operation == .insert && $0.table == "item" })
      #expect(insert.newValues == [.integer(9), .text("nub"), .real(0.5), .null, .integer(7)])
    }

    /// Scripts/stress/fuzz/Corpus/fuzz-changeset/sqlite-invert-negative-length without its 8 header bytes: a
    /// record whose TEXT length overflows to a negative size. SQLite 3.53.4's sqlite3changeset_invert
    /// moved its read position before the buffer and crashed; `inverted()` now throws SQLITE_CORRUPT.
    @Test func invertingARecordWithANegativeLengthThrows() throws {
      let base64 =
        "VAMBACF0MQASAAABAAgAAAAABAMEipCKjQTz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz"
        + "8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8/Pz8wEECQABAAAAAAAAAAIDA3R3bwEAAAUAFwEAdAAAAAAAAAABAwNvAA=="
      let data = try #require(Data(base64Encoded: base64))
      let error = try #require(throws: SQLiteError.self) { try Changeset(uncheckedData: data).inverted() }
      #expect(error.code == .corrupt)
      // The streamed form too (SQLite's sqlite3changeset_invert_strm has the same unchecked skip).
      var written = 0
      let streamed = try #require(throws: SQLiteError.self) {
        try Changeset.invert(Self.chunked(data, by: 7)) { written += $0.count }
      }
      #expect(streamed.code == .corrupt)
      #expect(written == 0)
      // A valid changeset still inverts.
      let db = try makeSessionDatabase()
      let changeset = try recordChangeset(db, "INSERT INTO item VALUES (9, 'nib', 0.5, NULL)")
      #expect(try changeset.inverted().operations().map(\.operation) == [.delete])
    }

    @Test func aStreamedInversionRefusesAnInputThatClaimsMoreBytesThanItsBuffer() throws {
      let error = try #require(throws: SQLiteError.self) {
        try Changeset.invert({ buffer in buffer.count + 1 }) { _ in }
      }
      #expect(error.code == .misuse)
      // An empty input inverts to an empty changeset.
      var written = 0
      try Changeset.invert({ _ in 0 }) { written += $0.count }
      #expect(written == 0)
    }

    /// An input stream over `data` that hands out at most `size` bytes per call.
    static func chunked(_ data: Data, by size: Int) -> ChangesetInputStream {
      var offset = data.startIndex
      return { buffer in
        let count = min(buffer.count, size, data.endIndex - offset)
        guard count > 0 else { return 0 }
        let copied = data[offset..<(offset + count)].copyBytes(to: buffer)
        offset += copied
        return copied
      }
    }

    @Test func theFuzzerInputThatCrashedSQLiteThrows() throws {
      // Scripts/stress/fuzz/Corpus/fuzz-changeset/changegroup-missing-table, without its 8 header bytes: tables
      // t4 (missing), t1 and t3, in the fuzz target's database.
      let hex =
        "540301000074340012000100000000000000040304666f75720401040900010000000000000002030374e36f051700010000"
        + "00000000000103036f6e6500000303756e6f005403010100743100120101000000000000000903017af73fe000000000"
        + "00005402010074330009000301f000026b3f0000000000"
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
      }
      let db = try Database()
      try db.batch(
        sql: """
          CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
          CREATE TABLE t3(k TEXT PRIMARY KEY, v REAL NOT NULL) WITHOUT ROWID;
          """)
      let group = try Changegroup()
      try group.setSchema(database: db)
      let error = try #require(throws: SQLiteError.self) { try group.add(Changeset(uncheckedData: Data(bytes))) }
      // A later record of these bytes does not decode: refused as corrupt before the missing table.
      #expect(error.code == .corrupt)
      // Streamed, the bytes are checked as SQLite reads them, and SQLite reads ahead of the first change
      // to the missing table: the corrupt record is refused first there too.
      let streamed = try Changegroup()
      try streamed.setSchema(database: db)
      let streamError = try #require(throws: SQLiteError.self) {
        try streamed.add(from: Self.chunked(Data(bytes), by: 7))
      }
      #expect(streamError.code == .corrupt)
    }

    @Test func undecodableBytesBeforeAMissingTableThrow() throws {
      // Scripts/stress/fuzz/Corpus/fuzz-changeset/changegroup-missing-table-corrupt without its 8 header bytes:
      // table t0 (missing) whose first record has a blob length past the end. sqlite3changegroup_add
      // skips records without decoding them and reached t0 anyway.
      let hex =
        "540301000074300012000100000000000000040304666f757204ffffffffffffffffffffffffffffffffffffffffffff"
        + "ffffffffffffffffffffff000000000903017a023fe00000000000005402010074330200090003016b02c10ffffe0000"
        + "0000"
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
      }
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c BLOB)")
      let group = try Changegroup()
      try group.setSchema(database: db)
      #expect(throws: SQLiteError.self) { try group.add(Changeset(uncheckedData: Data(bytes))) }
      let streamed = try Changegroup()
      try streamed.setSchema(database: db)
      #expect(throws: SQLiteError.self) { try streamed.add(from: Self.chunked(Data(bytes), by: 2)) }
    }
  }
#endif
