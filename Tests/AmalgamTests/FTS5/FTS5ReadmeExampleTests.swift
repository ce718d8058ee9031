#if ENABLE_FTS5
  import Amalgam
  import Foundation
  import Testing

  /// An end-to-end FTS5 example: two Swift tokenizers, an auxiliary function and a
  /// query from user input, followed by checks of what it computed. The FullTextSearch article shows each
  /// part; ArticleExamplesTests checks that its lines are compiled.
  @Suite("FTS5 end-to-end example")
  struct FTS5ReadmeExampleTests {
    @Test func exampleCompilesAndRuns() throws {
      // FTS5 end-to-end example: begin
      let db = try Database()

      // A tokenizer of its own: splits at spaces and hyphens. Tokens are ranges of the input's UTF-8 bytes,
      // handed to FTS5 without a copy; FTS5 uses the offsets for highlight() and snippet().
      struct HyphenatedWords: FTS5Tokenizer {
        init(arguments: FTS5TokenizerArguments) throws {}
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          var start = 0
          for index in 0...text.count where index == text.count || text[index] == 0x20 || text[index] == 0x2D {
            if index > start { try tokens.emit(start..<index) }
            start = index + 1
          }
        }
      }
      try db.addTokenizer("hyphenated", type: HyphenatedWords.self)

      // A tokenizer that wraps a built-in one (named by the table's arguments) and drops stop words,
      // keeping the offsets of the words it keeps.
      final class StopWordFilter: FTS5Tokenizer {
        let base: FTS5TokenizerHandle
        let stopWords: Set<String> = ["a", "an", "and", "the", "of"]
        init(arguments: FTS5TokenizerArguments) throws {
          base = try arguments.tokenizer(arguments.first ?? "unicode61", arguments: Array(arguments.dropFirst()))
        }
        func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
          try base.tokenize(text) { token in
            if !stopWords.contains(token.text) { try tokens.emit(token) }
          }
        }
      }
      try db.addTokenizer("stopwords", type: StopWordFilter.self)

      try db.batch(
        sql: """
          CREATE VIRTUAL TABLE book USING fts5(title, tokenize = 'stopwords unicode61 remove_diacritics 2');
          INSERT INTO book(title) VALUES ('The Art of Computer Programming'), ('Crème brûlée and other desserts'),
                                         ('SQLite: the definitive guide');
          CREATE VIRTUAL TABLE tag USING fts5(name, tokenize = 'hyphenated');
          INSERT INTO tag(name) VALUES ('full-text search'), ('text-book');
          """)

      // An auxiliary function: sees how the query matched each row, sets its result like an SQL function.
      try db.addAuxiliaryFunction("matched_words") { api, arguments, context in
        var words: [String] = []
        for index in 0..<(try api.instanceCount()) {
          words.append(try api.instanceToken(at: index, token: 0))
        }
        context.setResult(.text(words.joined(separator: " ")))
      }

      // Text typed by a user becomes a query that is always valid and matches its words, never operators.
      let typed = #"crème "desserts OR art"#
      if let pattern = FTS5Pattern(matchingAnyTokenIn: typed) {
        let results = try db.prepare(
          sql: "SELECT highlight(book, 0, '[', ']') FROM book WHERE book MATCH ? ORDER BY rank"
        )
        .bind(pattern).column(0, as: String.self)
        print(results)  // ["[Crème] brûlée and other [desserts]", "The [Art] of Computer Programming"]
      }
      let words = try db.prepare(sql: "SELECT matched_words(tag) FROM tag WHERE tag MATCH 'text'").column(
        0, as: String.self)
      print(words)  // ["text", "text"]
      // FTS5 end-to-end example: end

      let pattern = try #require(FTS5Pattern(matchingAnyTokenIn: typed))
      #expect(pattern.rawPattern == #""crème" OR "desserts" OR "OR" OR "art""#)
      let results = try db.prepare(
        sql: "SELECT highlight(book, 0, '[', ']') FROM book WHERE book MATCH ? ORDER BY rank"
      )
      .bind(pattern).column(0, as: String.self)
      #expect(results == ["[Crème] brûlée and other [desserts]", "The [Art] of Computer Programming"])
      #expect(words == ["text", "text"])
      // The stop words were dropped from the index; the hyphenated tokenizer kept case and split at "-".
      #expect(try fts5Rowids(db, "book", "the") == [])
      #expect(try fts5Rowids(db, "tag", "book") == [2])
      #expect(try fts5Rowids(db, "tag", "full") == [1])
      #expect(
        try fts5Strings(db, "SELECT highlight(tag, 0, '<', '>') FROM tag WHERE tag MATCH 'search'") == [
          "full-text <search>"
        ])
    }
  }
#endif
