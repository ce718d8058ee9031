#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

// What a Swift error thrown by a callback (a function, a virtual table, an FTS5 tokenizer) becomes when
// it crosses back into SQLite: a result code and a message.

extension SQLiteError {
  /// The result code SQLite is given when a callback throws this error: its extended code, or `nil`
  /// when its code is not an error (`SQLITE_OK`, `SQLITE_ROW`, `SQLITE_DONE`), which would make the
  /// failed callback look like a success.
  var callbackResultCode: Int32? {
    let primary = code.rawValue
    guard primary != SQLITE_OK && primary != SQLITE_ROW && primary != SQLITE_DONE else { return nil }
    return extendedCode.rawValue
  }
}

/// The result code a callback returns to SQLite for `error`: an ``SQLiteError`` keeps its own (see
/// ``SQLiteError/callbackResultCode``), any other error is `SQLITE_ERROR`.
func callbackResultCode(_ error: any Error) -> Int32 {
  (error as? SQLiteError)?.callbackResultCode ?? SQLITE_ERROR
}

/// The message SQLite is given for `error`: an ``SQLiteError``'s own message, a `LocalizedError`'s
/// description when it has one, else the error's `description` (which names the case and its values).
func callbackErrorMessage(_ error: any Error) -> String {
  if let error = error as? SQLiteError { return error.message }
  if let localized = error as? any LocalizedError, let description = localized.errorDescription {
    return description
  }
  return String(describing: error)
}
