#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
/// A failure of ``DatabaseMigrator``: the migration that failed and why, or a migrator used in a way that
/// cannot work (a name registered twice, an unknown target).
///
/// ```swift
/// do { try migrator.migrate(db) }
/// catch let error as MigrationError { print(error.migration ?? "", error) }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
public enum MigrationError: Error, CustomStringConvertible {
  /// The migration named `migration` threw `error`, or recording it or committing it failed. Its
  /// changes were rolled back; the migrations before it are kept (see
  /// ``DatabaseMigrator/TransactionMode``).
  case migrationFailed(migration: String, error: any Error)
  /// The migration named `migration` left rows whose foreign keys have no parent
  /// (`PRAGMA foreign_key_check`). Its changes were rolled back.
  case foreignKeyViolations(migration: String, violations: [ForeignKeyViolation])
  /// Two migrations were registered under this name.
  case duplicateMigration(String)
  /// `migrate(upTo:)` was given a name that no migration was registered under.
  case unknownMigration(String)
  /// `migrate(upTo:)` was asked to stop at `target`, but migrations registered after it are already
  /// applied (`applied`): migrations are never undone.
  case migratedBeyondTarget(target: String, applied: [String])

  /// The name of the migration that failed, if the error concerns one.
  public var migration: String? {
    switch self {
    case let .migrationFailed(migration, _), let .foreignKeyViolations(migration, _): migration
    case let .duplicateMigration(name), let .unknownMigration(name): name
    case let .migratedBeyondTarget(target, _): target
    }
  }

  /// What went wrong, naming the migration and, for foreign keys, the table and row.
  public var description: String {
    switch self {
    case let .migrationFailed(migration, error):
      return "Migration \"\(migration)\" failed: \(error)"
    case let .foreignKeyViolations(migration, violations):
      let shown = violations.prefix(5).map(\.description).joined(separator: "; ")
      let more = violations.count > 5 ? " and \(violations.count - 5) more" : ""
      return "Migration \"\(migration)\" violates foreign keys: \(shown)\(more)"
    case let .duplicateMigration(name):
      return "Two migrations are registered under the name \"\(name)\""
    case let .unknownMigration(name):
      return "No migration is registered under the name \"\(name)\""
    case let .migratedBeyondTarget(target, applied):
      let names = applied.map { "\"\($0)\"" }.joined(separator: ", ")
      return "Cannot migrate up to \"\(target)\": migrations registered after it are already applied (\(names))"
    }
  }
}

/// One row that `PRAGMA foreign_key_check` reports: a child row whose foreign key has no parent row.
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_check>
public struct ForeignKeyViolation: Sendable, Hashable, CustomStringConvertible {
  /// The table holding the row that refers to a missing parent.
  public var table: String
  /// The rowid of that row; `nil` for a `WITHOUT ROWID` table.
  public var rowid: Int64?
  /// The table the foreign key refers to.
  public var parentTable: String
  /// The foreign key's number, as `PRAGMA foreign_key_list` numbers them (its `id` column).
  public var foreignKeyID: Int

  /// Creates a violation from its parts.
  public init(table: String, rowid: Int64?, parentTable: String, foreignKeyID: Int) {
    self.table = table
    self.rowid = rowid
    self.parentTable = parentTable
    self.foreignKeyID = foreignKeyID
  }

  /// Names the table, the row and the parent table.
  public var description: String {
    let row = rowid.map { "row \($0)" } ?? "a row"
    return "\(row) of table \"\(table)\" refers to a missing row of \"\(parentTable)\""
  }
}

extension Database {
  /// The rows whose foreign keys have no parent, in every table of `schema` (or every attached
  /// database when `schema` is `nil`), as `PRAGMA foreign_key_check` reports them. Works whether or not
  /// foreign keys are enforced.
  ///
  /// ```swift
  /// for violation in try db.foreignKeyViolations() { print(violation) }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_foreign_key_check>
  public func foreignKeyViolations(schema: String? = nil) throws -> [ForeignKeyViolation] {
    let prefix = schema.map { quoteIdentifier($0) + "." } ?? ""
    var violations: [ForeignKeyViolation] = []
    try prepare(sql: "PRAGMA \(prefix)foreign_key_check").results { row in
      violations.append(
        ForeignKeyViolation(
          table: try row.value(at: 0), rowid: try row.value(at: 1), parentTable: try row.value(at: 2),
          foreignKeyID: try row.value(at: 3)))
    }
    return violations
  }
}

extension MigrationError: LocalizedError {
  /// The same text as ``description``, so that `localizedDescription` (what an alert or a log shows
  /// of any `Error`) says what failed instead of "The operation could not be completed".
  public var errorDescription: String? { description }
}
