#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  /// A changegroup with a schema database, given a changeset for a table that database lacks: SQLite
  /// 3.53.4 crashes there (a null pointer in sqlite3changegroup_add, found by Scripts/fuzz
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

    @Test func theFuzzerInputThatCrashedSQLiteThrows() throws {
      // Scripts/fuzz/Corpus/fuzz-changeset/changegroup-missing-table, without its 8 header bytes: tables
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
      let error = try #require(throws: SQLiteError.self) { try group.add(Changeset(data: Data(bytes))) }
      // A later record of these bytes does not decode: refused as corrupt before the missing table.
      #expect(error.code == .corrupt)
    }

    @Test func undecodableBytesBeforeAMissingTableThrow() throws {
      // Scripts/fuzz/Corpus/fuzz-changeset/changegroup-missing-table-corrupt without its 8 header bytes:
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
      #expect(throws: SQLiteError.self) { try group.add(Changeset(data: Data(bytes))) }
    }
  }
#endif
