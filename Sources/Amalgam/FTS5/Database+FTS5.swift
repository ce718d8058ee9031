#if ENABLE_FTS5
  import AmalgamSQLite

  extension Database {
    /// Registers a Swift tokenizer type under `name`, for FTS5 tables that name it in their
    /// `tokenize` option. FTS5 creates an instance per table with ``FTS5Tokenizer/init(arguments:)``.
    ///
    /// ```swift
    /// try db.addTokenizer("words", type: LowercaseWords.self)
    /// try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'words')")
    /// ```
    ///
    /// The tokenizer is registered with FTS5's version-2 API (`xCreateTokenizer_v2`), so it receives
    /// the locale given with `fts5_locale()` in ``FTS5Text/locale``. Registering a name again replaces
    /// the tokenizer for tables opened afterwards. Register it on every connection that uses the
    /// table, before the table is used.
    ///
    /// - Throws: ``SQLiteError`` when FTS5 refuses the registration; ``DatabaseError/databaseClosed``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func addTokenizer<T: FTS5Tokenizer>(_ name: String, type: T.Type) throws {
      try addTokenizer(name) { arguments in try T(arguments: arguments) }
    }

    /// Registers a tokenizer under `name` that `make` creates, for each table that names it, from the
    /// arguments of the table's `tokenize` option: the general form of ``addTokenizer(_:type:)-746b6``, for
    /// tokenizers that capture Swift values or choose their type from the arguments.
    ///
    /// ```swift
    /// let synonyms = ["1st": "first", "nyc": "new york"]
    /// try db.addTokenizer("synonyms") { arguments in SynonymTokenizer(arguments: arguments, synonyms: synonyms) }
    /// ```
    ///
    /// An error `make` throws fails the statement that creates or opens the table, with its message.
    /// FTS5 makes tokenizers while SQLite prepares a statement: `make` (and the tokenizer's initializer)
    /// may run read-only queries on the connection, and anything else throws
    /// ``DatabaseError/readOnlyCallback(callback:sql:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func addTokenizer(
      _ name: String, _ make: @escaping (_ arguments: FTS5TokenizerArguments) throws -> any FTS5Tokenizer
    ) throws {
      try SQLiteError.checkNoNUL(name, "tokenizer name")
      let api = try fts5API()
      let registration = TokenizerRegistration(name: name, api: api, connection: connection, make: make)
      var methods = fts5_tokenizer_v2(
        iVersion: 2, xCreate: createSwiftTokenizer, xDelete: deleteSwiftTokenizer, xTokenize: runSwiftTokenizer)
      guard let create = api.pointee.xCreateTokenizer_v2 else {
        throw SQLiteError(code: .error, message: "This FTS5 has no version-2 tokenizer API")
      }
      let userData = Unretained.retainedOpaque(registration)
      let rc = try connection.withHandle { _ in
        create(api, name, userData, &methods, releaseFunctionBox)
      }
      if rc != SQLITE_OK {
        // FTS5 keeps, and later releases, the user data only when it registered the tokenizer.
        Unretained<TokenizerRegistration>.releaseOpaque(userData)
        throw SQLiteError(code: ResultCode(rawValue: rc), message: "Cannot register FTS5 tokenizer \"\(name)\"")
      }
    }

    /// Creates an instance of the tokenizer `name` (a built-in one such as `unicode61`, `ascii`,
    /// `porter` or `trigram`, or a registered one) with `arguments`, to run it from Swift.
    ///
    /// ```swift
    /// let trigram = try db.makeTokenizer("trigram", arguments: ["case_sensitive", "0"])
    /// ```
    ///
    /// - Throws: ``SQLiteError`` for an unknown tokenizer or arguments it rejects;
    ///   ``DatabaseError/databaseClosed``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#tokenizers>
    public func makeTokenizer(_ name: String, arguments: [String] = []) throws -> FTS5TokenizerHandle {
      let api = try fts5API()
      return try connection.withHandle { _ in
        try makeTokenizerHandle(api: api, name: name, arguments: arguments, connection: connection)
      }
    }

    /// The connection's `fts5_api` (from `SELECT fts5(?1)` with a bound pointer), which registers
    /// tokenizers and auxiliary functions. It lives as long as the connection.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#extending_fts5>
    func fts5API() throws -> UnsafeMutablePointer<fts5_api> {
      let api: UnsafeMutablePointer<fts5_api>? = try connection.withHandle { handle in
        try runningOwnStatements(on: handle) { try fts5API(handle) }
      }
      guard let api, api.pointee.iVersion >= 3 else {
        throw SQLiteError(code: .error, message: "FTS5 did not provide its version-3 extension API")
      }
      return api
    }

    /// The `fts5_api` of `handle`, from a statement of the library's own (see
    /// ``Connection/runningOwnStatements(_:)``).
    private func fts5API(_ handle: OpaquePointer) throws -> UnsafeMutablePointer<fts5_api>? {
      var statement: OpaquePointer?
      var rc = sqlite3_prepare_v2(handle, "SELECT fts5(?1)", -1, &statement, nil)
      defer { sqlite3_finalize(statement) }
      guard rc == SQLITE_OK, let statement else { throw connection.error(rc, sql: "SELECT fts5(?1)") }
      var api: UnsafeMutablePointer<fts5_api>?
      // SQLite compares the pointer type when the statement runs: the string must live until then.
      rc = withUnsafeMutablePointer(to: &api) { slot in
        "fts5_api_ptr".withCString { type in
          sqlite3_bind_pointer(statement, 1, slot, type, nil)
          return sqlite3_step(statement)
        }
      }
      guard rc == SQLITE_ROW else { throw connection.error(rc, sql: "SELECT fts5(?1)") }
      return api
    }
  }

  /// A Swift tokenizer's registration: the user data FTS5 holds for it.
  final class TokenizerRegistration {
    let name: String
    let api: UnsafeMutablePointer<fts5_api>
    /// Where errors the tokenizer throws wait for the statement that failed to report them.
    weak var connection: Connection?
    let make: (FTS5TokenizerArguments) throws -> any FTS5Tokenizer
    /// The lifetime of the arguments handed to `make`.
    let creationScope: CallbackScope

    init(
      name: String, api: UnsafeMutablePointer<fts5_api>, connection: Connection,
      make: @escaping (FTS5TokenizerArguments) throws -> any FTS5Tokenizer
    ) {
      self.name = name
      self.api = api
      self.connection = connection
      self.make = make
      creationScope = CallbackScope()
    }

    /// Keeps the message of `error` for the statement that fails, and returns the code to give FTS5.
    func report(_ error: any Error) -> Int32 {
      let code = callbackResultCode(error)
      connection?.pendingCallbackError = (code, "FTS5 tokenizer \"\(name)\": \(callbackErrorMessage(error))")
      return code
    }
  }

  /// One instance of a Swift tokenizer: what FTS5 holds as an `Fts5Tokenizer*`.
  final class TokenizerInstance {
    let tokenizer: any FTS5Tokenizer
    let registration: TokenizerRegistration
    /// The lifetime of each call's text and token sink.
    let scope: CallbackScope

    init(tokenizer: any FTS5Tokenizer, registration: TokenizerRegistration) {
      self.tokenizer = tokenizer
      self.registration = registration
      scope = CallbackScope()
    }
  }

  /// xCreate of every Swift tokenizer: calls the registration's factory with the table's arguments.
  private func createSwiftTokenizer(
    _ userData: UnsafeMutableRawPointer?, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ argc: Int32,
    _ output: UnsafeMutablePointer<OpaquePointer?>?
  ) -> Int32 {
    guard let userData, let output else { return SQLITE_MISUSE }
    // Registered only with a TokenizerRegistration as its user data (in addTokenizer).
    let registration = Unretained<TokenizerRegistration>(opaque: userData).object
    var values: [String] = []
    for index in 0..<Int(Swift.max(argc, 0)) {
      values.append(argv?[index].map { String(cString: $0) } ?? "")
    }
    return registration.creationScope.run { token in
      do {
        let arguments = FTS5TokenizerArguments(
          values: values, api: registration.api, connection: registration.connection, token: token)
        // FTS5 creates tokenizers in xConnect, while SQLite prepares a statement: it may only read.
        let tokenizer =
          try registration.connection.map { connection in
            try connection.restricting(.tokenizerConstructor) { try registration.make(arguments) }
          } ?? registration.make(arguments)
        let instance = TokenizerInstance(tokenizer: tokenizer, registration: registration)
        output.pointee = OpaquePointer(Unretained.retainedOpaque(instance))
        return SQLITE_OK
      } catch {
        return registration.report(error)
      }
    }
  }

  /// xDelete of every Swift tokenizer: releases the instance made by createSwiftTokenizer.
  private func deleteSwiftTokenizer(_ tokenizer: OpaquePointer?) {
    guard let tokenizer else { return }
    Unretained<TokenizerInstance>.releaseOpaque(UnsafeRawPointer(tokenizer))
  }

  /// xTokenize of every Swift tokenizer: hands the text and a token sink to the Swift tokenizer.
  private func runSwiftTokenizer(
    _ tokenizer: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ flags: Int32, _ text: UnsafePointer<CChar>?,
    _ count: Int32, _ locale: UnsafePointer<CChar>?, _ localeCount: Int32,
    _ callback: (
      @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32
    )?
  ) -> Int32 {
    guard let tokenizer, let callback else { return SQLITE_MISUSE }
    // FTS5 passes back the pointer createSwiftTokenizer made.
    let instance = Unretained<TokenizerInstance>(opaque: UnsafeRawPointer(tokenizer)).object
    let bytes = UnsafeRawPointer(text)?.assumingMemoryBound(to: UInt8.self)
    let byteCount = Int(Swift.max(count, 0))
    var reportedAToken = false
    return instance.scope.run { token in
      withUnsafeMutablePointer(to: &reportedAToken) { reportedAToken in
        do {
          try instance.tokenizer.tokenize(
            FTS5Text(
              base: bytes, count: byteCount, locale: locale, localeCount: Int(localeCount), flags: flags, token: token
            ),
            into: FTS5TokenSink(
              context: context, callback: callback, input: bytes, inputCount: byteCount, token: token,
              reportedAToken: reportedAToken))
          return SQLITE_OK
        } catch let stop as FTS5TokenizationStopped {
          return stop.code
        } catch {
          return instance.registration.report(error)
        }
      }
    }
  }
#endif
