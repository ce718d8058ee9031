#if ENABLE_FTS5
  /// A full-text query for an FTS5 `MATCH`, built safely from text a user typed.
  ///
  /// FTS5's query syntax gives meaning to quotes, `AND`, `OR`, `NOT`, `NEAR`, `*`, `^`, `+`, `:`,
  /// braces and parentheses. Passing a user's text straight to `MATCH` fails on an unbalanced quote
  /// (`fts5: syntax error`) and lets the user's words act as operators. A pattern built by one of the
  /// initializers below is always valid, and every word of the text is matched as a word, never
  /// read as an operator:
  ///
  /// ```swift
  /// let typed = #"swift "sqlite NEAR(fts5 AND title:*"#
  /// if let pattern = FTS5Pattern(matchingAllTokensIn: typed) {
  ///   // pattern.rawPattern == #""swift" "sqlite" "NEAR" "fts5" "AND" "title""#
  ///   let rows = try db.prepare(sql: "SELECT rowid FROM docs WHERE docs MATCH ?").bind(pattern).column(0, as: Int.self)
  /// }
  /// ```
  ///
  /// The text is cut into words at white space, control characters, ASCII punctuation and symbols,
  /// and Unicode punctuation; letters, digits, combining marks and other characters (CJK, emoji) make
  /// up words. Each word becomes a quoted FTS5 string, which the table's own tokenizer then splits
  /// into tokens, so the pattern works with every tokenizer. An initializer returns `nil` when the
  /// text holds no word.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#full_text_query_syntax>
  ///
  /// ## Topics
  ///
  /// ### Patterns from user input
  ///
  /// - ``init(matchingAllTokensIn:)``
  /// - ``init(matchingAnyTokenIn:)``
  /// - ``init(matchingPhrase:)``
  /// - ``init(matchingAllPrefixesIn:)``
  /// - ``restricted(toColumns:)``
  ///
  /// ### Raw patterns
  ///
  /// - ``init(rawPattern:)``
  /// - ``rawPattern``
  public struct FTS5Pattern: Hashable, Sendable, CustomStringConvertible, ParameterBindable {
    /// The FTS5 query text.
    public let rawPattern: String

    /// A pattern taken as is, for queries written by the program rather than a user: it is not
    /// checked, and an invalid one fails the query with `fts5: syntax error`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#full_text_query_syntax>
    public init(rawPattern: String) {
      self.rawPattern = rawPattern
    }

    /// Matches rows that contain every word of `text`, anywhere, in any order; `nil` when `text`
    /// holds no word.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#fts5_boolean_operators>
    public init?(matchingAllTokensIn text: String) {
      let words = Self.words(in: text)
      guard !words.isEmpty else { return nil }
      rawPattern = words.map(Self.quoted).joined(separator: " ")
    }

    /// Matches rows that contain at least one word of `text`; `nil` when `text` holds no word.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#fts5_boolean_operators>
    public init?(matchingAnyTokenIn text: String) {
      let words = Self.words(in: text)
      guard !words.isEmpty else { return nil }
      rawPattern = words.map(Self.quoted).joined(separator: " OR ")
    }

    /// Matches rows that contain the words of `text` next to each other, in order (punctuation
    /// between them does not count); `nil` when `text` holds no word.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#fts5_phrases>
    public init?(matchingPhrase text: String) {
      let words = Self.words(in: text)
      guard !words.isEmpty else { return nil }
      rawPattern = Self.quoted(words.joined(separator: " "))
    }

    /// Matches rows that contain, for every word of `text`, a token starting with that word: the
    /// pattern for search-as-you-type. `nil` when `text` holds no word.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#fts5_prefix_queries>
    public init?(matchingAllPrefixesIn text: String) {
      let words = Self.words(in: text)
      guard !words.isEmpty else { return nil }
      rawPattern = words.map { Self.quoted($0) + "*" }.joined(separator: " ")
    }

    /// This pattern, matched only in the given columns (an FTS5 column filter,
    /// `{"title" "body"} : (pattern)`). Column names are quoted, so any name is safe.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#fts5_column_filters>
    public func restricted(toColumns columns: [String]) -> FTS5Pattern {
      FTS5Pattern(rawPattern: "{" + columns.map(Self.quoted).joined(separator: " ") + "} : (" + rawPattern + ")")
    }

    /// ``rawPattern``.
    public var description: String { rawPattern }

    /// The pattern's text, for binding to `MATCH ?`.
    public func databaseValue() -> DatabaseValue { .text(rawPattern) }

    /// `text` as an FTS5 string: in double quotes, with its double quotes doubled.
    static func quoted(_ text: String) -> String {
      "\"" + text.replacingScalar("\"", with: "\"\"") + "\""
    }

    /// The words of `text`: runs of characters that are not separators.
    static func words(in text: String) -> [String] {
      var words: [String] = []
      var current = ""
      for character in text {
        if isSeparator(character) {
          if !current.isEmpty { words.append(current) }
          current = ""
        } else {
          current.append(character)
        }
      }
      if !current.isEmpty { words.append(current) }
      return words
    }

    /// White space, control characters, ASCII punctuation and symbols, and Unicode punctuation.
    static func isSeparator(_ character: Character) -> Bool {
      guard let first = character.unicodeScalars.first else { return true }
      if first.isASCII {
        let value = first.value
        let isLetterOrDigit =
          (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5a) || (value >= 0x61 && value <= 0x7a)
        // A character that starts with an ASCII scalar and carries combining marks ("e\u{301}") is a letter.
        return !isLetterOrDigit && character.unicodeScalars.count == 1
      }
      switch first.properties.generalCategory {
      case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format,
        .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
        .finalPunctuation, .otherPunctuation:
        return true
      default:
        return false
      }
    }
  }

  extension String {
    /// `self` with every `target` scalar replaced by `replacement`. Works on scalars, not characters:
    /// FTS5 reads bytes, so a quote followed by a combining mark is still a quote to it. (Named apart from
    /// Foundation's `replacingOccurrences(of:with:)`, which compares characters, so that importing
    /// Foundation anywhere in the module cannot make a call pick that one.)
    fileprivate func replacingScalar(_ target: Unicode.Scalar, with replacement: String) -> String {
      var result = String.UnicodeScalarView()
      for scalar in unicodeScalars {
        if scalar == target { result.append(contentsOf: replacement.unicodeScalars) } else { result.append(scalar) }
      }
      return String(result)
    }
  }
#endif
