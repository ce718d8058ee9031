#if !OMIT_LOAD_EXTENSION
  import AmalgamSQLite

  extension Database {
    /// Allows or forbids loading extensions with ``loadExtension(path:entryPoint:)`` on this connection.
    /// Needs run-time extension loading, which the `OMIT_LOAD_EXTENSION` trait removes.
    ///
    /// Loading is **off by default**: an extension is native code that runs with the application's
    /// rights, so enable it only around the loads you intend, from paths you trust.
    ///
    /// ```swift
    /// try db.enableExtensionLoading(true)
    /// defer { try? db.enableExtensionLoading(false) }
    /// try db.loadExtension(path: "/usr/lib/sqlite3/pcre.so")
    /// ```
    ///
    /// This enables the C interface only (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`, the same setting as
    /// ``DatabaseConfigFlag/loadExtension``): the SQL function `load_extension()` stays disabled, so SQL
    /// text cannot load code.
    ///
    /// - Throws: ``DatabaseError/databaseClosed`` when the database is closed.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/enable_load_extension.html>
    public func enableExtensionLoading(_ enabled: Bool) throws {
      try setEnabled(.loadExtension, to: enabled)
    }

    /// Loads an SQLite extension from a shared library and runs its entry point on this connection
    /// (`sqlite3_load_extension`). Loading must first be enabled with ``enableExtensionLoading(_:)``.
    ///
    /// - Parameters:
    ///   - path: the shared library's path. Without an extension (`.so`, `.dylib`, `.dll`), SQLite also
    ///     tries the platform's.
    ///   - entryPoint: the initialisation function's name; `nil` lets SQLite derive it from the file
    ///     name (`sqlite3_<name>_init`, or `sqlite3_extension_init`).
    /// - Throws: ``SQLiteError`` with SQLite's message: "not authorized" while loading is disabled, the
    ///   system's reason when the library cannot be opened, or the extension's own error.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/load_extension.html>
    public func loadExtension(path: String, entryPoint: String? = nil) throws {
      var message: UnsafeMutablePointer<CChar>?
      let (handle, rc) = try connection.withHandle { ($0, sqlite3_load_extension($0, path, entryPoint, &message)) }
      let text = takeSQLiteString(message)
      guard rc == SQLITE_OK else {
        let error = SQLiteError(resultCode: rc, connection: handle)
        throw SQLiteError(code: error.extendedCode, message: text ?? error.message)
      }
    }
  }
#endif
