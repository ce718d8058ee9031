import AmalgamSQLite

extension Database {
  /// Makes sure an SQL function `name` taking `argumentCount` arguments exists, so that a virtual table
  /// can overload it for its columns (`sqlite3_overload_function`).
  ///
  /// SQLite resolves function names when it prepares a statement, before it asks a virtual table's
  /// ``VirtualTableModule/findFunction(name:argumentCount:)`` for an overload: a function that only a
  /// table provides would fail with "no such function". This registers a placeholder when no function
  /// of that name and argument count exists (an existing one is left as it is). Called with arguments
  /// that are not a column of a table that overloads it, the placeholder fails the statement with
  /// SQLite's "unable to use function NAME in the requested context".
  ///
  /// ```swift
  /// try db.addModule("documents", type: Documents.self)   // overloads match_words(column, words)
  /// try db.overloadFunction(name: "match_words", argumentCount: 2)
  /// try db.prepare(sql: "SELECT id FROM documents WHERE match_words(body, 'swift sqlite')")
  /// ```
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/misuse`` for a bad name or argument count (-1 for
  ///   any number, or 0 through 127); ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/overload_function.html>
  public func overloadFunction(name: String, argumentCount: Int) throws {
    try Self.validateFunction(name: name, arity: argumentCount)
    let rc = try connection.withHandle { handle in
      sqlite3_overload_function(handle, name, Int32(argumentCount))
    }
    try check(rc)
  }
}
