#if ENCRYPTION
  /// How an encrypted database is encrypted: one of the ciphers of SQLite3 Multiple Ciphers and its
  /// parameters. ``chaCha20`` (ChaCha20-Poly1305) is the default when a key is given without a cipher.
  ///
  /// The cipher is chosen per connection and read again from nothing in the file: open a database with
  /// the cipher that wrote it. ``sqlCipher(version:)`` reads and writes SQLCipher's formats, so a database
  /// is shared with SQLCipher's own library and shell.
  ///
  /// ```swift
  /// options.cipher = .sqlCipher(version: 4)
  /// options.cipher = Cipher.aes256CBC.setting("kdf_iter", to: 100_000)
  /// ```
  ///
  /// Related SQLite3 Multiple Ciphers documentation:
  /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/>
  public struct Cipher: Sendable, Hashable, CustomStringConvertible {
    /// SQLite3 Multiple Ciphers' name of the cipher: `chacha20`, `aes128cbc`, `aes256cbc`, `sqlcipher`,
    /// `ascon128`, `aegis` or `rc4`.
    public let name: String
    /// The parameters set on the cipher, in the order they are applied (`kdf_iter`, `legacy`, ...).
    public private(set) var parameters: [Parameter]

    /// One parameter of a cipher, such as `kdf_iter` (the key-derivation iterations) or `legacy`.
    public struct Parameter: Sendable, Hashable {
      /// The parameter's name, as SQLite3 Multiple Ciphers spells it.
      public let name: String
      /// Its value.
      public let value: Int
    }

    /// A cipher by its SQLite3 Multiple Ciphers name, with parameters applied in order; the parameters
    /// left out take SQLite3 Multiple Ciphers' defaults. Opening throws ``EncryptionError/unknownCipher(_:)``
    /// or ``EncryptionError/invalidCipherParameter(cipher:name:value:)`` when SQLite3 Multiple Ciphers does
    /// not know the name or refuses a value, for a name with a NUL character, a parameter name with a
    /// `default:`, `min:` or `max:` prefix, and a `sqlcipher` `legacy` version other than 1 to 4.
    public init(name: String, parameters: KeyValuePairs<String, Int> = [:]) {
      self.name = name
      self.parameters = parameters.map { Parameter(name: $0.key, value: $0.value) }
    }

    /// This cipher with one more parameter set.
    public func setting(_ parameter: String, to value: Int) -> Cipher {
      var copy = self
      copy.parameters.append(Parameter(name: parameter, value: value))
      return copy
    }

    /// ChaCha20-Poly1305 (SQLite3 Multiple Ciphers' default): 256-bit key from PBKDF2-SHA256, and a tag
    /// on every page, so a changed page is refused.
    public static let chaCha20 = Cipher(name: "chacha20")
    /// AES-128 in CBC mode, wxSQLite3's original format, no tag.
    public static let aes128CBC = Cipher(name: "aes128cbc")
    /// AES-256 in CBC mode, wxSQLite3's format, no tag.
    public static let aes256CBC = Cipher(name: "aes256cbc")
    /// Ascon-128, a lightweight authenticated cipher.
    public static let ascon128 = Cipher(name: "ascon128")
    /// AEGIS, a fast authenticated cipher on processors with AES instructions.
    public static let aegis = Cipher(name: "aegis")

    /// SQLCipher's format (AES-256 in CBC mode with an HMAC per page). `version` 1 to 4 reads and
    /// writes the databases of that SQLCipher major version with its default settings (key-derivation
    /// iterations, HMAC, page size); 4 is SQLCipher 4's, the current one. Any other version makes
    /// opening throw ``EncryptionError/invalidCipherParameter(cipher:name:value:)``.
    public static func sqlCipher(version: Int = 4) -> Cipher {
      Cipher(name: "sqlcipher", parameters: ["legacy": version])
    }

    /// The name and the parameters; a cipher holds no key.
    public var description: String {
      parameters.isEmpty
        ? name : "\(name)(" + parameters.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + ")"
    }
  }
#endif
