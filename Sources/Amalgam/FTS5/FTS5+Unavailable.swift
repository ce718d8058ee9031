#if !ENABLE_FTS5
  // Without the ENABLE_FTS5 trait the FTS5 API is declared but unavailable, so that a use of it fails to
  // compile with a message that names the trait. Only what a call needs to resolve to these declarations is
  // declared; nothing here can run.

  /// A Swift tokenizer for FTS5 tables. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable,
    message: "FTS5Tokenizer needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public protocol FTS5Tokenizer {}

  /// A FeistyDB-style pull tokenizer for FTS5 tables. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable,
    message: "FTS5PullTokenizer needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public protocol FTS5PullTokenizer {}

  /// The arguments of an FTS5 tokenizer. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable,
    message: "FTS5TokenizerArguments needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public struct FTS5TokenizerArguments {}

  /// Why FTS5 tokenizes a text. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable, message: "FTS5TokenizeReason needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public enum FTS5TokenizeReason {}

  /// The text handed to a tokenizer. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(*, unavailable, message: "FTS5Text needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits")
  public struct FTS5Text {}

  /// Where a tokenizer emits its tokens. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable,
    message: "FTS5TokenSink needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public struct FTS5TokenSink {}

  /// A token produced by a tokenizer. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable,
    message: "FTS5Token needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public struct FTS5Token {}

  /// A tokenizer registered with FTS5. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
  @available(
    *, unavailable,
    message: "FTS5TokenizerHandle needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public final class FTS5TokenizerHandle {}

  /// What an auxiliary function sees of the current match. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_auxiliary_functions>
  @available(
    *, unavailable, message: "FTS5ExtensionAPI needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public struct FTS5ExtensionAPI {}

  /// One phrase match in a row. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#xInst>
  @available(
    *, unavailable, message: "FTS5PhraseInstance needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public struct FTS5PhraseInstance {}

  /// An FTS5 full-text query. Needs the `ENABLE_FTS5` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/fts5.html#full_text_query_syntax>
  @available(
    *, unavailable,
    message: "FTS5Pattern needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
  )
  public struct FTS5Pattern {
    /// Needs the `ENABLE_FTS5` trait.
    public init(rawPattern: String) {}
    /// Needs the `ENABLE_FTS5` trait.
    public init?(matchingAllTokensIn text: String) { return nil }
    /// Needs the `ENABLE_FTS5` trait.
    public init?(matchingAnyTokenIn text: String) { return nil }
    /// Needs the `ENABLE_FTS5` trait.
    public init?(matchingPhrase text: String) { return nil }
    /// Needs the `ENABLE_FTS5` trait.
    public init?(matchingAllPrefixesIn text: String) { return nil }
  }

  extension Database {
    /// Registers a Swift tokenizer type. Needs the `ENABLE_FTS5` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @available(
      *, unavailable,
      message: "addTokenizer needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
    )
    public func addTokenizer<T: FTS5Tokenizer>(_ name: String, type: T.Type) throws { throw fts5TraitMissing() }

    /// Why FTS5 asks a pull tokenizer to tokenize a text. Needs the `ENABLE_FTS5` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @available(
      *, unavailable,
      message: "FTS5TokenizationReason needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
    )
    public enum FTS5TokenizationReason {}

    /// Registers a FeistyDB-style pull tokenizer type. Needs the `ENABLE_FTS5` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @available(
      *, unavailable,
      message: "addTokenizer needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
    )
    public func addTokenizer<T: FTS5PullTokenizer>(_ name: String, type: T.Type) throws where T: AnyObject {
      throw fts5TraitMissing()
    }

    /// Registers a Swift tokenizer made by a closure. Needs the `ENABLE_FTS5` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @available(
      *, unavailable,
      message: "addTokenizer needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
    )
    public func addTokenizer(
      _ name: String, _ make: @escaping (_ arguments: FTS5TokenizerArguments) throws -> any FTS5Tokenizer
    ) throws { throw fts5TraitMissing() }

    /// Opens a registered tokenizer. Needs the `ENABLE_FTS5` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_tokenizers>
    @available(
      *, unavailable,
      message: "makeTokenizer needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
    )
    public func makeTokenizer(_ name: String, arguments: [String] = []) throws -> FTS5TokenizerHandle {
      throw fts5TraitMissing()
    }

    /// Adds an FTS5 auxiliary function. Needs the `ENABLE_FTS5` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/fts5.html#custom_auxiliary_functions>
    @available(
      *, unavailable,
      message: "addAuxiliaryFunction needs the ENABLE_FTS5 trait: add it to the Amalgam dependency's traits"
    )
    public func addAuxiliaryFunction(
      _ name: String,
      _ function:
        @escaping (_ api: FTS5ExtensionAPI, _ arguments: FunctionArguments, _ context: FunctionContext)
        throws -> Void
    ) throws { throw fts5TraitMissing() }
  }

  /// The error the bodies above would throw; they cannot be called.
  private func fts5TraitMissing() -> SQLiteError {
    SQLiteError(code: .misuse, message: "FTS5 needs the ENABLE_FTS5 trait")
  }
#endif
