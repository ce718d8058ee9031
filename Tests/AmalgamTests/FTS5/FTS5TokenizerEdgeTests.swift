#if ENABLE_FTS5
  import Amalgam
  import Testing

  /// What ``ByteSplitter`` saw: the reasons it tokenized for, and a text kept past its call.
  private final class SplitterLog {
    var queryFlags: [Bool] = []
    var kept: FTS5Text?
  }

  /// Splits on spaces through the text's `Collection` interface (indices and contiguous storage), and
  /// folds ASCII letters to lower case.
  private struct ByteSplitter: FTS5Tokenizer {
    let log: SplitterLog
    init(arguments: FTS5TokenizerArguments) throws { throw SQLiteError(code: .error, message: "use the closure") }
    init(log: SplitterLog) { self.log = log }

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      log.queryFlags.append(text.reason.isQuery)
      log.kept = text
      let lowered: [UInt8] =
        text.withContiguousStorageIfAvailable { bytes in
          bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        } ?? []
      var start = text.startIndex
      for index in text.indices where text[index] == UInt8(ascii: " ") {
        if index > start { try emit(lowered, start..<index, tokens) }
        start = index + 1
      }
      if start < text.endIndex { try emit(lowered, start..<text.endIndex, tokens) }
    }

    private func emit(_ bytes: [UInt8], _ range: Range<Int>, _ tokens: FTS5TokenSink) throws {
      try bytes[range].withUnsafeBytes { try tokens.emit($0, range: range) }
    }
  }

  /// Refuses every argument it is given.
  private struct Strict: FTS5Tokenizer {
    init(arguments: FTS5TokenizerArguments) throws {
      guard arguments.isEmpty else {
        throw SQLiteError(code: .error, message: "strict takes no arguments, got \(Array(arguments))")
      }
    }
    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {}
  }

  /// Wraps the tokenizer its arguments name, with the remaining arguments.
  private struct Wrapper: FTS5Tokenizer {
    let base: FTS5TokenizerHandle
    init(arguments: FTS5TokenizerArguments) throws {
      let values = Array(arguments)
      base = try arguments.tokenizer(values.first ?? "ascii", arguments: Array(values.dropFirst()))
    }
    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      try base.tokenize(text) { token in try tokens.emit(token) }
    }
  }

  /// A pull tokenizer that claims to have copied more bytes than its buffer holds.
  private final class Overflowing: FTS5PullTokenizer {
    var done = false
    required init(arguments: [String]) {}
    func setText(_ text: String, reason: Database.FTS5TokenizationReason) { done = false }
    func advance() -> Bool {
      defer { done = true }
      return !done
    }
    func currentToken() -> String? { nil }
    func copyCurrentToken(to buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int { capacity + 1 }
  }

  private struct Stop: Error, Equatable {}

  @Suite struct FTS5TokenizerEdgeTests {
    @Test func aTokenizerCanReadItsTextAsACollectionOfBytes() throws {
      let db = try Database()
      let log = SplitterLog()
      try db.addTokenizer("bytes") { _ in ByteSplitter(log: log) }
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'bytes')")
      try db.execute(sql: "INSERT INTO docs(rowid, body) VALUES (1, 'Hello  World'), (2, 'world peace ')")
      #expect(try fts5Rowids(db, "docs", "world") == [1, 2])
      #expect(try fts5Rowids(db, "docs", "hello") == [1])
      #expect(try fts5Rowids(db, "docs", "pea*") == [2])
      // Two documents, then the queries (the prefix query is a query too).
      #expect(log.queryFlags == [false, false, true, true, true])
      // Kept past its call, the text is empty.
      let kept = try #require(log.kept)
      #expect(kept.withContiguousStorageIfAvailable { $0.count } == 0)
      #expect(kept.startIndex == 0 && kept.endIndex == 0)
    }

    @Test func aWrappedSwiftTokenizerThatRefusesItsArgumentsSaysWhy() throws {
      let db = try Database()
      try db.addTokenizer("strict", type: Strict.self)
      try db.addTokenizer("wrapper", type: Wrapper.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE fine USING fts5(body, tokenize = 'wrapper strict')")
      let error = expectSQLiteError {
        try db.execute(sql: "CREATE VIRTUAL TABLE bad USING fts5(body, tokenize = 'wrapper strict nope')")
      }
      #expect(error?.code == .error)
      // The wrapper's message names the wrapped tokenizer, its arguments and what it said of them.
      #expect(
        error?.message
          == "error in tokenizer constructor: FTS5 tokenizer \"wrapper\": FTS5 tokenizer \"strict\" rejected its "
          + "arguments [\"nope\"]: FTS5 tokenizer \"strict\": strict takes no arguments, got [\"nope\"]")
    }

    @Test func anErrorThrownWhileAWrappedSwiftTokenizerEmitsStopsItAndReachesTheCaller() throws {
      let db = try Database()
      // A handle on a Swift tokenizer, taken while another is created: its closure stops it at the second token.
      let log = SplitterLog()
      try db.addTokenizer("bytes") { _ in ByteSplitter(log: log) }
      try db.addTokenizer("probe") { arguments in
        let handle = try arguments.tokenizer("bytes")
        var seen: [String] = []
        #expect(throws: Stop()) {
          try handle.tokenize("one two three") { token in
            seen.append(token.text)
            if seen.count == 2 { throw Stop() }
          }
        }
        #expect(seen == ["one", "two"])
        return try Strict(arguments: arguments)
      }
      try db.execute(sql: "CREATE VIRTUAL TABLE probed USING fts5(body, tokenize = 'probe')")
      #expect(log.queryFlags == [false])
    }

    @Test func aPullTokenizerThatOverstatesItsCopyFailsTheStatement() throws {
      let db = try Database()
      try db.addTokenizer("overflowing", type: Overflowing.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'overflowing')")
      let error = expectSQLiteError { try db.execute(sql: "INSERT INTO docs(body) VALUES ('anything')") }
      #expect(error?.code == .range)
      #expect(error?.message.contains("copyCurrentToken returned 513 bytes for a buffer of 512 bytes") == true)
    }
  }
#endif
