#if ENCRYPTION
  import Amalgam
  import Foundation
  import Testing

  /// The examples of the article "Encrypting a database", verbatim, run against files in a temporary folder.
  @Suite struct EncryptingArticleTests {
    @Test func openingRekeyingAndCopying() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("app.db").path
        let plainPath = directory.appendingPathComponent("plain.db").path
        let exportPath = directory.appendingPathComponent("export.db").path
        let encryptedPath = directory.appendingPathComponent("encrypted.db").path
        do {
          let plain = try Database(path: plainPath)
          try plain.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
        }
        do {
          var options = Database.OpenOptions()
          options.key = .passphrase("correct horse battery staple")
          let db = try Database(path: path, options: options)
          try db.execute(sql: "CREATE TABLE t(x)")
          try db.execute(sql: "INSERT INTO t VALUES (7)")
          options.cipher = Cipher.chaCha20.setting("kdf_iter", to: 256_000)
          #expect(options.cipher?.parameters.map(\.name) == ["kdf_iter"])
          #expect(options.cipher?.parameters.map(\.value) == [256_000])

          try db.vacuum(into: exportPath, key: nil)  // a plain copy
          let plain = try Database(path: plainPath)
          let newKey = EncryptionKey.passphrase("correct horse battery staple")
          try plain.vacuum(into: encryptedPath, key: newKey, cipher: .chaCha20)
          #expect(try Database(path: exportPath).prepare(sql: "SELECT x FROM t").front(Int.self) == 7)
          options.cipher = .chaCha20
          let encrypted = try Database(path: encryptedPath, options: options)
          #expect(try encrypted.prepare(sql: "SELECT x FROM t").front(Int.self) == 42)
        }
        do {
          let db = try Database(path: plainPath)
          try db.rekey(to: .passphrase("correct horse battery staple"))
          try db.close()
          #expect(throws: EncryptionError.notEncrypted(path: exportPath)) {
            var options = Database.OpenOptions()
            options.key = .passphrase("correct horse battery staple")
            _ = try Database(path: exportPath, options: options)
          }
        }
      }
    }

    @Test func poolsAndAttachedDatabases() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("app.db").path
        let archivePath = directory.appendingPathComponent("archive.db").path
        let plainPath = directory.appendingPathComponent("plain.db").path
        let keyFromKeychain = Data((0..<32).map { UInt8($0) })
        do {
          var options = Database.OpenOptions()
          options.key = .passphrase("archive key")
          options.cipher = .sqlCipher(version: 4)
          try Database(path: archivePath, options: options).execute(sql: "CREATE TABLE a(x)")
          try Database(path: plainPath).execute(sql: "CREATE TABLE p(x)")
        }
        var configuration = Configuration()
        configuration.key = .data(keyFromKeychain)
        configuration.cipher = .sqlCipher(version: 4)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.sync { db in
          let archiveKey = EncryptionKey.passphrase("archive key")
          try db.attach(path: archivePath, as: "archive", key: archiveKey, cipher: .sqlCipher(version: 4))
          try db.attach(path: plainPath, as: "plain", key: nil)
          let tables = try db.prepare(
            sql: "SELECT (SELECT name FROM archive.sqlite_schema) || (SELECT name FROM plain.sqlite_schema)"
          ).front(String.self)
          #expect(tables == "ap")
        }
        try pool.close()
      }
    }
  }
#endif
