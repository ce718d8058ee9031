#if ENABLE_FTS5
  import AmalgamSQLite

  /// One token produced by a tokenizer that Swift code runs: a wrapped tokenizer
  /// (``FTS5TokenizerHandle``) or the table's tokenizer run by an auxiliary function
  /// (``FTS5ExtensionAPI/tokenize(_:locale:_:)``).
  ///
  /// The token's bytes are the tokenizer's output (folded, stemmed...), not necessarily the input's;
  /// ``range`` is the byte range of the input it was made from.
  ///
  /// A token is valid only during the callback that receives it: kept after it, ``text`` is empty,
  /// ``withUnsafeBytes(_:)`` gives an empty buffer and ``FTS5TokenSink/emit(_:)`` throws
  /// ``DatabaseError/callbackValueExpired(_:)``. ``range`` and ``isColocated`` are plain values and
  /// stay readable.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  public struct FTS5Token {
    @usableFromInline let bytes: UnsafePointer<UInt8>?
    @usableFromInline let byteCount: Int
    /// The byte range of the input that the token was made from.
    public let range: Range<Int>
    /// True when the token is a synonym of the previous one, at the same position
    /// (`FTS5_TOKEN_COLOCATED`).
    public let isColocated: Bool
    @usableFromInline let token: CallbackToken

    init(bytes: UnsafePointer<UInt8>?, count: Int, range: Range<Int>, isColocated: Bool, token: CallbackToken) {
      self.bytes = count > 0 ? bytes : nil
      self.byteCount = Swift.max(count, 0)
      self.range = range
      self.isColocated = isColocated
      self.token = token
    }

    /// True while the callback that received this token is running.
    public var isValid: Bool { token.isActive }

    /// Calls `body` with the token's bytes, without copying them; an empty buffer after the callback.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
      guard token.isActive else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
      return try body(UnsafeRawBufferPointer(start: bytes, count: byteCount))
    }

    /// The token as a `String` (a copy; invalid UTF-8 is repaired); empty after the callback.
    public var text: String {
      withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
  }
#endif
