#if ENABLE_FTS5
  import AmalgamSQLite

  /// What an auxiliary function learns about the current row of a MATCH query and about the query: a
  /// Swift view of FTS5's `Fts5ExtensionApi` and `Fts5Context`.
  ///
  /// An auxiliary function (``Database/addAuxiliaryFunction(_:_:)``) receives one per call. It reads
  /// the row's columns and their sizes in tokens, the table's statistics, the query's phrases and
  /// where they matched in the row, runs a phrase as a query of its own, tokenizes text with the
  /// table's tokenizer, and keeps data across the rows of one query:
  ///
  /// ```swift
  /// // matches(docs): the number of phrase matches in the row.
  /// try db.addAuxiliaryFunction("matches") { api, arguments, context in
  ///   context.setResult(.integer(Int64(try api.instanceCount())))
  /// }
  /// ```
  ///
  /// Columns, phrases, instances and tokens are numbered from 0. An index out of range throws an
  /// ``SQLiteError`` with code ``ResultCode/range``, as FTS5 reports it.
  ///
  /// The view is valid only during the call that receives it: kept after it, its throwing methods
  /// throw ``DatabaseError/callbackValueExpired(_:)`` and its properties read 0. See
  /// <doc:CustomFunctionsAndHooks#Values-valid-only-during-a-callback>.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_auxiliary_functions>
  ///
  /// ## Topics
  ///
  /// ### The row
  ///
  /// - ``rowid``
  /// - ``columnCount``
  /// - ``columnText(_:)``
  /// - ``withColumnText(_:_:)``
  /// - ``columnSize(_:)``
  /// - ``columnLocale(_:)``
  ///
  /// ### The table
  ///
  /// - ``rowCount()``
  /// - ``columnTotalSize(_:)``
  ///
  /// ### The query and its matches in the row
  ///
  /// - ``phraseCount``
  /// - ``phraseSize(_:)``
  /// - ``queryToken(phrase:token:)``
  /// - ``instanceCount()``
  /// - ``instance(at:)``
  /// - ``instanceToken(at:token:)``
  /// - ``FTS5PhraseInstance``
  /// - ``forEachInstance(ofPhrase:_:)``
  /// - ``forEachColumn(ofPhrase:_:)``
  /// - ``queryPhrase(_:_:)``
  ///
  /// ### Tokenizing with the table's tokenizer
  ///
  /// - ``tokenize(_:locale:_:)``
  /// - ``tokenize(column:_:)``
  ///
  /// ### Data kept across the rows of a query
  ///
  /// - ``auxiliaryData``
  /// - ``setAuxiliaryData(_:)``
  /// - ``removeAuxiliaryData()``
  ///
  /// ### Validity
  ///
  /// - ``isValid``
  public struct FTS5ExtensionAPI {
    @usableFromInline let api: UnsafePointer<Fts5ExtensionApi>
    @usableFromInline let fts: OpaquePointer
    @usableFromInline let token: CallbackToken
    /// The function's registration: its scopes for nested callbacks. Kept alive by FTS5, which holds
    /// the registration during its calls; every use follows a `token.check`, which passes only while
    /// the call runs. Not retained: a closure that kept this view in its own captured state would
    /// otherwise keep its registration, hence itself, alive for ever (a reference cycle that
    /// LeakSanitizer reported).
    let function: Unretained<AuxiliaryFunction>

    init(
      api: UnsafePointer<Fts5ExtensionApi>, fts: OpaquePointer, token: CallbackToken,
      function: Unretained<AuxiliaryFunction>
    ) {
      self.api = api
      self.fts = fts
      self.token = token
      self.function = function
    }

    /// True while the call that received this view is running.
    public var isValid: Bool { token.isActive }

    /// Throws ``DatabaseError/callbackValueExpired(_:)`` once the call that received this view has
    /// returned: every method checks it first.
    @inlinable
    func checkValid() throws {
      try token.check("the FTS5 extension API view of an auxiliary function call")
    }

    @inlinable
    func check(_ rc: Int32, _ what: @autoclosure () -> String) throws {
      if rc != SQLITE_OK { throw failure(rc, what()) }
    }

    @usableFromInline
    func failure(_ rc: Int32, _ what: String) -> SQLiteError {
      SQLiteError(code: ResultCode(rawValue: rc), message: "FTS5 \(what) failed: \(ResultCode(rawValue: rc))")
    }

    // MARK: The row

    /// The rowid of the current row (`xRowid`); 0 after the call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xRowid>
    @inlinable
    public var rowid: Int64 {
      guard token.isActive, let xRowid = api.pointee.xRowid else { return 0 }
      return xRowid(fts)
    }

    /// The number of columns of the table (`xColumnCount`); 0 after the call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xColumnCount>
    @inlinable
    public var columnCount: Int {
      guard token.isActive, let xColumnCount = api.pointee.xColumnCount else { return 0 }
      return Int(xColumnCount(fts))
    }

    /// Calls `body` with the UTF-8 of column `column` of the current row, in place (`xColumnText`).
    /// The buffer is valid only inside `body`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xColumnText>
    @inlinable
    public func withColumnText<R>(_ column: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
      try checkValid()
      var text: UnsafePointer<CChar>?
      var count: Int32 = 0
      try check(api.pointee.xColumnText?(fts, Int32(clamping: column), &text, &count) ?? SQLITE_MISUSE, "xColumnText")
      return try body(UnsafeRawBufferPointer(start: count > 0 ? text : nil, count: Int(Swift.max(count, 0))))
    }

    /// The text of column `column` of the current row (`xColumnText`), as a `String`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xColumnText>
    public func columnText(_ column: Int) throws -> String {
      try withColumnText(column) { String(decoding: $0, as: UTF8.self) }
    }

    /// The number of tokens in column `column` of the current row, or in the whole row for `nil`
    /// (`xColumnSize`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xColumnSize>
    @inlinable
    public func columnSize(_ column: Int? = nil) throws -> Int {
      try checkValid()
      var size: Int32 = 0
      try check(api.pointee.xColumnSize?(fts, Int32(clamping: column ?? -1), &size) ?? SQLITE_MISUSE, "xColumnSize")
      return Int(size)
    }

    /// The locale attached to column `column` of the current row with `fts5_locale()`, or `nil`
    /// (`xColumnLocale`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xColumnLocale>
    public func columnLocale(_ column: Int) throws -> String? {
      try checkValid()
      var locale: UnsafePointer<CChar>?
      var count: Int32 = 0
      try check(
        api.pointee.xColumnLocale?(fts, Int32(clamping: column), &locale, &count) ?? SQLITE_MISUSE, "xColumnLocale")
      guard let locale, count > 0 else { return nil }
      return String(utf8: locale, count: Int(count))
    }

    // MARK: The table

    /// The number of rows in the table (`xRowCount`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xRowCount>
    @inlinable
    public func rowCount() throws -> Int64 {
      try checkValid()
      var count: Int64 = 0
      try check(api.pointee.xRowCount?(fts, &count) ?? SQLITE_MISUSE, "xRowCount")
      return count
    }

    /// The number of tokens in column `column` over all rows of the table, or in all columns for
    /// `nil` (`xColumnTotalSize`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xColumnTotalSize>
    @inlinable
    public func columnTotalSize(_ column: Int? = nil) throws -> Int64 {
      try checkValid()
      var size: Int64 = 0
      try check(
        api.pointee.xColumnTotalSize?(fts, Int32(clamping: column ?? -1), &size) ?? SQLITE_MISUSE, "xColumnTotalSize")
      return size
    }

    // MARK: The query

    /// The number of phrases in the query (`xPhraseCount`); 0 after the call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xPhraseCount>
    @inlinable
    public var phraseCount: Int {
      guard token.isActive, let xPhraseCount = api.pointee.xPhraseCount else { return 0 }
      return Int(xPhraseCount(fts))
    }

    /// The number of tokens in phrase `phrase` (`xPhraseSize`); 0 for a phrase out of range and after
    /// the call.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xPhraseSize>
    @inlinable
    public func phraseSize(_ phrase: Int) -> Int {
      guard token.isActive, let xPhraseSize = api.pointee.xPhraseSize else { return 0 }
      return Int(xPhraseSize(fts, Int32(clamping: phrase)))
    }

    /// Token `token` of phrase `phrase` of the query, as the tokenizer produced it (`xQueryToken`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xQueryToken>
    public func queryToken(phrase: Int, token index: Int) throws -> String {
      try checkValid()
      var text: UnsafePointer<CChar>?
      var count: Int32 = 0
      try check(
        api.pointee.xQueryToken?(fts, Int32(clamping: phrase), Int32(clamping: index), &text, &count)
          ?? SQLITE_MISUSE, "xQueryToken")
      return String(utf8: text, count: Int(count))
    }

    /// The number of matches of all phrases of the query in the current row (`xInstCount`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xInstCount>
    @inlinable
    public func instanceCount() throws -> Int {
      try checkValid()
      var count: Int32 = 0
      try check(api.pointee.xInstCount?(fts, &count) ?? SQLITE_MISUSE, "xInstCount")
      return Int(count)
    }

    /// Match `index` of the current row (`xInst`): which phrase matched, in which column, at which
    /// token offset. Matches are numbered from 0 to ``instanceCount()`` - 1.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xInst>
    @inlinable
    public func instance(at index: Int) throws -> FTS5PhraseInstance {
      try checkValid()
      var phrase: Int32 = 0
      var column: Int32 = 0
      var offset: Int32 = 0
      try check(api.pointee.xInst?(fts, Int32(clamping: index), &phrase, &column, &offset) ?? SQLITE_MISUSE, "xInst")
      return FTS5PhraseInstance(phrase: Int(phrase), column: Int(column), offset: Int(offset))
    }

    /// Token `token` of match `index` of the current row, as the tokenizer produced it from the
    /// document (`xInstToken`): for a prefix query, the document's whole token.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xInstToken>
    public func instanceToken(at index: Int, token tokenIndex: Int) throws -> String {
      try checkValid()
      var text: UnsafePointer<CChar>?
      var count: Int32 = 0
      try check(
        api.pointee.xInstToken?(fts, Int32(clamping: index), Int32(clamping: tokenIndex), &text, &count)
          ?? SQLITE_MISUSE, "xInstToken")
      return String(utf8: text, count: Int(count))
    }

    /// Calls `body` with the column and token offset of each match of phrase `phrase` in the current
    /// row, in column then offset order (`xPhraseFirst`, `xPhraseNext`). Allocates nothing.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xPhraseFirst>
    @inlinable
    public func forEachInstance(ofPhrase phrase: Int, _ body: (_ column: Int, _ offset: Int) throws -> Void) throws {
      try checkValid()
      guard let first = api.pointee.xPhraseFirst, let next = api.pointee.xPhraseNext else { return }
      guard phrase >= 0 && phrase < phraseCount else { throw phraseOutOfRange(phrase) }
      var iterator = Fts5PhraseIter()
      var column: Int32 = -1
      var offset: Int32 = 0
      try check(first(fts, Int32(phrase), &iterator, &column, &offset), "xPhraseFirst")
      while column >= 0 {
        try body(Int(column), Int(offset))
        try checkValid()
        next(fts, &iterator, &column, &offset)
      }
    }

    /// Calls `body` with each column of the current row that holds at least one match of phrase
    /// `phrase`, in order (`xPhraseFirstColumn`, `xPhraseNextColumn`): the fast form for tables with
    /// `detail=column`.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xPhraseFirstColumn>
    @inlinable
    public func forEachColumn(ofPhrase phrase: Int, _ body: (_ column: Int) throws -> Void) throws {
      try checkValid()
      guard let first = api.pointee.xPhraseFirstColumn, let next = api.pointee.xPhraseNextColumn else { return }
      guard phrase >= 0 && phrase < phraseCount else { throw phraseOutOfRange(phrase) }
      var iterator = Fts5PhraseIter()
      var column: Int32 = -1
      try check(first(fts, Int32(phrase), &iterator, &column), "xPhraseFirstColumn")
      while column >= 0 {
        try body(Int(column))
        try checkValid()
        next(fts, &iterator, &column)
      }
    }

    @usableFromInline
    func phraseOutOfRange(_ phrase: Int) -> SQLiteError {
      SQLiteError(code: .range, message: "Phrase \(phrase) is out of range; the query has \(phraseCount) phrase(s)")
    }

    /// Runs phrase `phrase` of the query as a query of its own, with its column filter, over the
    /// whole table in rowid order (`xQueryPhrase`), calling `body` with a view of each row it matches.
    /// Counting those rows gives the document frequency that `bm25()` needs.
    ///
    /// The view `body` receives is valid only during that call of `body`. An error `body` throws
    /// stops the query and is rethrown.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xQueryPhrase>
    public func queryPhrase(_ phrase: Int, _ body: (FTS5ExtensionAPI) throws -> Void) throws {
      try checkValid()
      guard let xQueryPhrase = api.pointee.xQueryPhrase else { return }
      try withoutActuallyEscaping(body) { body in
        var state = QueryPhraseState(body: body, function: function.object)
        let rc = withUnsafeMutablePointer(to: &state) { state in
          xQueryPhrase(fts, Int32(clamping: phrase), state, forwardQueryPhraseRow)
        }
        if let error = state.error { throw error }
        try check(rc, "xQueryPhrase")
      }
    }

    // MARK: Tokenizing

    /// Tokenizes `text` with the table's tokenizer, for `locale` (`xTokenize_v2`), calling `body` with
    /// each token; ranges are byte offsets in the UTF-8 of `text`. The tokenizer sees the reason
    /// ``FTS5TokenizeReason/auxiliary``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xTokenize>
    public func tokenize(_ text: String, locale: String? = nil, _ body: (FTS5Token) throws -> Void) throws {
      try checkValid()
      try withUTF8Bytes(text) { text in
        try withUTF8Bytes(locale ?? "") { localeBytes in
          try tokenize(
            text, locale: locale == nil ? nil : UnsafeRawBufferPointer(rebasing: localeBytes[...]), body)
        }
      }
    }

    /// Tokenizes column `column` of the current row with the table's tokenizer and the column's
    /// locale, in place (`xColumnText`, `xColumnLocale`, `xTokenize_v2`): the tokens' ranges are byte
    /// offsets in ``columnText(_:)``, as `highlight()` and `snippet()` use them.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xTokenize>
    public func tokenize(column: Int, _ body: (FTS5Token) throws -> Void) throws {
      try checkValid()
      var locale: UnsafePointer<CChar>?
      var localeCount: Int32 = 0
      try check(
        api.pointee.xColumnLocale?(fts, Int32(clamping: column), &locale, &localeCount) ?? SQLITE_MISUSE,
        "xColumnLocale")
      try withColumnText(column) { text in
        try tokenize(
          text, locale: UnsafeRawBufferPointer(start: localeCount > 0 ? locale : nil, count: Int(localeCount)), body)
      }
    }

    private func tokenize(
      _ text: UnsafeRawBufferPointer, locale: UnsafeRawBufferPointer?, _ body: (FTS5Token) throws -> Void
    ) throws {
      guard let xTokenize = api.pointee.xTokenize_v2 else { return }
      try function.withObject { function in
        try runTokenCallbacks(
          body, scope: function.tokenScope, textCount: text.count, connection: function.connection
        ) { context, callback in
          xTokenize(
            fts, text.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(text.count),
            locale?.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(locale?.count ?? 0), context, callback)
        }
      }
    }

    // MARK: Auxiliary data

    /// The value this function stored with ``setAuxiliaryData(_:)`` during the current query (a
    /// MATCH expression), shared by all its calls for that query; `nil` when none was stored, and
    /// after the call (`xGetAuxdata`). Store a class instance to update it in place from row to row.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xGetAuxdata>
    public var auxiliaryData: Any? {
      guard token.isActive, let data = api.pointee.xGetAuxdata?(fts, 0) else { return nil }
      // Only setAuxiliaryData stores auxiliary data for Swift functions, always an AuxiliaryDataBox.
      return Unretained<AuxiliaryDataBox>(opaque: data).object.value
    }

    /// Stores `value` for the rest of the current query (`xSetAuxdata`): later calls of this function
    /// for the same MATCH expression read it with ``auxiliaryData``. The value is released when the
    /// query ends or another value replaces it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xSetAuxdata>
    public func setAuxiliaryData(_ value: Any) throws {
      try checkValid()
      guard let xSetAuxdata = api.pointee.xSetAuxdata else { return }
      let data = Unretained.retainedOpaque(AuxiliaryDataBox(value))
      // FTS5 releases the data with the destructor even when it fails to store it.
      try check(xSetAuxdata(fts, data, releaseFunctionBox), "xSetAuxdata")
    }

    /// Removes the value stored with ``setAuxiliaryData(_:)`` and returns it (`xGetAuxdata` with
    /// `bClear`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#xGetAuxdata>
    @discardableResult
    public func removeAuxiliaryData() throws -> Any? {
      try checkValid()
      guard let data = api.pointee.xGetAuxdata?(fts, 1) else { return nil }
      // Cleared without calling the destructor: the reference taken in setAuxiliaryData is ours now.
      return Unretained<AuxiliaryDataBox>.takeRetained(data).value
    }
  }

  /// One match of a query phrase in the current row (`xInst`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#xInst>
  public struct FTS5PhraseInstance: Hashable, Sendable {
    /// The phrase's number in the query, from 0.
    public var phrase: Int
    /// The column it matched in, from 0.
    public var column: Int
    /// The offset, in tokens, of the phrase's first token in that column.
    public var offset: Int

    /// Creates an instance from its parts.
    public init(phrase: Int, column: Int, offset: Int) {
      self.phrase = phrase
      self.column = column
      self.offset = offset
    }
  }

  /// Holds an auxiliary function's data for FTS5 (which keeps a raw pointer).
  final class AuxiliaryDataBox {
    let value: Any
    init(_ value: Any) { self.value = value }
  }

  /// The state of one `xQueryPhrase` run: the closure for each row and the error it threw.
  struct QueryPhraseState {
    let body: (FTS5ExtensionAPI) throws -> Void
    let function: AuxiliaryFunction
    var error: (any Error)?
  }

  /// The `xQueryPhrase` callback: hands a view of the row to the closure in the QueryPhraseState
  /// that `userData` points to.
  private func forwardQueryPhraseRow(
    _ api: UnsafePointer<Fts5ExtensionApi>?, _ fts: OpaquePointer?, _ userData: UnsafeMutableRawPointer?
  ) -> Int32 {
    guard let api, let fts, let userData else { return SQLITE_MISUSE }
    // Only queryPhrase passes this callback, with a pointer to its QueryPhraseState.
    let state = userData.assumingMemoryBound(to: QueryPhraseState.self)
    let function = state.pointee.function
    return function.queryScope.run { token in
      do {
        try state.pointee.body(FTS5ExtensionAPI(api: api, fts: fts, token: token, function: Unretained(function)))
        return SQLITE_OK
      } catch {
        state.pointee.error = error
        return SQLITE_ERROR
      }
    }
  }
#endif
