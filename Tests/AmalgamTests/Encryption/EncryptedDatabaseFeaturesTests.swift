#if ENCRYPTION
  import Amalgam
  import Foundation
  import Testing

  /// What Amalgam offers keeps working on an encrypted database: backup to plain and back, serialize and
  /// deserialize, `VACUUM INTO`, sessions and changesets, migrations, FTS5, WAL with a pool.
  @Suite struct EncryptedDatabaseFeaturesTests {
    static let key = EncryptionKey.passphrase("features key")

    static func open(_ path: String, key: EncryptionKey? = key, cipher: Cipher? = nil) throws -> Database {
      var options = Database.OpenOptions()
      options.key = key
      options.cipher = cipher
      return try Database(path: path, options: options)
    }

    static func fill(_ db: Database) throws {
      try db.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
          INSERT INTO note SELECT i, 'secret note ' || i || ' ' || hex(randomblob(40)) FROM n;
          """)
    }

    static func digest(_ db: Database) throws -> String? {
      try db.prepare(sql: "SELECT count(*) || ':' || total(length(body)) || ':' || max(body) FROM note")
        .front(String.self)
    }

    static func fileContains(_ path: String, _ text: String) throws -> Bool {
      try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(text.utf8)) != nil
    }

    @Test(arguments: [Cipher.chaCha20, .sqlCipher(version: 4), .aes256CBC])
    func backupCopiesBetweenDatabasesOfTheSameCipher(cipher: Cipher) throws {
      try withTemporaryDirectory { directory in
        let source = try Self.open(directory.appendingPathComponent("source.db").path, cipher: cipher)
        try Self.fill(source)
        let copyPath = directory.appendingPathComponent("copy.db").path
        let otherKey = EncryptionKey.passphrase("another key")
        let copy = try Self.open(copyPath, key: otherKey, cipher: cipher)
        try source.backup(to: copy)
        #expect(try Self.digest(copy) == Self.digest(source))
        try copy.close()
        #expect(try !Self.fileContains(copyPath, "secret note"))
        #expect(try Self.digest(Self.open(copyPath, key: otherKey, cipher: cipher)) == Self.digest(source))
      }
    }

    @Test func backupBetweenAnEncryptedAndAPlainDatabaseIsRefusedWithSQLite3MultipleCiphersReason() throws {
      try withTemporaryDirectory { directory in
        let source = try Self.open(directory.appendingPathComponent("source.db").path)
        try Self.fill(source)
        let plain = try Database(path: directory.appendingPathComponent("plain.db").path)
        #expect {
          try source.backup(to: plain)
        } throws: { error in
          (error as? SQLiteError)?.message.contains("incompatible source and target") == true
        }
        #expect(try plain.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self) == 0)
      }
    }

    @Test(arguments: [Cipher.chaCha20, .sqlCipher(version: 4), .aes256CBC])
    func vacuumIntoWithAKeyCopiesEncryptedToPlainAndPlainToEncrypted(cipher: Cipher) throws {
      try withTemporaryDirectory { directory in
        let sourcePath = directory.appendingPathComponent("source.db").path
        let source = try Self.open(sourcePath, cipher: cipher)
        try source.execute(sql: "PRAGMA journal_mode = WAL")
        try Self.fill(source)
        let expected = try Self.digest(source)

        // Encrypted to plain.
        let plainPath = directory.appendingPathComponent("plain.db").path
        try source.vacuum(into: plainPath, key: nil)
        #expect(try Self.fileContains(plainPath, "secret note 1 "))
        #expect(try Self.digest(Database(path: plainPath)) == expected)

        // Plain back to encrypted, with another key and cipher.
        let againPath = directory.appendingPathComponent("again.db").path
        let otherKey = EncryptionKey.passphrase("another key")
        try Database(path: plainPath).vacuum(into: againPath, key: otherKey, cipher: .ascon128)
        #expect(try !Self.fileContains(againPath, "secret note"))
        #expect(try Self.digest(Self.open(againPath, key: otherKey, cipher: .ascon128)) == expected)

        // Encrypted to encrypted with a new key; the source keeps its own.
        let rekeyedPath = directory.appendingPathComponent("rekeyed.db").path
        try source.vacuum(into: rekeyedPath, key: otherKey, cipher: cipher)
        #expect(try Self.digest(Self.open(rekeyedPath, key: otherKey, cipher: cipher)) == expected)
        #expect(throws: EncryptionError.self) { try Self.open(rekeyedPath, key: Self.key, cipher: cipher) }
        try source.close()
        #expect(try Self.digest(Self.open(sourcePath, cipher: cipher)) == expected)
        #expect(try !Self.fileContains(sourcePath, "secret note"))
      }
    }

    @Test func vacuumIntoWithAKeyOntoAnExistingFileThrowsAndLeavesNothingAttached() throws {
      try withTemporaryDirectory { directory in
        let db = try Self.open(directory.appendingPathComponent("source.db").path)
        try Self.fill(db)
        let taken = directory.appendingPathComponent("taken.db").path
        try Database(path: taken).execute(sql: "CREATE TABLE other(x)")
        #expect(throws: SQLiteError.self) { try db.vacuum(into: taken, key: nil) }
        #expect(try db.prepare(sql: "SELECT count(*) FROM pragma_database_list").front(Int.self) == 1)
        #expect(try Database(path: taken).prepare(sql: "SELECT name FROM sqlite_schema").front(String.self) == "other")
      }
    }

    @Test func serializeGivesPlainPagesThatDeserializeAnywhere() throws {
      try withTemporaryDirectory { directory in
        let db = try Self.open(directory.appendingPathComponent("source.db").path)
        try Self.fill(db)
        let bytes = try db.serialize()
        #expect(bytes.starts(with: Data("SQLite format 3\0".utf8)))
        let memory = try Database()
        try memory.deserialize(bytes)
        #expect(try Self.digest(memory) == Self.digest(db))
        #expect(try memory.prepare(sql: "PRAGMA integrity_check").front(String.self) == "ok")
      }
    }

    @Test func vacuumIntoWritesACopyEncryptedWithTheSameKey() throws {
      try withTemporaryDirectory { directory in
        let db = try Self.open(directory.appendingPathComponent("source.db").path)
        try Self.fill(db)
        let copyPath = directory.appendingPathComponent("copy.db").path
        try db.vacuum(into: copyPath)
        #expect(try !Self.fileContains(copyPath, "secret note"))
        #expect(try Self.digest(Self.open(copyPath)) == Self.digest(db))
      }
    }

    @Test func walModeWithAPoolAndACheckpointKeepsEveryPageEncrypted() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("pool.db").path
        var configuration = Configuration()
        configuration.key = Self.key
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.sync { db in try Self.fill(db) }
        let expected = try pool.read { db in try Self.digest(db) }
        #expect(try !Self.fileContains(path + "-wal", "secret note"))
        _ = try pool.checkpoint(.truncate)
        #expect(try pool.read { db in try Self.digest(db) } == expected)
        try pool.close()
        #expect(try !Self.fileContains(path, "secret note"))
        #expect(try Self.digest(Self.open(path)) == expected)
      }
    }

    #if ENABLE_SESSION
      @Test func aChangesetRecordedOnAnEncryptedDatabaseAppliesToAPlainOne() throws {
        try withTemporaryDirectory { directory in
          let encrypted = try Self.open(directory.appendingPathComponent("device.db").path)
          let plain = try Database(path: directory.appendingPathComponent("server.db").path)
          for db in [encrypted, plain] {
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
          }
          let session = try Session(database: encrypted)
          try session.attach()
          try encrypted.batch(
            sql: "INSERT INTO note VALUES (1, 'one'), (2, 'two'); UPDATE note SET body = 'uno' WHERE id = 1")
          try plain.apply(try session.changeset())
          #expect(
            try plain.prepare(sql: "SELECT group_concat(body, ',') FROM note ORDER BY id").front(String.self)
              == "uno,two")
        }
      }
    #endif

    @Test func migrationsRunOnAnEncryptedQueue() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("migrated.db").path
        var configuration = Configuration()
        configuration.key = Self.key
        configuration.cipher = .sqlCipher(version: 4)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("notes") { db in
          try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        migrator.registerMigration("tags") { db in
          try db.execute(sql: "ALTER TABLE note ADD COLUMN tag TEXT")
        }
        do {
          let queue = try DatabaseQueue(path: path, configuration: configuration)
          try migrator.migrate(queue)
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try migrator.migrate(queue)
        let columns = try queue.sync { db in
          try db.prepare(sql: "SELECT group_concat(name, ',') FROM pragma_table_info('note')").front(String.self)
        }
        #expect(columns == "id,body,tag")
      }
    }

    #if ENABLE_FTS5
      @Test func fullTextSearchIndexesAndFindsInAnEncryptedFile() throws {
        try withTemporaryDirectory { directory in
          let path = directory.appendingPathComponent("fts.db").path
          let db = try Self.open(path)
          try db.batch(
            sql: """
              CREATE VIRTUAL TABLE doc USING fts5(body);
              INSERT INTO doc VALUES ('the quick brown fox'), ('jumps over the lazy dog'), ('quick thinking');
              """)
          #expect(try db.prepare(sql: "SELECT count(*) FROM doc WHERE doc MATCH 'quick'").front(Int.self) == 2)
          try db.close()
          #expect(try !Self.fileContains(path, "lazy"))
          #expect(try Self.open(path).prepare(sql: "SELECT rowid FROM doc WHERE doc MATCH 'lazy'").front(Int.self) == 2)
        }
      }
    #endif
  }
#endif
