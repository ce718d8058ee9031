#if ENABLE_FTS5
  import Amalgam
  import Foundation
  import Testing

  @Suite("FTS5 tokenizers")
  struct FTS5TokenizerTests {
    /// A database with a `words` tokenizer that logs to `log`, and table `docs(body)` using it.
    private func database(log: TokenizerLog, tokenize: String = "words") throws -> Database {
      let db = try Database()
      try db.addTokenizer("words") { arguments in ASCIIWords(arguments: arguments, log: log) }
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '\(tokenize)')")
      return db
    }

    @Test func aSwiftTokenizerIndexesAndMatchesDocuments() throws {
      let db = try database(log: TokenizerLog())
      try db.execute(
        sql: "INSERT INTO docs(rowid, body) VALUES (1, 'Hello, World!'), (2, 'hello there'), (3, 'WORLDS apart')")
      #expect(try fts5Rowids(db, "docs", "hello") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "WORLD") == [1])
      #expect(try fts5Rowids(db, "docs", "world*") == [1, 3])
      #expect(try fts5Rowids(db, "docs", "hello AND world") == [1])
    }

    @Test func theTokenizerReceivesTheArgumentsOfTheTokenizeOption() throws {
      let log = TokenizerLog()
      let db = try database(log: log, tokenize: "words alpha ''two words'' 3")
      try db.execute(sql: "INSERT INTO docs VALUES ('x')")
      #expect(log.arguments.first == ["alpha", "two words", "3"])
    }

    @Test func theReasonTellsDocumentsQueriesPrefixQueriesAndAuxiliaryCallsApart() throws {
      let log = TokenizerLog()
      let db = try database(log: log)
      try db.execute(sql: "INSERT INTO docs VALUES ('alpha beta')")
      log.calls.removeAll()
      _ = try fts5Rowids(db, "docs", "alpha")
      #expect(log.calls.map(\.reason) == [.query])
      log.calls.removeAll()
      _ = try fts5Rowids(db, "docs", "alp*")
      #expect(log.calls.map(\.reason) == [.prefixQuery])
      log.calls.removeAll()
      _ = try fts5Strings(db, "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH 'beta'")
      #expect(log.calls.map(\.reason) == [.query, .auxiliary])
      log.calls.removeAll()
      try db.execute(sql: "INSERT INTO docs VALUES ('gamma')")
      #expect(log.calls.map(\.reason) == [.document])
      #expect(log.calls.map(\.text) == ["gamma"])
    }

    @Test func aLocaleAwareTokenizerSeesTheLocaleOfFts5Locale() throws {
      let log = TokenizerLog()
      let db = try Database()
      try db.addTokenizer("words") { arguments in ASCIIWords(arguments: arguments, log: log) }
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'words', locale = 1)")
      try db.execute(sql: "INSERT INTO docs VALUES (fts5_locale('tr_TR', 'istanbul')), ('plain')")
      #expect(log.calls.map(\.locale) == ["tr_TR", nil])
      log.calls.removeAll()
      _ = try fts5Strings(db, "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH 'istanbul'")
      #expect(log.calls.map(\.reason) == [.query, .auxiliary])
      #expect(log.calls.last?.locale == "tr_TR")
      #expect(try fts5Strings(db, "SELECT fts5_get_locale(docs, 0) FROM docs WHERE rowid = 1") == ["tr_TR"])
    }

    @Test func offsetsAreExactUTF8ByteOffsets() throws {
      let db = try Database()
      try db.addTokenizer("unicode_words", type: UnicodeWords.self)
      let handle = try db.makeTokenizer("unicode_words")
      var tokens: [(String, Range<Int>)] = []
      let text = "Crème bru\u{302}lée 東京 🎉ok"
      try handle.tokenize(text) { tokens.append(($0.text, $0.range)) }
      let utf8 = Array(text.utf8)
      #expect(tokens.map(\.0) == ["crème", "bru\u{302}lée", "東", "京", "🎉", "ok"])
      // Every range cuts the original text into exactly the characters the token came from.
      #expect(
        tokens.map { String(decoding: utf8[$0.1], as: UTF8.self) }
          == ["Crème", "bru\u{302}lée", "東", "京", "🎉", "ok"])
      #expect(tokens.map(\.1) == [0..<6, 7..<16, 17..<20, 20..<23, 24..<28, 28..<30])
    }

    @Test func highlightAndSnippetCutAccentsCombiningMarksCJKAndEmojiOnCharacterBoundaries() throws {
      let db = try Database()
      try db.addTokenizer("unicode_words", type: UnicodeWords.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'unicode_words')")
      try db.execute(
        sql: "INSERT INTO docs(rowid, body) VALUES (1, ?), (2, ?), (3, ?)",
        parameterValues: ["Une crème brûlée, s'il vous plaît", "Cafe\u{301} au lait e\u{301}te\u{301}", "東京で🎉パーティー🎉"])
      let highlight = "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH ? ORDER BY rowid"
      #expect(try fts5Strings(db, highlight, ["brûlée"]) == ["Une crème [brûlée], s'il vous plaît"])
      #expect(try fts5Strings(db, highlight, ["CRÈME"]) == ["Une [crème] brûlée, s'il vous plaît"])
      #expect(
        try fts5Strings(db, highlight, ["cafe\u{301} OR e\u{301}te\u{301}"]) == [
          "[Cafe\u{301}] au lait [e\u{301}te\u{301}]"
        ])
      #expect(try fts5Strings(db, highlight, ["京"]) == ["東[京]で🎉パーティー🎉"])
      #expect(try fts5Strings(db, highlight, ["🎉"]) == ["東京で[🎉]パーティー[🎉]"])
      #expect(try fts5Strings(db, highlight, ["東 + 京"]) == ["[東京]で🎉パーティー🎉"])
      let snippet = "SELECT snippet(docs, 0, '<', '>', '…', 3) FROM docs WHERE docs MATCH ? ORDER BY rowid"
      let plait = try fts5Strings(db, snippet, ["plaît"])
      // "s'il" is two tokens, "s" and "il": the three tokens are "il vous plaît".
      #expect(plait == ["…il vous <plaît>"])
      let party = try fts5Strings(db, snippet, ["🎉"])
      #expect(party == ["…<🎉>パーティー<🎉>"])
      // Every highlighted string is valid UTF-8: no marker split a character.
      for text in try fts5Strings(
        db, "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH 'e\u{301}te\u{301} OR 京 OR brûlée'")
      {
        #expect(text.utf8.count == Array(text.utf8).count)
        #expect(!text.contains("\u{FFFD}"))
      }
    }

    @Test func colocatedSynonymsMatchEitherWord() throws {
      struct Synonyms: FTS5Tokenizer {
        let base: FTS5TokenizerHandle
        let synonyms = ["1st": "first", "first": "1st", "nyc": "newyork"]
        init(arguments: FTS5TokenizerArguments) throws {
          base = try arguments.tokenizer("unicode61")
        }
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          try base.tokenize(text) { token in
            try tokens.emit(token)
            if text.reason == .document, let synonym = synonyms[token.text] {
              try tokens.emit(synonym, range: token.range, colocated: true)
            }
          }
        }
      }
      let db = try Database()
      try db.addTokenizer("synonyms", type: Synonyms.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'synonyms')")
      try db.execute(
        sql: "INSERT INTO docs(rowid, body) VALUES (1, 'I won first place'), (2, 'came 1st in NYC'), (3, 'last place')")
      #expect(try fts5Rowids(db, "docs", "first") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "1st") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "\"1st place\"") == [1])
      #expect(try fts5Rowids(db, "docs", "newyork") == [2])
      #expect(try fts5Rowids(db, "docs", "fir*") == [1, 2])
      // Synonyms take no position: highlight marks the word itself once.
      #expect(
        try fts5Strings(db, "SELECT highlight(docs, 0, '[', ']') FROM docs WHERE docs MATCH '1st' ORDER BY rowid")
          == ["I won [first] place", "came [1st] in NYC"])
    }

    @Test func aColocatedFirstTokenFailsTheStatementThatTokenizes() throws {
      // Emits each word, and a colocated "x" before the first one when the text starts with "!".
      struct ColocatedFirst: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          let words = text.string.split(separator: " ")
          if text.string.hasPrefix("!") { try tokens.emit("x", range: 0..<1, colocated: true) }
          var start = 0
          for word in words {
            try tokens.emit(String(word), range: start..<start + word.utf8.count)
            start += word.utf8.count + 1
          }
        }
      }
      let db = try Database()
      try db.addTokenizer("colocated", type: ColocatedFirst.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'colocated')")
      try db.execute(sql: "INSERT INTO docs VALUES ('fine words')")
      let expected =
        "FTS5 tokenizer \"colocated\": The first token of a text cannot be colocated (a synonym of the token "
        + "before it): report it with colocated: false"
      // A document, and a query.
      let insert = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO docs VALUES ('!bad start')") }
      #expect(insert?.code == .error)
      #expect(insert?.message.contains(expected) == true, "\(String(describing: insert))")
      let query = #expect(throws: SQLiteError.self) { _ = try fts5Rowids(db, "docs", "\"!fine\"") }
      #expect(query?.message.contains(expected) == true, "\(String(describing: query))")
      // Nothing was indexed from the refused document, and the table is usable.
      #expect(try fts5Rowids(db, "docs", "fine") == [1])
      #expect(try fts5Rowids(db, "docs", "bad") == [])
      // Through a handle that runs the tokenizer from Swift, the error reaches the caller as well.
      let handle = try db.makeTokenizer("colocated")
      let direct = #expect(throws: SQLiteError.self) { try handle.tokenize("!oops") { _ in } }
      #expect(direct?.message.contains("The first token of a text cannot be colocated") == true)
    }

    @Test func prefixQueriesWorkWithASwiftTokenizer() throws {
      let db = try database(log: TokenizerLog())
      try db.execute(
        sql: "INSERT INTO docs(rowid, body) VALUES (1, 'Swift programming'), (2, 'swiftly done'), (3, 'sqlite')")
      #expect(try fts5Rowids(db, "docs", "swift*") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "SW*") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "s*") == [1, 2, 3])
      #expect(try fts5Rowids(db, "docs", "swift") == [1])
      #expect(try fts5Rowids(db, "docs", "^swi*") == [1, 2])
    }

    @Test func prefixIndexesWorkWithASwiftTokenizer() throws {
      let db = try Database()
      try db.addTokenizer("words", type: ASCIIWords.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'words', prefix = '2 3')")
      try db.execute(
        sql: "INSERT INTO docs(rowid, body) VALUES (1, 'Swift programming'), (2, 'swiftly done'), (3, 'sqlite')")
      #expect(try fts5Rowids(db, "docs", "sw*") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "sql*") == [3])
      try db.execute(sql: "INSERT INTO docs(docs) VALUES ('integrity-check')")
    }

    @Test func aThrowingTokenizerFailsTheStatementWithItsMessage() throws {
      struct Picky: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          if text.string.contains("forbidden") { throw FTS5TestError(reason: "the word forbidden is not allowed") }
          try tokens.emit(0..<text.count)
        }
      }
      let db = try Database()
      try db.addTokenizer("picky", type: Picky.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'picky')")
      try db.execute(sql: "INSERT INTO docs VALUES ('fine')")
      do {
        try db.execute(sql: "INSERT INTO docs VALUES ('forbidden')")
        Issue.record("The insert should fail")
      } catch let error as SQLiteError {
        #expect(error.code == .error)
        #expect(error.message.contains("the word forbidden is not allowed"))
        #expect(error.message.contains("picky"))
      }
      do {
        _ = try fts5Rowids(db, "docs", "forbidden")
        Issue.record("The query should fail")
      } catch let error as SQLiteError {
        #expect(error.message.contains("the word forbidden is not allowed"))
      }
      // The failure left the table and the connection usable.
      #expect(try fts5Rowids(db, "docs", "fine") == [1])
    }

    @Test func anSQLiteErrorThrownByATokenizerKeepsItsCode() throws {
      struct Full: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          throw SQLiteError(code: .constraint, message: "no more room")
        }
      }
      let db = try Database()
      try db.addTokenizer("full", type: Full.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'full')")
      #expect {
        try db.execute(sql: "INSERT INTO docs VALUES ('x')")
      } throws: { error in
        guard let error = error as? SQLiteError else { return false }
        return error.code == .constraint && error.message.contains("no more room")
      }
    }

    @Test func aTokenizerWhoseInitializerThrowsFailsTableCreationWithItsMessage() throws {
      struct NeedsArgument: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {
          guard arguments.first == "ok" else { throw FTS5TestError(reason: "expected the argument ok") }
        }
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {}
      }
      let db = try Database()
      try db.addTokenizer("needs", type: NeedsArgument.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE good USING fts5(body, tokenize = 'needs ok')")
      #expect {
        try db.execute(sql: "CREATE VIRTUAL TABLE bad USING fts5(body, tokenize = 'needs nope')")
      } throws: { error in
        (error as? SQLiteError)?.message.contains("expected the argument ok") == true
      }
    }

    @Test func aTokenRangeOutsideTheInputFailsTheStatementInsteadOfReadingPastIt() throws {
      struct Overreaching: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          try tokens.emit("x", range: 0..<(text.count + 10))
        }
      }
      let db = try Database()
      try db.addTokenizer("over", type: Overreaching.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'over')")
      #expect {
        try db.execute(sql: "INSERT INTO docs VALUES ('abc')")
      } throws: { error in
        guard let error = error as? SQLiteError else { return false }
        return error.code == .range && error.message.contains("outside the input")
      }
    }

    @Test func keptTextAndSinkNeverReachSQLiteAfterTheCall() throws {
      final class Keeper: FTS5Tokenizer {
        nonisolated(unsafe) static var kept: [(FTS5Text, FTS5TokenSink)] = []
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          #expect(text.isValid)
          Keeper.kept.append((text, tokens))
          try tokens.emit(0..<text.count)
        }
      }
      let db = try Database()
      try db.addTokenizer("keeper", type: Keeper.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'keeper')")
      try db.execute(sql: "INSERT INTO docs VALUES ('kept')")
      let (text, sink) = try #require(Keeper.kept.last)
      Keeper.kept.removeAll()
      #expect(!text.isValid)
      #expect(text.count == 0)
      #expect(text[0] == 0)
      #expect(text.string == "")
      #expect(text.locale == nil)
      #expect(text.withUnsafeBytes { $0.count } == 0)
      #expect(throws: DatabaseError.self) { try sink.emit(0..<1) }
      #expect(throws: DatabaseError.self) { try sink.emit("x", range: 0..<0) }
    }

    @Test func keptTokenizerArgumentsCannotCreateTokenizersAfterTheInitializer() throws {
      final class Keeper: FTS5Tokenizer {
        nonisolated(unsafe) static var kept: FTS5TokenizerArguments?
        init(arguments: FTS5TokenizerArguments) throws { Keeper.kept = arguments }
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {}
      }
      let db = try Database()
      try db.addTokenizer("keeper", type: Keeper.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'keeper a b')")
      let arguments = try #require(Keeper.kept)
      Keeper.kept = nil
      #expect(Array(arguments) == ["a", "b"])
      #expect {
        _ = try arguments.tokenizer("unicode61")
      } throws: { error in
        if case .callbackValueExpired = error as? DatabaseError { return true }
        return false
      }
    }

    @Test func aTokenizerIsUsedOnDiskAcrossConnectionsThatRegisterIt() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("fts.sqlite").path
        do {
          let db = try Database(path: path)
          try db.addTokenizer("words", type: ASCIIWords.self)
          try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'words')")
          try db.execute(sql: "INSERT INTO docs VALUES ('Persisted Words')")
          try db.close()
        }
        let reopened = try Database(path: path)
        #expect(throws: SQLiteError.self) { _ = try fts5Rowids(reopened, "docs", "words") }
        let db = try Database(path: path)
        try db.addTokenizer("words", type: ASCIIWords.self)
        #expect(try fts5Rowids(db, "docs", "WORDS") == [1])
      }
    }

    @Test func registeringOnAClosedDatabaseThrows() throws {
      let db = try Database()
      try db.close()
      #expect(throws: DatabaseError.databaseClosed) { try db.addTokenizer("words", type: ASCIIWords.self) }
      #expect(throws: DatabaseError.databaseClosed) { try db.addAuxiliaryFunction("f") { _, _, _ in } }
    }
  }
#endif
