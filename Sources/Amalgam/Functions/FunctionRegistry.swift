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

  init() {}

  func unregisterCallbacks(_ handle: OpaquePointer) {
    for function in functions {
      sqlite3_create_function_v2(handle, function.name, function.arity, SQLITE_UTF8, nil, nil, nil, nil, nil)
    }
    for name in collations {
      sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, nil, nil, nil)
    }
    functions.removeAll()
    collations.removeAll()
  }
}
