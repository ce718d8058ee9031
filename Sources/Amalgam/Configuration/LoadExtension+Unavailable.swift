#if OMIT_LOAD_EXTENSION
  // The OMIT_LOAD_EXTENSION trait leaves run-time extension loading out of SQLite: its API is then declared
  // but unavailable, so that a use of it fails to compile with a message that names the trait. Nothing here
  // can run.

  extension Database {
    /// Allows or forbids loading extensions. Unavailable with the `OMIT_LOAD_EXTENSION` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/enable_load_extension.html>
    @available(
      *, unavailable,
      message: "enableExtensionLoading is left out by the OMIT_LOAD_EXTENSION trait: remove it from Amalgam's traits"
    )
    public func enableExtensionLoading(_ enabled: Bool) throws { throw extensionLoadingOmitted() }

    /// Loads an extension. Unavailable with the `OMIT_LOAD_EXTENSION` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/load_extension.html>
    @available(
      *, unavailable,
      message: "loadExtension is left out by the OMIT_LOAD_EXTENSION trait: remove it from Amalgam's traits"
    )
    public func loadExtension(path: String, entryPoint: String? = nil) throws { throw extensionLoadingOmitted() }
  }

  /// The error the bodies above would throw; they cannot be called.
  private func extensionLoadingOmitted() -> SQLiteError {
    SQLiteError(code: .misuse, message: "Extension loading is left out by the OMIT_LOAD_EXTENSION trait")
  }
#endif
