#if ENCRYPTION
  import Amalgam
  import AmalgamSQLite

  /// The key and cipher that SQLite's shell (`amalgam shell`) and sqlite3_rsync (`amalgam rsync`) use on the
  /// database files they open themselves (ENCRYPTION trait). They open their connections with no way to pass
  /// a key, so an automatic extension sets it on each connection as it opens, before its first page is read.
  enum AutomaticKey {
    /// Which connections get the key.
    enum Scope {
      /// Every connection to a database file (sqlite3_rsync: the origin and the replica).
      case everyFile
      /// The connections to the first database file opened (the shell's database), not other files that
      /// `.open`, `.backup` or `.restore` name.
      case firstFile
    }

    /// The key and cipher, and what they apply to. Written once, before the tool that uses them starts
    /// (its only thread), and only read afterwards, by ``entryPoint`` on that thread.
    nonisolated(unsafe) private static var key: [UInt8]?
    /// See ``key``.
    nonisolated(unsafe) private static var cipher: (name: String, legacy: Int?)?
    /// See ``key``.
    nonisolated(unsafe) private static var scope = Scope.everyFile
    /// The file that ``Scope/firstFile`` keys, once a connection has opened it.
    nonisolated(unsafe) private static var keyedFile: String?

    /// Sets what ``entryPoint`` applies. Call it before the tool opens anything.
    static func set(key: [UInt8]?, cipher: (name: String, legacy: Int?)?, scope: Scope) {
      Self.key = key
      Self.cipher = cipher
      Self.scope = scope
      keyedFile = nil
    }

    /// The automatic extension: sets the cipher and the key of a connection to a database file that
    /// ``set(key:cipher:scope:)`` covers. In-memory and temporary databases are left alone.
    static let entryPoint: SQLiteExtensionEntryPoint = { db, _, _ in
      guard let db, let name = sqlite3_db_filename(db, "main"), name.pointee != 0 else { return SQLITE_OK }
      if AutomaticKey.scope == .firstFile {
        let file = String(cString: name)
        if let keyed = AutomaticKey.keyedFile, keyed != file { return SQLITE_OK }
        AutomaticKey.keyedFile = file
      }
      // The connection's defaults, as `PRAGMA cipher` sets them: SQLite3 Multiple Ciphers forgets other
      // settings once a key is set, and a later `PRAGMA rekey` would take ChaCha20.
      if let (name, legacy) = AutomaticKey.cipher {
        _ = sqlite3mc_config(db, "default:cipher", sqlite3mc_cipher_index(name))
        if let legacy { _ = sqlite3mc_config_cipher(db, name, "default:legacy", Int32(legacy)) }
      }
      guard let key = AutomaticKey.key else { return SQLITE_OK }
      return key.withUnsafeBytes { sqlite3_key_v2(db, "main", $0.baseAddress, Int32($0.count)) }
    }
  }
#endif
