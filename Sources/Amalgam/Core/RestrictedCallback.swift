import AmalgamSQLite

/// A callback that SQLite restricts in what it may do with the connection that invoked it, and what it
/// may do. While one runs (``Connection/restricting(_:_:)``), the connection refuses the calls it may
/// not make with an error that names it, instead of the undefined behaviour SQLite would give them.
///
/// Each capability declares its callbacks in its own folder (`static let busyHandler = ...` in an
/// extension), so Core knows none of them. There are three kinds:
///
/// - ``Permission/nothing``: the callback must not use the connection at all (most hooks, collations):
///   running, preparing or finalizing statements, changing registrations or closing it from inside them
///   is undefined behaviour in SQLite. Refused with ``DatabaseError/reentrantCall(callback:)``.
/// - ``Permission/readOnlyQueries(reason:)``: callbacks that SQLite calls while it prepares or plans a
///   statement (a virtual table's xConnect, xBestIndex and xFindFunction, the collation-needed handler,
///   an FTS5 tokenizer's constructor) may read, as SQLite itself does there; a schema change, a
///   transaction's end or a close would free what the statement being prepared points to. They may
///   prepare and run queries that write nothing and return columns; anything else throws
///   ``DatabaseError/readOnlyCallback(callback:sql:)``.
/// - ``Permission/everythingButClose``: callbacks of an operation that goes on using the connection's
///   SQLite objects after each callback returns (a changeset apply's conflict handler) may run any SQL,
///   but closing the connection would free what the operation uses: ``Database/close()`` throws
///   `SQLITE_MISUSE`.
///
/// Names and reasons are static strings, so that setting and restoring the restriction around a
/// callback called per row or per comparison touches no reference count.
@usableFromInline @frozen
struct RestrictedCallback: CustomStringConvertible {
  /// What a restricted callback may do with its connection.
  @usableFromInline @frozen
  enum Permission {
    case nothing
    /// `reason` completes "may only read, ..." in the error message.
    case readOnlyQueries(reason: StaticString)
    case everythingButClose
  }

  /// How error messages name the callback ("busy handler").
  @usableFromInline let name: StaticString
  @usableFromInline let permission: Permission

  @usableFromInline
  init(_ name: StaticString, may permission: Permission) {
    self.name = name
    self.permission = permission
  }

  @usableFromInline var description: String { name.description }

  /// The reason of the callbacks that SQLite calls while it prepares or plans a statement.
  static let whilePreparing: StaticString = "which SQLite calls while it prepares or plans a statement"

  /// The error for a call this callback may not make; `sql` names the refused statement.
  @usableFromInline func refusal(sql: String?) -> DatabaseError {
    if case .readOnlyQueries(let reason) = permission {
      return .readOnlyCallback(callback: "\(name), \(reason)", sql: sql)
    }
    return .reentrantCall(callback: description)
  }

  /// Throws unless this callback may prepare SQL (`statement` nil) or run `statement`: a callback that
  /// may run read-only queries may run only a statement that returns rows and writes nothing
  /// (`sqlite3_stmt_readonly` is also true for `BEGIN`, `COMMIT`, `ATTACH` and `DETACH`, which return no
  /// columns).
  @usableFromInline func check(_ statement: OpaquePointer?) throws {
    switch permission {
    case .everythingButClose: return
    case .nothing: throw refusal(sql: nil)
    case .readOnlyQueries:
      guard let statement else { return }
      if sqlite3_stmt_readonly(statement) == 0 || sqlite3_column_count(statement) == 0 {
        let text = sqlite3_sql(statement).map { String(cString: $0) } ?? ""
        // In a batch, SQLite's text of a statement starts after the previous semicolon.
        throw refusal(sql: String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()))
      }
    }
  }

  /// Throws unless this callback may use the connection for anything but running a statement
  /// (registrations, batches, closing): only a callback that may do everything but close may.
  @usableFromInline func checkUse() throws {
    if case .everythingButClose = permission { return }
    throw refusal(sql: nil)
  }

  /// Throws `SQLITE_MISUSE` for a callback that may do everything but close the connection (the others
  /// are refused by ``checkUse()`` first).
  func checkClose() throws {
    guard case .everythingButClose = permission else { return }
    throw SQLiteError(
      code: .misuse,
      message: "The database cannot be closed from inside the \(name), which goes on using the connection "
        + "after the callback returns; close it once the operation has returned")
  }
}
