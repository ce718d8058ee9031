#if ENABLE_FTS5
  import AmalgamSQLite

  extension Database {
    /// Adds or replaces an FTS5 auxiliary function: an SQL function, called on the rows of a MATCH
    /// query, that sees how the query matched the row (as the built-in `bm25()`, `highlight()` and
    /// `snippet()` do).
    ///
    /// ```swift
    /// // SELECT rowid, phrase_hits(docs) FROM docs WHERE docs MATCH 'swift OR sqlite'
    /// try db.addAuxiliaryFunction("phrase_hits") { api, arguments, context in
    ///   var hits: [String] = []
    ///   for phrase in 0..<api.phraseCount {
    ///     var count = 0
    ///     try api.forEachInstance(ofPhrase: phrase) { _, _ in count += 1 }
    ///     hits.append("\(phrase):\(count)")
    ///   }
    ///   context.setResult(.text(hits.joined(separator: " ")))
    /// }
    /// ```
    ///
    /// In SQL the function's first argument is the table's name, and the others are passed to the
    /// closure in `arguments`: `SELECT f(docs, 1, 'x') FROM docs WHERE docs MATCH ?` gives two
    /// arguments. The result is set on `context` as for an SQL function; no result is NULL. An error
    /// the closure throws fails the statement with its message. `api`, `arguments` and `context` are
    /// valid only during the call.
    ///
    /// The closure is kept until the connection closes. Register the function on every connection
    /// that queries the table.
    ///
    /// - Throws: ``SQLiteError`` when FTS5 refuses the registration; ``DatabaseError/databaseClosed``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_auxiliary_functions>
    public func addAuxiliaryFunction(
      _ name: String,
      _ function:
        @escaping (_ api: FTS5ExtensionAPI, _ arguments: FunctionArguments, _ context: FunctionContext)
        throws -> Void
    ) throws {
      try SQLiteError.checkNoNUL(name, "function name")
      let api = try fts5API()
      guard let create = api.pointee.xCreateFunction else {
        throw SQLiteError(code: .error, message: "This FTS5 cannot register auxiliary functions")
      }
      let box = AuxiliaryFunction(name: name, body: function)
      box.connection = connection
      let userData = Unretained.retainedOpaque(box)
      let rc = try connection.withHandle { _ in
        create(api, name, userData, callAuxiliaryFunction, releaseFunctionBox)
      }
      if rc != SQLITE_OK {
        // FTS5 calls the destructor only for a function it registered.
        Unretained<AuxiliaryFunction>.releaseOpaque(userData)
        throw SQLiteError(
          code: ResultCode(rawValue: rc), message: "Cannot register FTS5 auxiliary function \"\(name)\"")
      }
    }
  }

  /// An auxiliary function's closure: the user data FTS5 holds for it, with the lifetimes of the
  /// values its calls hand out.
  final class AuxiliaryFunction {
    let name: String
    /// `name`, for each call's context.
    let internedName: InternedName
    let body: (FTS5ExtensionAPI, FunctionArguments, FunctionContext) throws -> Void
    /// Each call's API view, arguments and context.
    let scope: CallbackScope
    /// The views handed to `queryPhrase` closures: a scope of their own, so that the outer call's
    /// view stays valid while they run.
    let queryScope: CallbackScope
    /// The tokens handed to `tokenize` closures.
    let tokenScope: CallbackScope
    /// Where the table's Swift tokenizer leaves the message of an error it threw.
    weak var connection: Connection?

    init(name: String, body: @escaping (FTS5ExtensionAPI, FunctionArguments, FunctionContext) throws -> Void) {
      self.name = name
      internedName = InternedName(name)
      self.body = body
      scope = CallbackScope()
      queryScope = CallbackScope()
      tokenScope = CallbackScope()
    }
  }

  /// FTS5's callback for every Swift auxiliary function.
  private func callAuxiliaryFunction(
    _ api: UnsafePointer<Fts5ExtensionApi>?, _ fts: OpaquePointer?, _ context: OpaquePointer?, _ count: Int32,
    _ values: UnsafeMutablePointer<OpaquePointer?>?
  ) {
    guard let api, let fts, let context, let userData = api.pointee.xUserData?(fts) else { return }
    // Registered only with an AuxiliaryFunction as its user data (in addAuxiliaryFunction).
    let function = Unretained<AuxiliaryFunction>(opaque: userData).object
    function.scope.run { token in
      do {
        try function.body(
          FTS5ExtensionAPI(api: api, fts: fts, token: token, function: Unretained(function)),
          FunctionArguments(count: count, values: values, token: token),
          FunctionContext(context, flags: [], name: function.internedName, token: token))
      } catch {
        setFunctionError(error, on: context)
      }
      failIfOutOfMemory(token, on: context)
    }
  }
#endif
