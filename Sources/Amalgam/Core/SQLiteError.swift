#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// A result code returned by SQLite: a primary code (`SQLITE_BUSY`) or an extended one
/// (`SQLITE_BUSY_SNAPSHOT`).
///
/// Codes compare by value; ``primary`` reduces an extended code to its primary code, so
/// `error.extendedCode.primary == .constraint` holds for every kind of constraint failure.
///
/// ```swift
/// do { try db.execute(sql: "INSERT INTO t(id) VALUES (1)") }
/// catch let error as SQLiteError where error.code == .constraint { ... }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/rescode.html>
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The numeric code, as SQLite returns it.
  public let rawValue: Int32

  /// Creates a result code from SQLite's numeric value.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// The primary result code: the low eight bits of an extended code.
  public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xff) }

  /// True for an extended code (one that carries more than its primary code).
  public var isExtended: Bool { rawValue > 0xff }

  /// SQLite's English description of the code (`sqlite3_errstr`), except for `SQLITE_RANGE`: SQLite
  /// describes it as "column index out of range", though it reports any index or argument out of range
  /// (a parameter index, a limit), so it is described here as "out of range".
  public var description: String {
    if primary.rawValue == SQLITE_RANGE { return "out of range" }
    return String(cString: sqlite3_errstr(rawValue))
  }

  /// `SQLITE_OK`: ok.
  public static let ok = ResultCode(rawValue: SQLITE_OK)
  /// `SQLITE_ERROR`: error.
  public static let error = ResultCode(rawValue: SQLITE_ERROR)
  /// `SQLITE_INTERNAL`: internal.
  public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
  /// `SQLITE_PERM`: perm.
  public static let permission = ResultCode(rawValue: SQLITE_PERM)
  /// `SQLITE_ABORT`: abort.
  public static let abort = ResultCode(rawValue: SQLITE_ABORT)
  /// `SQLITE_BUSY`: busy.
  public static let busy = ResultCode(rawValue: SQLITE_BUSY)
  /// `SQLITE_LOCKED`: locked.
  public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
  /// `SQLITE_NOMEM`: nomem.
  public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
  /// `SQLITE_READONLY`: readonly.
  public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
  /// `SQLITE_INTERRUPT`: interrupt.
  public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
  /// `SQLITE_IOERR`: ioerr.
  public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
  /// `SQLITE_CORRUPT`: corrupt.
  public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
  /// `SQLITE_NOTFOUND`: notfound.
  public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
  /// `SQLITE_FULL`: full.
  public static let full = ResultCode(rawValue: SQLITE_FULL)
  /// `SQLITE_CANTOPEN`: cantopen.
  public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
  /// `SQLITE_PROTOCOL`: protocol.
  public static let `protocol` = ResultCode(rawValue: SQLITE_PROTOCOL)
  /// `SQLITE_SCHEMA`: schema.
  public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
  /// `SQLITE_TOOBIG`: toobig.
  public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
  /// `SQLITE_CONSTRAINT`: constraint.
  public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
  /// `SQLITE_MISMATCH`: mismatch.
  public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
  /// `SQLITE_MISUSE`: misuse.
  public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
  /// `SQLITE_NOLFS`: nolfs.
  public static let noLFS = ResultCode(rawValue: SQLITE_NOLFS)
  /// `SQLITE_AUTH`: auth.
  public static let authorization = ResultCode(rawValue: SQLITE_AUTH)
  /// `SQLITE_RANGE`: range.
  public static let range = ResultCode(rawValue: SQLITE_RANGE)
  /// `SQLITE_NOTADB`: notadb.
  public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
  /// `SQLITE_NOTICE`: notice.
  public static let notice = ResultCode(rawValue: SQLITE_NOTICE)
  /// `SQLITE_WARNING`: warning.
  public static let warning = ResultCode(rawValue: SQLITE_WARNING)
  /// `SQLITE_ROW`: row.
  public static let row = ResultCode(rawValue: SQLITE_ROW)
  /// `SQLITE_DONE`: done.
  public static let done = ResultCode(rawValue: SQLITE_DONE)

  // Extended codes that applications commonly match on.
  /// `SQLITE_BUSY_SNAPSHOT`: busy snapshot.
  public static let busySnapshot = ResultCode(rawValue: SQLITE_BUSY | (2 << 8))
  /// `SQLITE_BUSY_TIMEOUT`: busy timeout.
  public static let busyTimeout = ResultCode(rawValue: SQLITE_BUSY | (3 << 8))
  /// `SQLITE_READONLY_DBMOVED`: readonly dbmoved.
  public static let readOnlyDatabaseMoved = ResultCode(rawValue: SQLITE_READONLY | (4 << 8))
  /// `SQLITE_CONSTRAINT_CHECK`: constraint check.
  public static let constraintCheck = ResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
  /// `SQLITE_CONSTRAINT_FOREIGNKEY`: constraint foreignkey.
  public static let constraintForeignKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
  /// `SQLITE_CONSTRAINT_NOTNULL`: constraint notnull.
  public static let constraintNotNull = ResultCode(rawValue: SQLITE_CONSTRAINT | (5 << 8))
  /// `SQLITE_CONSTRAINT_PRIMARYKEY`: constraint primarykey.
  public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
  /// `SQLITE_CONSTRAINT_TRIGGER`: constraint trigger.
  public static let constraintTrigger = ResultCode(rawValue: SQLITE_CONSTRAINT | (7 << 8))
  /// `SQLITE_CONSTRAINT_UNIQUE`: constraint unique.
  public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
  /// `SQLITE_CONSTRAINT_ROWID`: constraint rowid.
  public static let constraintRowid = ResultCode(rawValue: SQLITE_CONSTRAINT | (10 << 8))
  /// `SQLITE_CANTOPEN_SYMLINK`: cantopen symlink.
  public static let cannotOpenSymlink = ResultCode(rawValue: SQLITE_CANTOPEN | (6 << 8))
}

