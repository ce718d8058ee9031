#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// Where an application-defined SQL function puts its result (`sqlite3_context*`): a value of any
/// storage class, a zero-filled blob, or text with a subtype such as JSON.
///
/// ```swift
/// try db.addFunction("tags", arity: 1, flags: [.deterministic, .directOnly, .resultSubtype]) { arguments, context in
///   let words = (arguments.text(at: 0) ?? "").split(separator: " ").map { "\"\($0)\"" }
///   try context.setResultJSON("[" + words.joined(separator: ",") + "]")
/// }
/// // SELECT json_array_length(tags('a b c'))  →  3
/// ```
///
/// A function that sets no result returns NULL; the last result set wins. A context is valid only
/// during the call that receives it: kept after the function returned, it never reaches SQLite again
/// (``setResult(_:)`` and ``setResultZeroBlob(count:)`` do nothing, the throwing setters throw
/// ``DatabaseError/callbackValueExpired(_:)``, and ``sqliteContext`` is `nil`). See
/// <doc:CustomFunctionsAndHooks#Values-valid-only-during-a-callback>.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/result_blob.html>
///
/// ## Topics
///
/// ### Setting the result
///
/// - ``setResult(_:)``
/// - ``setResultZeroBlob(count:)``
/// - ``setResultJSON(_:)``
/// - ``setResultSubtype(_:)``
/// - ``setResult(pointer:typeName:)``
///
/// ### Caching work between calls
///
/// - ``auxiliaryData(forArgument:)``
/// - ``setAuxiliaryData(_:forArgument:)``
/// - ``jsonSubtype``
///
/// ### C API
///
/// - ``sqliteContext``
/// - ``isValid``
public struct FunctionContext {
  /// The `sqlite3_context*` while the call runs.
  @usableFromInline let context: OpaquePointer

  /// The call this context belongs to.
  @usableFromInline let token: CallbackToken

  /// The flags the function was registered with.
  let flags: FunctionFlags

  /// The function's SQL name, for error messages: a pointer, so that making a context per call costs no
  /// reference counting.
  let internedName: InternedName

  /// The function's SQL name.
  var name: String { internedName.string }

  init(_ context: OpaquePointer, flags: FunctionFlags, name: InternedName, token: CallbackToken) {
    self.context = context
    self.flags = flags
    self.internedName = name
    self.token = token
  }

  /// The `sqlite3_context*`, for calling SQLite's C API directly; `nil` once the call has returned.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/context.html>
  public var sqliteContext: OpaquePointer? { token.isActive ? context : nil }

  /// True while the function call that received this context is running; false once it returned.
  public var isValid: Bool { token.isActive }

  /// The subtype SQLite's JSON functions give to JSON text, and recognise in their arguments: 74, the
  /// character `"J"`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html#jmini>
  public static let jsonSubtype: UInt32 = 74

  /// Sets the result to `value` with the `sqlite3_result_*` function of its storage class. Text and
  /// blobs are copied by SQLite; empty text stays TEXT and an empty blob stays a BLOB (neither becomes
  /// NULL). A NaN ``DatabaseValue/real(_:)`` becomes NULL, as everywhere in SQLite.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/result_blob.html>
  @inlinable
  public func setResult(_ value: DatabaseValue) {
    guard token.isActive else { return }
    // Numbers and NULL inline, so that a caller passing `.integer(n)` calls SQLite directly.
    switch value {
    case .integer(let number): sqlite3_result_int64(context, number)
    case .real(let number): sqlite3_result_double(context, number)
    case .null: sqlite3_result_null(context)
    case .text, .blob: setFunctionResult(value, on: context)
    }
  }

  /// Sets the result to a BLOB of `count` zero bytes without allocating them in Swift
  /// (`sqlite3_result_zeroblob64`), for example to reserve space that `sqlite3_blob_write` fills later.
  /// A negative count gives an empty blob; one above SQLite's length limit fails the statement with
  /// `SQLITE_TOOBIG`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/result_blob.html>
  public func setResultZeroBlob(count: Int) {
    guard token.isActive else { return }
    sqlite3_result_zeroblob64(context, UInt64(Swift.max(count, 0)))
  }

  /// Sets the result to JSON text with the JSON subtype, so that SQLite's JSON functions embed it as
  /// JSON instead of quoting it as a string: `json_array(f())` gives `[[1,2]]`, not `["[1,2]"]`.
  ///
  /// `json` must be well-formed JSON; it is not checked. The function must be registered with
  /// ``FunctionFlags/resultSubtype``.
  ///
  /// - Throws: an ``SQLiteError`` with code ``ResultCode/misuse`` when the function lacks the
  ///   ``FunctionFlags/resultSubtype`` flag. Thrown from the function, it fails the statement.
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html#jmini>
  public func setResultJSON(_ json: String) throws {
    try checkResultSubtypeAllowed()
    setResult(.text(json))
    sqlite3_result_subtype(context, Self.jsonSubtype)
  }

