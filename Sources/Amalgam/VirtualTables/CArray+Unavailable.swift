#if !ENABLE_CARRAY
  // Without the ENABLE_CARRAY trait, binding arrays to carray() is declared but unavailable, so that a use
  // of it fails to compile with a message that names the trait. Nothing here can run.

  extension Statement {
    /// Binds an array to the `carray()` parameter `index`. Needs the `ENABLE_CARRAY` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @available(
      *, unavailable, message: "bind(array:) needs the ENABLE_CARRAY trait: add it to the Amalgam dependency's traits"
    )
    @discardableResult
    public func bind<Element>(array: [Element], toParameter index: Int) throws -> Statement {
      throw SQLiteError(code: .misuse, message: "carray() needs the ENABLE_CARRAY trait")
    }
  }
#endif
