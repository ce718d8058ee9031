#if ENABLE_FTS5
  import Amalgam
  import Testing

  /// Drops the stop words given after `_` in its arguments (or English ones) from the tokens of the
  /// tokenizer its first arguments name: `tokenize = 'stopwords unicode61 remove_diacritics 2'`.
  final class StopWords: FTS5Tokenizer {
    let base: FTS5TokenizerHandle
    let stopWords: Set<String>

    init(arguments: FTS5TokenizerArguments) throws {
      let values = Array(arguments)
      let split = values.firstIndex(of: "_") ?? values.endIndex
      let wrapped = Array(values[..<split])
      base = try arguments.tokenizer(wrapped.first ?? "unicode61", arguments: Array(wrapped.dropFirst()))
      stopWords = split < values.endIndex ? Set(values[(split + 1)...]) : ["a", "an", "the", "of", "and"]
    }

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      try base.tokenize(text) { token in
        if !stopWords.contains(token.text) { try tokens.emit(token) }
      }
    }
  }

  /// Folds the case of every token of the `ascii` tokenizer, which folds only ASCII letters.
  struct FullCaseFolding: FTS5Tokenizer {
    let base: FTS5TokenizerHandle
    init(arguments: FTS5TokenizerArguments) throws {
      base = try arguments.tokenizer("ascii")
    }
    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      try base.tokenize(text) { token in
        try tokens.emit(token.text.lowercased(), range: token.range, colocated: token.isColocated)
      }
    }
  }

  @Suite("FTS5 wrapped tokenizers")
  struct FTS5WrappingTests {
    @Test func aStopWordFilterAroundUnicode61DropsItsWordsAndKeepsOffsets() throws {
      let db = try Database()
      try db.addTokenizer("stopwords", type: StopWords.self)
      try db.execute(
        sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'stopwords unicode61 remove_diacritics 2')")
      try db.execute(
        sql: "INSERT INTO docs(rowid, body) VALUES (1, 'The Art of Computer Programming'), (2, 'an ÉCOLE of thought')")
      #expect(try fts5Rowids(db, "docs", "the") == [])
      #expect(try fts5Rowids(db, "docs", "of") == [])
      #expect(try fts5Rowids(db, "docs", "art") == [1])
      #expect(try fts5Rowids(db, "docs", "ecole") == [2])  // remove_diacritics reached unicode61
      // Dropped words take no position: "art computer" is a phrase now.
      #expect(try fts5Rowids(db, "docs", "\"art computer\"") == [1])
      #expect(try fts5Rowids(db, "docs", "\"the art\"") == [1])  // the query loses its stop word too
      #expect(
        try fts5Strings(
          db, "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH 'computer OR école' ORDER BY rowid")
          == ["The Art of [Computer] Programming", "an [ÉCOLE] of thought"])
      try db.execute(sql: "CREATE VIRTUAL TABLE terms USING fts5vocab(docs, row)")
      #expect(
        try fts5Strings(db, "SELECT term FROM terms ORDER BY term") == [
          "art", "computer", "ecole", "programming", "thought",
        ])
    }

    @Test func stopWordsComeFromTheTableArguments() throws {
      let db = try Database()
      try db.addTokenizer("stopwords", type: StopWords.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'stopwords ascii _ foo bar')")
      try db.execute(sql: "INSERT INTO docs(rowid, body) VALUES (1, 'foo the bar baz')")
      #expect(try fts5Rowids(db, "docs", "foo OR bar") == [])
      #expect(try fts5Rowids(db, "docs", "the") == [1])
    }

    @Test func caseFoldingAroundAsciiKeepsHighlightOffsets() throws {
      let db = try Database()
      try db.addTokenizer("folding", type: FullCaseFolding.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'folding')")
      try db.execute(sql: "INSERT INTO docs(rowid, body) VALUES (1, 'ÉCOLE Normale'), (2, 'école du soir')")
      #expect(try fts5Rowids(db, "docs", "école") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "ÉCOLE") == [1, 2])
      #expect(
        try fts5Strings(db, "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH 'école' ORDER BY rowid")
          == ["[ÉCOLE] Normale", "[école] du soir"])
    }

    @Test func builtInTokenizersRunFromSwiftWithTheirArguments() throws {
      let db = try Database()
      var stems: [String] = []
      try db.makeTokenizer("porter").tokenize("Running runners ran connections") { stems.append($0.text) }
      #expect(stems == ["run", "runner", "ran", "connect"])
      var trigrams: [String] = []
      try db.makeTokenizer("trigram", arguments: ["case_sensitive", "1"]).tokenize("SQLite") {
        trigrams.append("\($0.text)@\($0.range)")
      }
      #expect(trigrams == ["SQL@0..<3", "QLi@1..<4", "Lit@2..<5", "ite@3..<6"])
      var words: [String] = []
      try db.makeTokenizer("unicode61", arguments: ["remove_diacritics", "0", "tokenchars", "-"]).tokenize(
        "Crème-brûlée x"
      ) {
        words.append($0.text)
      }
      #expect(words == ["crème-brûlée", "x"])
      var ascii: [String] = []
      try db.makeTokenizer("ascii").tokenize("ÀB cd") { ascii.append($0.text) }
      #expect(ascii == ["Àb", "cd"])
    }

    @Test func porterWrapsASwiftTokenizerAndASwiftTokenizerWrapsPorter() throws {
      let db = try Database()
      try db.addTokenizer("words", type: ASCIIWords.self)
      try db.addTokenizer("stopwords", type: StopWords.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE a USING fts5(body, tokenize = 'porter words')")
      try db.execute(sql: "CREATE VIRTUAL TABLE b USING fts5(body, tokenize = 'stopwords porter words')")
      for table in ["a", "b"] {
        try db.execute(
          sql: "INSERT INTO \(table)(rowid, body) VALUES (1, 'The CONNECTIONS of runners'), (2, 'connected')")
        #expect(try fts5Rowids(db, table, "connect") == [1, 2])
        #expect(try fts5Rowids(db, table, "runner") == [1])
      }
      #expect(try fts5Rowids(db, "a", "the") == [1])
      #expect(try fts5Rowids(db, "b", "the") == [])
      var tokens: [String] = []
      try db.makeTokenizer("stopwords", arguments: ["porter", "words"]).tokenize("The Connections") {
        tokens.append("\($0.text)@\($0.range)")
      }
      #expect(tokens == ["connect@4..<15"])
    }

    @Test func theWrappedTokenizerSeesTheReasonAndLocale() throws {
      let log = TokenizerLog()
      let db = try Database()
      try db.addTokenizer("words") { arguments in ASCIIWords(arguments: arguments, log: log) }
      try db.addTokenizer("stopwords", type: StopWords.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'stopwords words', locale = 1)")
      try db.execute(sql: "INSERT INTO docs VALUES (fts5_locale('de_DE', 'Straße'))")
      _ = try fts5Rowids(db, "docs", "stra*")
      #expect(log.calls.map(\.reason) == [.document, .prefixQuery])
      #expect(log.calls.first?.locale == "de_DE")
      #expect(log.calls.first?.text == "Straße")
    }

    @Test func anUnknownTokenizerOrBadArgumentsThrow() throws {
      let db = try Database()
      #expect {
        _ = try db.makeTokenizer("nonexistent")
      } throws: { error in (error as? SQLiteError)?.message.contains("nonexistent") == true }
      #expect(throws: SQLiteError.self) {
        _ = try db.makeTokenizer("unicode61", arguments: ["remove_diacritics", "9"])
      }
      try db.addTokenizer("stopwords", type: StopWords.self)
      #expect {
        try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'stopwords nonexistent')")
      } throws: { error in (error as? SQLiteError)?.message.contains("No such FTS5 tokenizer") == true }
    }

    @Test func aHandleOnABuiltInTokenizerOutlivesItsDatabase() throws {
      var db: Database? = try Database()
      let handle = try db?.makeTokenizer("porter")
      try db?.close()
      db = nil
      var tokens: [String] = []
      try handle?.tokenize("jumping") { tokens.append($0.text) }
      #expect(tokens == ["jump"])
    }

    @Test func anErrorThrownWhileForwardingTokensStopsTheWrappedTokenizer() throws {
      struct Limited: FTS5Tokenizer {
        let base: FTS5TokenizerHandle
        init(arguments: FTS5TokenizerArguments) throws { base = try arguments.tokenizer("unicode61") }
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          var count = 0
          try base.tokenize(text) { token in
            count += 1
            if count > 3 { throw FTS5TestError(reason: "too many words") }
            try tokens.emit(token)
          }
        }
      }
      let db = try Database()
      try db.addTokenizer("limited", type: Limited.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'limited')")
      try db.execute(sql: "INSERT INTO docs VALUES ('one two three')")
      #expect {
        try db.execute(sql: "INSERT INTO docs VALUES ('one two three four')")
      } throws: { error in (error as? SQLiteError)?.message.contains("too many words") == true }
      #expect(try fts5Rows(db, "SELECT count(*) FROM docs") == [[.integer(1)]])
    }

    @Test func aSwiftTokenizerRunFromSwiftThrowsItsOwnMessageAndLeavesNoneBehind() throws {
      struct Refusing: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          throw FTS5TestError(reason: "refused \(text.string)")
        }
      }
      let db = try Database()
      try db.addTokenizer("refusing", type: Refusing.self)
      #expect {
        try db.makeTokenizer("refusing").tokenize("this") { _ in }
      } throws: { error in (error as? SQLiteError)?.message == "FTS5 tokenizer \"refusing\": refused this" }
      // The message was taken: a later, unrelated error reports SQLite's own message.
      #expect {
        try db.execute(sql: "SELECT * FROM missing_table")
      } throws: { error in (error as? SQLiteError)?.message == "no such table: missing_table" }
    }
  }
#endif
