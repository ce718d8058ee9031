#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

extension Database {
  /// Adds or replaces a collation: a built-in such as ``Collation/natural`` or one made with
  /// ``Collation/init(_:_:)``, under its ``Collation/name``.
  ///
  /// ```swift
  /// try db.addCollation(.natural)
  /// let names = try db.prepare(sql: "SELECT name FROM file ORDER BY name COLLATE NATURAL_ORDER")
  ///   .column(0, as: String.self)
  /// ```
  ///
  /// Replacing a collation makes SQLite re-prepare statements that use it. Indexes built with the old
  /// order are not rebuilt: run `REINDEX name` if the order changed.
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/busy`` while a statement is running;
  ///   ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
  public func addCollation(_ collation: Collation) throws {
    try createCollation(collation.name, CollationFunction(compare: collation.compareBytes))
  }

  /// Adds or replaces the collation `name`, ordering text with `compare`.
  ///
  /// ```swift
  /// try db.addCollation("REVERSE") { a, b in
  ///   a == b ? .orderedSame : a < b ? .orderedDescending : .orderedAscending
  /// }
  /// // SELECT x FROM t ORDER BY x COLLATE REVERSE
  /// ```
  ///
  /// `compare` must be a consistent total order that never changes (see ``Collation``). Text that is
  /// not valid UTF-8 reaches it with invalid bytes replaced by U+FFFD. The database keeps the closure
  /// until the collation is removed or replaced, or the database closes.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
  public func addCollation(_ name: String, _ compare: @escaping (String, String) -> ComparisonResult) throws {
    try createCollation(
      name,
      CollationFunction { left, right in
        compare(String(decoding: left, as: UTF8.self), String(decoding: right, as: UTF8.self))
      })
  }

  /// Removes the collation `name`. SQLite releases its closure; statements that use it then fail to
  /// prepare with "no such collation sequence". Removing a collation that does not exist does nothing.
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/busy`` while a statement is running;
  ///   ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>
  public func removeCollation(_ name: String) throws {
    let rc = try connection.withHandle { handle in
      sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, nil, nil, nil)
    }
    try check(rc)
    connection.state(FunctionRegistry.self).collations.remove(name)
  }

  /// Registers `function` as the collation `name`. SQLite releases it when the collation is removed or
  /// replaced, or the connection closes; unlike the function APIs, not when registration fails, so a
  /// failure releases it here.
  private func createCollation(_ name: String, _ function: CollationFunction) throws {
    try SQLiteError.checkNoNUL(name, "collation name")
    function.connection = Unretained(connection)
    // Allowed in the callbacks that may only read (the collation-needed handler registers collations).
    let rc = try connection.withHandle(running: nil) { handle in
      let userData = Unretained.retainedOpaque(function)
      let rc = sqlite3_create_collation_v2(handle, name, SQLITE_UTF8, userData, compareCollation, releaseFunctionBox)
      if rc != SQLITE_OK { releaseFunctionBox(userData) }
      return rc
    }
    try check(rc)
    connection.state(FunctionRegistry.self).collations.insert(name)
  }
}

/// A collation's comparison: the user data SQLite holds for it.
final class CollationFunction {
  let compare: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> ComparisonResult

  /// The connection the collation is registered on, which SQLite forbids the comparison to use.
  /// Kept alive by its statements: SQLite calls the collation only while it holds the handle, and the
  /// connection outlives the handle (statements keep it until SQLite has finished with it).
  var connection: Unretained<Connection>?

  init(compare: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> ComparisonResult) {
    self.compare = compare
  }
}

/// SQLite's xCompare for every collation: the UTF-8 bytes of both strings, read in place.
private func compareCollation(
  _ userData: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?, _ rightCount: Int32,
  _ right: UnsafeRawPointer?
) -> Int32 {
  guard let userData else { return 0 }
  // Registered only with a CollationFunction as its user data (in createCollation above).
  let function = Unretained<CollationFunction>(opaque: userData).object
  let leftBytes = UnsafeRawBufferPointer(start: leftCount > 0 ? left : nil, count: Int(Swift.max(leftCount, 0)))
  let rightBytes = UnsafeRawBufferPointer(start: rightCount > 0 ? right : nil, count: Int(Swift.max(rightCount, 0)))
  let result =
    if let connection = function.connection {
      connection.withObject { $0.restricting(.collation) { function.compare(leftBytes, rightBytes) } }
    } else {
      function.compare(leftBytes, rightBytes)
    }
  switch result {
  case .orderedAscending: return -1
  case .orderedSame: return 0
  case .orderedDescending: return 1
  }
}

extension Database {
  /// Calls `handler` with the name of a collation that a statement uses but that is not registered,
  /// so that it can register it on demand (with `addCollation(_:_:)`) before SQLite reports
  /// "no such collation sequence" (`sqlite3_collation_needed`).
  ///
  /// ```swift
  /// try db.setCollationNeededHandler { [weak db] name in
  ///   if name == "reverse" { try? db?.addCollation("reverse") { left, right in right.compare(left) } }
  /// }
  /// ```
  ///
  /// The handler runs while SQLite prepares a statement: it may register collations and run read-only
  /// queries on the connection; anything else (a schema change, a write, closing) throws
  /// ``DatabaseError/readOnlyCallback(callback:sql:)``. A database has one handler;
  /// registering again replaces it, ``removeCollationNeededHandler()`` removes it, and closing the
  /// database releases it. Capture the database `weak`: it keeps the handler.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/collation_needed.html>
  public func setCollationNeededHandler(_ handler: @escaping (_ name: String) -> Void) throws {
    try installHook(HookBox(handler), in: .collationNeeded) { handle, userData in
      sqlite3_collation_needed(
        handle, userData,
        { userData, _, _, name in
          guard let userData, let name else { return }
          HookBox<(String) -> Void>.from(userData).call { $0(String(cString: name)) }
        })
    }
  }

  /// Removes the handler set with ``setCollationNeededHandler(_:)`` and releases it.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/collation_needed.html>
  public func removeCollationNeededHandler() throws {
    try installHook(HookBox<(String) -> Void>?.none, in: .collationNeeded) { handle, _ in
      sqlite3_collation_needed(handle, nil, nil)
    }
  }
}
