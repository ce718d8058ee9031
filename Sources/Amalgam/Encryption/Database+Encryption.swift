#if ENCRYPTION
  import AmalgamSQLite
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Darwin)
    import Darwin
  #endif

  /// The first 16 bytes of every unencrypted SQLite database file.
  private let plainHeader = Array("SQLite format 3\0".utf8)

  extension Database {
    /// The version of SQLite3 Multiple Ciphers compiled in, such as "SQLite3 Multiple Ciphers 2.4.0".
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public static var encryptionLibraryVersion: String { String(cString: sqlite3mc_version()) }

    /// The names of the ciphers compiled in (`chacha20`, `aes128cbc`, ...), in SQLite3 Multiple Ciphers'
    /// order.
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public static var availableCiphers: [String] {
      (1...max(1, Int(sqlite3mc_cipher_count()))).compactMap { index in
        guard let name = sqlite3mc_cipher_name(Int32(index)), name.pointee != 0 else { return nil }
        return String(cString: name)
      }
    }

    /// What this connection remembers of its encryption.
    var encryption: EncryptionState { connection.state(EncryptionState.self) }

    /// Throws for a cipher that SQLite3 Multiple Ciphers would misread: a name or a parameter name with a
    /// NUL (C reads it cut at the NUL) or a `default:`, `min:` or `max:` prefix (which would read or change
    /// another setting than the one named), a name it does not know, or a SQLCipher version other than 1 to 4.
    static func validate(_ cipher: Cipher) throws {
      guard !cipher.name.isEmpty, !cipher.name.utf8.contains(0), sqlite3mc_cipher_index(cipher.name) > 0 else {
        throw EncryptionError.unknownCipher(cipher.name)
      }
      for parameter in cipher.parameters {
        let name = parameter.name
        let isSQLCipherVersion = cipher.name.lowercased() == "sqlcipher" && name.lowercased() == "legacy"
        guard !name.isEmpty, !name.utf8.contains(0), !name.contains(":"), Int32(exactly: parameter.value) != nil,
          parameter.value >= 0, !isSQLCipherVersion || (1...4).contains(parameter.value)
        else {
          throw EncryptionError.invalidCipherParameter(cipher: cipher.name, name: name, value: parameter.value)
        }
      }
    }

    /// The names of the parameters of the cipher `name` (`kdf_iter`, `legacy`, ...), from SQLite3 Multiple
    /// Ciphers' `sqlite3mc_config` SQL function.
    func parameterNames(ofCipher name: String) throws -> [String] {
      let list = try connection.runningOwnStatements {
        try prepare(sql: "SELECT sqlite3mc_config(?)").bind(parameterValues: [name]).front(String.self)
      }
      return (list ?? "").split(separator: ",").map(String.init)
    }

    /// Makes `cipher` the connection's cipher for the next key, rekey or attach, with exactly its
    /// parameters (the others at SQLite3 Multiple Ciphers' defaults). With `asDefault`, also for every
    /// later one that names no cipher, including SQL's `PRAGMA rekey` and `ATTACH ... KEY`: SQLite3
    /// Multiple Ciphers resets its settings to these defaults after each use, as `PRAGMA cipher` on the
    /// main database does.
    func configure(_ cipher: Cipher, asDefault: Bool) throws {
      try Self.validate(cipher)
      let prefix = asDefault ? "default:" : ""
      // A default set earlier for the same cipher (the main database's parameters) would otherwise fill in
      // the parameters this one leaves out.
      var resets: [(name: String, value: Int32)] = []
      if let current = encryption.cipher(of: "main"), current.name.lowercased() == cipher.name.lowercased(),
        !current.parameters.isEmpty
      {
        resets = try parameterNames(ofCipher: cipher.name).compactMap { name in
          let value = sqlite3mc_config_cipher(nil, cipher.name, "default:" + name, -1)
          return value >= 0 ? (name, value) : nil
        }
      }
      try connection.withHandle { handle in
        for reset in resets { _ = sqlite3mc_config_cipher(handle, cipher.name, prefix + reset.name, reset.value) }
        let index = sqlite3mc_cipher_index(cipher.name)
        guard sqlite3mc_config(handle, prefix + "cipher", index) == index else {
          throw EncryptionError.unknownCipher(cipher.name)
        }
        for parameter in cipher.parameters {
          let value = Int32(parameter.value)
          guard sqlite3mc_config_cipher(handle, cipher.name, prefix + parameter.name, value) == value else {
            throw EncryptionError.invalidCipherParameter(
              cipher: cipher.name, name: parameter.name, value: parameter.value)
          }
        }
      }
      if asDefault { encryption.setCipher(cipher, of: "main") }
    }

    /// Puts the settings of `cipher` back to the connection's defaults, after an operation that may have
    /// failed before SQLite3 Multiple Ciphers used (and so reset) them.
    func restoreDefaults(of cipher: Cipher) {
      guard let names = try? parameterNames(ofCipher: cipher.name) else { return }
      try? connection.withHandle { handle in
        _ = sqlite3mc_config(handle, "cipher", sqlite3mc_config(handle, "default:cipher", -1))
        for name in names {
          let value = sqlite3mc_config_cipher(handle, cipher.name, "default:" + name, -1)
          if value >= 0 { _ = sqlite3mc_config_cipher(handle, cipher.name, name, value) }
        }
      }
    }

    /// Makes `previous` the connection's default cipher again, after a rekey of the main database to
    /// `failed` did not happen; SQLite3 Multiple Ciphers' own default when `previous` is nil.
    func restoreMainCipher(_ previous: Cipher?, replacing failed: Cipher) {
      if let previous {
        try? configure(previous, asDefault: true)
        return
      }
      let names = (try? parameterNames(ofCipher: failed.name)) ?? []
      try? connection.withHandle { handle in
        let index = sqlite3mc_config(nil, "default:cipher", -1)
        if index > 0 {
          _ = sqlite3mc_config(handle, "default:cipher", index)
        }
        for name in names {
          let value = sqlite3mc_config_cipher(nil, failed.name, "default:" + name, -1)
          if value >= 0 { _ = sqlite3mc_config_cipher(handle, failed.name, "default:" + name, value) }
        }
      }
      encryption.setCipher(nil, of: "main")
    }

    /// Sets the cipher and the key of a connection that was just opened, then reads the schema, so that a
    /// wrong key fails here rather than at the first query; that read waits for locks up to `busyTimeout`
    /// seconds (another connection may be recovering the write-ahead log). Called by `init(path:options:)`.
    func applyEncryption(key: EncryptionKey?, cipher: Cipher?, busyTimeout: Double?) throws {
      if let cipher { try configure(cipher, asDefault: true) }
      guard let key else { return }
      try connection.withHandle { handle in
        // An empty key is SQLite3 Multiple Ciphers' "no encryption"; it still needs a pointer.
        let rc = key.bytes.withUnsafeBytes { bytes in
          bytes.baseAddress.map { sqlite3_key_v2(handle, "main", $0, Int32(bytes.count)) }
            ?? sqlite3_key_v2(handle, "main", "", 0)
        }
        guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: handle) }
      }
      if let busyTimeout { try setBusyTimeout(busyTimeout) }
      do {
        _ = try prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self)
      } catch let error as SQLiteError where error.code == .notADatabase {
        let file = try connection.withHandle { handle in sqlite3_db_filename(handle, "main").map { String(cString: $0) }
        }
        throw Self.encryptionError(file: file, path: path, cipher: cipher)
      }
    }

    /// ``EncryptionError/notEncrypted(path:)`` when `file` is a plain SQLite file, otherwise
    /// ``EncryptionError/wrongKey(path:)``: what `SQLITE_NOTADB` means once a key was given.
    static func encryptionError(file: String?, path: String, cipher: Cipher?) -> EncryptionError {
      // SQLCipher's plaintext-header mode leaves the plain header on an encrypted file.
      let plaintextHeader = cipher?.parameters.contains { $0.name == "plaintext_header_size" && $0.value > 0 }
      if plaintextHeader != true, let file, fileStartsWithPlainHeader(file) {
        return EncryptionError.notEncrypted(path: path)
      }
      return EncryptionError.wrongKey(path: path)
    }

    /// What to add to SQLite's "file is not a database" when a file of the connection does not start with
    /// SQLite's header: it looks encrypted, and the key is missing or wrong. `nil` otherwise.
    static func notADatabaseHint(connection handle: OpaquePointer) -> String? {
      var index: Int32 = 0
      while let name = sqlite3_db_name(handle, index) {
        index += 1
        guard let filename = sqlite3_db_filename(handle, name), filename.pointee != 0 else { continue }
        let file = String(cString: filename)
        if fileStartsWithOtherHeader(file) {
          return "\(file) does not start with SQLite's header: it looks encrypted, and its key is missing or wrong"
        }
      }
      return nil
    }

    /// Encrypts the database, changes its key, or decrypts it (`key` nil): every page is rewritten.
    ///
    /// `cipher` is the cipher of the new key. When it is nil the schema keeps the cipher it was opened,
    /// attached or last re-keyed with, parameters included (``Database/OpenOptions/cipher``,
    /// ``attach(path:as:key:cipher:)``), or takes ChaCha20 when none was given. A new cipher for the main
    /// database becomes the connection's cipher for later rekeys.
    ///
    /// Every other connection to the file would be left with the old key, unable to read, so a rekey is
    /// refused (``EncryptionError/rekeyWouldStrandOtherConnections(path:)``) when this connection belongs
    /// to a ``DatabaseQueue`` or a ``DatabasePool`` (which open their connections with their
    /// ``Configuration/key``: close it, re-key with a `Database` of its own, and open it again with the new
    /// key), or when the database is in WAL mode and another connection has it open. In a rollback-journal
    /// mode an idle connection holds no lock, so close the others first: they would read
    /// "file is not a database" afterwards.
    ///
    /// A database in WAL mode is re-keyed in `DELETE` mode, and switched back to WAL (SQLite3 Multiple
    /// Ciphers cannot encrypt a plain database in WAL mode, and the switch is what shows that no other
    /// connection has the file open).
    ///
    /// - Throws: ``EncryptionError`` for a cipher it does not know or another connection to the file,
    ///   ``SQLiteError`` when SQLite3 Multiple Ciphers refuses (a page size the cipher cannot keep, ...).
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func rekey(to key: EncryptionKey?, cipher: Cipher? = nil, schema: String = "main") throws {
      if encryption.keyIsShared {
        throw EncryptionError.rekeyWouldStrandOtherConnections(path: path)
      }
      try rekeyAlone(to: key, cipher: cipher, schema: schema)
    }

    /// ``rekey(to:cipher:schema:)`` without its refusal for a queue's or pool's connection: for a copy that
    /// only this connection has open.
    func rekeyAlone(to key: EncryptionKey?, cipher: Cipher?, schema: String) throws {
      let cipherForKey = cipher ?? encryption.cipher(of: schema)
      if let cipher { try Self.validate(cipher) }
      let isMain = schema.lowercased() == "main"
      let previousMain = encryption.cipher(of: "main")
      func rekeyOnce() throws {
        if key != nil, let cipherForKey { try configure(cipherForKey, asDefault: isMain) }
        do {
          try connection.withHandle { handle in
            let bytes = key?.bytes ?? []
            let rc = bytes.withUnsafeBytes { buffer in
              sqlite3_rekey_v2(handle, schema, bytes.isEmpty ? nil : buffer.baseAddress, Int32(bytes.count))
            }
            guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: handle) }
          }
        } catch {
          if key != nil, let cipherForKey {
            if !isMain {
              restoreDefaults(of: cipherForKey)
            } else if cipher != nil {
              restoreMainCipher(previousMain, replacing: cipherForKey)
            }
          }
          throw error
        }
      }
      let journalMode = "PRAGMA \(quoteIdentifier(schema)).journal_mode"
      if try prepare(sql: journalMode).front(String.self)?.lowercased() == "wal" {
        // Leaving WAL mode needs the only connection to the file: the others would be left with the old key.
        let mode = try? prepare(sql: "\(journalMode) = delete").front(String.self)?.lowercased()
        guard mode == "delete" else {
          throw EncryptionError.rekeyWouldStrandOtherConnections(path: filename(schema: schema) ?? path)
        }
        var failure: (any Error)?
        do { try rekeyOnce() } catch { failure = error }
        let actual = try prepare(sql: "\(journalMode) = wal").front(String.self)?.lowercased()
        if let failure { throw failure }
        guard actual == "wal" else {
          throw SQLiteError(code: .error, message: "The journal mode stayed \(actual ?? "unknown") instead of wal")
        }
      } else {
        try rekeyOnce()
      }
      if let cipher { encryption.setCipher(cipher, of: schema) }
    }

    /// Writes a compacted copy of the main database to a new file at `path`, encrypted with `key` and
    /// `cipher`, or plain when `key` is nil, whatever the encryption of this database: the way to make a
    /// plain copy of an encrypted database, or an encrypted copy of a plain one. The database itself does
    /// not change. (SQLite's online backup, ``backup(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:progress:)``,
    /// copies only between databases that are both plain, or both encrypted with the same page layout.)
    ///
    /// `cipher` nil gives the copy the main database's cipher. The copy is written by `VACUUM INTO` with
    /// this database's own encryption, then re-encrypted in place (`sqlite3_rekey_v2`) before this call
    /// returns; when that fails, the copy is deleted. A plain copy of an encrypted database holds its
    /// content in clear: keep it where the database itself could be.
    ///
    /// ```swift
    /// try db.vacuum(into: exportPath, key: nil)  // a plain copy
    /// ```
    ///
    /// - Throws: ``SQLiteError`` when `path` exists and is not empty, cannot be created, or when called
    ///   inside a transaction; ``EncryptionError`` for a cipher SQLite3 Multiple Ciphers does not know
    ///   (before anything is written).
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html#vacuuminto>
    public func vacuum(into path: String, key: EncryptionKey?, cipher: Cipher? = nil) throws {
      if let cipher { try Self.validate(cipher) }
      try vacuum(into: path)
      let schema = "amalgam_copy_\(UInt32.random(in: 0...UInt32.max))"
      // Without a KEY clause the attached copy takes the main database's encryption, as VACUUM INTO gave it.
      do {
        try execute(sql: "ATTACH DATABASE ? AS \(quoteIdentifier(schema))", parameterValues: [path])
      } catch {
        Self.removeDatabaseFiles(at: path)
        throw error
      }
      encryption.setCipher(encryption.cipher(of: "main"), of: schema)
      defer { encryption.setCipher(nil, of: schema) }
      do {
        try rekeyAlone(to: key, cipher: cipher, schema: schema)
      } catch {
        try? execute(sql: "DETACH DATABASE \(quoteIdentifier(schema))")
        Self.removeDatabaseFiles(at: path)
        throw error
      }
      try execute(sql: "DETACH DATABASE \(quoteIdentifier(schema))")
    }

    /// Deletes a database file this connection made, with its journal and write-ahead log.
    static func removeDatabaseFiles(at path: String) {
      for suffix in ["", "-journal", "-wal", "-shm"] { _ = unlink(path + suffix) }
    }

    /// Attaches the database file at `path` as `schema`, decrypted with `key`, or unencrypted when `key`
    /// is nil (an attached database otherwise takes the main database's key), and checks that the key
    /// opens it. `cipher` is its cipher: the main database's when nil. It is remembered for a later
    /// ``rekey(to:cipher:schema:)`` of `schema`. The key travels as a bound value of `ATTACH ... KEY ?`,
    /// which traces report without values.
    ///
    /// - Throws: ``EncryptionError/wrongKey(path:)`` or ``EncryptionError/notEncrypted(path:)`` when the
    ///   key does not fit the file, ``SQLiteError`` when SQLite cannot attach it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_attach.html>
    public func attach(path: String, as schema: String, key: EncryptionKey?, cipher: Cipher? = nil) throws {
      if let cipher { try Self.validate(cipher) }
      if key != nil, let cipher { try configure(cipher, asDefault: false) }
      let statement = try prepare(sql: "\(redactedParametersMarker) ATTACH DATABASE ?1 AS ?2 KEY ?3")
      try statement.bind(value: path, toParameter: 1)
      try statement.bind(value: schema, toParameter: 2)
      try statement.bind(value: Data(key?.bytes ?? []), toParameter: 3)
      do {
        try statement.execute()
      } catch let error as SQLiteError where error.code == .notADatabase {
        if key != nil, let cipher { restoreDefaults(of: cipher) }
        throw Self.encryptionError(file: path, path: path, cipher: cipher)
      } catch {
        if key != nil, let cipher { restoreDefaults(of: cipher) }
        throw error
      }
      encryption.setCipher(key == nil ? nil : cipher ?? encryption.cipher(of: "main"), of: schema)
    }
  }

  /// The first bytes of the file at `path`, as many as SQLite's header has, or fewer when the file is
  /// shorter; nil when it cannot be read.
  private func fileHeader(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var header = [UInt8](repeating: 0, count: plainHeader.count)
    let count = fread(&header, 1, header.count, file)
    return Array(header.prefix(count))
  }

  /// Whether the file at `path` starts with the header of an unencrypted SQLite database.
  private func fileStartsWithPlainHeader(_ path: String) -> Bool {
    fileHeader(path) == plainHeader
  }

  /// Whether the file at `path` is long enough to hold SQLite's header and starts with something else.
  private func fileStartsWithOtherHeader(_ path: String) -> Bool {
    guard let header = fileHeader(path), header.count == plainHeader.count else { return false }
    return header != plainHeader
  }

#endif
