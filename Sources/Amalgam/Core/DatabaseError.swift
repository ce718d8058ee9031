#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
/// A failure detected by Amalgam rather than by SQLite: a value that cannot be converted, a column or
/// parameter that does not exist, a closed database, SQL that is not one statement.
///
/// Each case names what it concerns (column, parameter, types) so the message says what to fix.
/// Errors that SQLite reports are ``SQLiteError``s instead.
public enum DatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A stored value could not be converted to the requested Swift type.
  ///
  /// - `column`: the column's name and index (`"age" (column 2)`) when reading a row, else `nil`.
  /// - `type`: the Swift type asked for. `found`: the stored value's storage class and value.
  case conversionFailed(column: String?, type: String, found: String, reason: String)
  /// A Swift value cannot be stored (an integer out of SQLite's 64-bit range, for example).
  case unrepresentableValue(type: String, value: String, reason: String)
  /// No column of the statement has this name.
  case noSuchColumn(name: String, available: [String])
  /// A column index is outside `0 ..< count`.
  case columnIndexOutOfRange(index: Int, count: Int)
  /// The statement has no parameter with this name.
  case noSuchParameter(name: String, sql: String)
  /// A named parameter of the statement was given no value.
  case missingParameter(name: String, sql: String)
  /// Two values were given for one parameter (say, under `"id"` and `":id"`).
  case duplicateParameter(name: String, sql: String)
  /// A positional parameter (`?` or `?NNN`) was bound by name, or a name was expected.
  case unnamedParameter(index: Int, sql: String)
  /// The number of values differs from the statement's parameter count.
  case parameterCountMismatch(expected: Int, provided: Int, sql: String)
  /// The database was closed before this call.
  case databaseClosed
  /// The database file at `path` is not the file the queue or pool opened any more: it was deleted, or
  /// another file took its place (created anew, or renamed over it, as restoring a backup does). The
  /// queue's or pool's connections still see the old file, so observations end with this error; open
  /// the database again to see the new file.
  case databaseFileReplaced(path: String)
  /// The connection was in use by another thread. A `Database` serves one thread at a time; share one
  /// through a queue instead of across threads.
  case concurrentUse
  /// The SQL holds no statement (it is empty, or only whitespace and comments).
  case emptyStatement(sql: String)
  /// The SQL holds more than one statement where exactly one is expected; use `Database.batch(sql:)`.
  case multipleStatements(sql: String)
  /// A transaction operation was used in the wrong state (say, `transaction {}` inside a transaction).
  case transactionState(String)
  /// A `Codable` value could not be encoded into parameters or decoded from a row.
  case codingFailed(String)
  /// A value that SQLite handed to a callback, and that is valid only while the callback runs, was used
  /// after the callback returned (it was kept in a variable or a collection). The associated text says
  /// what the value is. Copy what you need out of such values during the call. See
  /// <doc:CustomFunctionsAndHooks#Values-valid-only-during-a-callback>.
  case callbackValueExpired(String)
  /// A callback that SQLite forbids to use its own connection (a busy handler, commit, rollback, update
  /// or pre-update hook, authorizer, progress handler or collation) tried to use it. The call did not
  /// run. The associated text names the callback.
  case reentrantCall(callback: String)
  /// The SQL text contains a NUL character, which SQLite treats as the end of the text: everything after
  /// it would be silently ignored. `offset` is the NUL's byte offset in the UTF-8 of `sql`.
  case nulCharacterInSQL(sql: String, offset: Int)
  /// A statement that must return a row returned none (``Statement/front()``,
  /// ``Database/fetchValue(_:sql:arguments:)``, a record fetched by a primary key that no row has).
  case noRow(sql: String)
  /// A failure described only by a message, as FeistyDB's `DatabaseError(_:)` made: prefer an error type
  /// of your own, since Amalgam passes any `Error`'s description on.
  case message(String)
  /// The body of ``Database/transaction(_:_:)`` or ``Database/savepoint(_:_:)`` ended the transaction or
  /// savepoint itself (with `COMMIT`, `END`, `ROLLBACK` or `RELEASE`). `outcome` says what became of
  /// the body's work.
  case transactionEndedInBody(TransactionEndedInBody)
  /// A callback that SQLite calls while it prepares or plans a statement (a virtual table's connect,
  /// `bestIndex` or `findFunction`, the collation-needed handler, an FTS5 tokenizer's initializer) tried
  /// to do more with its own connection than read: run SQL that is not a read-only query (a schema
  /// change, a write, `ATTACH`, `DETACH`, `BEGIN`, `COMMIT`), or close it. Such a change would free what
  /// SQLite is planning with. The body of ``Database/withSerializedBytes(schema:_:)`` is restricted the
  /// same way, since such changes would move or free the bytes it reads. The call did not run.
  /// `callback` names the callback and why it is restricted; `sql` is the refused statement, `nil` for a
  /// call that is not SQL (closing the database, registering a hook).
  case readOnlyCallback(callback: String, sql: String?)
  /// A ``TableRecord`` type whose ``TableRecord/primaryKey`` lists no column was written or looked up
  /// by its primary key (an upsert, update, delete, `fetch(_:id:)`, `exists`). Inserts and the fetches
  /// that take a condition work without one.
  case recordWithoutPrimaryKey(type: String, table: String)
  /// An update of a ``TableRecord`` found no row with the record's primary key (`key`, by column): the
  /// row was deleted, or the record was never inserted. GRDB's `recordNotFound`.
  case recordNotFound(table: String, key: [String: DatabaseValue])
  /// ``Database/updateChanges(from:to:encoder:)`` was given two records whose primary keys differ
  /// (`old` and `new`, by column): the changes between two rows cannot be written to one of them.
  /// Nothing was written. To give a row another key, run an `UPDATE` statement that sets the key.
  case primaryKeyChanged(table: String, old: [String: DatabaseValue], new: [String: DatabaseValue])
  /// An ``SQLLiteral`` with interpolated values also holds a parameter of its own (`?`, `?NNN`,
  /// `:name`, `@name` or `$name`, named by `parameter`): SQLite would number the two kinds together,
  /// so a value could bind the wrong parameter. Interpolate every value, or write the SQL with
  /// parameters and give the arguments separately.
  case literalWithOwnParameter(sql: String, parameter: String)

  /// What went wrong, naming the column, parameter or SQL involved.
  public var description: String {
    switch self {
    case let .conversionFailed(column, type, found, reason):
      let place = column.map { " of column \($0)" } ?? ""
      return "Cannot convert \(found)\(place) to \(type): \(reason)"
    case let .unrepresentableValue(type, value, reason):
      return "Cannot store \(type) value \(value): \(reason)"
    case let .noSuchColumn(name, available):
      return "No column named \"\(name)\"; the columns are \(available.map { "\"\($0)\"" }.joined(separator: ", "))"
    case let .columnIndexOutOfRange(index, count):
      return "Column index \(index) is out of range; the statement has \(count) column(s)"
    case let .noSuchParameter(name, sql):
      return "No parameter named \"\(name)\" in \"\(sql)\""
    case let .missingParameter(name, sql):
      return "No value given for parameter \"\(name)\" in \"\(sql)\""
    case let .duplicateParameter(name, sql):
      return "Parameter \"\(name)\" of \"\(sql)\" is given more than one value"
    case let .unnamedParameter(index, sql):
      return "Parameter \(index) of \"\(sql)\" has no name; bind it by position"
    case let .parameterCountMismatch(expected, provided, sql):
      return "\"\(sql)\" takes \(expected) parameter(s) but \(provided) value(s) were given"
    case .databaseClosed:
      return "The database is closed"
    case let .databaseFileReplaced(path):
      return
        "The database file \(path) was deleted or replaced by another file after it was opened; the open "
        + "connections still see the old file: open the database again to see the new one"
    case .concurrentUse:
      return "The database connection is in use by another thread; a Database serves one thread at a time"
    case let .emptyStatement(sql):
      return "No SQL statement in \"\(sql)\""
    case let .multipleStatements(sql):
      return "More than one SQL statement in \"\(sql)\"; use batch(sql:) to run several"
    case let .transactionState(message):
      return message
    case let .codingFailed(message):
      return message
    case let .callbackValueExpired(subject):
      return
        "Used after its callback returned: \(subject). Such values are valid only during the call; "
        + "copy what you need out of them inside the callback"
    case let .reentrantCall(callback):
      return
        "The database connection was used from inside its \(callback), which SQLite forbids: "
        + "such a callback must not run statements on, prepare statements for, or close its own connection"
    case let .nulCharacterInSQL(sql, offset):
      let shown = String(decoding: sql.utf8.prefix(offset), as: UTF8.self)
      return
        "The SQL contains a NUL character at byte \(offset) (after \"\(shown)\"); SQLite would ignore "
        + "everything after it"
    case let .transactionEndedInBody(ended):
      return ended.description
    case let .noRow(sql):
      return "\"\(sql)\" returned no row"
    case let .message(message):
      return message
    case let .readOnlyCallback(callback, sql):
      let what = sql.map { "\"\($0)\" was refused" } ?? "The call was refused"
      return
        "\(what) inside the \(callback): there the connection may only run read-only queries, not change the "
        + "schema, write, attach, detach, begin or end transactions, or close"
    case let .recordWithoutPrimaryKey(type, table):
      return
        "\(type) (table \"\(table)\") has no primary key: its primaryKey lists no column, so it cannot be "
        + "upserted, updated, deleted or fetched by key; list the key columns in primaryKey"
    case let .recordNotFound(table, key):
      let columns = key.keys.sorted().map { "\($0) = \(key[$0].map(String.init(describing:)) ?? "NULL")" }
      return "No row of table \"\(table)\" has the primary key \(columns.joined(separator: ", "))"
    case let .primaryKeyChanged(table, old, new):
      func text(_ key: [String: DatabaseValue]) -> String {
        key.keys.sorted().map { "\($0) = \(key[$0].map(String.init(describing:)) ?? "NULL")" }.joined(separator: ", ")
      }
      return
        "updateChanges(from:to:) was given two records of table \"\(table)\" with different primary keys "
        + "(\(text(old)) and \(text(new))): nothing was written, since the changes of one row cannot be written "
        + "to another"
    case let .literalWithOwnParameter(sql, parameter):
      return
        "The SQL literal \"\(sql)\" mixes interpolated values with its own parameter \(parameter); SQLite "
        + "numbers them together, so a value could bind the wrong one: interpolate every value, or pass the "
        + "SQL and its arguments separately"
    }
  }
}

