#if ENCRYPTION
  /// What a connection remembers of its encryption, which SQLite3 Multiple Ciphers forgets: it resets a
  /// connection's cipher settings to their defaults each time it uses them for a key, a rekey or an attach.
  final class EncryptionState: ConnectionState {
    /// The cipher each schema was opened, attached or last re-keyed with, by schema name in lower case.
    /// A schema that has none here uses the connection's default cipher: the main database's.
    var ciphers: [String: Cipher] = [:]

    /// Whether the connection's key is a ``Configuration``'s, which its queue or pool gives every
    /// connection it opens: a rekey through this connection would leave the others unable to read.
    var keyIsShared = false

    init() {}

    /// The cipher remembered for `schema`.
    func cipher(of schema: String) -> Cipher? { ciphers[schema.lowercased()] }

    /// Remembers `cipher` for `schema`, or forgets the schema's.
    func setCipher(_ cipher: Cipher?, of schema: String) { ciphers[schema.lowercased()] = cipher }
  }
#endif
