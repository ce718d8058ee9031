#if ENCRYPTION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif

  /// The key of an encrypted database: a passphrase or bytes, handed to SQLite3 Multiple Ciphers, which
  /// derives the cipher's key from it (with the cipher's key-derivation function and the salt stored in
  /// the file). The same passphrase opens the file in any SQLite3 Multiple Ciphers client, and in
  /// SQLCipher when the cipher is ``Cipher/sqlCipher(version:)``.
  ///
  /// An empty passphrase or empty data means no encryption, as in SQLite3 Multiple Ciphers.
  ///
  /// A key never shows in a description, an error message, a trace, a log or a reflection (`dump`,
  /// `Mirror`): printing one prints `EncryptionKey(redacted)`, and its mirror has no children. Amalgam passes it to SQLite with `sqlite3_key_v2`, never in SQL text.
  ///
  /// ```swift
  /// var options = Database.OpenOptions()
  /// options.key = .passphrase("correct horse battery staple")
  /// let db = try Database(path: path, options: options)
  /// ```
  ///
  /// Related SQLite3 Multiple Ciphers documentation:
  /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
  public struct EncryptionKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
  {
    /// The bytes given to `sqlite3_key_v2`.
    let bytes: [UInt8]

    /// A key from a passphrase, as its UTF-8 bytes: what `PRAGMA key = 'passphrase'` gives in the
    /// sqlite3 shell of SQLite3 Multiple Ciphers or SQLCipher.
    public static func passphrase(_ passphrase: String) -> EncryptionKey {
      EncryptionKey(bytes: Array(passphrase.utf8))
    }

    /// A key from bytes, such as one kept in the system's keychain. The cipher derives its key from
    /// them as from a passphrase, so any number of bytes will do.
    public static func data(_ data: Data) -> EncryptionKey {
      EncryptionKey(bytes: Array(data))
    }

    /// Never the key itself.
    public var description: String { "EncryptionKey(redacted)" }

    /// Never the key itself.
    public var debugDescription: String { description }

    /// A mirror without children, so that `dump` and `Mirror` show no byte of the key, here or in a value
    /// that holds it (``Database/OpenOptions``, ``Configuration``).
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
  }
#endif
