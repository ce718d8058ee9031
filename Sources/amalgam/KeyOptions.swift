import Amalgam
import AmalgamSQLite
import Foundation

/// Where `amalgam sql` and `amalgam shell` take the key of an encrypted database from (ENCRYPTION trait):
/// `--key-env NAME` (an environment variable), `--key-file PATH` (a file's first line) or `--key TEXT`
/// (the command line, which other users of the machine can see in the process list), and
/// `--cipher NAME` (ChaCha20-Poly1305 when missing).
struct KeyOptions: Equatable {
  /// Where the passphrase comes from.
  enum Source: Equatable {
    case argument(String)
    case environment(String)
    case file(String)
  }

  var source: Source?
  /// How many arguments ``extractLeading(from:)`` took from the command line.
  var argumentCount = 0
  /// A cipher name of SQLite3 Multiple Ciphers, or `sqlcipher-v1` to `sqlcipher-v4`.
  var cipher: String?

  /// The options this type takes, each followed by a value.
  static let flags: Set<String> = ["--key", "--key-env", "--key-file", "--cipher"]

  /// Records one of ``flags`` and its value.
  mutating func take(_ flag: String, value: String?) throws(UsageError) {
    guard let value, !value.isEmpty else { throw UsageError(message: "\(flag) needs a value") }
    if flag == "--cipher" {
      cipher = value
      return
    }
    guard source == nil else { throw UsageError(message: "give one of --key, --key-env and --key-file") }
    switch flag {
    case "--key": source = .argument(value)
    case "--key-env": source = .environment(value)
    default: source = .file(value)
    }
  }

  /// Removes the leading key options from the arguments of `amalgam shell`, which go to SQLite's shell.
  static func extractLeading(from arguments: inout [String]) throws(UsageError) -> KeyOptions {
    var options = KeyOptions()
    let count = arguments.count
    while let flag = arguments.first, flags.contains(flag) {
      arguments.removeFirst()
      try options.take(flag, value: arguments.isEmpty ? nil : arguments.removeFirst())
    }
    options.argumentCount = count - arguments.count
    return options
  }

  /// A message for a key source that cannot be read: the variable or the file, never the key.
  struct KeyError: Error {
    let message: String
  }

  /// The passphrase's bytes, read from where ``source`` says.
  func passphrase() throws(KeyError) -> [UInt8]? {
    switch source {
    case nil:
      return nil
    case .argument(let text):
      return Array(text.utf8)
    case .environment(let name):
      guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        throw KeyError(message: "the environment variable \(name) that --key-env names is not set or empty")
      }
      return Array(value.utf8)
    case .file(let path):
      guard let data = FileManager.default.contents(atPath: path) else {
        throw KeyError(message: "cannot read the key file \"\(path)\"")
      }
      // The first line, without its line end, as `echo secret > file` writes it.
      let line = data.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
      guard !line.isEmpty else { throw KeyError(message: "the key file \"\(path)\" is empty") }
      return Array(line)
    }
  }

  /// SQLite3 Multiple Ciphers' cipher name and the SQLCipher version of ``cipher``.
  var cipherParts: (name: String, legacy: Int?)? {
    guard let cipher else { return nil }
    if cipher.hasPrefix("sqlcipher-v"), let version = Int(cipher.dropFirst("sqlcipher-v".count)) {
      return ("sqlcipher", version)
    }
    return (cipher, cipher == "sqlcipher" ? 4 : nil)
  }

  #if ENCRYPTION
    /// Makes ``AutomaticKey`` set this key and cipher on the connections that `scope` covers. Throws for a
    /// key source that cannot be read and for a cipher that SQLite3 Multiple Ciphers does not have.
    func setAutomaticKey(scope: AutomaticKey.Scope) throws(KeyError) {
      let cipher = cipherParts
      if let (name, legacy) = cipher {
        guard sqlite3mc_cipher_index(name) > 0 else {
          throw KeyError(message: EncryptionError.unknownCipher(name).description)
        }
        if let legacy, !(1...4).contains(legacy) {
          throw KeyError(message: "--cipher \(self.cipher ?? ""): SQLCipher's versions are 1 to 4")
        }
      }
      AutomaticKey.set(key: try passphrase(), cipher: cipher, scope: scope)
    }

    /// Sets the key and the cipher on open options.
    func apply(to options: inout Database.OpenOptions) throws(KeyError) {
      if let bytes = try passphrase() { options.key = .data(Data(bytes)) }
      if let (name, legacy) = cipherParts {
        options.cipher = legacy.map { Cipher.sqlCipher(version: $0) } ?? Cipher(name: name)
      }
    }
  #endif

  /// The message for key options in a build without the ENCRYPTION trait, or nil when there are none.
  var missingTraitMessage: String? {
    #if ENCRYPTION
      return nil
    #else
      guard source != nil || cipher != nil else { return nil }
      return "--key, --key-env, --key-file and --cipher need encrypted databases, which this build leaves "
        + "out: build amalgam with the ENCRYPTION trait (swift build --traits default,ENCRYPTION)"
    #endif
  }
}
