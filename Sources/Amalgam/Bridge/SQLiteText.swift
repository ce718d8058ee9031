import AmalgamSQLite

// Text that SQLite hands to Swift through C: a pointer and a length, or a string allocated with
// `sqlite3_malloc` that the caller must free.

extension String {
  /// The text of the `count` bytes of UTF-8 at `start`, as SQLite hands over text that is not
  /// NUL-terminated; ill-formed UTF-8 becomes U+FFFD. Empty when `start` is `nil` or `count` is not
  /// positive.
  @inline(__always)
  init(utf8 start: UnsafePointer<UInt8>?, count: Int) {
    guard let start, count > 0 else {
      self = ""
      return
    }
    self = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
  }

  /// The text of the `count` bytes of UTF-8 at `start`, as C characters.
  @inline(__always)
  init(utf8 start: UnsafePointer<CChar>?, count: Int) {
    guard let start, count > 0 else {
      self = ""
      return
    }
    self = start.withMemoryRebound(to: UInt8.self, capacity: count) { String(utf8: $0, count: count) }
  }
}

/// Copies and frees a NUL-terminated string that SQLite allocated with `sqlite3_malloc`: an error
/// message returned through a `char **` (such as `sqlite3_exec`'s `zErrMsg`), or a string that a
/// function returns for its caller to free. `nil` for a null pointer.
func takeSQLiteString(_ text: UnsafeMutablePointer<CChar>?) -> String? {
  defer { sqlite3_free(text) }
  return text.map { String(cString: $0) }
}
