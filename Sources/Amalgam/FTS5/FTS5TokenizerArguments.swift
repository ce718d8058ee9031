#if ENABLE_FTS5
  import AmalgamSQLite

  /// The arguments of an FTS5 table's `tokenize` option that a Swift tokenizer is created with
  /// (`tokenize = 'name arg1 arg2'` gives `["arg1", "arg2"]`), and the way to create the tokenizer
  /// it wraps.
  ///
  /// The arguments are a collection of strings. ``tokenizer(_:arguments:)`` works only during the
  /// ``FTS5Tokenizer/init(arguments:)`` call that receives them; kept after it, it throws
  /// ``DatabaseError/callbackValueExpired(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#tokenizers>
  ///
  /// ## Topics
  ///
  /// ### Reading the arguments
  ///
  /// - ``values``
  /// - ``subscript(_:)``
  ///
  /// ### Wrapping another tokenizer
  ///
  /// - ``tokenizer(_:arguments:)``
  public struct FTS5TokenizerArguments: RandomAccessCollection {
    /// The arguments, in order.
    public let values: [String]
    let api: UnsafeMutablePointer<fts5_api>
    weak var connection: Connection?
    let token: CallbackToken

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of arguments.
    public var endIndex: Int { values.count }
    /// The argument at `index` (0-based).
    public subscript(index: Int) -> String { values[index] }

    /// Creates an instance of the tokenizer `name` (`unicode61`, `ascii`, `porter`, `trigram`, or
    /// any tokenizer registered on this connection) with `arguments`, for the tokenizer being created
    /// to wrap.
    ///
    /// ```swift
    /// init(arguments: FTS5TokenizerArguments) throws {
    ///   // tokenize = 'stopwords unicode61 remove_diacritics 2'
    ///   base = try arguments.tokenizer(arguments.first ?? "unicode61", arguments: Array(arguments.dropFirst()))
    /// }
    /// ```
    ///
    /// - Throws: ``SQLiteError`` for an unknown tokenizer or arguments it rejects;
    ///   ``DatabaseError/callbackValueExpired(_:)`` after the initializer returned.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    public func tokenizer(_ name: String, arguments: [String] = []) throws -> FTS5TokenizerHandle {
      try token.check("a value handed to an FTS5 tokenizer call")
      return try makeTokenizerHandle(api: api, name: name, arguments: arguments, connection: connection)
    }
  }

  /// Finds the tokenizer `name` with `xFindTokenizer_v2` and creates an instance with `arguments`.
  func makeTokenizerHandle(
    api: UnsafeMutablePointer<fts5_api>, name: String, arguments: [String], connection: Connection?
  ) throws -> FTS5TokenizerHandle {
    var userData: UnsafeMutableRawPointer?
    var methods: UnsafeMutablePointer<fts5_tokenizer_v2>?
    let found = api.pointee.xFindTokenizer_v2?(api, name, &userData, &methods) ?? SQLITE_ERROR
    guard found == SQLITE_OK, let methods, let xCreate = methods.pointee.xCreate else {
      throw SQLiteError(code: .error, message: "No such FTS5 tokenizer: \"\(name)\"")
    }
    let copy = methods.pointee
    var instance: OpaquePointer?
    let strings = arguments.map { argument in
      argument.utf8CString.withUnsafeBufferPointer { characters in
        let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: characters.count)
        _ = copy.initialize(from: characters)
        return copy
      }
    }
    defer { strings.forEach { $0.deallocate() } }
    var argv: [UnsafePointer<CChar>?] = strings.map { $0.baseAddress.map { UnsafePointer($0) } }
    let rc = argv.withUnsafeMutableBufferPointer { argv in
      xCreate(userData, argv.baseAddress, Int32(argv.count), &instance)
    }
    guard rc == SQLITE_OK, let instance else {
      var message = "FTS5 tokenizer \"\(name)\" rejected its arguments \(arguments)"
      if let pending = connection?.pendingCallbackError {
        connection?.pendingCallbackError = nil
        message += ": \(pending.message)"
      }
      throw SQLiteError(code: ResultCode(rawValue: rc == SQLITE_OK ? SQLITE_ERROR : rc), message: message)
    }
    return FTS5TokenizerHandle(name: name, methods: copy, instance: instance, connection: connection)
  }
#endif
