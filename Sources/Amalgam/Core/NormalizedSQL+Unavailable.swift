#if !ENABLE_NORMALIZE
  // Without the ENABLE_NORMALIZE trait, Statement.normalizedSQL is declared but unavailable, so that a use of
  // it fails to compile with a message that names the trait. Nothing here can run.

  extension Statement {
    /// The SQL with literals replaced by `?`. Needs the `ENABLE_NORMALIZE` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/expanded_sql.html>
    @available(
      *, unavailable,
      message: "normalizedSQL needs the ENABLE_NORMALIZE trait: add it to the Amalgam dependency's traits"
    )
    public var normalizedSQL: String? { nil }
  }
#endif
