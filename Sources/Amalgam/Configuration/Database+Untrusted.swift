#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How to open a database file that may come from an attacker: the precautions of SQLite's
/// "Defense Against The Dark Arts" page, as one value.
///
/// ```swift
/// let db = try Database.openUntrusted(path: downloadedFile)
/// let names: [String] = try db.prepare(sql: "SELECT name FROM items").column(0)
/// ```
///
/// The profile, applied by ``Database/openUntrusted(path:profile:prepareDatabase:)`` or
/// ``Database/applyUntrustedProfile(_:prepareDatabase:)``:
/// - opens the file read-only (``readOnly``), and refuses a file larger than ``maximumFileSize``;
/// - turns on defensive mode (`SQLITE_DBCONFIG_DEFENSIVE`): SQL cannot deliberately corrupt the file;
/// - turns off the trusted schema (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`, `PRAGMA trusted_schema=OFF`): a
///   view, trigger, `CHECK` constraint, default, index or generated column in the file's schema can
///   call only functions registered as ``FunctionFlags/innocuous`` (and SQLite's built-in ones), and
///   use only innocuous virtual tables. Anything else fails with "unsafe use of NAME()";
/// - optionally turns off views and triggers (``allowsViews``, ``allowsTriggers``);
/// - turns on `PRAGMA cell_size_check`, turns off memory-mapped I/O (`PRAGMA mmap_size=0`) and the C
///   interface for loading extensions;
/// - lowers the run-time limits to ``limits`` (by default the high-security values of SQLite's page);
/// - runs `PRAGMA quick_check` before returning, and throws unless it answers `ok`.
///
/// The limits also apply to the application's own statements on the connection: with the defaults, a
/// statement may have at most 10 parameters and an expression may nest 10 deep. Raise a limit in
/// ``limits`` when the application's queries need more.
///
/// What the profile cannot do per connection: SQLite's heap limit (`sqlite3_hard_heap_limit64`) is
/// global to the process, so set it yourself if an attacker's file could make SQLite use too much
/// memory.
///
/// Related SQLite documentation: <https://sqlite.org/security.html>
public struct UntrustedDatabaseProfile: Sendable, Hashable {
  /// Open the file read-only. On by default: a file that is only read cannot be made to corrupt itself.
  public var readOnly: Bool
  /// The largest file accepted, in bytes, or `nil` for any size. 1 GiB by default.
  public var maximumFileSize: Int?
  /// The run-time limits to set before anything is read from the file.
  public var limits: [DatabaseLimit: Int]
  /// Whether views may be used (`SQLITE_DBCONFIG_ENABLE_VIEW`). On by default; turn it off when the
  /// application does not need the file's views.
  public var allowsViews: Bool
  /// Whether triggers may fire (`SQLITE_DBCONFIG_ENABLE_TRIGGER`). On by default; turn it off when
  /// the application writes to the file and does not need the file's triggers.
  public var allowsTriggers: Bool
  /// Whether to run `PRAGMA quick_check` before returning. On by default.
  public var runsQuickCheck: Bool

  /// The high-security values of the limits table on <https://sqlite.org/security.html>.
  public static let highSecurityLimits: [DatabaseLimit: Int] = [
    .length: 1_000_000,
    .sqlLength: 100_000,
    .columns: 100,
    .expressionDepth: 10,
    .parserDepth: 100,
    .compoundSelectTerms: 3,
    .vdbeOperations: 25_000,
    .functionArguments: 8,
    .attachedDatabases: 0,
    .likePatternLength: 50,
    .variableNumber: 10,
    .triggerDepth: 10,
  ]

  /// Creates a profile; the defaults are those of ``default``.
  public init(
    readOnly: Bool = true, maximumFileSize: Int? = 1 << 30,
    limits: [DatabaseLimit: Int] = UntrustedDatabaseProfile.highSecurityLimits, allowsViews: Bool = true,
    allowsTriggers: Bool = true, runsQuickCheck: Bool = true
  ) {
    self.readOnly = readOnly
    self.maximumFileSize = maximumFileSize
    self.limits = limits
    self.allowsViews = allowsViews
    self.allowsTriggers = allowsTriggers
    self.runsQuickCheck = runsQuickCheck
  }

