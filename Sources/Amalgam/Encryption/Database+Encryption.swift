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

    /// Makes `cipher` the connection's cipher for the next key, rekey or attach.
    static func configure(_ cipher: Cipher, on handle: OpaquePointer) throws {
      let index = sqlite3mc_cipher_index(cipher.name)
      guard index > 0, sqlite3mc_config(handle, "cipher", index) == index else {
        throw EncryptionError.unknownCipher(cipher.name)
      }
      for parameter in cipher.parameters {
        guard let value = Int32(exactly: parameter.value), value >= 0,
          sqlite3mc_config_cipher(handle, cipher.name, parameter.name, value) == value
        else {
          throw EncryptionError.invalidCipherParameter(
            cipher: cipher.name, name: parameter.name, value: parameter.value)
        }
      }
    }

    /// Sets the cipher and the key of a connection that was just opened, then reads the schema, so that a
    /// wrong key fails here rather than at the first query. Called by `init(path:options:)`.
    func applyEncryption(key: EncryptionKey?, cipher: Cipher?) throws {
      try connection.withHandle { handle in
        if let cipher { try Self.configure(cipher, on: handle) }
        guard let key else { return }
        // An empty key is SQLite3 Multiple Ciphers' "no encryption"; it still needs a pointer.
        let rc = key.bytes.withUnsafeBytes { bytes in
          bytes.baseAddress.map { sqlite3_key_v2(handle, "main", $0, Int32(bytes.count)) }
            ?? sqlite3_key_v2(handle, "main", "", 0)
        }
        guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: handle) }
      }
      guard key != nil else { return }
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

    /// Encrypts the database, changes its key, or decrypts it (`key` nil): every page is rewritten.
    ///
    /// `cipher` is the cipher of the new key (the connection's current one when nil: the one it was
    /// opened with, or ChaCha20). SQLite3 Multiple Ciphers cannot encrypt a plain database in WAL mode:
    /// rekey switches such a database to `DELETE` journal mode for the time of the rekey and back to WAL,
    /// which needs it to be the only connection to the file. Connections opened earlier with the old key
    /// can no longer read the database.
    ///
    /// - Throws: ``EncryptionError`` for a cipher it does not know, ``SQLiteError`` when SQLite3 Multiple
    ///   Ciphers refuses (a page size the cipher cannot keep, another connection in the file, ...).
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public func rekey(to key: EncryptionKey?, cipher: Cipher? = nil, schema: String = "main") throws {
      func rekeyOnce() throws {
        try connection.withHandle { handle in
          if let cipher { try Self.configure(cipher, on: handle) }
          let bytes = key?.bytes ?? []
          let rc = bytes.withUnsafeBytes { buffer in
            sqlite3_rekey_v2(handle, schema, bytes.isEmpty ? nil : buffer.baseAddress, Int32(bytes.count))
          }
          guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: handle) }
        }
      }
      let journalMode = "PRAGMA \(quoteIdentifier(schema)).journal_mode"
      do {
        return try rekeyOnce()
      } catch let error as SQLiteError {
        guard key != nil, try prepare(sql: journalMode).front(String.self)?.lowercased() == "wal" else { throw error }
      }
      // A plain database in WAL mode: encrypt it in DELETE mode, then go back to WAL.
      func setJournalMode(_ mode: String) throws {
        let actual = try prepare(sql: "\(journalMode) = \(mode)").front(String.self)?.lowercased()
        guard actual == mode else {
          throw SQLiteError(code: .error, message: "The journal mode stayed \(actual ?? "unknown") instead of \(mode)")
        }
      }
      try setJournalMode("delete")
      var failure: (any Error)?
      do { try rekeyOnce() } catch { failure = error }
      try setJournalMode("wal")
      if let failure { throw failure }
    }

    /// Writes a compacted copy of the main database to a new file at `path`, encrypted with `key` and
    /// `cipher`, or plain when `key` is nil, whatever the encryption of this database: the way to make a
    /// plain copy of an encrypted database, or an encrypted copy of a plain one. The database itself does
    /// not change. (SQLite's online backup, ``backup(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:progress:)``,
    /// copies only between databases that are both plain, or both encrypted with the same page layout.)
    ///
    /// The copy is written by `VACUUM INTO` with this database's own encryption, then re-encrypted in
    /// place (`sqlite3_rekey_v2`) before this call returns. A plain copy of an encrypted database holds
    /// its content in clear: keep it where the database itself could be.
    ///
    /// ```swift
    /// try db.vacuum(into: exportPath, key: nil)  // a plain copy
    /// ```
    ///
    /// - Throws: ``SQLiteError`` when `path` exists and is not empty, cannot be created, or when called
    ///   inside a transaction; ``EncryptionError`` for a cipher SQLite3 Multiple Ciphers does not know.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_vacuum.html#vacuuminto>
    public func vacuum(into path: String, key: EncryptionKey?, cipher: Cipher? = nil) throws {
      try vacuum(into: path)
      let schema = "amalgam_copy_\(UInt32.random(in: 0...UInt32.max))"
      // Without a KEY clause the attached copy takes the main database's encryption, as VACUUM INTO gave it.
      try execute(sql: "ATTACH DATABASE ? AS \(quoteIdentifier(schema))", parameterValues: [path])
      do {
        try rekey(to: key, cipher: cipher, schema: schema)
      } catch {
        try? execute(sql: "DETACH DATABASE \(quoteIdentifier(schema))")
        throw error
      }
      try execute(sql: "DETACH DATABASE \(quoteIdentifier(schema))")
    }

    /// Attaches the database file at `path` as `schema`, decrypted with `key`, or unencrypted when `key`
    /// is nil (an attached database otherwise takes the main database's key), and checks that the key
    /// opens it. `cipher` is its cipher (the connection's current one when nil). The key travels as a
    /// bound value of `ATTACH ... KEY ?`, which traces report without values.
    ///
    /// - Throws: ``EncryptionError/wrongKey(path:)`` or ``EncryptionError/notEncrypted(path:)`` when the
    ///   key does not fit the file, ``SQLiteError`` when SQLite cannot attach it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/lang_attach.html>
    public func attach(path: String, as schema: String, key: EncryptionKey?, cipher: Cipher? = nil) throws {
      try connection.withHandle { handle in
        if let cipher { try Self.configure(cipher, on: handle) }
      }
      let statement = try prepare(sql: "\(redactedParametersMarker) ATTACH DATABASE ?1 AS ?2 KEY ?3")
      try statement.bind(value: path, toParameter: 1)
      try statement.bind(value: schema, toParameter: 2)
      try statement.bind(value: Data(key?.bytes ?? []), toParameter: 3)
      do {
        try statement.execute()
      } catch let error as SQLiteError where error.code == .notADatabase {
        throw Self.encryptionError(file: path, path: path, cipher: cipher)
      }
    }
  }

  /// Whether the file at `path` starts with the header of an unencrypted SQLite database.
  private func fileStartsWithPlainHeader(_ path: String) -> Bool {
    guard let file = fopen(path, "rb") else { return false }
    defer { fclose(file) }
    var header = [UInt8](repeating: 0, count: plainHeader.count)
    return fread(&header, 1, header.count, file) == header.count && header == plainHeader
  }

#endif
