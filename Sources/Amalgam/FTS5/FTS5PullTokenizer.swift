#if ENABLE_FTS5
  import AmalgamSQLite

  extension Database {
    /// Why FTS5 asks an ``FTS5PullTokenizer`` to tokenize a text: FeistyDB's
    /// `Database.FTS5TokenizationReason`, with its cases. (``FTS5Tokenizer``s receive the same as
    /// ``FTS5TokenizeReason``.)
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public enum FTS5TokenizationReason: Hashable, Sendable {
      /// A document is being inserted into, or removed from, the table (`FTS5_TOKENIZE_DOCUMENT`).
      case document
      /// A bareword or quoted string of a MATCH query (`FTS5_TOKENIZE_QUERY`).
      case query
      /// The same, followed by `*`: the last token is a prefix (`FTS5_TOKENIZE_PREFIX`).
      case prefix
      /// An auxiliary function tokenizes text with the table's tokenizer (`FTS5_TOKENIZE_AUX`).
      case aux

      init(_ reason: FTS5TokenizeReason) {
        switch reason {
        case .document: self = .document
        case .query: self = .query
        case .prefixQuery: self = .prefix
        case .auxiliary: self = .aux
        }
      }
    }
  }

  /// A custom FTS5 tokenizer in FeistyDB's pull style: FTS5 hands it a text with ``setText(_:reason:)``,
  /// then pulls the tokens one by one with ``advance()`` and ``copyCurrentToken(to:capacity:)``.
  ///
  /// This is FeistyDB's `FTS5Tokenizer` protocol, requirement for requirement, so that a tokenizer
  /// written for FeistyDB registers unchanged with ``Database/addTokenizer(_:type:)-qxxb``
  /// once its conformance names this protocol:
  ///
  /// ```swift
  /// final class SpaceTokenizer: FTS5PullTokenizer {  // FeistyDB: FTS5Tokenizer
  ///   var words: [Substring] = []
  ///   var position = -1
  ///   required init(arguments: [String]) {}
  ///   func setText(_ text: String, reason: Database.FTS5TokenizationReason) {
  ///     words = text.split(separator: " ")
  ///     position = -1
  ///   }
  ///   func advance() -> Bool {
  ///     position += 1
  ///     return position < words.count
  ///   }
  ///   func currentToken() -> String? { position < words.count ? words[position].lowercased() : nil }
  ///   func copyCurrentToken(to buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
  ///     let bytes = Array((currentToken() ?? "").utf8)
  ///     guard bytes.count <= capacity else { throw DatabaseError.message("Insufficient buffer size") }
  ///     buffer.update(from: bytes, count: bytes.count)
  ///     return bytes.count
  ///   }
  /// }
  ///
  /// try db.addTokenizer("spaces", type: SpaceTokenizer.self)
  /// ```
  ///
  /// New tokenizers are better written as ``FTS5Tokenizer``s: they see the input's bytes without a
  /// copy, and give each token the byte range it comes from. A pull tokenizer gives no ranges, so the
  /// adapter finds each token in the input (the next occurrence of its bytes, ASCII case ignored), which
  /// keeps `highlight()` and `snippet()` right for tokens that are words of the input; a token that is
  /// not (a stem, a synonym) is given an empty range where the previous one ended.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  public protocol FTS5PullTokenizer {
    /// Creates the tokenizer of one FTS5 table, with the words that follow the tokenizer's name in the
    /// table's `tokenize` option.
    init(arguments: [String])

    /// Sets the text to tokenize, and why FTS5 tokenizes it.
    func setText(_ text: String, reason: Database.FTS5TokenizationReason)

    /// Moves to the next token; false when there is none.
    func advance() -> Bool

    /// The current token, or `nil` when there is none. Used when the token does not fit the buffer
    /// that ``copyCurrentToken(to:capacity:)`` is given (512 bytes).
    func currentToken() -> String?

    /// Copies the UTF-8 of the current token into `buffer` and returns the number of bytes written.
    /// Throws when the token does not fit in `capacity` bytes; ``currentToken()`` then gives it. When that
    /// gives `nil`, the error thrown here fails the statement that was tokenizing (an insert or query).
    func copyCurrentToken(to buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int
  }

  extension Database {
    /// Registers a FeistyDB-style pull tokenizer under `name`: FeistyDB's `addTokenizer(_:type:)`.
    /// FTS5 creates an instance per table with ``FTS5PullTokenizer/init(arguments:)``.
    ///
    /// ```swift
    /// try db.addTokenizer("spaces", type: SpaceTokenizer.self)
    /// try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'spaces')")
    /// ```
    ///
    /// The tokenizer runs through an ``FTS5Tokenizer`` that pulls its tokens; see
    /// ``FTS5PullTokenizer`` for the byte ranges it gives them.
    ///
    /// - Throws: ``SQLiteError`` when FTS5 refuses the registration; ``DatabaseError/databaseClosed``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func addTokenizer<T: FTS5PullTokenizer>(_ name: String, type: T.Type) throws where T: AnyObject {
      try addTokenizer(name) { arguments in FTS5PullTokenizerAdapter(T(arguments: arguments.values)) }
    }
  }

  /// Runs a pull tokenizer as a push tokenizer: sets the text, then reports each token it pulls.
  final class FTS5PullTokenizerAdapter<Base: FTS5PullTokenizer>: FTS5Tokenizer {
    /// The size of the buffer FeistyDB gives `copyCurrentToken`, so that tokenizers see the same.
    static var bufferSize: Int { 512 }
    /// How far past the end of the previous token a token is looked for in the input.
    static var searchWindow: Int { 1024 }

    let base: Base

    init(_ base: Base) { self.base = base }

    convenience init(arguments: FTS5TokenizerArguments) throws {
      self.init(Base(arguments: arguments.values))
    }

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      base.setText(text.string, reason: Database.FTS5TokenizationReason(text.reason))
      var end = 0
      try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.bufferSize) { buffer in
        guard let start = buffer.baseAddress else { return }
        while base.advance() {
          let count: Int
          do {
            count = try base.copyCurrentToken(to: start, capacity: buffer.count)
          } catch {
            // Too long for the buffer: FeistyDB asks for the token as a string. With no string either,
            // the copy's error is the tokenizer's: it fails the statement rather than leave the token
            // out of the index.
            guard var token = base.currentToken() else { throw error }
            try token.withUTF8 { bytes in
              let raw = UnsafeRawBufferPointer(bytes)
              try tokens.emit(raw, range: locate(raw, in: text, after: &end))
            }
            continue
          }
          guard count >= 0 && count <= buffer.count else {
            throw SQLiteError(
              code: .range,
              message: "copyCurrentToken returned \(count) bytes for a buffer of \(buffer.count) bytes")
          }
          let token = UnsafeRawBufferPointer(start: start, count: count)
          try tokens.emit(token, range: locate(token, in: text, after: &end))
        }
      }
    }

    /// The range of the next occurrence of `token` in `text` at or after `end` (ASCII letters matched
    /// without case), which then moves past it; an empty range at `end` when there is none nearby.
    private func locate(_ token: UnsafeRawBufferPointer, in text: FTS5Text, after end: inout Int) -> Range<Int> {
      text.withUnsafeBytes { input in
        let last = Swift.min(input.count, end + Self.searchWindow) - token.count
        guard !token.isEmpty, last >= end else { return end..<end }
        for start in end...last where matches(token, input, at: start) {
          end = start + token.count
          return start..<end
        }
        return end..<end
      }
    }

    private func matches(_ token: UnsafeRawBufferPointer, _ input: UnsafeRawBufferPointer, at start: Int) -> Bool {
      for index in 0..<token.count where lowercased(token[index]) != lowercased(input[start + index]) {
        return false
      }
      return true
    }

    private func lowercased(_ byte: UInt8) -> UInt8 {
      byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
  }
#endif
