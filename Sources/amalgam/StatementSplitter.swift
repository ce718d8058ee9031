import Amalgam
import AmalgamSQLite

/// Splits an SQL script into its statements, one at a time, the way SQLite itself reads a script: each
/// call prepares the rest of the script with `sqlite3_prepare_v3` and uses the tail pointer to find where
/// the first statement ends. Whitespace, comments and empty statements (`;;`) between statements are
/// skipped.
///
/// Statements are found one at a time, not all up front, because a statement may only prepare once the
/// ones before it have run (`CREATE TABLE t ...; INSERT INTO t ...`).
struct StatementSplitter {
  /// The script as UTF-8, NUL-terminated.
  private let text: [UInt8]
  /// The byte offset where the next statement starts.
  private var offset = 0

  /// Creates a splitter for `sql`.
  ///
  /// - Throws: ``DatabaseError/nulCharacterInSQL(sql:offset:)`` when the script contains a NUL
  ///   character, before any statement runs: SQLite reads a script only up to its first NUL, so the
  ///   statements after it would be silently dropped (the library's `batch(sql:)` refuses it the same
  ///   way).
  init(sql: String) throws {
    if let nul = sql.utf8.firstIndex(of: 0) {
      throw DatabaseError.nulCharacterInSQL(sql: sql, offset: sql.utf8.distance(from: sql.utf8.startIndex, to: nul))
    }
    text = Array(sql.utf8) + [0]
  }

  /// The text of the next statement, without surrounding whitespace, or `nil` at the end of the script.
  ///
  /// - Throws: ``SQLiteError`` when the next statement does not prepare (a syntax error, an unknown
  ///   table), with SQLite's message and the offset of the error in the rest of the script.
  mutating func nextStatement(in database: Database) throws -> String? {
    let connection = try database.sqliteHandle
    let end = text.count - 1
    while true {
      while offset < end && Self.isSpace(text[offset]) { offset += 1 }
      guard offset < end else { return nil }
      let start = offset
      var handle: OpaquePointer?
      var tailOffset = end
      let rc: Int32 = text.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return SQLITE_MISUSE }
        return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
          var tail: UnsafePointer<CChar>?
          let rc = sqlite3_prepare_v3(connection, chars + start, -1, 0, &handle, &tail)
          if let tail { tailOffset = tail - chars }
          return rc
        }
      }
      // The statement is only needed for its extent: the caller prepares its text with the library.
      let isStatement = handle != nil
      sqlite3_finalize(handle)
      guard rc == SQLITE_OK else {
        let errorOffset = sqlite3_error_offset(connection)
        throw SQLiteError(
          code: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
          message: String(cString: sqlite3_errmsg(connection)),
          sql: string(start..<end),
          offset: errorOffset >= 0 ? Int(errorOffset) : nil)
      }
      // Only comments remain when SQLite makes no progress (the script has no NUL: see init).
      guard tailOffset > start, tailOffset <= end else { return nil }
      offset = tailOffset
      if isStatement {
        var statementEnd = tailOffset
        while statementEnd > start && Self.isSpace(text[statementEnd - 1]) { statementEnd -= 1 }
        return string(start..<statementEnd)
      }
    }
  }

  /// The script's bytes in `range` as a string.
  private func string(_ range: Range<Int>) -> String {
    String(decoding: text[range], as: UTF8.self)
  }

  /// True for the bytes SQLite treats as white space between tokens.
  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
  }
}
