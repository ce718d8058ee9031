import Amalgam
import Foundation
import Testing

/// Serialize and deserialize: round trips of every table, the no-copy form, read-only, fixed and
/// limited sizes, invalid, random and truncated images, and VACUUM INTO.
@Suite struct SerializeTests {
  static func makeDatabase(path: String = ":memory:") throws -> Database {
    let db = try Database(path: path)
    try db.batch(
      sql: """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, photo BLOB);
        CREATE INDEX person_name ON person(name);
        CREATE TABLE tag(person INTEGER REFERENCES person(id), label TEXT, PRIMARY KEY(person, label)) WITHOUT ROWID;
        CREATE VIEW named AS SELECT name FROM person;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
        INSERT INTO person SELECT i, 'person ' || i, i / 7.0, randomblob(i % 50) FROM n;
        INSERT INTO tag SELECT id, 'tag' || (id % 3) FROM person;
        """)
    return db
  }

  /// Every table's rows, as text, by table name.
  static func contents(_ db: Database, schema: String = "main") throws -> [String: [String]] {
    var result: [String: [String]] = [:]
    let tables = try db.prepare(
      sql: "SELECT name FROM \(schema).sqlite_schema WHERE type = 'table' ORDER BY name"
    ).column(0, as: String.self)
    for table in tables {
      let statement = try db.prepare(sql: "SELECT * FROM \(schema).\"\(table)\" ORDER BY 1, 2")
      var rows: [String] = []
      while let row = try statement.step() {
        rows.append((0..<row.count).map { "\((try? row[$0]) ?? .null)" }.joined(separator: "|"))
      }
      result[table] = rows
    }
    return result
  }

  @Test func serializeThenDeserializeRoundTripsEveryTable() throws {
    let source = try Self.makeDatabase()
    let image = try source.serialize()
    let pageCount = try #require(try source.prepare(sql: "PRAGMA page_count").front(Int.self))
    let pageSize = try #require(try source.prepare(sql: "PRAGMA page_size").front(Int.self))
    #expect(image.count == pageCount * pageSize)
    #expect(image.starts(with: Array("SQLite format 3\0".utf8)))

    let copy = try Database()
    try copy.deserialize(image)
    let expected = try Self.contents(source)
    #expect(expected.keys.sorted() == ["person", "tag"])
    #expect(expected["person"]?.count == 300)
    #expect(try Self.contents(copy) == expected)
    #expect(try copy.prepare(sql: "PRAGMA integrity_check").front(String.self) == "ok")
    #expect(try copy.prepare(sql: "SELECT count(*) FROM named").front(Int.self) == 300)
    // Resizable by default: the copy takes new rows.
    try copy.execute(sql: "INSERT INTO person(name, photo) VALUES ('new', randomblob(100000))")
    #expect(try copy.prepare(sql: "SELECT count(*) FROM person").front(Int.self) == 301)
  }

