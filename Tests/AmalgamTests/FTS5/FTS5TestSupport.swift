#if ENABLE_FTS5
  import Amalgam
  import Testing

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
