#if ENCRYPTION
  import Amalgam
  import Foundation
  import Testing

  /// Encryption used wrongly: ciphers that C would misread, a rekey that would strand other connections, a
  /// failed encrypted copy, a missing key, keys in reflections, and a configuration Litestream cannot serve.
  @Suite struct EncryptionMisuseTests {
    static let key = EncryptionKey.passphrase("misuse key")

    static func options(_ key: EncryptionKey?, _ cipher: Cipher? = nil) -> Database.OpenOptions {
      var options = Database.OpenOptions()
      options.key = key
      options.cipher = cipher
      return options
    }

    static func makeDatabase(at path: String, journalMode: String = "DELETE") throws {
      let db = try Database(path: path, options: options(key))
      try db.execute(sql: "PRAGMA journal_mode = \(journalMode)")
      try db.batch(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('one'), ('two')")
      try db.close()
    }

    static func count(_ db: Database) throws -> Int? {
      try db.prepare(sql: "SELECT count(*) FROM note").front(Int.self)
    }

    @Test func aCipherNameWithANulAndSQLCipherVersionZeroAreRefused() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("x.db").path
        #expect(throws: EncryptionError.unknownCipher("chacha20\0x")) {
          try Database(path: path, options: Self.options(Self.key, Cipher(name: "chacha20\0x")))
        }
        #expect(throws: EncryptionError.invalidCipherParameter(cipher: "sqlcipher", name: "legacy", value: 0)) {
          try Database(path: path, options: Self.options(Self.key, .sqlCipher(version: 0)))
        }
        #expect(throws: EncryptionError.invalidCipherParameter(cipher: "chacha20", name: "kdf_iter\0x", value: 9)) {
          try Database(path: path, options: Self.options(Self.key, Cipher.chaCha20.setting("kdf_iter\0x", to: 9)))
        }
        #expect(throws: EncryptionError.invalidCipherParameter(cipher: "chacha20", name: "min:kdf_iter", value: 1)) {
          try Database(path: path, options: Self.options(Self.key, Cipher.chaCha20.setting("min:kdf_iter", to: 1)))
        }
        #expect(
          !FileManager.default.fileExists(atPath: path)
            || (try? Data(contentsOf: URL(fileURLWithPath: path)))?.isEmpty == true)
      }
    }

    @Test func aRekeyWhileAnotherConnectionHasTheWALDatabaseOpenIsRefusedAndTheOtherStillReads() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("wal.db").path
        try Self.makeDatabase(at: path, journalMode: "WAL")
        let db = try Database(path: path, options: Self.options(Self.key))
        let other = try Database(path: path, options: Self.options(Self.key))
        #expect(try Self.count(other) == 2)
        #expect(throws: EncryptionError.rekeyWouldStrandOtherConnections(path: path)) {
          try db.rekey(to: .passphrase("new key"))
        }
        #expect(try db.prepare(sql: "PRAGMA journal_mode").front(String.self) == "wal")
        #expect(try Self.count(other) == 2)
        #expect(try Self.count(db) == 2)
        // Alone, it re-keys.
        try other.close()
        try db.rekey(to: .passphrase("new key"))
        #expect(try db.prepare(sql: "PRAGMA journal_mode").front(String.self) == "wal")
        try db.close()
        #expect(try Self.count(Database(path: path, options: Self.options(.passphrase("new key")))) == 2)
      }
    }

    @Test func aQueuesOrAPoolsConnectionRefusesToRekeyAndItsReadersStillRead() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("pool.db").path
        var configuration = Configuration()
        configuration.key = Self.key
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in try db.batch(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('one')")
        }
        await #expect(throws: EncryptionError.rekeyWouldStrandOtherConnections(path: path)) {
          try await pool.write { db in try db.rekey(to: .passphrase("new key")) }
        }
        #expect(try await pool.read { db in try Self.count(db) } == 1)
        try pool.close()

        let queue = try DatabaseQueue(path: path, configuration: configuration)
        await #expect(throws: EncryptionError.rekeyWouldStrandOtherConnections(path: path)) {
          try await queue.write { db in try db.rekey(to: .passphrase("new key")) }
        }
        #expect(try await queue.read { db in try Self.count(db) } == 1)
      }
    }

    @Test func aConnectionLeftWithTheOldKeyIsToldTheFileLooksEncrypted() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("old.db").path
        try Self.makeDatabase(at: path)
        // Rollback-journal mode: an idle connection holds no lock, and cannot be seen.
        let stale = try Database(path: path, options: Self.options(Self.key))
        let db = try Database(path: path, options: Self.options(Self.key))
        try db.rekey(to: .passphrase("new key"))
        for reader in [stale, try Database(path: path)] {
          #expect {
            try Self.count(reader)
          } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.code == .notADatabase && error.message.contains("looks encrypted")
              && error.message.contains("key is missing or wrong") && error.message.contains("old.db")
          }
        }
        // A plain file that is not a database is not said to be encrypted.
        let plain = directory.appendingPathComponent("plain.db").path
        let plainDB = try Database(path: plain)
        try plainDB.execute(sql: "CREATE TABLE t(x)")
        #expect(try plainDB.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 0)
      }
    }

    @Test(arguments: [Cipher(name: "rot13"), Cipher.chaCha20.setting("no_such_parameter", to: 1)])
    func aFailedEncryptedCopyLeavesNothingOnDisk(cipher: Cipher) throws {
      try withTemporaryDirectory { directory in
        let db = try Database(path: directory.appendingPathComponent("source.db").path, options: Self.options(Self.key))
        try db.batch(sql: "CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('one')")
        let copy = directory.appendingPathComponent("copy.db").path
        #expect(throws: EncryptionError.self) {
          try db.vacuum(into: copy, key: .passphrase("copy key"), cipher: cipher)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy") }
        #expect(left == [])
        #expect(try db.prepare(sql: "SELECT count(*) FROM pragma_database_list").front(Int.self) == 1)
        // The connection's own encryption is untouched: a copy with the default cipher works.
        try db.vacuum(into: copy, key: .passphrase("copy key"))
        #expect(try Self.count(Database(path: copy, options: Self.options(.passphrase("copy key")))) == 1)
      }
    }

    @Test func noReflectionShowsAKey() {
      let key = EncryptionKey.passphrase("hunter2-secret")
      var options = Database.OpenOptions()
      options.key = key
      var configuration = Configuration()
      configuration.key = key
      #expect(Mirror(reflecting: key).children.isEmpty)
      for value in [key as Any, options, configuration] {
        var dumped = ""
        dump(value, to: &dumped)
        #expect(dumped.contains("EncryptionKey(redacted)"), "\(dumped)")
        #expect(!dumped.contains("bytes"), "\(dumped)")
        #expect(!Self.reflectsBytes(value, of: Array("hunter2-secret".utf8)))
      }
    }

    /// Whether the value or anything reflected under it is the array `bytes`, or holds them one by one.
    static func reflectsBytes(_ value: Any, of bytes: [UInt8]) -> Bool {
      if let array = value as? [UInt8], array == bytes { return true }
      let children = Mirror(reflecting: value).children.map(\.value)
      if children.count == bytes.count, children.compactMap({ $0 as? UInt8 }) == bytes { return true }
      return children.contains { reflectsBytes($0, of: bytes) }
    }

    @Test func walCheckpointingLeftToReplicatorIsRefusedWithAKey() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("replicated.db").path
        var configuration = Configuration()
        configuration.key = Self.key
        configuration.walCheckpointing = .leftToReplicator
        for open in [
          { _ = try DatabasePool(path: path, configuration: configuration) },
          { _ = try DatabaseQueue(path: path, configuration: configuration) },
        ] as [() throws -> Void] {
          #expect {
            try open()
          } throws: { error in
            guard case .invalidConfiguration(let message)? = error as? ConcurrencyError else { return false }
            return message.contains("leftToReplicator") && message.contains("encrypted")
          }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
      }
    }

    @Test func theKeyCheckAtOpenWaitsWithTheBusyTimeout() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("locked.db").path
        try Self.makeDatabase(at: path)
        let holder = try Database(path: path, options: Self.options(Self.key))
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        var configuration = Configuration()
        configuration.key = Self.key
        configuration.busyTimeout = 0.3
        // While the lock is held, opening fails only once the busy timeout has passed.
        let start = ContinuousClock.now
        #expect {
          try DatabaseQueue(path: path, configuration: configuration)
        } throws: { error in
          (error as? SQLiteError)?.code == .busy
        }
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        try holder.execute(sql: "COMMIT")
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        #expect(try await queue.read { db in try Self.count(db) } == 2)
      }
    }
  }
#endif