/// An error reported by SQLite: the result codes, SQLite's message, and the SQL it concerns.
///
/// Match on ``code`` (the primary result code) or ``extendedCode``:
///
/// ```swift
/// catch let error as SQLiteError where error.extendedCode == .constraintUnique { ... }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/errcode.html>
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The primary result code (`SQLITE_CONSTRAINT`).
  public var code: ResultCode { extendedCode.primary }
  /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`), or the primary code when SQLite gave no more.
  public let extendedCode: ResultCode
  /// SQLite's message (`sqlite3_errmsg`), or the code's description when there is none.
  public let message: String
  /// The SQL being prepared or run, when there was one.
  public let sql: String?
  /// The byte offset in ``sql`` of the token that caused the error (`sqlite3_error_offset`), when known.
  public let offset: Int?

  /// Creates an error from its parts.
  public init(code: ResultCode, message: String? = nil, sql: String? = nil, offset: Int? = nil) {
    self.extendedCode = code
    self.message = message ?? code.description
    self.sql = sql
    self.offset = offset
  }

  /// Reads the error state of `connection` after a call returned `resultCode`. With
  /// `extendedCodes` false (a connection opened without extended result codes) only the primary code
  /// is reported.
  init(resultCode: Int32, connection: OpaquePointer?, sql: String? = nil, extendedCodes: Bool = true) {
    var extended = extendedCodes ? resultCode : resultCode & 0xff
    var message: String?
    var offset: Int?
    if let connection {
      let connectionCode = sqlite3_extended_errcode(connection)
      // Prefer the connection's extended code when it refers to the same failure.
      if extendedCodes && connectionCode & 0xff == resultCode & 0xff { extended = connectionCode }
      if let text = sqlite3_errmsg(connection) { message = String(cString: text) }
      // A failure SQLite did not record in the connection leaves its "not an error": say what the code means.
      if connectionCode == SQLITE_OK && ![SQLITE_OK, SQLITE_ROW, SQLITE_DONE].contains(resultCode & 0xff) {
        message = String(cString: sqlite3_errstr(resultCode))
      }
      // For SQLITE_RANGE, SQLite's message is only its misleading "column index out of range"; callers
      // that know what was out of range build their own error instead.
      if resultCode & 0xff == SQLITE_RANGE && message == String(cString: sqlite3_errstr(SQLITE_RANGE)) {
        message = "An index or value passed to SQLite is out of range"
      }
      // SQLITE_CONSTRAINT_COMMITHOOK comes with SQLite's bare "constraint failed": say what failed.
      if extended == SQLITE_CONSTRAINT | (2 << 8) && message == "constraint failed" {
        message = "constraint failed: the commit hook turned the commit into a rollback"
      }
      #if ENCRYPTION
        // SQLite's "file is not a database" says nothing of keys.
        if resultCode & 0xff == SQLITE_NOTADB, let hint = Database.notADatabaseHint(connection: connection) {
          message = (message ?? "file is not a database") + ": " + hint
        }
      #endif
      let errorOffset = sqlite3_error_offset(connection)
      if errorOffset >= 0 && sql != nil { offset = Int(errorOffset) }
    }
    self.init(code: ResultCode(rawValue: extended), message: message, sql: sql, offset: offset)
  }

  /// The extended code with its name and description, the message and, when known, the SQL:
  /// `SQLite error 2067 (SQLITE_CONSTRAINT_UNIQUE, constraint failed): UNIQUE constraint failed: t.id`.
  public var description: String {
    var text = "SQLite error \(extendedCode.rawValue) (\(extendedCode.name), \(code.description)): \(message)"
    if let sql { text += " — in \"\(sql)\"" }
    if let offset { text += " at offset \(offset)" }
    return text
  }
}

extension SQLiteError {
  /// Throws `SQLITE_MISUSE` when `name` contains a NUL character. SQLite reads names as C strings, so a
  /// NUL would silently cut the name short and make the call name something else (a table, a
  /// collation or a module called by the text before the NUL).
  static func checkNoNUL(_ name: String, _ what: String) throws {
    if name.utf8.contains(0) {
      throw SQLiteError(
        code: .misuse,
        message: "The \(what) \(name.debugDescription) contains a NUL character, which SQLite cannot take")
    }
  }
}

/// Pattern-matches an error against a result code: `catch ResultCode.busy` catches every busy error.
public func ~= (code: ResultCode, error: any Error) -> Bool {
  guard let error = error as? SQLiteError else { return false }
  return code.isExtended ? error.extendedCode == code : error.code == code
}

extension SQLiteError: LocalizedError {
  /// The same text as ``description``, so that `localizedDescription` (what an alert or a log shows
  /// of any `Error`) says what failed instead of "The operation could not be completed".
  public var errorDescription: String? { description }
}
