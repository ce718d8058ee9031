#if ENCRYPTION
  import Amalgam
  import Foundation
  import Testing

  /// Lines a trace handler collects; written and read on the test's thread only.
  final class TraceLog: @unchecked Sendable {
    var lines: [String] = []
  }

  /// Encrypted databases (trait ENCRYPTION, SQLite3 Multiple Ciphers): keys at open, every cipher, the
  /// errors of a wrong key and of a plain file, rekey, attach, and keys kept out of every message.
  @Suite struct EncryptionTests {
    /// Text that must never be found in an encrypted file, its journal or its log.
    static let plaintext = "PLAINTEXT-MARKER-8c1e"
    static let key = EncryptionKey.passphrase("correct horse battery staple")

    static func options(_ key: EncryptionKey?, _ cipher: Cipher? = nil) -> Database.OpenOptions {
      var options = Database.OpenOptions()
      options.key = key
      options.cipher = cipher
      return options
    }

    /// Creates `path` with `key` and `cipher`: a table of 200 rows that each hold the plaintext marker.
    static func createDatabase(
      at path: String, key: EncryptionKey? = key, cipher: Cipher? = nil, journalMode: String = "DELETE"
    ) throws {
      let db = try Database(path: path, options: options(key, cipher))
      try db.execute(sql: "PRAGMA journal_mode = \(journalMode)")
      try db.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
          INSERT INTO note SELECT i, '\(plaintext) ' || i FROM n;
          """)
      try db.close()
    }

    static func noteCount(_ db: Database) throws -> Int? {
      try db.prepare(sql: "SELECT count(*) FROM note WHERE body LIKE '\(plaintext)%'").front(Int.self)
    }

    static func contains(_ file: String, _ text: String) throws -> Bool {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
      return bytes.range(of: Data(text.utf8)) != nil
    }

    @Test func aDatabaseWrittenWithAKeyReadsBackWithItAndHoldsNoPlaintext() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("secret.db").path
        try Self.createDatabase(at: path)
        #expect(try !Self.contains(path, Self.plaintext))
        #expect(try !Self.contains(path, "SQLite format 3"))
        let db = try Database(path: path, options: Self.options(Self.key))
        #expect(try Self.noteCount(db) == 200)
        // The same file written without a key holds the text: the check above can fail.
        let plain = directory.appendingPathComponent("plain.db").path
        try Self.createDatabase(at: plain, key: nil)
        #expect(try Self.contains(plain, Self.plaintext))
      }
    }

    @Test func theRollbackJournalAndTheWriteAheadLogHoldNoPlaintext() throws {
      try withTemporaryDirectory { directory in
        // The rollback journal, read while a transaction that rewrites every row is open.
        let path = directory.appendingPathComponent("journal.db").path
        try Self.createDatabase(at: path)
        let db = try Database(path: path, options: Self.options(Self.key))
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
        try db.execute(sql: "BEGIN")
        try db.execute(sql: "UPDATE note SET body = body || ' \(Self.plaintext)'")
        try db.execute(sql: "PRAGMA cache_size = 1")  // spill pages to the file: the journal holds the old ones
        let journal = path + "-journal"
        #expect(FileManager.default.fileExists(atPath: journal))
        #expect(try !Self.contains(journal, Self.plaintext))
        try db.execute(sql: "COMMIT")
        try db.close()

        // The write-ahead log, with the connection still open (nothing checkpointed yet).
        let walPath = directory.appendingPathComponent("wal.db").path
        let wal = try Database(path: walPath, options: Self.options(Self.key))
        try wal.execute(sql: "PRAGMA journal_mode = WAL")
        try wal.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try wal.batch(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('\(Self.plaintext)')")
        let log = try Data(contentsOf: URL(fileURLWithPath: walPath + "-wal"))
        #expect(log.count > 1_000)
        #expect(log.range(of: Data(Self.plaintext.utf8)) == nil)
        try wal.close()
      }
    }

    @Test func aWrongKeyThrowsAtOpenAndAPlainFileOpenedWithAKeyIsNamedSo() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("secret.db").path
        try Self.createDatabase(at: path)
        #expect(throws: EncryptionError.wrongKey(path: path)) {
          try Database(path: path, options: Self.options(.passphrase("wrong")))
        }
        // The right key with another cipher does not decrypt it either.
        #expect(throws: EncryptionError.wrongKey(path: path)) {
          try Database(path: path, options: Self.options(Self.key, .aes256CBC))
        }
        // Without a key, SQLite's own error at the first read.
        let noKey = try Database(path: path)
        #expect {
          try noKey.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
        } throws: { error in
          (error as? SQLiteError)?.code == .notADatabase
        }

        let plain = directory.appendingPathComponent("plain.db").path
        try Self.createDatabase(at: plain, key: nil)
        #expect(throws: EncryptionError.notEncrypted(path: plain)) {
          try Database(path: plain, options: Self.options(Self.key))
        }
        // A file that is no database at all, opened with a key.
        let junk = directory.appendingPathComponent("junk.db").path
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: junk))
        #expect(throws: EncryptionError.wrongKey(path: junk)) {
          try Database(path: junk, options: Self.options(Self.key))
        }
      }
    }

    static let ciphers: [Cipher] = [
      .chaCha20, .aes128CBC, .aes256CBC, .ascon128, .aegis,
      .sqlCipher(version: 1), .sqlCipher(version: 2), .sqlCipher(version: 3), .sqlCipher(version: 4),
      Cipher.chaCha20.setting("kdf_iter", to: 1_000),
    ]

    @Test(arguments: ciphers)
    func everyCipherRoundTripsAndNeedsItsOwnName(cipher: Cipher) throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("cipher.db").path
        try Self.createDatabase(at: path, cipher: cipher)
        #expect(try !Self.contains(path, Self.plaintext))
        let db = try Database(path: path, options: Self.options(Self.key, cipher))
        #expect(try Self.noteCount(db) == 200)
        #expect(try db.prepare(sql: "PRAGMA integrity_check").front(String.self) == "ok")
        try db.close()
        let other: Cipher = cipher.name == "chacha20" ? .aes128CBC : .chaCha20
        #expect(throws: EncryptionError.self) {
          try Database(path: path, options: Self.options(Self.key, other))
        }
      }
    }

    @Test func aKeyOfBytesWorksAndDiffersFromItsTextSpelling() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("bytes.db").path
        let bytes = EncryptionKey.data(Data([0, 1, 2, 250, 251, 252, 0, 9]))
        try Self.createDatabase(at: path, key: bytes)
        #expect(try Self.noteCount(Database(path: path, options: Self.options(bytes))) == 200)
        // The NUL bytes count: the key is not cut at the first one.
        #expect(throws: EncryptionError.wrongKey(path: path)) {
          try Database(path: path, options: Self.options(.data(Data([0, 1, 2]))))
        }
      }
    }

    @Test func unknownCiphersAndParametersThrowAtOpen() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("x.db").path
        #expect(throws: EncryptionError.unknownCipher("rot13")) {
          try Database(path: path, options: Self.options(Self.key, Cipher(name: "rot13")))
        }
        #expect(throws: EncryptionError.invalidCipherParameter(cipher: "chacha20", name: "no_such", value: 1)) {
          try Database(path: path, options: Self.options(Self.key, Cipher.chaCha20.setting("no_such", to: 1)))
        }
        #expect(throws: EncryptionError.invalidCipherParameter(cipher: "sqlcipher", name: "legacy", value: 9)) {
          try Database(path: path, options: Self.options(Self.key, .sqlCipher(version: 9)))
        }
        #expect(Database.availableCiphers.contains("chacha20") && Database.availableCiphers.contains("sqlcipher"))
        #expect(Database.encryptionLibraryVersion.hasPrefix("SQLite3 Multiple Ciphers 2."))
      }
    }

    @Test func aKeyOnAnInMemoryDatabaseThrowsSQLitesError() throws {
      #expect {
        try Database(path: ":memory:", options: Self.options(Self.key))
      } throws: { error in
        (error as? SQLiteError)?.message.contains("in-memory") == true
      }
    }

    @Test func rekeyEncryptsChangesTheKeyAndDecrypts() throws {
      try withTemporaryDirectory { directory in
        for journalMode in ["DELETE", "WAL"] {
          let path = directory.appendingPathComponent("rekey-\(journalMode).db").path
          try Self.createDatabase(at: path, key: nil, journalMode: journalMode)
          // Plain to encrypted (in WAL mode, through DELETE mode and back).
          do {
            let db = try Database(path: path)
            try db.rekey(to: Self.key)
            #expect(try db.prepare(sql: "PRAGMA journal_mode").front(String.self) == journalMode.lowercased())
            #expect(try Self.noteCount(db) == 200)
            try db.close()
          }
          #expect(try !Self.contains(path, Self.plaintext))
          // A new key and a new cipher: the old key no longer opens it.
          let newKey = EncryptionKey.passphrase("new key")
          do {
            let db = try Database(path: path, options: Self.options(Self.key))
            try db.rekey(to: newKey, cipher: .aes256CBC)
            try db.close()
          }
          #expect(throws: EncryptionError.wrongKey(path: path)) {
            try Database(path: path, options: Self.options(Self.key))
          }
          // Encrypted to plain.
          do {
            let db = try Database(path: path, options: Self.options(newKey, .aes256CBC))
            try db.rekey(to: nil)
            try db.close()
          }
          let plain = try Database(path: path)
          #expect(try Self.noteCount(plain) == 200)
          try plain.close()
          // The journal modes' own files are checkpointed into the database: read the file alone.
          #expect(try Self.contains(path, Self.plaintext))
        }
      }
    }

    @Test func rekeyWithoutACipherKeepsEachSchemasCipherAndSQLsPragmaRekeyTheMainOne() throws {
      try withTemporaryDirectory { directory in
        let main = directory.appendingPathComponent("main.db").path
        let other = directory.appendingPathComponent("other.db").path
        let otherKey = EncryptionKey.passphrase("other key")
        try Self.createDatabase(at: main, cipher: .sqlCipher(version: 3))
        try Self.createDatabase(at: other, key: otherKey, cipher: .aes256CBC)
        let db = try Database(path: main, options: Self.options(Self.key, .sqlCipher(version: 3)))
        try db.attach(path: other, as: "other", key: otherKey, cipher: .aes256CBC)
        try db.rekey(to: .passphrase("main 2"))
        try db.rekey(to: .passphrase("other 2"), schema: "other")
        // SQL's own rekey, after all that, still takes the main database's cipher.
        try db.execute(sql: "PRAGMA rekey = 'main 3'")
        try db.close()
        #expect(
          try Self.noteCount(Database(path: main, options: Self.options(.passphrase("main 3"), .sqlCipher(version: 3))))
            == 200)
        #expect(
          try Self.noteCount(Database(path: other, options: Self.options(.passphrase("other 2"), .aes256CBC))) == 200)
        #expect(throws: EncryptionError.wrongKey(path: main)) {
          try Database(path: main, options: Self.options(.passphrase("main 3")))
        }
      }
    }

    @Test func aCipherNamedAgainMeansItsOwnParametersNotThoseItWasOpenedWith() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("kdf.db").path
        let fewIterations = Cipher.chaCha20.setting("kdf_iter", to: 1_000)
        try Self.createDatabase(at: path, cipher: fewIterations)
        let db = try Database(path: path, options: Self.options(Self.key, fewIterations))
        try db.rekey(to: Self.key, cipher: .chaCha20)
        try db.close()
        #expect(try Self.noteCount(Database(path: path, options: Self.options(Self.key, .chaCha20))) == 200)
        #expect(throws: EncryptionError.wrongKey(path: path)) {
          try Database(path: path, options: Self.options(Self.key, fewIterations))
        }
      }
    }

    @Test func attachTakesItsOwnKeyOrNoneAndKeepsTheKeyOutOfTraces() throws {
      try withTemporaryDirectory { directory in
        let main = directory.appendingPathComponent("main.db").path
        let other = directory.appendingPathComponent("other.db").path
        let plain = directory.appendingPathComponent("plain.db").path
        let otherKey = EncryptionKey.passphrase("other-secret-key")
        try Self.createDatabase(at: main)
        try Self.createDatabase(at: other, key: otherKey, cipher: .sqlCipher(version: 4))
        try Self.createDatabase(at: plain, key: nil)

        let db = try Database(path: main, options: Self.options(Self.key))
        let traced = TraceLog()
        try db.setTraceHandler(for: .statement) { event in
          if case .statement(let sql, let expanded) = event { traced.lines.append(sql + " " + (expanded ?? "")) }
        }
        try db.attach(path: other, as: "other", key: otherKey, cipher: .sqlCipher(version: 4))
        try db.attach(path: plain, as: "plain", key: nil)
        let total = try db.prepare(
          sql:
            "SELECT (SELECT count(*) FROM main.note) + (SELECT count(*) FROM other.note) + (SELECT count(*) FROM plain.note)"
        ).front(Int.self)
        #expect(total == 600)
        #expect(traced.lines.contains { $0.contains("ATTACH") })
        #expect(traced.lines.allSatisfy { !$0.contains("other-secret-key") })
        #expect(throws: EncryptionError.wrongKey(path: other)) {
          try db.attach(path: other, as: "again", key: .passphrase("wrong"), cipher: .sqlCipher(version: 4))
        }
        #expect(throws: EncryptionError.notEncrypted(path: plain)) {
          try db.attach(path: plain, as: "again", key: otherKey)
        }
      }
    }

    @Test func keysNeverShowInDescriptionsOrErrors() throws {
      let key = EncryptionKey.passphrase("hunter2-secret")
      #expect(!"\(key)".contains("hunter2"))
      #expect(!String(reflecting: key).contains("hunter2"))
      #expect("\(Self.options(key))".contains("redacted"))
      #expect(!"\(Self.options(key))".contains("hunter2"))
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("secret.db").path
        try Self.createDatabase(at: path)
        do {
          _ = try Database(path: path, options: Self.options(key))
          Issue.record("a wrong key opened the database")
        } catch {
          #expect(!"\(error)".contains("hunter2") && !error.localizedDescription.contains("hunter2"))
          #expect(error.localizedDescription.contains("key"))
        }
      }
    }

    @Test func queuesAndPoolsApplyTheKeyToEveryConnection() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("pool.db").path
        var configuration = Configuration()
        configuration.key = Self.key
        configuration.cipher = .sqlCipher(version: 4)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in
          try db.batch(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('\(Self.plaintext)')")
        }
        async let first = pool.read { db in try db.prepare(sql: "SELECT body FROM note").front(String.self) }
        async let second = pool.read { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
        #expect(try await first == Self.plaintext)
        #expect(try await second == 1)
        try pool.close()
        #expect(try !Self.contains(path, Self.plaintext))
        if FileManager.default.fileExists(atPath: path + "-wal") {
          #expect(try !Self.contains(path + "-wal", Self.plaintext))
        }

        var wrong = configuration
        wrong.key = .passphrase("wrong")
        #expect(throws: EncryptionError.wrongKey(path: path)) { try DatabasePool(path: path, configuration: wrong) }
        #expect(throws: EncryptionError.wrongKey(path: path)) { try DatabaseQueue(path: path, configuration: wrong) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let count = try await queue.read { db in try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self) }
        #expect(count == 1)
      }
    }
  }
#endif