  /// Gives the result set by ``setResult(_:)`` a subtype (`sqlite3_result_subtype`). SQLite keeps the
  /// low 8 bits. ``setResultJSON(_:)`` covers the common case.
  ///
  /// - Throws: an ``SQLiteError`` with code ``ResultCode/misuse`` when the function was not registered
  ///   with ``FunctionFlags/resultSubtype``, without which SQLite may drop the subtype.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/result_subtype.html>
  public func setResultSubtype(_ subtype: UInt32) throws {
    try checkResultSubtypeAllowed()
    sqlite3_result_subtype(context, subtype)
  }

  /// The object that an earlier call of this function in the same statement cached for the value of
  /// argument `index` with ``setAuxiliaryData(_:forArgument:)``, if SQLite kept it
  /// (`sqlite3_get_auxdata`): a compiled pattern for a constant pattern argument, for example. `nil`
  /// when there is none, and after the call.
  ///
  /// ```swift
  /// try db.addFunction("matches", arity: 2) { arguments, context in
  ///   let pattern = try context.auxiliaryData(forArgument: 0) as? Pattern
  ///     ?? Pattern(try arguments.value(at: 0, as: String.self))
  ///   context.setAuxiliaryData(pattern, forArgument: 0)
  ///   context.setResult(.integer(pattern.matches(arguments.text(at: 1) ?? "") ? 1 : 0))
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/get_auxdata.html>
  public func auxiliaryData(forArgument index: Int) -> AnyObject? {
    guard token.isActive, let index = Int32(exactly: index), index >= 0,
      let pointer = sqlite3_get_auxdata(context, index)
    else { return nil }
    return Unretained<AnyObject>(opaque: pointer).object
  }

  /// Caches `object` for the value of argument `index` (`sqlite3_set_auxdata`): later calls of the
  /// function in the same statement with the same value of that argument (a constant) may get it back
  /// from ``auxiliaryData(forArgument:)``. SQLite keeps a reference until it discards the object; it may
  /// discard it at once. Does nothing after the call or for a negative index.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/get_auxdata.html>
  public func setAuxiliaryData(_ object: AnyObject, forArgument index: Int) {
    guard token.isActive, let index = Int32(exactly: index), index >= 0 else { return }
    sqlite3_set_auxdata(context, index, Unretained.retainedOpaque(object), releaseFunctionBox)
  }

  private func checkResultSubtypeAllowed() throws {
    try token.check("the context of a call to SQL function \"\(name)\"")
    guard flags.contains(.resultSubtype) else {
      throw SQLiteError(
        code: .misuse,
        message: "\(name)() gives its result a subtype, so it must be registered with FunctionFlags.resultSubtype")
    }
  }
}

/// Sets the result of `context` to `value` (shared by scalar, aggregate and window functions).
@usableFromInline
func setFunctionResult(_ value: DatabaseValue, on context: OpaquePointer) {
  switch value {
  case .null:
    sqlite3_result_null(context)
  case .integer(let value):
    sqlite3_result_int64(context, value)
  case .real(let value):
    sqlite3_result_double(context, value)
  case .text(var text):
    text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        // An empty buffer may have no address; SQLite would read a null pointer as NULL, not ''.
        guard let base = chars.baseAddress, chars.count > 0 else {
          sqlite3_result_text(context, "", 0, transientDestructor)
          return
        }
        sqlite3_result_text64(context, base, UInt64(chars.count), transientDestructor, UInt8(SQLITE_UTF8))
      }
    }
  case .blob(let data):
    data.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress, bytes.count > 0 else {
        sqlite3_result_zeroblob(context, 0)
        return
      }
      sqlite3_result_blob64(context, base, UInt64(bytes.count), transientDestructor)
    }
  }
}

/// Makes the function call fail with `error`'s message (`sqlite3_result_error`), and with its result
/// code when it is an ``SQLiteError`` (`sqlite3_result_error_code`). The statement then fails with an
/// ``SQLiteError`` carrying that message.
func setFunctionError(_ error: any Error, on context: OpaquePointer) {
  sqlite3_result_error(context, callbackErrorMessage(error), -1)
  // Any other error keeps the SQLITE_ERROR that sqlite3_result_error set.
  if let code = (error as? SQLiteError)?.callbackResultCode { sqlite3_result_error_code(context, code) }
}

/// After a function's closure returned (or threw): when a non-throwing reader of its arguments met an
/// allocation failure and read a harmless default instead (``CallbackToken/recordOutOfMemory()``), the
/// call fails with `SQLITE_NOMEM` in place of whatever result or error the closure set.
@inline(__always)
func failIfOutOfMemory(_ token: CallbackToken, on context: OpaquePointer) {
  if token.ranOutOfMemory { sqlite3_result_error_nomem(context) }
}
