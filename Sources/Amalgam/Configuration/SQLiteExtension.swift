import AmalgamSQLite

/// The entry point of an SQLite extension compiled into the program: a C function
/// `int init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api)` that registers the
/// extension's functions, collations and modules on `db`, and returns `SQLITE_OK` or an error code
/// (with a message from `sqlite3_mprintf` in `*errorMessage`). Swift sees a C function of that shape,
/// imported from a C target that depends on `AmalgamSQLite`, as this type.
///
/// See <doc:WritingExtensionsInC>.
///
/// Related SQLite documentation: <https://sqlite.org/loadext.html#programming_loadable_extensions>
public typealias SQLiteExtensionEntryPoint =
  @convention(c) (
    _ db: OpaquePointer?, _ errorMessage: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ api: OpaquePointer?
  ) -> Int32

extension Database {
  /// Registers an extension compiled into the program on this connection, by calling its entry point
  /// with the connection's handle.
  ///
  /// ```swift
  /// import MyExtension            // a C target that depends on AmalgamSQLite
  /// try db.registerExtension(my_extension_init)
  /// ```
  ///
  /// The entry point receives a null `api`: an extension compiled into the program calls SQLite's
  /// functions directly (it includes `sqlite3.h`, or `sqlite3ext.h` with `SQLITE_CORE` defined). An
  /// extension built to be loaded from a shared library uses the `api` table instead: load those with
  /// ``loadExtension(path:entryPoint:)``.
  ///
  /// - Throws: ``SQLiteError`` with the code the entry point returned and its message;
  ///   ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/loadext.html#statically_linking_a_run_time_loadable_extension>
  public func registerExtension(_ entryPoint: SQLiteExtensionEntryPoint) throws {
    try connection.withHandle { handle in
      var message: UnsafeMutablePointer<CChar>?
      let rc = entryPoint(handle, &message, nil)
      let text = takeSQLiteString(message)
      guard rc == SQLITE_OK else {
        throw SQLiteError(code: ResultCode(rawValue: rc), message: text ?? String(cString: sqlite3_errstr(rc)))
      }
    }
  }
}

extension SQLite {
  /// Serializes Amalgam's calls to the automatic-extension list: SQLite guards the list with its own
  /// mutex, except in the single-thread build (trait `THREADSAFE_0`).
  private static let automaticExtensionLock = LockedState<Void>(())

  /// Registers an extension compiled into the program on every connection opened from now on, in
  /// every part of the process that uses this SQLite (`sqlite3_auto_extension`): SQLite calls the entry
  /// point when each connection opens, after Amalgam's own extensions. Registering the same entry point
  /// twice has no further effect.
  ///
  /// ```swift
  /// try SQLite.registerAutomaticExtension(my_extension_init)
  /// let db = try Database()      // my_extension_init has run on it
  /// ```
  ///
  /// The registration is process-wide: it affects connections opened by other libraries and other
  /// threads of the program too, and lasts until ``cancelAutomaticExtension(_:)`` or
  /// ``resetAutomaticExtensions()``. It is thread-safe. An entry point that fails makes the opening
  /// fail: `Database(path:)` throws an ``SQLiteError`` whose message starts with "automatic extension
  /// loading failed". The entry point's `api` argument is SQLite's API table, or null when the
  /// `OMIT_LOAD_EXTENSION` trait is on.
  ///
  /// - Throws: ``SQLiteError`` (``ResultCode/noMemory``).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/auto_extension.html>
  public static func registerAutomaticExtension(_ entryPoint: SQLiteExtensionEntryPoint) throws {
    let rc = automaticExtensionLock.withLock { _ in
      sqlite3_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self))
    }
    guard rc == SQLITE_OK else {
      throw SQLiteError(code: ResultCode(rawValue: rc), message: String(cString: sqlite3_errstr(rc)))
    }
  }

  /// Stops running `entryPoint` on new connections (`sqlite3_cancel_auto_extension`). Connections
  /// already open keep what it registered.
  ///
  /// - Returns: true when the entry point was registered, false when it was not.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/cancel_auto_extension.html>
  @discardableResult
  public static func cancelAutomaticExtension(_ entryPoint: SQLiteExtensionEntryPoint) -> Bool {
    automaticExtensionLock.withLock { _ in
      sqlite3_cancel_auto_extension(unsafeBitCast(entryPoint, to: (@convention(c) () -> Void).self)) == 1
    }
  }

  /// Removes every automatic extension (`sqlite3_reset_auto_extension`), including those that other
  /// libraries of the process registered.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/reset_auto_extension.html>
  public static func resetAutomaticExtensions() {
    automaticExtensionLock.withLock { _ in sqlite3_reset_auto_extension() }
  }
}
