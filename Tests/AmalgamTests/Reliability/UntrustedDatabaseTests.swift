import Amalgam
import Foundation
import Testing

extension ReliabilityTests {
  /// `Database.openUntrusted(path:profile:)`: the precautions of <https://sqlite.org/security.html>
  /// against database files from untrusted sources.
  @Suite("Untrusted databases")
  struct UntrustedDatabaseTests {
    /// The ways an attacker's schema can call an application function without the application asking:
    /// the schema object, and the statement that makes it run.
    static let attacks: [(place: String, schema: String, trigger: String)] = [
      ("view", "CREATE VIEW stolen AS SELECT leak(value) AS value FROM secrets", "SELECT * FROM stolen"),
      (
        "trigger", "CREATE TRIGGER on_insert AFTER INSERT ON secrets BEGIN SELECT leak(new.value); END",
        "INSERT INTO secrets(value) VALUES ('s3')"
      ),
      ("CHECK constraint", "CREATE TABLE checked(x CHECK (leak(x) IS NOT NULL))", "INSERT INTO checked VALUES (1)"),
      (
        "generated column", "CREATE TABLE generated(x, y AS (leak(x))); INSERT INTO generated(x) VALUES (1)",
        "SELECT y FROM generated"
      ),
      (
        "index expression", "CREATE INDEX by_leak ON secrets(leak(value))",
        "INSERT INTO secrets(value) VALUES ('s3')"
      ),
    ]

    /// Writes a database file whose schema holds `schema` (an object calling the application function
    /// `leak()`) and an innocuous view, as an attacker's file would.
    func writeCraftedDatabase(at path: String, schema: String) throws {
      let db = try Database(path: path)
      // The attacker's copies of the functions, so that the schema can be written.
      try db.addFunction("leak", arity: 1, flags: .deterministic) { values in values[0] }
      try db.addFunction("slug", arity: 1, flags: [.deterministic, .innocuous]) { values in values[0] }
      try db.batch(
        sql: """
          CREATE TABLE secrets(id INTEGER PRIMARY KEY, value TEXT);
          INSERT INTO secrets(value) VALUES ('s1'), ('s2');
          CREATE VIEW harmless AS SELECT slug(value) AS value FROM secrets;
          \(schema);
          """)
      try db.close()
    }

    /// The application: its `leak()` is not innocuous (say, it reads the application's secrets), and
    /// counts its calls.
    final class Calls: @unchecked Sendable {
      // Unchecked: used by one test's thread only.
      var count = 0
    }

    func registerApplicationFunctions(_ db: Database, calls: Calls) throws {
      try db.addFunction("leak", arity: 1, flags: .deterministic) { values in
        calls.count += 1
        return values[0]
      }
      try db.addFunction("slug", arity: 1, flags: [.deterministic, .innocuous]) { values in values[0] }
    }