/// How the body of ``Database/transaction(_:_:)`` or ``Database/savepoint(_:_:)`` ended the transaction
/// or savepoint that it was given, and so what became of its work. Carried by
/// ``DatabaseError/transactionEndedInBody(_:)``.
public struct TransactionEndedInBody: Hashable, Sendable, CustomStringConvertible {
  /// What became of the body's work.
  public enum Outcome: Hashable, Sendable {
    /// The work was committed (`COMMIT` or `END`, or `RELEASE` of the outermost savepoint): it is in
    /// the database.
    case committed
    /// The work was rolled back (`ROLLBACK`, or an error that made SQLite roll back): it is gone.
    case rolledBack
    /// The savepoint was released by the body (`RELEASE`) while an enclosing transaction stays open:
    /// the work is kept in that transaction, which commits or rolls back with it.
    case releasedIntoEnclosingTransaction
    /// The transaction ended but had written nothing, so there was no work to keep or lose.
    case endedWithoutWrites
  }

  /// `"transaction"`, or `"savepoint \"name\""`.
  public var scope: String
  /// What became of the work.
  public var outcome: Outcome

  /// Creates a description of a transaction or savepoint that its body ended.
  public init(scope: String, outcome: Outcome) {
    self.scope = scope
    self.outcome = outcome
  }

  /// Says which scope the body ended and what became of its work.
  public var description: String {
    let what: String
    switch outcome {
    case .committed: what = "its work was committed"
    case .rolledBack: what = "its work was rolled back"
    case .releasedIntoEnclosingTransaction:
      what = "its work is kept in the enclosing transaction, which is still open"
    case .endedWithoutWrites: what = "it had written nothing"
    }
    return
      "The body of the \(scope) ended it itself (with COMMIT, END, ROLLBACK or RELEASE): \(what). "
      + "Let the \(scope.hasPrefix("savepoint") ? "savepoint" : "transaction") end when the body returns, "
      + "and throw from the body to roll it back"
  }
}

extension DatabaseError: LocalizedError {
  /// The same text as ``description``, so that `localizedDescription` (what an alert or a log shows
  /// of any `Error`) says what failed instead of "The operation could not be completed".
  public var errorDescription: String? { description }
}
