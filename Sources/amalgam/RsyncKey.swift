import Amalgam
import AmalgamSQLite
import Foundation

/// `amalgam rsync` on encrypted databases (ENCRYPTION trait): both sides open their database with the same
/// key and cipher, given by the key options before ORIGIN. sqlite3_rsync opens ORIGIN itself (in this
/// process) and runs `amalgam --replica ORIGIN REPLICA` for the replica side, which attaches REPLICA; the
/// key reaches that process in its environment (readable by its own user only, where arguments show in the
/// process list), and the replica is attached by a URI that carries it (`file:...?hexkey=...`), which
/// sqlite3_rsync never prints at its default verbosity. Both databases must be local: sqlite3_rsync starts
/// a remote side over ssh with arguments only.
enum RsyncKey {
  /// The variable that carries the key, as hex, to the replica side.
  static let keyVariable = "AMALGAM_RSYNC_HEXKEY"
  /// The variable that carries the `--cipher` value to the replica side.
  static let cipherVariable = "AMALGAM_RSYNC_CIPHER"

  /// Takes the leading key options of `amalgam rsync` out of `arguments` and, when there is a key, makes
  /// every database file this process opens use it, and hands it to the replica side. Returns a message
  /// for a problem, or nil.
  static func prepareOriginSide(_ arguments: inout [String]) -> (message: String, usage: Bool)? {
    let options: KeyOptions
    do {
      options = try KeyOptions.extractLeading(from: &arguments)
    } catch {
      return (error.message, true)
    }
    if let message = options.missingTraitMessage { return (message, true) }
    guard options.source != nil || options.cipher != nil else { return nil }
    guard options.source != nil else { return ("--cipher needs a key (--key-env, --key-file or --key)", true) }
    // sqlite3_rsync's own rule for USER@HOST:PATH: a colon before any slash.
    let remote = arguments.filter { !$0.hasPrefix("-") }.contains { argument in
      guard let colon = argument.firstIndex(of: ":") else { return false }
      return !argument[..<colon].contains("/")
    }
    if remote {
      return ("a key works with two local databases only: sqlite3_rsync starts a remote side without it", true)
    }
    #if ENCRYPTION
      do {
        try options.setAutomaticKey(scope: .everyFile)
        setenv(keyVariable, hex(try options.passphrase() ?? []), 1)
      } catch {
        return (error.message, false)
      }
      setenv(cipherVariable, options.cipher ?? "", 1)
      _ = try? SQLite.registerAutomaticExtension(AutomaticKey.entryPoint)
    #endif
    return nil
  }

  #if ENCRYPTION
    /// On the replica side (`amalgam --replica ... ORIGIN REPLICA`) started by an `amalgam rsync` with a
    /// key: opens what this process opens with the key, and turns REPLICA, the last argument, into a URI
    /// that gives the key to its `ATTACH`.
    static func prepareOtherSide(_ arguments: inout [String]) {
      let environment = ProcessInfo.processInfo.environment
      guard let hexKey = environment[keyVariable], !hexKey.isEmpty, let bytes = bytes(fromHex: hexKey) else { return }
      var options = KeyOptions()
      if let cipher = environment[cipherVariable], !cipher.isEmpty { options.cipher = cipher }
      AutomaticKey.set(key: bytes, cipher: options.cipherParts, scope: .everyFile)
      _ = try? SQLite.registerAutomaticExtension(AutomaticKey.entryPoint)
      guard arguments.first == "--replica", arguments.count >= 3, let replica = arguments.last else { return }
      var query = "hexkey=\(hexKey)"
      if let (name, legacy) = options.cipherParts {
        query += "&cipher=\(percentEncoded(name))"
        if let legacy { query += "&legacy=\(legacy)" }
      }
      let absolute = replica.hasPrefix("/") ? replica : FileManager.default.currentDirectoryPath + "/" + replica
      arguments[arguments.count - 1] = "file:\(percentEncoded(absolute))?\(query)"
    }
  #endif

  /// The bytes as lowercase hex.
  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  /// The bytes of hex text, or nil when it is not hex.
  static func bytes(fromHex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
      guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
        return nil
      }
      bytes.append(byte)
    }
    return bytes
  }

  /// `text` with every character but letters, digits and `/-._~` percent-encoded, for a URI.
  static func percentEncoded(_ text: String) -> String {
    text.utf8.map { byte in
      let character = Character(Unicode.Scalar(byte))
      return byte < 0x80 && (character.isLetter || character.isNumber || "/-._~".contains(character))
        ? String(character) : String(format: "%%%02X", byte)
    }.joined()
  }
}