    @Test func theProfileIsApplied() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("plain.db").path
        try Database(path: path).execute(sql: "CREATE TABLE t(x)")
        let db = try Database.openUntrusted(path: path)
        #expect(db.isReadOnly)
        #expect(try db.isEnabled(.defensive))
        #expect(try !db.isEnabled(.trustedSchema))
        #expect(try db.isEnabled(.views))
        #expect(try db.limit(.length) == 1_000_000)
        #expect(try db.limit(.sqlLength) == 100_000)
        #expect(try db.limit(.attachedDatabases) == 0)
        #expect(try db.limit(.expressionDepth) == 10)
        #expect(try db.prepare(sql: "PRAGMA cell_size_check").front(Int.self) == 1)
        #expect(try db.prepare(sql: "PRAGMA mmap_size").front(Int.self) == 0)
        #expect(try db.prepare(sql: "PRAGMA trusted_schema").front(Int.self) == 0)
        let write = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(write?.code == .readOnly)
        let attach = #expect(throws: SQLiteError.self) { try db.execute(sql: "ATTACH ':memory:' AS other") }
        #expect(attach?.message.contains("too many attached databases") == true)
      }
    }

    @Test(arguments: attacks.indices)
    func aCraftedSchemaCannotCallAFunctionThatIsNotInnocuous(_ attack: Int) throws {
      let (place, schema, trigger) = Self.attacks[attack]
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("crafted.db").path
        try writeCraftedDatabase(at: path, schema: schema)

        // Opened as a trusted file, the schema runs the application's function: the attack works.
        let calls = Calls()
        let trusting = try Database(path: path)
        try registerApplicationFunctions(trusting, calls: calls)
        try trusting.begin()
        _ = try trusting.prepare(sql: trigger).allRows()
        try trusting.rollback()  // keep the file as the attacker wrote it
        #expect(calls.count > 0, "\(place)")
        try trusting.close()

        // Opened with the profile (writable, to reach the trigger), the use fails: when SQLite reads
        // the schema (a CHECK constraint, generated column or index that calls a function not
        // innocuous makes the schema malformed: the quick check then refuses the file), or when the
        // view or trigger is used. The function is never called.
        calls.count = 0
        var message: String? = nil
        do {
          let db = try Database.openUntrusted(path: path, profile: UntrustedDatabaseProfile(readOnly: false)) { db in
            try registerApplicationFunctions(db, calls: calls)
          }
          let error = #expect(throws: SQLiteError.self, "\(place)") { _ = try db.prepare(sql: trigger).allRows() }
          message = error?.message
          // A top-level call is the application's own, and runs; an innocuous function may be used
          // from the schema.
          #expect(try db.prepare(sql: "SELECT leak(7)").front(Int.self) == 7)
          #expect(
            try db.prepare(sql: "SELECT value FROM harmless ORDER BY value").column(0, as: String.self) == ["s1", "s2"])
          #expect(calls.count == 1)
        } catch let error as SQLiteError {
          message = error.message
          #expect(calls.count == 0)
        }
        #expect(message?.contains("unsafe use of leak()") == true, "\(place): \(String(describing: message))")
      }
    }

    @Test func viewsAndTriggersCanBeTurnedOff() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("crafted.db").path
        try writeCraftedDatabase(at: path, schema: Self.attacks[1].schema)
        let profile = UntrustedDatabaseProfile(readOnly: false, allowsViews: false, allowsTriggers: false)
        let calls = Calls()
        let db = try Database.openUntrusted(path: path, profile: profile) { db in
          try registerApplicationFunctions(db, calls: calls)
        }
        let view = #expect(throws: SQLiteError.self) { _ = try db.prepare(sql: "SELECT * FROM harmless") }
        #expect(view?.message.contains("harmless") == true, "\(String(describing: view))")
        // The trigger does not fire at all: the insert succeeds without calling leak().
        try db.execute(sql: Self.attacks[1].trigger)
        #expect(calls.count == 0)
      }
    }

    @Test func defensiveModeRefusesToCorruptTheFile() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("plain.db").path
        try Database(path: path).execute(sql: "CREATE TABLE t(x)")
        let db = try Database.openUntrusted(path: path, profile: UntrustedDatabaseProfile(readOnly: false))
        try db.execute(sql: "PRAGMA writable_schema = ON")
        let error = #expect(throws: SQLiteError.self) {
          try db.execute(sql: "UPDATE sqlite_schema SET sql = 'CREATE TABLE t(x, y)' WHERE name = 't'")
        }
        #expect(error?.message.contains("may not be modified") == true, "\(String(describing: error))")
      }
    }

    #if ENABLE_DBPAGE_VTAB
      /// `sqlite_dbpage` (a default trait) can overwrite any page: defensive mode, which the profile turns
      /// on, leaves it readable and refuses every write, also on a read-write connection.
      @Test func defensiveModeKeepsSqliteDbpageReadOnly() throws {
        try withTemporaryDirectory { directory in
          let path = directory.appendingPathComponent("plain.db").path
          try Database(path: path).batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES ('kept')")
          let db = try Database.openUntrusted(path: path, profile: UntrustedDatabaseProfile(readOnly: false))
          #expect(try db.isEnabled(.defensive))
          let first = try db.fetchValue(Data.self, sql: "SELECT data FROM sqlite_dbpage WHERE pgno = 1")
          #expect(first.prefix(16) == Data("SQLite format 3\0".utf8))
          let writes = [
            "UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 2",
            "INSERT INTO sqlite_dbpage(pgno, data) VALUES (2, zeroblob(4096))",
            "DELETE FROM sqlite_dbpage WHERE pgno = 2",
          ]
          for sql in writes {
            let error = #expect(throws: SQLiteError.self, "\(sql)") { try db.execute(sql: sql) }
            #expect(error?.message.contains("read-only") == true, "\(sql): \(String(describing: error))")
          }
          #expect(try db.fetchValue(String.self, sql: "SELECT x FROM t") == "kept")
          // Without defensive mode, the same connection overwrites the table's page: its row is gone.
          try db.setEnabled(.defensive, to: false)
          try db.execute(sql: "UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 2")
          let after = try? db.prepare(sql: "SELECT x FROM t").front(String.self)
          #expect(after == nil)
        }
      }
    #endif

    @Test func aFileThatIsNotADatabaseFailsCleanly() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("garbage.db").path
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) { _ = try Database.openUntrusted(path: path) }
        #expect(error?.code == .notADatabase)
        // SQLite's message; with the ENCRYPTION trait it goes on to say the file looks encrypted.
        #expect(error?.message.hasPrefix("file is not a database") == true)
      }
    }

    @Test func aMissingFileIsNotCreated() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("missing.db").path
        let error = #expect(throws: SQLiteError.self) {
          _ = try Database.openUntrusted(path: path, profile: UntrustedDatabaseProfile(readOnly: false))
        }
        #expect(error?.code == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: path))
      }
    }

    @Test func aTruncatedFileFailsTheQuickCheck() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("whole.db").path
        let db = try Database(path: path)
        try db.batch(
          sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);
            CREATE INDEX t_body ON t(body);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO t(body) SELECT printf('row %d of the table', i) FROM n;
            """)
        try db.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let truncated = directory.appendingPathComponent("truncated.db").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let error = #expect(throws: SQLiteError.self) { _ = try Database.openUntrusted(path: truncated) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.message.isEmpty == false)
      }
    }

    @Test func aDamagedPageFailsTheQuickCheck() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("damaged.db").path
        let db = try Database(path: path)
        try db.batch(
          sql: """
            PRAGMA page_size = 4096;
            CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT);
            CREATE INDEX t_body ON t(body);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO t(body) SELECT printf('row %d of the table', i) FROM n;
            """)
        try db.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Scribble over the cell pointers and cells of the third page.
        for offset in (2 * 4096 + 8)..<(2 * 4096 + 400) { bytes[offset] = 0x7f }
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) { _ = try Database.openUntrusted(path: path) }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        // A plain open does not notice until the damaged page is read.
        _ = try Database(path: path).prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self)
      }
    }

    @Test func anOversizedFileIsRefusedBeforeOpening() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("big.db").path
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE t(b BLOB)")
        try db.execute(sql: "INSERT INTO t VALUES (zeroblob(100000))")
        try db.close()
        let profile = UntrustedDatabaseProfile(maximumFileSize: 65536)
        let error = #expect(throws: SQLiteError.self) { _ = try Database.openUntrusted(path: path, profile: profile) }
        #expect(error?.code == .tooBig)
        #expect(error?.message.contains("65536") == true)
        // Under the default maximum the file opens; the value is within the length limit.
        let opened = try Database.openUntrusted(path: path)
        #expect(try opened.prepare(sql: "SELECT length(b) FROM t").front(Int.self) == 100000)
      }
    }

    @Test func aValueOverTheLengthLimitFailsToRead() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("long.db").path
        let db = try Database(path: path)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)")
        try db.execute(sql: "INSERT INTO t(b) VALUES (zeroblob(1500000))")
        try db.close()
        let opened = try Database.openUntrusted(path: path)
        let error = #expect(throws: SQLiteError.self) { _ = try opened.prepare(sql: "SELECT b FROM t").allRows() }
        #expect(error?.code == .tooBig, "\(String(describing: error))")
        // Columns that are not too long still read.
        #expect(try opened.prepare(sql: "SELECT id FROM t").front(Int.self) == 1)
      }
    }

    @Test func aSchemaOverTheLimitsFailsCleanly() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("wide.db").path
        let columns = (1...150).map { "c\($0)" }.joined(separator: ", ")
        try Database(path: path).execute(sql: "CREATE TABLE wide(\(columns))")
        let error = #expect(throws: SQLiteError.self) { _ = try Database.openUntrusted(path: path) }
        #expect(error?.code == .corrupt || error?.code == .error, "\(String(describing: error))")
        #expect(error?.message.contains("malformed database schema") == true, "\(String(describing: error))")
        // Raising the limit lets the application read it.
        var profile = UntrustedDatabaseProfile.default
        profile.limits[.columns] = 200
        #expect(try Database.openUntrusted(path: path, profile: profile).tableExists("wide"))
      }
    }

    @Test func theProfileAppliesToDeserializedBytes() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("crafted.db").path
        try writeCraftedDatabase(at: path, schema: Self.attacks[2].schema)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let db = try Database()
        try db.deserialize(bytes, readOnly: true)
        let calls = Calls()
        let error = #expect(throws: SQLiteError.self) {
          try db.applyUntrustedProfile { db in try registerApplicationFunctions(db, calls: calls) }
        }
        #expect(error?.message.contains("unsafe use of leak()") == true, "\(String(describing: error))")
        #expect(calls.count == 0)
        #expect(try !db.isEnabled(.trustedSchema))
      }
    }

    @Test func readmeExample() throws {
      try withTemporaryDirectory { directory in
        let downloadedFile = directory.appendingPathComponent("download.db").path
        try Database(path: downloadedFile).batch(
          sql: "CREATE TABLE items(name TEXT); INSERT INTO items VALUES ('a'), ('b');")
        // Reliability article, untrusted databases: begin
        var profile = UntrustedDatabaseProfile.default
        profile.limits[.variableNumber] = 100  // the application's own queries bind up to 100 values
        let db = try Database.openUntrusted(path: downloadedFile, profile: profile)
        let names: [String] = try db.prepare(sql: "SELECT name FROM items").column(0)
        // Reliability article, untrusted databases: end
        #expect(names == ["a", "b"])
      }
    }
  }
}