  @Test func aFileDatabaseSerializesToItsFileContent() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("file.db").path
      let db = try Self.makeDatabase(path: path)
      let image = try db.serialize()
      #expect(image == (try Data(contentsOf: URL(fileURLWithPath: path))))
      // The no-copy form falls back to a copy for a file database, with the same bytes.
      #expect(try db.withSerializedBytes { Data($0) } == image)
    }
  }

  /// A WAL-mode file's image says WAL in its header; without changing that, every statement on the
  /// deserialized copy failed with SQLITE_CANTOPEN (found by the out-of-memory script of issue 18).
  @Test func theImageOfAWALDatabaseDeserializesIntoAWorkingDatabase() throws {
    try withTemporaryDirectory { directory in
      let source = try Self.makeDatabase(path: directory.appendingPathComponent("wal.sqlite").path)
      #expect(try source.prepare(sql: "PRAGMA journal_mode = WAL").front(String.self) == "wal")
      try source.execute(sql: "INSERT INTO person(name) VALUES ('after WAL')")
      let image = try source.serialize()
      #expect(image[18] == 2 && image[19] == 2)
      let copy = try Database()
      try copy.deserialize(image)
      #expect(try copy.prepare(sql: "SELECT count(*) FROM person").front(Int.self) == 301)
      try copy.execute(sql: "INSERT INTO person(name) VALUES ('in the copy')")
      #expect(try copy.prepare(sql: "PRAGMA journal_mode").front(String.self) == "memory")
      #expect(try Self.contents(copy)["tag"] == Self.contents(source)["tag"])
      #expect(try source.prepare(sql: "SELECT count(*) FROM person").front(Int.self) == 301)
    }
  }

  @Test func attachedAndTempSchemas() throws {
    let db = try Database()
    try db.execute(sql: "ATTACH ':memory:' AS side")
    try db.batch(sql: "CREATE TABLE side.t(x); INSERT INTO side.t VALUES (1), (2);")
    let image = try db.serialize(schema: "side")
    try db.execute(sql: "ATTACH ':memory:' AS restored")
    try db.deserialize(image, schema: "restored")
    #expect(try db.prepare(sql: "SELECT sum(x) FROM restored.t").front(Int.self) == 3)
    #expect(throws: SQLiteError.self) { try db.serialize(schema: "nowhere") }
    #expect(throws: SQLiteError.self) { try db.deserialize(image, schema: "nowhere") }
    #expect(throws: SQLiteError.self) { try db.withSerializedBytes(schema: "nowhere") { $0.count } }
  }

  @Test func anEmptyDatabaseSerializesToNoBytesAndBack() throws {
    let db = try Database()
    let image = try db.serialize()
    let copy = try Database()
    try copy.deserialize(image)
    try copy.execute(sql: "CREATE TABLE t(x)")
    #expect(try copy.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self) == 1)
  }

  @Test func noCopyBytesOfADeserializedDatabaseMatchAndTheConnectionRefusesWritesMeanwhile() throws {
    let source = try Self.makeDatabase()
    let image = try source.serialize()
    let db = try Database()
    try db.deserialize(image)
    let (bytes, writeError) = try db.withSerializedBytes { buffer -> (Data, DatabaseError?) in
      var writeError: DatabaseError?
      do { try db.execute(sql: "DELETE FROM person") } catch let error as DatabaseError { writeError = error }
      return (Data(buffer), writeError)
    }
    #expect(bytes == image)
    #expect(
      writeError
        == .readOnlyCallback(
          callback: "body of withSerializedBytes, which reads the database's own bytes", sql: "DELETE FROM person"))
    #expect(throws: DatabaseError.self) {
      try db.withSerializedBytes { _ in try db.deserialize(image) }
    }
    // Writes and deserialize work again afterwards.
    try db.execute(sql: "DELETE FROM tag")
    try db.deserialize(image)
    #expect(try db.prepare(sql: "SELECT count(*) FROM tag").front(Int.self) == 300)
    // A connection that was query-only stays so.
    try db.execute(sql: "PRAGMA query_only = ON")
    _ = try db.withSerializedBytes { $0.count }
    #expect(try db.prepare(sql: "PRAGMA query_only").front(Bool.self) == true)
  }

  /// Before, closing the connection, detaching the lent schema, or turning `query_only` off and writing
  /// inside the body freed or changed the bytes it was reading (AddressSanitizer: use after free).
  @Test func theBodyCannotCloseDetachOrWriteWhileItReadsTheBytes() throws {
    let image = try Self.makeDatabase().serialize()
    let db = try Database()
    try db.deserialize(image, schema: "main")
    try db.execute(sql: "ATTACH ':memory:' AS lent")
    try db.deserialize(image, schema: "lent")
    var outcomes: [String] = []
    let copies = try db.withSerializedBytes(schema: "lent") { buffer -> [Data] in
      let before = Data(buffer)
      for attempt in [
        { try db.close() },
        { try db.execute(sql: "DETACH lent") },
        { try db.batch(sql: "PRAGMA query_only = OFF; DELETE FROM lent.person;") },
        { try db.execute(sql: "VACUUM lent") },
      ] {
        do {
          try attempt()
          outcomes.append("ran")
        } catch {
          outcomes.append("\(error)")
        }
      }
      // Reading is allowed, and the bytes are unchanged.
      outcomes.append("\(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM lent.person"))")
      return [before, Data(buffer)]
    }
    #expect(copies == [image, image])
    #expect(outcomes.count == 5)
    #expect(outcomes.prefix(4).allSatisfy { $0.contains("inside the body of withSerializedBytes") }, "\(outcomes)")
    #expect(outcomes.last == "300")
    #expect(db.isOpen)
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM lent.person") == 300)
    // Writing works again afterwards (tag: person rows are referenced when foreign keys are on).
    try db.execute(sql: "DELETE FROM lent.tag")
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM lent.tag") == 0)
  }

  /// sqlite3_serialize answers a failure (a lock it cannot take, memory it cannot get) as it answers a
  /// schema not opened yet: no bytes and a size of -1. A failure throws; it is not an empty image
  /// (found by the out-of-memory script: the copy of a serialized database had no tables).
  @Test func aDatabaseLockedByAnotherConnectionThrowsBusyInsteadOfSerializingToNoBytes() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("locked.sqlite").path
      let db = try Self.makeDatabase(path: path)
      #expect(try db.prepare(sql: "PRAGMA journal_mode = DELETE").front(String.self) == "delete")
      let holder = try Database(path: path)
      try holder.batch(sql: "BEGIN EXCLUSIVE; INSERT INTO person(name) VALUES ('held');")
      let error = expectSQLiteError { _ = try db.serialize() }
      #expect(error?.code == .busy)
      let noCopyError = expectSQLiteError { _ = try db.withSerializedBytes { $0.count } }
      #expect(noCopyError?.code == .busy)
      try holder.execute(sql: "ROLLBACK")
      #expect(try db.serialize() == (try Data(contentsOf: URL(fileURLWithPath: path))))
    }
  }

  @Test func aTempSchemaNotYetUsedSerializesToNoBytes() throws {
    let db = try Database()
    #expect(try db.serialize(schema: "temp") == Data())
    #expect(try db.withSerializedBytes(schema: "temp") { $0.count } == 0)
    try db.execute(sql: "CREATE TEMP TABLE t(x)")
    #expect(try db.serialize(schema: "temp").count > 0)
  }

  @Test func readOnlyImagesRefuseWrites() throws {
    let image = try Self.makeDatabase().serialize()
    let db = try Database()
    try db.deserialize(image, readOnly: true)
    #expect(try db.prepare(sql: "SELECT count(*) FROM person").front(Int.self) == 300)
    #expect {
      try db.execute(sql: "DELETE FROM person")
    } throws: { error in
      (error as? SQLiteError)?.code == .readOnly
    }
  }

  @Test func aFixedSizeImageCannotGrowAndALimitStopsGrowth() throws {
    let image = try Self.makeDatabase().serialize()
    let fixed = try Database()
    try fixed.deserialize(image, resizable: false)
    try fixed.execute(sql: "UPDATE person SET name = 'x' WHERE id = 1")  // fits in its page
    #expect {
      try fixed.execute(sql: "INSERT INTO person(name, photo) VALUES ('big', randomblob(200000))")
    } throws: { error in
      (error as? SQLiteError)?.code == .full
    }

    let limited = try Database()
    try limited.deserialize(image, maximumSize: image.count + 50_000)
    try limited.execute(sql: "INSERT INTO person(name, photo) VALUES ('small', randomblob(10000))")
    #expect {
      try limited.execute(sql: "INSERT INTO person(name, photo) VALUES ('big', randomblob(200000))")
    } throws: { error in
      (error as? SQLiteError)?.code == .full
    }
    #expect(try limited.prepare(sql: "SELECT count(*) FROM person").front(Int.self) == 301)
  }

  @Test func bytesThatAreNotADatabaseThrowAtOnce() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE kept(x)")
    for bytes in [Data("hello".utf8), Data(repeating: 0, count: 4096), Data("SQLite format 2\0".utf8)] {
      #expect {
        try db.deserialize(bytes)
      } throws: { error in
        (error as? SQLiteError)?.code == .notADatabase
      }
    }
    // The database is untouched.
    #expect(try db.prepare(sql: "SELECT name FROM sqlite_schema").front(String.self) == "kept")
  }

  @Test func truncatedAndRandomlyDamagedImagesNeverCrash() throws {
    let image = try Self.makeDatabase().serialize()
    var generator = SeededGenerator(seed: 14)
    var images: [Data] = []
    // Truncations, at page boundaries and inside pages.
    for length in [16, 100, 512, 4096, 4097, image.count / 2, image.count - 1] { images.append(image.prefix(length)) }
    // The header and then random bytes.
    for _ in 0..<10 {
      images.append(image.prefix(16) + Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }
    // Random bytes overwritten in a valid image.
    for _ in 0..<40 {
      var damaged = image
      for _ in 0..<Int.random(in: 1...64, using: &generator) {
        let index = Int.random(in: 16..<damaged.count, using: &generator)
        damaged[index] = UInt8.random(in: 0...255, using: &generator)
      }
      images.append(damaged)
    }
    var failures = 0
    for bytes in images {
      let db = try Database()
      do {
        try db.deserialize(bytes)
        _ = try db.prepare(sql: "PRAGMA integrity_check").allRows()
        for table in ["person", "tag"] {
          _ = try db.prepare(sql: "SELECT * FROM \(table) ORDER BY 2").allRows()
        }
        try db.execute(sql: "INSERT INTO person(name) VALUES ('after')")
      } catch is SQLiteError {
        failures += 1
      } catch is DatabaseError {
        failures += 1  // damaged text that is not UTF-8
      }
    }
    // Every truncated or random image fails cleanly; damaged ones may still read.
    #expect(failures >= 17)
  }

  @Test func vacuumIntoWritesACompactCopy() throws {
    try withTemporaryDirectory { directory in
      let source = try Self.makeDatabase(path: directory.appendingPathComponent("source.db").path)
      try source.batch(sql: "DELETE FROM tag WHERE person > 50; DELETE FROM person WHERE id > 50")
      let sourcePages = try #require(try source.prepare(sql: "PRAGMA page_count").front(Int.self))
      let copyPath = directory.appendingPathComponent("copy.db").path
      try source.vacuum(into: copyPath)
      let copy = try Database(path: copyPath, options: .readOnly)
      #expect(try Self.contents(copy) == Self.contents(source))
      let copyPages = try #require(try copy.prepare(sql: "PRAGMA page_count").front(Int.self))
      #expect(copyPages < sourcePages)
      // VACUUM INTO refuses to overwrite a database.
      #expect {
        try source.vacuum(into: copyPath)
      } throws: { error in
        (error as? SQLiteError)?.message.contains("output file already exists") == true
      }
      // Any schema name, quoted safely.
      try source.execute(sql: "ATTACH ':memory:' AS \"odd \"\"name\"")
      try source.execute(sql: "CREATE TABLE \"odd \"\"name\".t(x)")
      let attachedCopy = directory.appendingPathComponent("attached.db").path
      try source.vacuum(into: attachedCopy, schema: "odd \"name")
      let attached = try Database(path: attachedCopy)
      #expect(try attached.prepare(sql: "SELECT name FROM sqlite_schema").front(String.self) == "t")
    }
  }

  @Test func vacuumIntoAFileThatIsNotADatabaseNamesTheDestination() throws {
    try withTemporaryDirectory { directory in
      let source = try Database(path: directory.appendingPathComponent("source.db").path)
      try source.execute(sql: "CREATE TABLE t(x)")
      let notes = directory.appendingPathComponent("notes.txt").path
      let text = String(repeating: "Not a database, just some notes.\n", count: 100)
      try text.write(toFile: notes, atomically: true, encoding: .utf8)
      #expect {
        try source.vacuum(into: notes)
      } throws: { error in
        guard let error = error as? SQLiteError else { return false }
        return error.code == .notADatabase
          && error.message == "file is not a database: the destination \(notes) already exists and is not a "
            + "database; VACUUM INTO writes a new file, or an empty one"
      }
      // The file is as it was.
      #expect(try String(contentsOfFile: notes, encoding: .utf8) == text)
    }
  }
}

/// A small deterministic random number generator (SplitMix64), so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
