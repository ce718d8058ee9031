#if ENABLE_FTS5
  extension RestrictedCallback {
    /// An FTS5 tokenizer's initializer, which FTS5 calls from xConnect while SQLite prepares a statement.
    static let tokenizerConstructor = RestrictedCallback(
      "FTS5 tokenizer's initializer", may: .readOnlyQueries(reason: whilePreparing))
  }
#endif
