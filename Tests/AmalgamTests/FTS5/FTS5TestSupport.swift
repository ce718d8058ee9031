#if ENABLE_FTS5
  import Amalgam
  import Testing

  /// What a recording tokenizer saw: its arguments and, per call, the reason, the locale and the text.
  final class TokenizerLog {
    var arguments: [[String]] = []
    var calls: [(reason: FTS5TokenizeReason, locale: String?, text: String)] = []
  }

  /// Splits like FTS5's `ascii` tokenizer: runs of ASCII letters and digits and of non-ASCII bytes are
  /// tokens, ASCII letters fold to lower case. Builds folded tokens in a reused buffer.
  final class ASCIIWords: FTS5Tokenizer {
    let log: TokenizerLog?
    var buffer: [UInt8] = []

    init(arguments: FTS5TokenizerArguments) throws {
      log = nil
    }

    init(arguments: FTS5TokenizerArguments, log: TokenizerLog) {
      self.log = log
      log.arguments.append(arguments.values)
    }

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      log?.calls.append((text.reason, text.locale, text.string))
      try text.withUnsafeBytes { bytes in
        var start = -1
        for index in 0...bytes.count {
          let byte: UInt8 = index < bytes.count ? bytes[index] : 0x20
          let isTokenByte =
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a)
            || (byte >= 0x61 && byte <= 0x7a)
          if isTokenByte {
            if start < 0 { start = index }
          } else if start >= 0 {
            buffer.removeAll(keepingCapacity: true)
            for byte in bytes[start..<index] { buffer.append(byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte) }
            try buffer.withUnsafeBytes { try tokens.emit($0, range: start..<index) }
            start = -1
          }
        }
      }
    }
  }

  /// A Unicode-aware tokenizer: words are runs of letters, digits and combining marks, folded to lower
  /// case; each CJK ideograph and each emoji is a token of its own. Offsets are those of the UTF-8.
  struct UnicodeWords: FTS5Tokenizer {
    init(arguments: FTS5TokenizerArguments) throws {}

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      let string = text.string
      var word = ""
      var wordStart = 0
      var offset = 0
      for character in string {
        let length = character.utf8.count
        defer { offset += length }
        guard let scalar = character.unicodeScalars.first else { continue }
        let isIdeograph = scalar.properties.isIdeographic
        let isEmoji = scalar.properties.isEmoji && !scalar.isASCII
        let isWordCharacter = character.isLetter || character.isNumber
        if !word.isEmpty && (isIdeograph || isEmoji || !isWordCharacter) {
          try tokens.emit(word.lowercased(), range: wordStart..<offset)
          word = ""
        }
        if isIdeograph || isEmoji {
          try tokens.emit(String(character), range: offset..<offset + length)
        } else if isWordCharacter {
          if word.isEmpty { wordStart = offset }
          word.append(character)
        }
      }
      if !word.isEmpty { try tokens.emit(word.lowercased(), range: wordStart..<offset) }
    }
  }

  /// An error with a readable message, thrown by test tokenizers and functions.
  struct FTS5TestError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
  }

  /// Every row of `sql` with `values` bound, as values.
  func fts5Rows(_ db: Database, _ sql: String, _ values: [(any ParameterBindable)?] = []) throws -> [[DatabaseValue]] {
    try db.prepare(sql: sql).bind(parameterValues: values).allRows()
  }

  /// The first column of every row of `sql`, as strings.
  func fts5Strings(_ db: Database, _ sql: String, _ values: [(any ParameterBindable)?] = []) throws -> [String] {
    try db.prepare(sql: sql).bind(parameterValues: values).column(0, as: String.self)
  }

  /// The rowids `MATCH`ed by `pattern` in table `table`, in order.
  func fts5Rowids(_ db: Database, _ table: String, _ pattern: String) throws -> [Int64] {
    try db.prepare(sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ? ORDER BY rowid").bind(parameterValues: [
      pattern
    ]).column(0, as: Int64.self)
  }
#endif
