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

  /// SQLite's English description of the code (`sqlite3_errstr`).
  public var description: String { String(cString: sqlite3_errstr(rawValue)) }

  public static let ok = ResultCode(rawValue: SQLITE_OK)
  public static let error = ResultCode(rawValue: SQLITE_ERROR)
  public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
  public static let permission = ResultCode(rawValue: SQLITE_PERM)
  public static let abort = ResultCode(rawValue: SQLITE_ABORT)
  public static let busy = ResultCode(rawValue: SQLITE_BUSY)
  public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
  public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
  public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
  public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
  public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
  public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
  public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
  public static let full = ResultCode(rawValue: SQLITE_FULL)
  public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
  public static let `protocol` = ResultCode(rawValue: SQLITE_PROTOCOL)
  public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
  public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
  public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
  public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
  public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
  public static let noLFS = ResultCode(rawValue: SQLITE_NOLFS)
  public static let authorization = ResultCode(rawValue: SQLITE_AUTH)
  public static let range = ResultCode(rawValue: SQLITE_RANGE)
  public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
  public static let notice = ResultCode(rawValue: SQLITE_NOTICE)
  public static let warning = ResultCode(rawValue: SQLITE_WARNING)
  public static let row = ResultCode(rawValue: SQLITE_ROW)
  public static let done = ResultCode(rawValue: SQLITE_DONE)

  // Extended codes that applications commonly match on.
  public static let busySnapshot = ResultCode(rawValue: SQLITE_BUSY | (2 << 8))
  public static let busyTimeout = ResultCode(rawValue: SQLITE_BUSY | (3 << 8))
  public static let readOnlyDatabaseMoved = ResultCode(rawValue: SQLITE_READONLY | (4 << 8))
  public static let constraintCheck = ResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
  public static let constraintForeignKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
  public static let constraintNotNull = ResultCode(rawValue: SQLITE_CONSTRAINT | (5 << 8))
  public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
  public static let constraintTrigger = ResultCode(rawValue: SQLITE_CONSTRAINT | (7 << 8))
  public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
  public static let constraintRowid = ResultCode(rawValue: SQLITE_CONSTRAINT | (10 << 8))
  public static let cannotOpenNoFollow = ResultCode(rawValue: SQLITE_CANTOPEN | (5 << 8))
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

  /// Reads the error state of `connection` after a call returned `resultCode`.
  init(resultCode: Int32, connection: OpaquePointer?, sql: String? = nil) {
    var extended = resultCode
    var message: String?
    var offset: Int?
    if let connection {
      let connectionCode = sqlite3_extended_errcode(connection)
      // Prefer the connection's extended code when it refers to the same failure.
      if connectionCode & 0xff == resultCode & 0xff { extended = connectionCode }
      if let text = sqlite3_errmsg(connection) { message = String(cString: text) }
      let errorOffset = sqlite3_error_offset(connection)
      if errorOffset >= 0 && sql != nil { offset = Int(errorOffset) }
    }
    self.init(code: ResultCode(rawValue: extended), message: message, sql: sql, offset: offset)
  }

  public var description: String {
    var text = "SQLite error \(extendedCode.rawValue) (\(code.description)): \(message)"
    if let sql { text += " — in \"\(sql)\"" }
    if let offset { text += " at offset \(offset)" }
    return text
  }
}

/// Pattern-matches an error against a result code: `catch ResultCode.busy` catches every busy error.
public func ~= (code: ResultCode, error: any Error) -> Bool {
  guard let error = error as? SQLiteError else { return false }
  return code.isExtended ? error.extendedCode == code : error.code == code
}
