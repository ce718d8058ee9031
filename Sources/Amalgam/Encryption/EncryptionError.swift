#if ENCRYPTION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif

  /// Why an encrypted database could not be opened, attached or rekeyed. SQLite's own failures (a file
  /// that cannot be read, a schema that does not exist) are ``SQLiteError``s. No case carries the key.
  public enum EncryptionError: Error, Equatable, LocalizedError, CustomStringConvertible {
    /// The key, or the cipher, does not decrypt the database at the path (or the file is not a database):
    /// SQLite read `SQLITE_NOTADB` from its first page once the key was set.
    case wrongKey(path: String)
    /// The database at the path is a plain, unencrypted SQLite database: open it without a key, or
    /// encrypt it with ``Database/rekey(to:cipher:schema:)``.
    case notEncrypted(path: String)
    /// SQLite3 Multiple Ciphers has no cipher of this name.
    case unknownCipher(String)
    /// The cipher has no parameter of this name, or refused the value.
    case invalidCipherParameter(cipher: String, name: String, value: Int)
    /// A rekey of the database at the path would leave other connections to it with the old key, unable
    /// to read: the connection belongs to a ``DatabaseQueue`` or ``DatabasePool``, which opens connections
    /// with its ``Configuration/key``, or another connection has the file open. See
    /// ``Database/rekey(to:cipher:schema:)``.
    case rekeyWouldStrandOtherConnections(path: String)

    /// What went wrong, without the key: the same as ``errorDescription``.
    public var description: String { message }

    /// What went wrong, without the key.
    public var errorDescription: String? { message }

    private var message: String {
      switch self {
      case .wrongKey(let path):
        return "The key does not open the database at \(path): the key or the cipher is wrong, "
          + "or the file is not an encrypted database"
      case .notEncrypted(let path):
        return "The database at \(path) is not encrypted: open it without a key, "
          + "or encrypt it with rekey(to:)"
      case .unknownCipher(let name):
        return "SQLite3 Multiple Ciphers has no cipher named \(name.debugDescription)"
      case .invalidCipherParameter(let cipher, let name, let value):
        return "The cipher \(cipher) has no parameter \(name.debugDescription) or refuses the value \(value)"
      case .rekeyWouldStrandOtherConnections(let path):
        return "Re-keying the database at \(path) would leave its other connections with the old key, unable "
          + "to read it: close them first (for a DatabaseQueue or DatabasePool, which opens every connection "
          + "with its Configuration's key: close it, re-key with a Database of its own, and open it again "
          + "with the new key)"
      }
    }
  }
#endif
