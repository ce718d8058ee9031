import AmalgamSQLite

// MARK: - Scalar functions

extension Database {
  /// Adds or replaces an SQL function whose result is computed from `[DatabaseValue]` arguments.
  ///
  /// ```swift
  /// try db.addFunction("rot13", arity: 1) { values in
  ///   guard case .text(let text) = values[0] else { return .null }
  ///   return .text(String(text.unicodeScalars.map { rot13($0) }))
  /// }
  /// try db.addFunction("coalesce_blank", arity: -1) { values in
  ///   values.first { $0 != .null && $0 != .text("") } ?? .null
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: the SQL name, 1 to 255 bytes of UTF-8. SQL matches it case-insensitively.
  ///   - arity: the number of arguments, 0 through 127, or -1 for any number. Functions with the same
  ///     name and different arities are different functions; an exact arity wins over -1.
  ///   - flags: see ``FunctionFlags``; the default is `[.deterministic, .directOnly]`.
  ///   - function: computes the result. An error it throws fails the statement with an ``SQLiteError``
  ///     whose message is the error's (and whose code is the error's own, for an ``SQLiteError``).
  ///
  /// The closure is kept until the function is removed or replaced, or the database closes. It runs on
  /// the thread using the database; if it captures the `Database`, capture it `weak` or close the
  /// database explicitly, since the database keeps the closure.
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/misuse`` for a bad name or arity, or SQLite's error
  ///   (``ResultCode/busy`` while a statement is running); ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  public func addFunction(
    _ name: String, arity: Int, flags: FunctionFlags = .default,
    _ function: @escaping (_ values: [DatabaseValue]) throws -> DatabaseValue
  ) throws {
    try addFunction(name, arity: arity, flags: flags) { arguments, context in
      context.setResult(try function(Array(arguments)))
    }
  }

  /// Adds or replaces an SQL function that reads its arguments in place and sets its result on a
  /// context: the general form, for results a ``DatabaseValue`` cannot express (zero-filled blobs, JSON
  /// with its subtype) and for reading TEXT and BLOB arguments without copying them.
  ///
  /// ```swift
  /// try db.addFunction("zeros", arity: 1) { arguments, context in
  ///   context.setResultZeroBlob(count: try arguments.value(at: 0))
  /// }
  /// ```
  ///
  /// Parameters, lifetime and errors are as for the `[DatabaseValue]` form of `addFunction(_:arity:flags:_:)`.
  /// `arguments` and `context` are valid only during the call.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  public func addFunction(
    _ name: String, arity: Int, flags: FunctionFlags = .default,
    _ function: @escaping (_ arguments: FunctionArguments, _ context: FunctionContext) throws -> Void
  ) throws {
    let box = ScalarFunction(name: name, flags: flags, body: function)
    try createFunction(name, arity: arity, flags: flags, box: box) { handle, userData, textRepresentation in
      sqlite3_create_function_v2(
        handle, name, Int32(arity), textRepresentation, userData, callScalarFunction, nil, nil, releaseFunctionBox)
    }
  }

  /// Adds or replaces an SQL function written as a Swift closure with typed parameters: the arity is the
  /// number of parameters, each argument is converted to its parameter's type, and the result is stored
  /// as its ``ParameterBindable`` value.
  ///
  /// ```swift
  /// try db.addFunction("half") { (value: Double) in value / 2 }
  /// try db.addFunction("greet") { (name: String?, times: Int) in
  ///   String(repeating: "Hello, \(name ?? "stranger")! ", count: times)
  /// }
  /// // SELECT half(5), greet(NULL, 2)
  /// ```
  ///
  /// Conversions are Amalgam's strict ones: a parameter of optional type receives NULL as `nil`; an
  /// argument that does not convert (TEXT for an `Int`, NULL for a non-optional) fails the statement
  /// with an ``SQLiteError`` of code ``ResultCode/mismatch`` that names the argument. Return an
  /// optional to return NULL.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  @inlinable
  public func addFunction<each Argument: ColumnConvertible, Result: ParameterBindable>(
    _ name: String, flags: FunctionFlags = .default,
    _ function: @escaping (repeat each Argument) throws -> Result
  ) throws {
    var arity = 0
    for _ in repeat (each Argument).self { arity += 1 }
    try addFunction(name, arity: arity, flags: flags) { arguments, context in
      // A local value, not a captured variable, counts the arguments: no dynamic exclusivity check.
      var reader = TypedArgumentReader(arguments: arguments, functionName: name)
      let result = try function(repeat try reader.next((each Argument).self))
      context.setResult(try result.databaseValue())
    }
  }

  /// Removes the function `name` with exactly this arity, whichever form added it (scalar, aggregate
  /// or window). SQLite releases its closure or type. Removing a function that does not exist does
  /// nothing; a call to a removed function fails with "no such function".
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/busy`` while a statement is running, or
  ///   ``ResultCode/misuse`` for a bad name or arity; ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  public func removeFunction(_ name: String, arity: Int) throws {
    try Self.validateFunction(name: name, arity: arity)
    let rc = try connection.withHandle { handle in
      sqlite3_create_function_v2(handle, name, Int32(arity), SQLITE_UTF8, nil, nil, nil, nil, nil)
    }
    try check(rc)
    connection.state(FunctionRegistry.self).didRemove(name, arity: Int32(arity))
  }
}

