#if !ENCRYPTION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif

  // Without the ENCRYPTION trait the encryption API is declared but unavailable, so that a use of it fails
  // to compile with a message that names the trait. Nothing here can run.

  /// The key of an encrypted database. Needs the `ENCRYPTION` trait.
  ///
  /// Related SQLite3 Multiple Ciphers documentation:
  /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
  @available(
    *, unavailable,
    message: "EncryptionKey needs the ENCRYPTION trait: add it to the Amalgam dependency's traits"
  )
  public struct EncryptionKey: Sendable, Hashable {
    /// Needs the `ENCRYPTION` trait.
    public static func passphrase(_ passphrase: String) -> EncryptionKey { EncryptionKey() }
    /// Needs the `ENCRYPTION` trait.
    public static func data(_ data: Data) -> EncryptionKey { EncryptionKey() }
  }

  /// A cipher of SQLite3 Multiple Ciphers. Needs the `ENCRYPTION` trait.
  ///
  /// Related SQLite3 Multiple Ciphers documentation:
  /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/>
  @available(
    *, unavailable,
    message: "Cipher needs the ENCRYPTION trait: add it to the Amalgam dependency's traits"
  )
  public struct Cipher: Sendable, Hashable {
    /// Needs the `ENCRYPTION` trait.
    public static var chaCha20: Cipher { Cipher() }
    /// Needs the `ENCRYPTION` trait.
    public static func sqlCipher(version: Int = 4) -> Cipher { Cipher() }
  }

  extension Database.OpenOptions {
    /// The key of an encrypted database. Needs the `ENCRYPTION` trait.
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    @available(
      *, unavailable,
      message: "OpenOptions.key needs the ENCRYPTION trait: add it to the Amalgam dependency's traits"
    )
    public var key: EncryptionKey? {
      get { nil }
      set {}
    }
  }

  extension Configuration {
    /// The key of an encrypted database. Needs the `ENCRYPTION` trait.
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    @available(
      *, unavailable,
      message: "Configuration.key needs the ENCRYPTION trait: add it to the Amalgam dependency's traits"
    )
    public var key: EncryptionKey? {
      get { nil }
      set {}
    }
  }

  extension Database {
    /// Encrypts, re-encrypts or decrypts the database. Needs the `ENCRYPTION` trait.
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    @available(
      *, unavailable,
      message: "rekey(to:) needs the ENCRYPTION trait: add it to the Amalgam dependency's traits"
    )
    public func rekey(to key: EncryptionKey?, schema: String = "main") throws {}
  }
#endif