  /// Read-only, files up to 1 GiB, high-security limits, views and triggers allowed, quick check on.
  public static let `default` = UntrustedDatabaseProfile()
}

extension Database {
  /// Opens a database file that may come from an attacker, with every precaution of
  /// ``UntrustedDatabaseProfile`` applied before anything is read from the file.
  ///
  /// ```swift
  /// var profile = UntrustedDatabaseProfile.default
  /// profile.limits[.variableNumber] = 100   // the application's own queries bind more parameters
  /// let db = try Database.openUntrusted(path: path, profile: profile)
  /// ```
  ///
  /// `prepareDatabase` runs after the precautions and before the quick check: register there the functions and
  /// collations that the file's schema may legitimately use (in `CHECK` constraints, indexes, generated
  /// columns), because the quick check evaluates them. Without them, the check fails with "unknown
  /// function"; with a function that is not innocuous, with "unsafe use of".
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/tooBig`` for a file over
  ///   ``UntrustedDatabaseProfile/maximumFileSize``, ``ResultCode/cannotOpen`` when the file does not
  ///   exist, ``ResultCode/notADatabase`` for a file that is not a database, and
  ///   ``ResultCode/corrupt`` when `PRAGMA quick_check` finds a problem (its first findings are in the
  ///   message) or the schema cannot be read within the limits.
  ///
  /// Related SQLite documentation: <https://sqlite.org/security.html>
  public static func openUntrusted(
    path: String, profile: UntrustedDatabaseProfile = .default, prepareDatabase: ((Database) throws -> Void)? = nil
  ) throws -> Database {
    if let maximum = profile.maximumFileSize, let size = Self.fileSize(path), size > maximum {
      throw SQLiteError(
        code: .tooBig, message: "The database file is \(size) bytes, over the untrusted profile's maximum of \(maximum)"
      )
    }
    let options = OpenOptions(readOnly: profile.readOnly, create: false)
    let db = try Database(path: path, options: options)
    do {
      try db.applyUntrustedProfile(profile, prepareDatabase: prepareDatabase)
    } catch {
      try? db.close()
      throw error
    }
    return db
  }

  /// Applies the precautions of an ``UntrustedDatabaseProfile`` to this open connection, such as one that
  /// ``deserialize(_:schema:readOnly:resizable:maximumSize:)`` filled with bytes from an untrusted
  /// source. The profile's ``UntrustedDatabaseProfile/readOnly`` and
  /// ``UntrustedDatabaseProfile/maximumFileSize`` concern opening, and are not used here. `prepareDatabase`
  /// runs before the quick check, as in ``openUntrusted(path:profile:prepareDatabase:)``.
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/corrupt`` when `PRAGMA quick_check` finds a problem,
  ///   or SQLite's error when the file cannot be read (``ResultCode/notADatabase``, ...);
  ///   ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/security.html>
  public func applyUntrustedProfile(
    _ profile: UntrustedDatabaseProfile = .default, prepareDatabase: ((Database) throws -> Void)? = nil
  ) throws {
    try setEnabled(.defensive, to: true)
    try setEnabled(.trustedSchema, to: false)
    try setEnabled(.views, to: profile.allowsViews)
    try setEnabled(.triggers, to: profile.allowsTriggers)
    #if !OMIT_LOAD_EXTENSION
      try setEnabled(.loadExtension, to: false)
    #endif
    for (limit, value) in profile.limits { try setLimit(limit, to: value) }
    // Pragmas that read no schema: they run before anything of the file is parsed.
    try execute(sql: "PRAGMA cell_size_check = ON")
    _ = try prepare(sql: "PRAGMA mmap_size = 0").allRows()
    try prepareDatabase?(self)
    guard profile.runsQuickCheck else { return }
    let findings: [String?] = try prepare(sql: "PRAGMA quick_check(10)").column(0)
    if findings != ["ok"] {
      let text = findings.map { $0 ?? "NULL" }.joined(separator: "; ")
      throw SQLiteError(code: .corrupt, message: "PRAGMA quick_check found problems: \(text)")
    }
  }

  /// The size of the file at `path` in bytes, or `nil` when it cannot be read (SQLite then reports why).
  private static func fileSize(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_size)
  }
}
