import Amalgam
import Foundation
import Testing

/// `amalgam sql` and `amalgam shell` on encrypted databases (`--key-env`, `--key-file`, `--key`, `--cipher`),
/// and the message of a build without the ENCRYPTION trait.
extension CommandLineToolTests {
  #if ENCRYPTION
    /// An encrypted database with one row, written through the library with `passphrase` and `cipher`.
    static func makeEncryptedDatabase(at path: String, passphrase: String, cipher: Cipher? = nil) throws {
      var options = Database.OpenOptions()
      options.key = .passphrase(passphrase)
      options.cipher = cipher
      let db = try Database(path: path, options: options)
      try db.batch(sql: "CREATE TABLE secret(word TEXT); INSERT INTO secret VALUES ('swordfish')")
      try db.close()
    }

    @Test func sqlReadsAnEncryptedDatabaseWithAKeyFromTheEnvironmentAFileOrTheCommandLine() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("secret.db").path
        // PATH is always set in the tool's environment (inherited from the test): its value is the key.
        let passphrase = try #require(ProcessInfo.processInfo.environment["PATH"])
        try Self.makeEncryptedDatabase(at: path, passphrase: passphrase)
        let keyFile = directory.appendingPathComponent("key.txt").path
        try (passphrase + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)

        for keyArguments in [["--key-env", "PATH"], ["--key-file", keyFile], ["--key", passphrase]] {
          let result = try await AmalgamTool.run(["sql", path, "SELECT word FROM secret", "--csv"] + keyArguments)
          #expect(result.status == 0, "\(keyArguments[0]): \(result.stderr)")
          #expect(result.stdout == "word\r\nswordfish\r\n", "\(keyArguments[0])")
        }
        // A wrong key: the library's message, which names neither key.
        let wrong = try await AmalgamTool.run(["sql", path, "SELECT word FROM secret", "--key", "not-the-key"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("The key does not open the database"))
        #expect(!wrong.stderr.contains("not-the-key") && !wrong.stderr.contains(passphrase))
        // A variable that is not set.
        let unset = try await AmalgamTool.run(["sql", path, "SELECT 1", "--key-env", "AMALGAM_NO_SUCH_VARIABLE_7f3"])
        #expect(unset.status == 1)
        #expect(unset.stderr.contains("AMALGAM_NO_SUCH_VARIABLE_7f3 that --key-env names is not set"))
      }
    }

    @Test func sqlAndShellTakeTheCipher() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("v3.db").path
        try Self.makeEncryptedDatabase(at: path, passphrase: "it's a secret", cipher: .sqlCipher(version: 3))
        let sql = try await AmalgamTool.run(
          ["sql", path, "SELECT word FROM secret", "--csv", "--key", "it's a secret", "--cipher", "sqlcipher-v3"])
        #expect(sql.stdout == "word\r\nswordfish\r\n", "\(sql.stderr)")
        let shell = try await AmalgamTool.run(
          ["shell", "--key", "it's a secret", "--cipher", "sqlcipher-v3", path],
          standardInput: "SELECT word FROM secret;\n")
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == "swordfish\n")
        // Without the key the shell reads nothing.
        let noKey = try await AmalgamTool.run(["shell", path], standardInput: "SELECT word FROM secret;\n")
        #expect(noKey.stdout == "")
        #expect(noKey.stderr.contains("file is not a database"))
      }
    }

    @Test func shellWithAKeyNumbersTheArgumentsAsTyped() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("secret.db").path
        try Self.makeEncryptedDatabase(at: path, passphrase: "secret", cipher: .sqlCipher(version: 3))
        // After `shell`: --key 1, secret 2, --cipher 3, sqlcipher-v3 4, the database 5, then the SQL.
        let result = try await AmalgamTool.run(
          ["shell", "--key", "secret", "--cipher", "sqlcipher-v3", path, "SELECT word FROM secret", "SELEC 1"])
        #expect(result.stdout == "swordfish\n")
        #expect(result.stderr.hasPrefix("Parse error in 7th command line argument:"), "\(result.stderr)")
        // The shell's own -cmd option, counted likewise.
        let command = try await AmalgamTool.run(["shell", "--key", "secret", "-cmd", "SELEC 2", ":memory:"])
        #expect(command.stderr.hasPrefix("Parse error in 4th command line argument:"), "\(command.stderr)")
      }
    }

    @Test func shellWithAKeyAndBailRunsEveryCommand() async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("secret.db").path
        try Self.makeEncryptedDatabase(at: path, passphrase: "secret")
        let result = try await AmalgamTool.run(
          ["shell", "--key", "secret", "-bail", path, "SELECT word FROM secret", "SELECT 'and more'"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "swordfish\nand more\n")
        // A later `.open` of another file is not keyed: a plain database opens.
        let plain = directory.appendingPathComponent("plain.db").path
        let db = try Database(path: plain)
        try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES ('plain')")
        try db.close()
        let both = try await AmalgamTool.run(
          ["shell", "--key", "secret", path],
          standardInput: "SELECT word FROM secret;\n.open '\(plain)'\nSELECT x FROM t;\n")
        #expect(both.stdout == "swordfish\nplain\n", "\(both.stderr)")
      }
    }

    @Test func shellNamesAnUnknownCipher() async throws {
      let result = try await AmalgamTool.run(["shell", "--key", "k", "--cipher", "rot13", ":memory:", "SELECT 1"])
      #expect(result.status == 1)
      #expect(result.stdout == "")
      #expect(result.stderr == "amalgam: error: SQLite3 Multiple Ciphers has no cipher named \"rot13\"\n")
    }

    @Test(arguments: ["sql", "shell"])
    func pragmaRekeyKeepsTheCipherOfTheCipherOption(command: String) async throws {
      try await withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("v3.db").path
        try Self.makeEncryptedDatabase(at: path, passphrase: "old", cipher: .sqlCipher(version: 3))
        // Two re-keys in one run: each one keeps SQLCipher 3's format.
        let rekeys = "PRAGMA rekey = 'middle'; PRAGMA rekey = 'new';"
        let keyArguments = ["--key", "old", "--cipher", "sqlcipher-v3"]
        let result =
          command == "sql"
          ? try await AmalgamTool.run(["sql", path, rekeys] + keyArguments)
          : try await AmalgamTool.run(["shell"] + keyArguments + [path], standardInput: rekeys + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        var options = Database.OpenOptions()
        options.key = .passphrase("new")
        options.cipher = .sqlCipher(version: 3)
        let db = try Database(path: path, options: options)
        #expect(try db.prepare(sql: "SELECT word FROM secret").front(String.self) == "swordfish")
      }
    }

    #if ENABLE_DBPAGE_VTAB
      @Test(arguments: [nil, "sqlcipher-v3"])
      func rsyncCopiesAnEncryptedDatabaseWhoseSidesHaveTheSameKey(cipher: String?) async throws {
        try await withTemporaryDirectory { directory in
          let origin = directory.appendingPathComponent("origin.db").path
          let replica = directory.appendingPathComponent("replica.db").path
          var configuration = Configuration()
          configuration.key = .passphrase("rsync secret")
          configuration.cipher = cipher == nil ? nil : .sqlCipher(version: 3)
          let pool = try DatabasePool(path: origin, configuration: configuration)
          try await pool.write { db in
            try db.batch(
              sql: """
                CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 1000)
                INSERT INTO note SELECT n, 'plaintext note ' || n FROM k;
                """)
          }
          let arguments =
            ["rsync", "--key", "rsync secret"] + (cipher.map { ["--cipher", $0] } ?? []) + [origin, replica]
          let digest = "SELECT count(*) || ':' || group_concat(body, ',') FROM (SELECT body FROM note ORDER BY id)"
          for round in 1...2 {
            let result = try await AmalgamTool.run(arguments)
            #expect(result.status == 0, "round \(round): \(result.stderr)")
            let expected = try await pool.read { db in try db.prepare(sql: digest).front(String.self) }
            let copy = try DatabaseQueue(path: replica, configuration: configuration)
            let copied = try await copy.read { db in
              (
                try db.prepare(sql: digest).front(String.self),
                try db.prepare(sql: "PRAGMA integrity_check").front(String.self)
              )
            }
            #expect(copied.0 == expected && copied.1 == "ok", "round \(round)")
            try copy.close()
            let bytes = try Data(contentsOf: URL(fileURLWithPath: replica))
            #expect(bytes.range(of: Data("plaintext note".utf8)) == nil)
            #expect(!bytes.starts(with: Data("SQLite format 3".utf8)))
            try await pool.write { db in
              try db.execute(sql: "UPDATE note SET body = body || ' again' WHERE id % 10 = 0")
            }
          }
          try pool.close()
          // A plain database as the replica: the key does not open it.
          let plain = directory.appendingPathComponent("plain.db").path
          try Database(path: plain).execute(sql: "CREATE TABLE t(x)")
          let refused = try await AmalgamTool.run(
            ["rsync", "--key", "rsync secret"] + (cipher.map { ["--cipher", $0] } ?? []) + [origin, plain])
          #expect(refused.status == 1)
          #expect(
            refused.stderr
              == "amalgam: error: rsync: the replica \(plain) exists and is not a database that the key opens\n")
          // sqlite3_rsync starts a remote side with arguments only: a key is for two local databases.
          let remote = try await AmalgamTool.run(["rsync", "--key", "rsync secret", origin, "user@host:replica.db"])
          #expect(remote.status == 2)
          #expect(remote.stderr.contains("two local databases only") && !remote.stderr.contains("rsync secret"))
        }
      }
    #endif

    @Test func infoNamesTheEncryptionLibraryAndNoKey() async throws {
      let result = try await AmalgamTool.run(["info"])
      #expect(result.stdout.contains("encryption:") && result.stdout.contains("SQLite3 Multiple Ciphers 2.4.0"))
      #expect(result.stdout.contains("ENCRYPTION"))
    }
  #else
    @Test func keyOptionsNameTheEncryptionTraitInABuildWithoutIt() async throws {
      let result = try await AmalgamTool.run(["sql", ":memory:", "SELECT 1", "--key-env", "HOME"])
      #expect(result.status == 2)
      #expect(result.stderr.contains("ENCRYPTION trait"))
      let shell = try await AmalgamTool.run(["shell", "--key", "x", ":memory:"], standardInput: "SELECT 1;\n")
      #expect(shell.status == 2)
      #expect(shell.stderr.contains("ENCRYPTION trait"))
    }
  #endif
}
