import AmalgamSQLite

/// SQLite's pointer-passing interface, for Swift objects: a statement parameter or a function result
/// carries a Swift object to an application-defined function or a virtual table, which reads it back by
/// type. SQL sees the value as NULL, so SQL text can neither forge nor inspect it.
///
/// ```swift
/// final class Tally { var total = 0 }
/// try db.addFunction("tally", arity: 2) { arguments, context in
///   guard let tally = arguments.pointer(at: 0, as: Tally.self) else { throw TallyMissing() }
///   tally.total += try arguments.value(at: 1, as: Int.self)
/// }
/// let tally = Tally()
/// try db.prepare(sql: "SELECT tally(?, x) FROM t").bind(pointer: tally, toParameter: 1).execute()
/// // tally.total is the sum of x
/// ```
///
/// Each value is tagged with a type name; a reader that asks for another name gets `nil`, as does a
/// reader of a value that is not a pointer. The name is, by default, the Swift type's full name
/// (`String(reflecting: T.self)`); give one explicitly to share objects between types or modules.
/// SQLite sees the name as `"amalgam:"` followed by it, so that no C extension's pointer is ever read as
/// a Swift object. Names are kept, as C strings, for the life of the process, as SQLite requires: use a
/// fixed set of names, not one made per call.
///
/// SQLite keeps a strong reference to the object until it no longer needs the value: until the
/// parameter is bound again, the bindings are cleared, or the statement is finalized; for a result,
/// until the statement no longer uses it.
///
/// Related SQLite documentation: <https://sqlite.org/bindptr.html>
enum PointerTypeNames {
  /// Every type name used so far, as a C string that is never freed: SQLite keeps the pointer it is
  /// given and compares names with `strcmp` when a reader asks for a value.
  private static let names = LockedState<[String: UnsafePointer<CChar>]>([:])

  /// The C string SQLite is given for `name`: the same pointer every time.
  static func cString(for name: String) -> UnsafePointer<CChar> {
    names.withLock { names in
      if let existing = names[name] { return existing }
      let text = "amalgam:" + name
      let utf8 = Array(text.utf8CString)
      let storage = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
      storage.initialize(from: utf8, count: utf8.count)
      let pointer = UnsafePointer(storage)
      names[name] = pointer
      return pointer
    }
  }
}

/// SQLite's destructor for a pointer value: gives back the reference taken when it was bound or set.
private func releasePointerValue(_ pointer: UnsafeMutableRawPointer?) {
  guard let pointer else { return }
  Unretained<AnyObject>.releaseOpaque(pointer)
}

extension Statement {
  /// Binds a Swift object to parameter `index` (1-based) with SQLite's pointer-passing interface
  /// (`sqlite3_bind_pointer`): an application-defined function or a virtual table of the statement reads
  /// it back with ``FunctionArguments/pointer(at:as:typeName:)``. SQL sees the parameter as NULL.
  ///
  /// ```swift
  /// try db.prepare(sql: "SELECT tally(?, x) FROM t").bind(pointer: tally, toParameter: 1).execute()
  /// ```
  ///
  /// - Parameters:
  ///   - object: the object to pass; SQLite keeps a strong reference to it until the parameter is bound
  ///     again, the bindings are cleared (``clearBindings()``), or the statement is finalized.
  ///   - typeName: the name a reader must ask for; by default the full name of `T`. SQLite is given
  ///     `"amalgam:"` followed by it, so that no C extension's pointer is read as a Swift object. Names
  ///     are kept for the life of the process: use a fixed set of names.
  ///   - index: the parameter's index, from 1.
  /// - Throws: ``SQLiteError`` with code ``ResultCode/range`` for an index out of range;
  ///   ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @discardableResult
  public func bind<T: AnyObject>(
    pointer object: T, typeName: String = String(reflecting: T.self), toParameter index: Int
  ) throws -> Statement {
    try checkOpen()
    guard index >= 1, index <= parameterCount else { throw parameterIndexOutOfRange(index) }
    let type = PointerTypeNames.cString(for: typeName)
    let rc = try connection.withHandle { _ in
      // SQLite releases the reference with the destructor even when binding fails.
      sqlite3_bind_pointer(
        sqliteHandle, Int32(index), Unretained<AnyObject>.retainedOpaque(object), type,
        releasePointerValue)
    }
    try check(rc)
    return self
  }
}

extension FunctionArguments {
  /// The Swift object that argument `index` carries by SQLite's pointer-passing interface
  /// (`sqlite3_value_pointer`): one bound with ``Statement/bind(pointer:typeName:toParameter:)`` or
  /// returned by another function with ``FunctionContext/setResult(pointer:typeName:)``.
  ///
  /// ```swift
  /// guard let tally = arguments.pointer(at: 0, as: Tally.self) else { ... }
  /// ```
  ///
  /// - Parameters:
  ///   - index: the argument's index, from 0.
  ///   - type: the object's type.
  ///   - typeName: the name it was passed under; by default the full name of `T`.
  /// - Returns: the object, or `nil` when the argument is not a pointer, was passed under another type
  ///   name, is not a `T`, the index is out of range, or the call has returned.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public func pointer<T: AnyObject>(
    at index: Int, as type: T.Type = T.self, typeName: String = String(reflecting: T.self)
  ) -> T? {
    guard let value = sqliteValue(at: index),
      let pointer = sqlite3_value_pointer(value, PointerTypeNames.cString(for: typeName))
    else { return nil }
    // Only Amalgam makes values under an "amalgam:" name, always from a retained Swift object.
    return Unretained<AnyObject>(opaque: pointer).object as? T
  }
}

extension FunctionContext {
  /// Sets the result to a Swift object, passed by SQLite's pointer-passing interface
  /// (`sqlite3_result_pointer`): SQL sees NULL, but a function or virtual table that receives the result
  /// as an argument reads the object back with ``FunctionArguments/pointer(at:as:typeName:)``.
  ///
  /// ```swift
  /// try db.addFunction("make_matcher", arity: 1) { arguments, context in
  ///   context.setResult(pointer: Matcher(try arguments.value(at: 0, as: String.self)))
  /// }
  /// // SELECT * FROM t WHERE matches(make_matcher('a*b'), name)
  /// ```
  ///
  /// SQLite keeps a strong reference to the object until it no longer needs the value. Does nothing
  /// after the call.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/result_blob.html>
  public func setResult<T: AnyObject>(pointer object: T, typeName: String = String(reflecting: T.self)) {
    guard token.isActive else { return }
    sqlite3_result_pointer(
      context, Unretained<AnyObject>.retainedOpaque(object), PointerTypeNames.cString(for: typeName),
      releasePointerValue)
  }
}
