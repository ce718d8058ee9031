import AmalgamSQLite

/// The SQL functions and collations registered on a connection through the Swift layer, which are
/// deleted before the connection closes: SQLite then calls their `xDestroy` and releases their boxes.
/// SQLite refuses to delete them while any statement runs (`SQLITE_BUSY`): those stay with SQLite until
/// the zombie connection closes, and are never called meanwhile, since every Swift entry point refuses
/// a closed connection.
final class FunctionRegistry: ConnectionState {
  /// A function registration: its name as registered, and its arity. (SQLite matches names without
  /// regard to ASCII case; deleting a name twice, or one already gone, does nothing harmful.)
  struct FunctionKey: Hashable {
    var name: String
    var arity: Int32
  }

  var functions: Set<FunctionKey> = []
  var collations: Set<String> = []
  /// The functions registered with ``FunctionFlags/directOnly``, by name in lower case and arity.
  var directOnlyFunctions: Set<FunctionKey> = []

  init() {}

  /// Records the registration of `name` with `arity` and `flags` (replacing an earlier one).
  func didRegister(_ name: String, arity: Int32, flags: FunctionFlags) {
    functions.insert(FunctionKey(name: name, arity: arity))
    let key = FunctionKey(name: name.lowercased(), arity: arity)
    if flags.contains(.directOnly) {
      directOnlyFunctions.insert(key)
    } else {
      directOnlyFunctions.remove(key)
    }
  }

  /// Records the removal of `name` with `arity`.
  func didRemove(_ name: String, arity: Int32) {
    functions.remove(FunctionKey(name: name, arity: arity))
    directOnlyFunctions.remove(FunctionKey(name: name.lowercased(), arity: arity))
  }

  /// SQLite refuses a direct-only function in a trigger, view or schema expression with a bare "unsafe use
  /// of NAME()": says which registration made it direct-only, and what allows it there.
  func explanation(ofErrorMessage message: String) -> String? {
    let prefix = "unsafe use of "
    guard message.hasPrefix(prefix), message.hasSuffix("()") else { return nil }
    let name = String(message.dropFirst(prefix.count).dropLast(2))
    let lowercased = name.lowercased()
    guard directOnlyFunctions.contains(where: { $0.name == lowercased }) else { return nil }
    return
      "\(name)() was registered direct-only (FunctionFlags.directOnly, part of the default flags), so only "
      + "top-level SQL may call it, not a trigger, a view or the schema; register it with flags: [.innocuous] "
      + "(and .deterministic when it is) to allow it there, once it is safe whatever a database's schema does "
      + "with it"
  }

  func unregisterCallbacks(_ handle: OpaquePointer) {
    for function in functions {
      sqlite3_create_function_v2(handle, function.name, function.arity, SQLITE_UTF8, nil, nil, nil, nil, nil)
    }
    for name in collations {
      sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, nil, nil, nil)
    }
    functions.removeAll()
    directOnlyFunctions.removeAll()
    collations.removeAll()
  }
}
