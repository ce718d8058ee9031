#if ENABLE_FTS5
  import AmalgamSQLite

  /// A custom FTS5 tokenizer written in Swift: it splits text into tokens and reports each one with
  /// the byte range of the input it comes from.
  ///
  /// Register the type with ``Database/addTokenizer(_:type:)-746b6`` and name it in a table's `tokenize`
  /// option. FTS5 creates one instance per table (and per `tokenize` argument list) with
  /// ``init(arguments:)``, then calls ``tokenize(_:into:)`` for every document it indexes, every
  /// query string it parses and every text an auxiliary function tokenizes.
  ///
  /// ```swift
  /// /// Splits on ASCII spaces and punctuation, folding ASCII letters to lower case.
  /// final class LowercaseWords: FTS5Tokenizer {
  ///   init(arguments: FTS5TokenizerArguments) throws {}
  ///
  ///   func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
  ///     var start: Int? = nil
  ///     for index in text.indices {
  ///       let byte = text[index]
  ///       let isSeparator = byte < 0x80 && !(byte >= 0x30 && byte <= 0x39) && !(byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a)
  ///       if isSeparator, let first = start {
  ///         try tokens.emit(String(decoding: text[first..<index], as: UTF8.self).lowercased(), range: first..<index)
  ///         start = nil
  ///       } else if !isSeparator, start == nil {
  ///         start = index
  ///       }
  ///     }
  ///     if let first = start {
  ///       try tokens.emit(String(decoding: text[first...], as: UTF8.self).lowercased(), range: first..<text.count)
  ///     }
  ///   }
  /// }
  ///
  /// try db.addTokenizer("words", type: LowercaseWords.self)
  /// try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'words')")
  /// ```
  ///
  /// Offsets are byte offsets in the UTF-8 of the input: FTS5 uses them to cut the text in
  /// `highlight()` and `snippet()`, so a token's range must cover the characters it was made from.
  /// The input is a view of SQLite's buffer (``FTS5Text``), not a `String`, so a tokenizer that emits
  /// ranges of the input (``FTS5TokenSink/emit(_:colocated:)``) copies nothing.
  ///
  /// A tokenizer that throws fails the statement that made FTS5 tokenize (the `INSERT`, the `MATCH`
  /// query) with the error's message, and with the error's code for an ``SQLiteError``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  ///
  /// ## Topics
  ///
  /// ### Creating and running a tokenizer
  ///
  /// - ``init(arguments:)``
  /// - ``tokenize(_:into:)``
  public protocol FTS5Tokenizer {
    /// Creates the tokenizer of one FTS5 table. `arguments` are the words that follow the tokenizer's
    /// name in the table's `tokenize` option (`tokenize = 'name arg1 arg2'` gives `["arg1", "arg2"]`),
    /// and let the tokenizer create a built-in tokenizer to wrap
    /// (``FTS5TokenizerArguments/tokenizer(_:arguments:)``).
    ///
    /// An error thrown here fails the `CREATE VIRTUAL TABLE` statement (or the first statement that
    /// uses the table).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    init(arguments: FTS5TokenizerArguments) throws

    /// Splits `text` into tokens, reporting each one, in order, to `tokens`.
    ///
    /// `text` and `tokens` are valid only during the call. ``FTS5Text/reason`` says why FTS5
    /// tokenizes (a document, a query, a prefix query, an auxiliary function) and ``FTS5Text/locale``
    /// is the locale attached to the value with `fts5_locale()`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws
  }

  /// Why FTS5 asks a tokenizer to tokenize a text (the `flags` argument of `xTokenize`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  public enum FTS5TokenizeReason: Hashable, Sendable {
    /// A document is being inserted into, or removed from, the table (`FTS5_TOKENIZE_DOCUMENT`).
    case document
    /// A bareword or quoted string of a MATCH query (`FTS5_TOKENIZE_QUERY`).
    case query
    /// A bareword or quoted string of a MATCH query followed by `*`: the last token is a prefix
    /// (`FTS5_TOKENIZE_QUERY | FTS5_TOKENIZE_PREFIX`).
    case prefixQuery
    /// An auxiliary function tokenizes text with the table's tokenizer (`FTS5_TOKENIZE_AUX`).
    case auxiliary

    /// The reason FTS5's `flags` describe.
    @usableFromInline
    init(flags: Int32) {
      if flags & FTS5_TOKENIZE_QUERY != 0 {
        self = flags & FTS5_TOKENIZE_PREFIX != 0 ? .prefixQuery : .query
      } else if flags & FTS5_TOKENIZE_AUX != 0 {
        self = .auxiliary
      } else {
        self = .document
      }
    }

    /// FTS5's `flags` for this reason.
    @usableFromInline
    var flags: Int32 {
      switch self {
      case .document: FTS5_TOKENIZE_DOCUMENT
      case .query: FTS5_TOKENIZE_QUERY
      case .prefixQuery: FTS5_TOKENIZE_QUERY | FTS5_TOKENIZE_PREFIX
      case .auxiliary: FTS5_TOKENIZE_AUX
      }
    }

    /// True for ``query`` and ``prefixQuery``.
    public var isQuery: Bool { self == .query || self == .prefixQuery }
  }

  /// The text a tokenizer splits: a view of the UTF-8 bytes in SQLite's buffer, without a copy, with
  /// the reason and the locale of the request.
  ///
  /// `FTS5Text` is a collection of bytes indexed from 0, so offsets into it are the byte offsets that
  /// ``FTS5TokenSink`` expects. `text[range]` is a slice of the same buffer;
  /// `String(decoding: text[range], as: UTF8.self)` makes a string when one is needed, and
  /// ``withUnsafeBytes(_:)`` gives the fastest access.
  ///
  /// The text is valid only during the ``FTS5Tokenizer/tokenize(_:into:)`` call that receives it.
  /// Kept after the call, it never reads SQLite's buffer again: it reads as empty (``count`` is 0,
  /// ``withUnsafeBytes(_:)`` gives an empty buffer, ``locale`` is `nil`). See
  /// <doc:CustomFunctionsAndHooks#Values-valid-only-during-a-callback>.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  ///
  /// ## Topics
  ///
  /// ### Reading the text
  ///
  /// - ``count``
  /// - ``subscript(_:)``
  /// - ``withUnsafeBytes(_:)``
  /// - ``string``
  ///
  /// ### The request
  ///
  /// - ``reason``
  /// - ``locale``
  /// - ``isValid``
  public struct FTS5Text: RandomAccessCollection {
    /// The first byte of the text; `nil` when it is empty.
    @usableFromInline let base: UnsafePointer<UInt8>?
    /// The number of bytes SQLite passed.
    @usableFromInline let byteCount: Int
    @usableFromInline let localeBase: UnsafePointer<CChar>?
    @usableFromInline let localeCount: Int
    /// FTS5's `flags` for this request.
    @usableFromInline let flags: Int32
    /// The call this text belongs to.
    @usableFromInline let token: CallbackToken

    @usableFromInline
    init(
      base: UnsafePointer<UInt8>?, count: Int, locale: UnsafePointer<CChar>?, localeCount: Int, flags: Int32,
      token: CallbackToken
    ) {
      self.base = count > 0 ? base : nil
      self.byteCount = count > 0 ? count : 0
      self.localeBase = localeCount > 0 ? locale : nil
      self.localeCount = localeCount > 0 ? localeCount : 0
      self.flags = flags
      self.token = token
    }

    /// True while the tokenizer call that received this text is running.
    @inlinable
    public var isValid: Bool { token.isActive }

    /// Why FTS5 tokenizes this text.
    public var reason: FTS5TokenizeReason { FTS5TokenizeReason(flags: flags) }

    /// The locale attached to the value with `fts5_locale(locale, text)` (in a table created with
    /// the `locale=1` option), for documents, queries and auxiliary functions alike; `nil` when the
    /// value has none (and after the call).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#the_locale_option>
    public var locale: String? {
      guard token.isActive, let localeBase else { return nil }
      return String(utf8: localeBase, count: localeCount)
    }

    /// 0.
    @inlinable
    public var startIndex: Int { 0 }

    /// The number of bytes: ``count``.
    @inlinable
    public var endIndex: Int { token.isActive ? byteCount : 0 }

    /// The number of bytes of the text; 0 after the call.
    @inlinable
    public var count: Int { endIndex }

    /// The byte at `index`. An index out of range, or a read after the call, gives 0.
    @inlinable
    public subscript(index: Int) -> UInt8 {
      guard index >= 0 && index < byteCount && token.isActive, let base else { return 0 }
      return base[index]
    }

    /// Calls `body` with the bytes of the text in SQLite's buffer, without copying them. The buffer
    /// is valid only inside `body`; after the call it is empty.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
      guard token.isActive else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
      return try body(UnsafeRawBufferPointer(start: base, count: byteCount))
    }

    /// Gives the standard library's algorithms direct access to the bytes.
    @inlinable
    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
      guard token.isActive else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
      return try body(UnsafeBufferPointer(start: base, count: byteCount))
    }

    /// The whole text as a `String` (a copy; invalid UTF-8 is repaired). Empty after the call.
    public var string: String {
      withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
  }

  /// Where a tokenizer reports its tokens (FTS5's `xToken` callback), each with the byte range of the
  /// input it comes from.
  ///
  /// Report tokens in the order they occur. A token that is a synonym of the previous one (another
  /// form of the same word, at the same position) is reported with `colocated: true`; FTS5 then
  /// matches a query for either word. The first token of a text cannot be colocated.
  ///
  /// The emit methods throw when FTS5 asks the tokenizer to stop (an error on FTS5's side) or when the
  /// token is invalid (a range outside the input, a colocated first token). Let such an error
  /// propagate out of ``FTS5Tokenizer/tokenize(_:into:)``: FTS5 expects the tokenizer to stop.
  ///
  /// The sink is valid only during the ``FTS5Tokenizer/tokenize(_:into:)`` call that receives it;
  /// kept after it, its emit methods throw ``DatabaseError/callbackValueExpired(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  ///
  /// ## Topics
  ///
  /// ### Reporting tokens
  ///
  /// - ``emit(_:colocated:)``
  /// - ``emit(_:range:colocated:)-(String,_,_)``
  /// - ``emit(_:range:colocated:)-(UnsafeRawBufferPointer,_,_)``
  /// - ``emit(_:)``
  public struct FTS5TokenSink {
    @usableFromInline let context: UnsafeMutableRawPointer?
    @usableFromInline let callback: FTS5TokenCallback
    /// The input, for tokens that are ranges of it.
    @usableFromInline let input: UnsafePointer<UInt8>?
    @usableFromInline let inputCount: Int
    @usableFromInline let token: CallbackToken
    /// Whether a token was reported during this call: the first one cannot be colocated. Owned by the
    /// call, and read only after `token` says the call is running.
    @usableFromInline let reportedAToken: UnsafeMutablePointer<Bool>

    @usableFromInline
    init(
      context: UnsafeMutableRawPointer?, callback: FTS5TokenCallback, input: UnsafePointer<UInt8>?,
      inputCount: Int, token: CallbackToken, reportedAToken: UnsafeMutablePointer<Bool>
    ) {
      self.context = context
      self.callback = callback
      self.input = input
      self.inputCount = inputCount
      self.token = token
      self.reportedAToken = reportedAToken
    }

    /// Reports the bytes of the input in `range` as a token, without copying them: the fastest form,
    /// for a tokenizer that does not transform its tokens.
    ///
    /// - Throws: an ``SQLiteError`` with code ``ResultCode/range`` when `range` is not within the
    ///   input, with code ``ResultCode/error`` for a colocated first token; the error that makes the
    ///   tokenizer stop when FTS5 asks it to.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @inlinable
    public func emit(_ range: Range<Int>, colocated: Bool = false) throws {
      try checkRange(range)
      try send(
        UnsafeRawPointer(input.map { $0 + range.lowerBound }), count: range.count, range: range,
        colocated: colocated)
    }

    /// Reports `token` (its UTF-8) as a token made from the input bytes in `range`: for tokens that
    /// differ from the input (case-folded, stemmed, a synonym).
    ///
    /// - Throws: an ``SQLiteError`` with code ``ResultCode/range`` when `range` is not within the
    ///   input, with code ``ResultCode/error`` for a colocated first token; the error that makes the
    ///   tokenizer stop when FTS5 asks it to.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @inlinable
    public func emit(_ token: String, range: Range<Int>, colocated: Bool = false) throws {
      var token = token
      try token.withUTF8 { bytes in
        try emit(UnsafeRawBufferPointer(bytes), range: range, colocated: colocated)
      }
    }

    /// Reports the bytes of `token` as a token made from the input bytes in `range`, for tokenizers
    /// that build tokens in a buffer of their own. FTS5 copies the bytes.
    ///
    /// - Throws: an ``SQLiteError`` with code ``ResultCode/range`` when `range` is not within the
    ///   input, with code ``ResultCode/error`` for a colocated first token; the error that makes the
    ///   tokenizer stop when FTS5 asks it to.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @inlinable
    public func emit(_ token: UnsafeRawBufferPointer, range: Range<Int>, colocated: Bool = false) throws {
      try checkRange(range)
      try send(token.baseAddress, count: token.count, range: range, colocated: colocated)
    }

    /// Reports a token produced by a wrapped tokenizer (``FTS5TokenizerHandle``) unchanged: same
    /// bytes, same range, same colocated flag.
    ///
    /// - Throws: as ``emit(_:range:colocated:)-(UnsafeRawBufferPointer,_,_)``, and
    ///   ``DatabaseError/callbackValueExpired(_:)`` for a token kept from an earlier call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @inlinable
    public func emit(_ token: FTS5Token) throws {
      try token.token.check("a value handed to an FTS5 tokenizer call")
      try checkRange(token.range)
      try send(
        UnsafeRawPointer(token.bytes), count: token.byteCount, range: token.range, colocated: token.isColocated)
    }

    @inlinable
    func checkRange(_ range: Range<Int>) throws {
      try token.check("a value handed to an FTS5 tokenizer call")
      if range.lowerBound < 0 || range.upperBound > inputCount { throw rangeError(range) }
    }

    @usableFromInline
    func rangeError(_ range: Range<Int>) -> SQLiteError {
      SQLiteError(
        code: .range, message: "Token range \(range) is outside the input of the tokenizer (\(inputCount) bytes)")
    }

    /// Hands a token to FTS5. The caller has checked the call's token (``checkRange(_:)``).
    @inlinable
    func send(_ bytes: UnsafeRawPointer?, count: Int, range: Range<Int>, colocated: Bool) throws {
      guard count <= Int(Int32.max) else { throw tokenTooLong(count) }
      // FTS5 would quietly index a colocated first token at the first position, as if not colocated.
      if colocated && !reportedAToken.pointee { throw colocatedFirstToken() }
      let rc = callback(
        context, colocated ? FTS5_TOKEN_COLOCATED : 0, bytes?.assumingMemoryBound(to: CChar.self), Int32(count),
        Int32(truncatingIfNeeded: range.lowerBound), Int32(truncatingIfNeeded: range.upperBound))
      if rc != SQLITE_OK { throw FTS5TokenizationStopped(code: rc) }
      reportedAToken.pointee = true
    }

    @usableFromInline
    func colocatedFirstToken() -> SQLiteError {
      SQLiteError(
        code: .error,
        message: "The first token of a text cannot be colocated (a synonym of the token before it): "
          + "report it with colocated: false")
    }

    @usableFromInline
    func tokenTooLong(_ count: Int) -> SQLiteError {
      SQLiteError(code: .tooBig, message: "A token of \(count) bytes is too long for FTS5")
    }
  }

  /// FTS5's `xToken` callback.
  @usableFromInline typealias FTS5TokenCallback =
    @convention(c) (
      UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32
    ) -> Int32

  /// Thrown by ``FTS5TokenSink``'s emit methods when FTS5's token callback returns something other than
  /// `SQLITE_OK`: the tokenizer must stop and return that code, which the registration does when the
  /// error leaves the tokenizer.
  @usableFromInline
  struct FTS5TokenizationStopped: Error, CustomStringConvertible {
    @usableFromInline let code: Int32

    @usableFromInline
    init(code: Int32) { self.code = code }

    @usableFromInline var description: String {
      "FTS5 stopped the tokenizer (\(ResultCode(rawValue: code).description), code \(code))"
    }
  }
#endif
