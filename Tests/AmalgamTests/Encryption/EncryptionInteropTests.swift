#if ENCRYPTION
  import Amalgam
  import Foundation
  import Testing

  /// Encrypted files shared with other programs: Debian's `sqlcipher` shell (SQLCipher 3, its v3 format)
  /// and APSW built on SQLite3 Multiple Ciphers (`pip install apsw-sqlite3mc`), each reading what Amalgam
  /// wrote and writing what Amalgam reads.
  ///
  /// A program that is not installed skips its test, unless `AMALGAM_REQUIRE_ENCRYPTION_INTEROP` is set (CI
  /// sets it), in which case the test fails.
  @Suite struct EncryptionInteropTests {
    static let environment = ProcessInfo.processInfo.environment
    static var required: Bool { !(environment["AMALGAM_REQUIRE_ENCRYPTION_INTEROP"] ?? "").isEmpty }

    static let sqlcipher = ChildProcess.inPath("sqlcipher")

    /// A python3 whose `apsw` module is APSW on SQLite3 Multiple Ciphers.
    static let python: URL? = {
      guard let python = ChildProcess.inPath("python3") else { return nil }
      let process = Process()
      process.executableURL = python
      process.arguments = ["-c", "import apsw; apsw.mc_version"]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      guard (try? process.run()) != nil else { return nil }
      process.waitUntilExit()
      return process.terminationStatus == 0 ? python : nil
    }()

    static let passphrase = "interop passphrase"

    static func options(_ cipher: Cipher) -> Database.OpenOptions {
      var options = Database.OpenOptions()
      options.key = .passphrase(passphrase)
      options.cipher = cipher
      return options
    }

    /// Writes `path` through Amalgam with `cipher`: three rows, one with a non-ASCII text and a blob.
    static func writeWithAmalgam(_ path: String, _ cipher: Cipher) throws {
      let db = try Database(path: path, options: options(cipher))
      try db.batch(
        sql: """
          CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, data BLOB);
          INSERT INTO item VALUES (1, 'one', x'00ff'), (2, 'zwei ü', NULL), (3, 'three', x'c0ffee');
          """)
      try db.close()
    }

    static func readWithAmalgam(_ path: String, _ cipher: Cipher) throws -> [String] {
      let db = try Database(path: path, options: options(cipher))
      defer { try? db.close() }
      return try db.prepare(sql: "SELECT id || ':' || name || ':' || coalesce(hex(data), '') FROM item ORDER BY id")
        .column(0, as: String.self)
    }

    static let expected = ["1:one:00FF", "2:zwei ü:", "3:three:C0FFEE"]

    @Test(.enabled(if: sqlcipher != nil || required, "the sqlcipher shell is not installed"))
    func sqlcipherThreeReadsAmalgamsFilesAndAmalgamReadsItsFiles() async throws {
      let sqlcipher = try #require(Self.sqlcipher, "sqlcipher was not found in PATH (apt-get install sqlcipher)")
      try await withTemporaryDirectory { directory in
        let ours = directory.appendingPathComponent("amalgam-v3.db").path
        try Self.writeWithAmalgam(ours, .sqlCipher(version: 3))
        let read = try await ChildProcess.run(
          sqlcipher,
          [
            "-batch", "-cmd", "PRAGMA key = '\(Self.passphrase)';", ours,
            "SELECT id || ':' || name || ':' || coalesce(hex(data), '') FROM item ORDER BY id;",
          ], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.split(separator: "\n").map(String.init) == Self.expected)

        let theirs = directory.appendingPathComponent("sqlcipher-v3.db").path
        let write = try await ChildProcess.run(
          sqlcipher,
          [
            "-batch", "-cmd", "PRAGMA key = '\(Self.passphrase)';", theirs,
            "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, data BLOB); "
              + "INSERT INTO item VALUES (1, 'one', x'00ff'), (2, 'zwei ü', NULL), (3, 'three', x'c0ffee');",
          ], in: directory)
        #expect(write.status == 0, "\(write.stderr)")
        #expect(try Self.readWithAmalgam(theirs, .sqlCipher(version: 3)) == Self.expected)
        // SQLCipher 4's settings do not read SQLCipher 3's file.
        #expect(throws: EncryptionError.wrongKey(path: theirs)) {
          try Self.readWithAmalgam(theirs, .sqlCipher(version: 4))
        }
      }
    }

    /// The Python program that reads `path` with APSW and SQLite3 Multiple Ciphers, or writes it when
    /// `write` is set, with the cipher's `PRAGMA`s before the key.
    static func apswScript(cipherPragmas: String, passphrase: String = passphrase) -> String {
      """
      import apsw, sys
      path, write = sys.argv[1], sys.argv[2] == "write"
      db = apsw.Connection(path)
      for statement in \(cipherPragmas):
          db.execute(statement)
      db.execute("PRAGMA key = '\(passphrase)'")
      if write:
          db.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, data BLOB)")
          db.execute("INSERT INTO item VALUES (1, 'one', x'00ff'), (2, 'zwei ü', NULL), (3, 'three', x'c0ffee')")
      else:
          for (line,) in db.execute("SELECT id || ':' || name || ':' || coalesce(hex(data), '') FROM item ORDER BY id"):
              print(line)
      db.close()
      """
    }

    @Test(
      .enabled(if: python != nil || required, "APSW on SQLite3 Multiple Ciphers is not installed"),
      arguments: [
        (Cipher.chaCha20, #"["PRAGMA cipher = 'chacha20'"]"#),
        (Cipher.sqlCipher(version: 4), #"["PRAGMA cipher = 'sqlcipher'", "PRAGMA legacy = 4"]"#),
      ])
    func apswOnSQLite3MultipleCiphersReadsAmalgamsFilesAndAmalgamReadsItsFiles(
      cipher: Cipher, pragmas: String
    ) async throws {
      let python = try #require(Self.python, "python3 with apsw-sqlite3mc was not found (pip install apsw-sqlite3mc)")
      try await withTemporaryDirectory { directory in
        let script = Self.apswScript(cipherPragmas: pragmas)
        let ours = directory.appendingPathComponent("amalgam.db").path
        try Self.writeWithAmalgam(ours, cipher)
        let read = try await ChildProcess.run(python, ["-c", script, ours, "read"], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.split(separator: "\n").map(String.init) == Self.expected)

        let theirs = directory.appendingPathComponent("apsw.db").path
        let write = try await ChildProcess.run(python, ["-c", script, theirs, "write"], in: directory)
        #expect(write.status == 0, "\(write.stderr)")
        #expect(try Self.readWithAmalgam(theirs, cipher) == Self.expected)
      }
    }

    static let newPassphrase = "interop new passphrase"

    /// Writes `path` with `cipher`, then re-keys it to ``newPassphrase`` naming no cipher.
    static func writeAndRekeyWithoutACipher(_ path: String, _ cipher: Cipher) throws {
      try writeWithAmalgam(path, cipher)
      let db = try Database(path: path, options: options(cipher))
      try db.rekey(to: .passphrase(newPassphrase))
      try db.close()
    }

    @Test(.enabled(if: sqlcipher != nil || required, "the sqlcipher shell is not installed"))
    func aRekeyWithoutACipherKeepsSQLCipherThreeForSqlcipherToRead() async throws {
      let sqlcipher = try #require(Self.sqlcipher, "sqlcipher was not found in PATH (apt-get install sqlcipher)")
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("rekeyed-v3.db").path
        try Self.writeAndRekeyWithoutACipher(path, .sqlCipher(version: 3))
        let read = try await ChildProcess.run(
          sqlcipher,
          [
            "-batch", "-cmd", "PRAGMA key = '\(Self.newPassphrase)';", path,
            "SELECT id || ':' || name || ':' || coalesce(hex(data), '') FROM item ORDER BY id;",
          ], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.split(separator: "\n").map(String.init) == Self.expected)
      }
    }

    @Test(
      .enabled(if: python != nil || required, "APSW on SQLite3 Multiple Ciphers is not installed"),
      arguments: [
        (Cipher.aes256CBC, #"["PRAGMA cipher = 'aes256cbc'"]"#),
        (Cipher.sqlCipher(version: 3), #"["PRAGMA cipher = 'sqlcipher'", "PRAGMA legacy = 3"]"#),
        (Cipher.chaCha20.setting("kdf_iter", to: 1_000), #"["PRAGMA cipher = 'chacha20'", "PRAGMA kdf_iter = 1000"]"#),
      ])
    func aRekeyWithoutACipherKeepsTheCipherAndItsParametersForAPSWToRead(
      cipher: Cipher, pragmas: String
    ) async throws {
      let python = try #require(Self.python, "python3 with apsw-sqlite3mc was not found (pip install apsw-sqlite3mc)")
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("rekeyed.db").path
        try Self.writeAndRekeyWithoutACipher(path, cipher)
        let script = Self.apswScript(cipherPragmas: pragmas, passphrase: Self.newPassphrase)
        let read = try await ChildProcess.run(python, ["-c", script, path, "read"], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.split(separator: "\n").map(String.init) == Self.expected)
      }
    }
  }
#endif
