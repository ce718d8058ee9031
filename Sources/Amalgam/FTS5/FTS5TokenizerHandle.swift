#if ENABLE_FTS5
  import AmalgamSQLite

  /// An instance of a tokenizer that FTS5 knows (a built-in one such as `unicode61`, `ascii`, `porter`
  /// or `trigram`, or any registered tokenizer), created with its arguments, that Swift code runs:
  /// the building block of a tokenizer that wraps another one.
  ///
  /// Create one in a tokenizer's initializer with ``FTS5TokenizerArguments/tokenizer(_:arguments:)``,
  /// or anywhere with ``Database/makeTokenizer(_:arguments:)``. A tokenizer that filters or
  /// transforms the tokens of a built-in one runs it on its own input and forwards what it keeps; the
  /// offsets stay those of the input:
  ///
  /// ```swift
  /// final class StopWords: FTS5Tokenizer {
  ///   let base: FTS5TokenizerHandle
  ///   init(arguments: FTS5TokenizerArguments) throws {
  ///     base = try arguments.tokenizer("unicode61", arguments: ["remove_diacritics", "2"])
  ///   }
  ///   func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
  ///     try base.tokenize(text) { token in
  ///       if !["a", "the", "of"].contains(token.text) { try tokens.emit(token) }
  ///     }
  ///   }
  /// }
  /// ```
  ///
  /// The handle owns the instance and deletes it when released. It keeps working after its database
  /// closed for FTS5's built-in tokenizers and for Swift ones; it is not `Sendable`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  ///
  /// ## Topics
  ///
  /// ### Running the tokenizer
  ///
  /// - ``tokenize(_:_:)``
  /// - ``tokenize(_:reason:locale:_:)``
  /// - ``name``
  public final class FTS5TokenizerHandle {
    /// The tokenizer's name, as registered with FTS5.
    public let name: String
    /// A copy of the tokenizer's methods: FTS5's own copy lives only as long as the connection.
    let methods: fts5_tokenizer_v2
    let instance: OpaquePointer
    /// The lifetime of the tokens handed to the closures of `tokenize`.
    let scope: CallbackScope

    /// Where a Swift tokenizer's error message waits, to be taken into the error this handle throws.
    weak var connection: Connection?

    init(name: String, methods: fts5_tokenizer_v2, instance: OpaquePointer, connection: Connection?) {
      self.name = name
      self.connection = connection
      self.methods = methods
      self.instance = instance
      scope = CallbackScope()
    }

    deinit {
      methods.xDelete?(instance)
    }

    /// Runs the tokenizer on the text a Swift tokenizer received, with its reason and locale, calling
    /// `body` with each token in order. The tokens' ranges are byte offsets in `text`, so a token can
    /// be forwarded unchanged with ``FTS5TokenSink/emit(_:)``.
    ///
    /// - Throws: the error `body` throws (which stops the tokenizer), the wrapped tokenizer's error as
    ///   an ``SQLiteError``, or ``DatabaseError/callbackValueExpired(_:)`` for a text kept from an
    ///   earlier call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func tokenize(_ text: FTS5Text, _ body: (FTS5Token) throws -> Void) throws {
      try text.token.check("a token of a wrapped FTS5 tokenizer")
      try run(
        text: UnsafeRawPointer(text.base), count: text.byteCount, locale: text.localeBase,
        localeCount: text.localeCount, flags: text.flags, body)
    }

    /// Runs the tokenizer on `text` for `reason`, with `locale` (or the tokenizer's default), calling
    /// `body` with each token in order; ranges are byte offsets in the UTF-8 of `text`.
    ///
    /// ```swift
    /// let porter = try db.makeTokenizer("porter")
    /// var stems: [String] = []
    /// try porter.tokenize("Running runners ran") { stems.append($0.text) }
    /// // ["run", "runner", "ran"]
    /// ```
    ///
    /// - Throws: the error `body` throws, or the tokenizer's error as an ``SQLiteError``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func tokenize(
      _ text: String, reason: FTS5TokenizeReason = .document, locale: String? = nil,
      _ body: (FTS5Token) throws -> Void
    ) throws {
      try withUTF8Bytes(text) { text in
        try withUTF8Bytes(locale ?? "") { localeBytes in
          try run(
            text: text.baseAddress, count: text.count,
            locale: locale == nil ? nil : localeBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
            localeCount: localeBytes.count, flags: reason.flags, body)
        }
      }
    }

    private func run(
      text: UnsafeRawPointer?, count: Int, locale: UnsafePointer<CChar>?, localeCount: Int, flags: Int32,
      _ body: (FTS5Token) throws -> Void
    ) throws {
      guard let xTokenize = methods.xTokenize else { return }
      try runTokenCallbacks(body, scope: scope, textCount: count, connection: connection) { context, callback in
        xTokenize(
          instance, context, flags, text?.assumingMemoryBound(to: CChar.self), Int32(count), locale,
          Int32(localeCount), callback)
      }
    }
  }

  /// Calls `body` with the UTF-8 of `text`, in place for a native string, and checks that FTS5 can
  /// take its length.
  func withUTF8Bytes<R>(_ text: String, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
    var text = text
    return try text.withUTF8 { bytes in
      guard bytes.count <= Int(Int32.max) else {
        throw SQLiteError(code: .tooBig, message: "A text of \(bytes.count) bytes is too long for FTS5")
      }
      return try body(UnsafeRawBufferPointer(bytes))
    }
  }

  /// The state of one tokenization that Swift runs: the closure that receives each token, and the
  /// error it threw.
  struct TokenCallbackState {
    let body: (FTS5Token) throws -> Void
    let scope: CallbackScope
    let textCount: Int
    var error: (any Error)?
  }

  /// Runs a C tokenization (`tokenize` receives the context and the `xToken` callback to pass on),
  /// calling `body` with each token; rethrows `body`'s error, or turns the tokenizer's error code
  /// into an ``SQLiteError`` that carries the message a Swift tokenizer left on `connection`.
  func runTokenCallbacks(
    _ body: (FTS5Token) throws -> Void, scope: CallbackScope, textCount: Int, connection: Connection?,
    _ tokenize: (UnsafeMutableRawPointer, FTS5TokenCallback) -> Int32
  ) throws {
    guard textCount <= Int(Int32.max) else {
      throw SQLiteError(code: .tooBig, message: "A text of \(textCount) bytes is too long for FTS5")
    }
    try withoutActuallyEscaping(body) { body in
      var state = TokenCallbackState(body: body, scope: scope, textCount: textCount)
      let rc = withUnsafeMutablePointer(to: &state) { tokenize(UnsafeMutableRawPointer($0), forwardToken) }
      if let error = state.error { throw error }
      if rc != SQLITE_OK && rc != SQLITE_DONE {
        var message = "FTS5 tokenization failed: \(ResultCode(rawValue: rc))"
        if let pending = connection?.pendingCallbackError {
          connection?.pendingCallbackError = nil
          message = pending.message
        }
        throw SQLiteError(code: ResultCode(rawValue: rc), message: message)
      }
    }
  }

  /// The `xToken` callback of tokenizations that Swift runs: hands the token to the closure in the
  /// ``TokenCallbackState`` that `context` points to.
  private func forwardToken(
    _ context: UnsafeMutableRawPointer?, _ flags: Int32, _ bytes: UnsafePointer<CChar>?, _ count: Int32,
    _ start: Int32, _ end: Int32
  ) -> Int32 {
    guard let context else { return SQLITE_ERROR }
    // Only runTokenCallbacks passes this callback, with a pointer to its TokenCallbackState.
    let state = context.assumingMemoryBound(to: TokenCallbackState.self)
    let range = Int(Swift.max(start, 0))..<Int(Swift.max(end, start, 0))
    return state.pointee.scope.run { token in
      do {
        try state.pointee.body(
          FTS5Token(
            bytes: UnsafeRawPointer(bytes)?.assumingMemoryBound(to: UInt8.self), count: Int(count), range: range,
            isColocated: flags & FTS5_TOKEN_COLOCATED != 0, token: token))
        return SQLITE_OK
      } catch {
        state.pointee.error = error
        return (error as? FTS5TokenizationStopped)?.code ?? SQLITE_ERROR
      }
    }
  }
#endif
