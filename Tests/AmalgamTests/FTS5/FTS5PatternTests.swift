#if ENABLE_FTS5
  import Amalgam
  import Testing

  @Suite("FTS5 patterns from user input")
  struct FTS5PatternTests {
    static let documents = [
      "swift and sqlite", "near the sea", "title body", "NOT a drill", "or else", "col x", "crème brûlée",
      "東京 tower", "swift sqlite near", "star * power", "a b c d e",
    ]

    static let hostileInputs = [
      "swift AND sqlite", "NEAR(sea", "near/3 the", "title:swift", "{title body}: x", "col:x", "\"unbalanced quote",
      "\"\"\"\"", "'single'", "((swift", "swift))", "*", "sw*", "^swift", "swift^", "-swift", "+", "NOT drill",
      "drill NOT", "OR", "or else OR", "a AND b OR c NOT d", "star * power", "\\\" \\", "crème brûlée", "CRÈME",
      "東京", "🎉 swift", "swift\u{0}sqlite", "\t\n ", "", "AND OR NOT NEAR", "near(the, sea)", "x:", ":", "{", "}",
      "[swift]", "swift;DROP TABLE docs", "e\u{301}", "\"\u{301}",
    ]

    private func database() throws -> Database {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
      for (index, document) in Self.documents.enumerated() {
        try db.execute(sql: "INSERT INTO docs(rowid, body) VALUES (?, ?)", parameterValues: [index + 1, document])
      }
      return db
    }

    /// The rows whose unicode61 tokens include all (or any) of the unicode61 tokens of `text`.
    private func expectedRows(_ db: Database, _ text: String, all: Bool) throws -> [Int64] {
      let tokenizer = try db.makeTokenizer("unicode61")
      func tokens(_ text: String) throws -> Set<String> {
        var tokens: Set<String> = []
        try tokenizer.tokenize(text) { tokens.insert($0.text) }
        return tokens
      }
      let wanted = try tokens(text)
      // A text without tokens matches nothing.
      if wanted.isEmpty { return [] }
      return try Self.documents.enumerated().compactMap { index, document in
        let present = try tokens(document)
        let matches = all ? wanted.isSubset(of: present) : !wanted.isDisjoint(with: present)
        return matches ? Int64(index + 1) : nil
      }
    }

    @Test(arguments: hostileInputs)
    func hostileInputNeverFailsToParseAndMatchesOnlyItsWords(input: String) throws {
      let db = try database()
      let patterns = [
        FTS5Pattern(matchingAllTokensIn: input), FTS5Pattern(matchingAnyTokenIn: input),
        FTS5Pattern(matchingPhrase: input), FTS5Pattern(matchingAllPrefixesIn: input),
      ]
      for pattern in patterns.compactMap({ $0 }) {
        _ = try fts5Rowids(db, "docs", pattern.rawPattern)
        _ = try fts5Rowids(db, "docs", pattern.restricted(toColumns: ["body"]).rawPattern)
      }
      let hasWord = patterns[0] != nil
      #expect(patterns.allSatisfy { ($0 != nil) == hasWord })
      guard let all = patterns[0], let any = patterns[1] else { return }
      #expect(try fts5Rowids(db, "docs", all.rawPattern) == expectedRows(db, input, all: true))
      #expect(try fts5Rowids(db, "docs", any.rawPattern) == expectedRows(db, input, all: false))
    }

    @Test func operatorsInTheTextAreMatchedAsWords() throws {
      let db = try database()
      let all = try #require(FTS5Pattern(matchingAllTokensIn: "swift AND sqlite"))
      #expect(all.rawPattern == #""swift" "AND" "sqlite""#)
      #expect(try fts5Rowids(db, "docs", all.rawPattern) == [1])  // only the row with the word "and"
      let near = try #require(FTS5Pattern(matchingAllTokensIn: "NEAR(sea"))
      #expect(try fts5Rowids(db, "docs", near.rawPattern) == [2])
      let not = try #require(FTS5Pattern(matchingAllTokensIn: "NOT drill"))
      #expect(try fts5Rowids(db, "docs", not.rawPattern) == [4])
      let column = try #require(FTS5Pattern(matchingAllTokensIn: "title:body"))
      #expect(try fts5Rowids(db, "docs", column.rawPattern) == [3])
    }

    @Test func theFourKindsOfPatterns() throws {
      let db = try database()
      let all = try #require(FTS5Pattern(matchingAllTokensIn: "sqlite, swift!"))
      #expect(try fts5Rowids(db, "docs", all.rawPattern) == [1, 9])
      let any = try #require(FTS5Pattern(matchingAnyTokenIn: "sea OR tower"))
      #expect(any.rawPattern == #""sea" OR "OR" OR "tower""#)
      #expect(try fts5Rowids(db, "docs", any.rawPattern) == [2, 5, 8])
      let phrase = try #require(FTS5Pattern(matchingPhrase: "swift... sqlite"))
      #expect(phrase.rawPattern == #""swift sqlite""#)
      #expect(try fts5Rowids(db, "docs", phrase.rawPattern) == [9])
      let prefixes = try #require(FTS5Pattern(matchingAllPrefixesIn: "sw sq"))
      #expect(prefixes.rawPattern == #""sw"* "sq"*"#)
      #expect(try fts5Rowids(db, "docs", prefixes.rawPattern) == [1, 9])
      let accents = try #require(FTS5Pattern(matchingAllTokensIn: "Crème"))
      #expect(try fts5Rowids(db, "docs", accents.rawPattern) == [7])
    }

    @Test func textWithoutWordsGivesNoPattern() {
      for text in ["", "   ", "\"", "*^()", "...", "«»", "—"] {
        #expect(FTS5Pattern(matchingAllTokensIn: text) == nil)
        #expect(FTS5Pattern(matchingAnyTokenIn: text) == nil)
        #expect(FTS5Pattern(matchingPhrase: text) == nil)
        #expect(FTS5Pattern(matchingAllPrefixesIn: text) == nil)
      }
    }

    @Test func aColumnFilterQuotesColumnNamesAndBindsAsText() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(\"my title\", body)")
      try db.execute(sql: "INSERT INTO docs VALUES ('swift', 'sqlite'), ('sqlite', 'swift')")
      let pattern = try #require(FTS5Pattern(matchingAllTokensIn: "swift")).restricted(toColumns: ["my title"])
      #expect(pattern.rawPattern == #"{"my title"} : ("swift")"#)
      let rowids = try db.prepare(sql: "SELECT rowid FROM docs WHERE docs MATCH ?").bind(pattern).column(
        0, as: Int.self)
      #expect(rowids == [1])
      #expect(pattern.description == pattern.rawPattern)
    }
  }
#endif
