import AmalgamSQLite

/// An on/off setting of a connection, read and changed with `sqlite3_db_config`
/// (`SQLITE_DBCONFIG_*`). See ``Database/isEnabled(_:)`` and ``Database/setEnabled(_:to:)``.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbconfig_defensive.html>
public enum DatabaseConfigFlag: Int32, CaseIterable, Sendable, Hashable {
  /// Foreign-key constraints are enforced (`SQLITE_DBCONFIG_ENABLE_FKEY`, as `PRAGMA foreign_keys`).
  /// Off by default unless the `DEFAULT_FOREIGN_KEYS` trait is on.
  case foreignKeys = 1002
  /// Triggers fire (`SQLITE_DBCONFIG_ENABLE_TRIGGER`). On by default.
  case triggers = 1003
  /// The two-argument `fts3_tokenizer()` function is enabled (`SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER`).
  case fts3Tokenizer = 1004
  #if !OMIT_LOAD_EXTENSION
    /// Extensions may be loaded with ``Database/loadExtension(path:entryPoint:)``
    /// (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`); the SQL function `load_extension()` stays disabled.
    /// Off by default. See ``Database/enableExtensionLoading(_:)``.
    case loadExtension = 1005
  #endif
  /// Closing the last connection to a WAL database does not checkpoint it
  /// (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`).
  case noCheckpointOnClose = 1006
  /// The query planner stability guarantee: a statement keeps the same plan
  /// (`SQLITE_DBCONFIG_ENABLE_QPSG`).
  case queryPlannerStabilityGuarantee = 1007
  /// `EXPLAIN QUERY PLAN` also shows the plans of triggers (`SQLITE_DBCONFIG_TRIGGER_EQP`).
  case triggerExplainQueryPlan = 1008
  /// Set, then `VACUUM`, then clear, to reset a database to empty, even a corrupt one
  /// (`SQLITE_DBCONFIG_RESET_DATABASE`).
  case resetDatabase = 1009
  /// Defensive mode: SQL cannot deliberately corrupt the database (no `PRAGMA writable_schema=ON`,
  /// `journal_mode=OFF`, `schema_version=N`, writes to shadow tables) (`SQLITE_DBCONFIG_DEFENSIVE`).
  case defensive = 1010
  /// The schema may be written as ordinary tables, as `PRAGMA writable_schema`
  /// (`SQLITE_DBCONFIG_WRITABLE_SCHEMA`).
  case writableSchema = 1011
  /// `ALTER TABLE RENAME` behaves as before SQLite 3.24, as `PRAGMA legacy_alter_table`
  /// (`SQLITE_DBCONFIG_LEGACY_ALTER_TABLE`).
  case legacyAlterTable = 1012
  /// Double-quoted strings are accepted as string literals in `SELECT`, `INSERT`, `UPDATE` and
  /// `DELETE` when they name no column (`SQLITE_DBCONFIG_DQS_DML`). Off with the `DQS_0` trait.
  case doubleQuotedStringsInDML = 1013
  /// Double-quoted strings are accepted as string literals in `CREATE TABLE`, `CREATE INDEX` and other
  /// schema statements (`SQLITE_DBCONFIG_DQS_DDL`). Off with the `DQS_0` trait.
  case doubleQuotedStringsInDDL = 1014
  /// Views may be used (`SQLITE_DBCONFIG_ENABLE_VIEW`). On by default.
  case views = 1015
  /// New database files use the legacy file format, readable by SQLite 3.0.0
  /// (`SQLITE_DBCONFIG_LEGACY_FILE_FORMAT`).
  case legacyFileFormat = 1016
  /// The schema is trusted: functions and virtual tables not marked innocuous may be used from
  /// triggers, views, `CHECK` constraints, defaults, indexes and generated columns, as
  /// `PRAGMA trusted_schema` (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`). On by default; turn it off when the
  /// database file may come from an attacker.
  case trustedSchema = 1017
  /// Statements collect the statistics of `sqlite3_stmt_scanstatus_v2` in builds that support it
  /// (`SQLITE_DBCONFIG_STMT_SCANSTATUS`).
  case statementScanStatus = 1018
  /// Tables and indexes are scanned from the end, as `PRAGMA reverse_unordered_selects`
  /// (`SQLITE_DBCONFIG_REVERSE_SCANORDER`).
  case reverseScanOrder = 1019
  /// `ATTACH` may create a database file that does not exist (`SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE`).
  /// On by default.
  case attachCreate = 1020
  /// `ATTACH` opens databases for writing; off, they are attached read-only
  /// (`SQLITE_DBCONFIG_ENABLE_ATTACH_WRITE`). On by default.
  case attachWrite = 1021
  /// SQL text may contain comments (`SQLITE_DBCONFIG_ENABLE_COMMENTS`). On by default.
  case comments = 1022
}

extension Database {
  /// Whether an on/off setting of the connection is on (`sqlite3_db_config`).
  ///
  /// ```swift
  /// let enforced = try db.isEnabled(.foreignKeys)
  /// ```
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_config.html>
  public func isEnabled(_ flag: DatabaseConfigFlag) throws -> Bool {
    try dbConfig(flag.rawValue, -1) != 0
  }

  /// Turns an on/off setting of the connection on or off (`sqlite3_db_config`).
  ///
  /// ```swift
  /// try db.setEnabled(.foreignKeys, to: true)
  /// try db.setEnabled(.defensive, to: true)
  /// try db.setEnabled(.trustedSchema, to: false)
  /// ```
  ///
  /// A change makes SQLite prepare existing statements again before they next run.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/db_config.html>
  public func setEnabled(_ flag: DatabaseConfigFlag, to enabled: Bool) throws {
    _ = try dbConfig(flag.rawValue, enabled ? 1 : 0)
  }

  /// The number of significant digits SQLite keeps when it converts a REAL to text, from 4 to 23;
  /// 17 by default, enough for every `Double` to convert back exactly (`SQLITE_DBCONFIG_FP_DIGITS`).
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbconfig_defensive.html>
  public func floatingPointDigits() throws -> Int {
    // 0 is out of range, which leaves the setting unchanged.
    Int(try dbConfig(SQLITE_DBCONFIG_FP_DIGITS, 0))
  }

  /// Sets the number of significant digits SQLite keeps when it converts a REAL to text
  /// (`SQLITE_DBCONFIG_FP_DIGITS`).
  ///
  /// ```swift
  /// try db.setFloatingPointDigits(6)
  /// let text: String? = try db.prepare(sql: "SELECT CAST(1.0 / 3 AS TEXT)").front()   // "0.333333"
  /// ```
  ///
  /// - Throws: ``SQLiteError`` with `SQLITE_RANGE` unless `digits` is from 4 to 23 (SQLite's
  ///   documentation says 3, but SQLite 3.53.4 ignores 3);
  ///   ``DatabaseError/databaseClosed`` when the database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbconfig_defensive.html>
  public func setFloatingPointDigits(_ digits: Int) throws {
    guard (4...23).contains(digits) else {
      throw SQLiteError(code: .range, message: "Floating-point digits must be from 4 to 23, not \(digits)")
    }
    _ = try dbConfig(SQLITE_DBCONFIG_FP_DIGITS, Int32(digits))
  }

  /// Calls `sqlite3_db_config(db, op, value, &result)` and returns `result`.
  private func dbConfig(_ op: Int32, _ value: Int32) throws -> Int32 {
    var result: Int32 = 0
    let rc = try connection.withHandle { amalgam_db_config_int($0, op, value, &result) }
    try check(rc)
    return result
  }
}