/// Reads a typed function's arguments in order, converting each to its parameter's type. Inlinable,
/// with the typed `addFunction`, so that a function's conversions specialise for its parameter types.
@usableFromInline
struct TypedArgumentReader {
  @usableFromInline let arguments: FunctionArguments
  @usableFromInline let functionName: String
  @usableFromInline var index = 0

  @inlinable
  init(arguments: FunctionArguments, functionName: String) {
    self.arguments = arguments
    self.functionName = functionName
  }

  @inlinable
  mutating func next<T: ColumnConvertible>(_ type: T.Type) throws -> T {
    defer { index += 1 }
    do {
      return try arguments.value(at: index)
    } catch let error as DatabaseError {
      throw mismatch(error)
    }
  }

  /// The error for an argument that does not convert: SQLite's mismatch code, naming the argument.
  @usableFromInline
  func mismatch(_ error: DatabaseError) -> SQLiteError {
    SQLiteError(code: .mismatch, message: "\(functionName)() argument \(index + 1): \(error)")
  }
}

// MARK: - Registration

extension Database {
  /// Checks what SQLite would reject, or treat as undefined, before anything is registered: SQLite
  /// reports these as a bare `SQLITE_MISUSE` with no message.
  static func validateFunction(name: String, arity: Int) throws {
    guard arity >= -1 && arity <= 127 else {
      throw SQLiteError(
        code: .misuse,
        message: "\(name)() cannot take \(arity) arguments: the arity must be 0 through 127, or -1 for any number")
    }
    let length = name.utf8.count
    guard length > 0 && length <= 255 && !name.utf8.contains(0) else {
      let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
      throw SQLiteError(
        code: .misuse,
        message:
          "A function name must be 1 to 255 bytes of UTF-8 without NUL characters; \"\(shown)\" has \(length) bytes")
    }
  }

  /// Registers a function whose user data is `box`. SQLite owns one reference to the box from here on
  /// and releases it with ``releaseFunctionBox`` when the function is removed, replaced, or the
  /// connection closes, and also when registration fails.
  ///
  /// - Parameter create: calls `sqlite3_create_function_v2` or `sqlite3_create_window_function` with
  ///   the handle, the retained user data and the text representation with the flags.
  func createFunction(
    _ name: String, arity: Int, flags: FunctionFlags, box: AnyObject,
    _ create: (OpaquePointer, UnsafeMutableRawPointer, Int32) -> Int32
  ) throws {
    try Self.validateFunction(name: name, arity: arity)
    let rc = try connection.withHandle { handle in
      // Retained only once the call is certain: SQLite releases it even when the call fails.
      create(handle, Unretained.retainedOpaque(box), SQLITE_UTF8 | flags.rawValue)
    }
    try check(rc)
    connection.state(FunctionRegistry.self).didRegister(name, arity: Int32(arity), flags: flags)
  }
}

/// A scalar function's closure: the user data SQLite holds for it.
final class ScalarFunction {
  let name: String
  /// `name`, for each call's context.
  let internedName: InternedName
  let flags: FunctionFlags
  let body: (FunctionArguments, FunctionContext) throws -> Void
  /// The lifetime of each call's arguments and context.
  let scope: CallbackScope

  init(name: String, flags: FunctionFlags, body: @escaping (FunctionArguments, FunctionContext) throws -> Void) {
    self.name = name
    internedName = InternedName(name)
    self.flags = flags
    self.body = body
    scope = CallbackScope()
  }
}

/// SQLite's xFunc for every scalar function: calls the closure, turning a thrown error into the SQL error.
private func callScalarFunction(
  _ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let context, let userData = sqlite3_user_data(context) else { return }
  // Registered only with a ScalarFunction as its user data (in addFunction above).
  let function = Unretained<ScalarFunction>(opaque: userData).object
  function.scope.run { token in
    do {
      try function.body(
        FunctionArguments(count: count, values: values, token: token),
        FunctionContext(context, flags: function.flags, name: function.internedName, token: token))
    } catch {
      setFunctionError(error, on: context)
    }
    failIfOutOfMemory(token, on: context)
  }
}

/// SQLite's xDestroy for every function and collation box: gives back the reference taken at registration.
func releaseFunctionBox(_ userData: UnsafeMutableRawPointer?) {
  guard let userData else { return }
  Unretained<AnyObject>.releaseOpaque(userData)
}
