#if !ENABLE_SETLK_TIMEOUT
  // Without the ENABLE_SETLK_TIMEOUT trait, blocking locks are declared but unavailable, so that a use of
  // them fails to compile with a message that names the trait. Nothing here can run.

  extension Database {
    /// Sets how long a lock may block. Needs the `ENABLE_SETLK_TIMEOUT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/setlk_timeout.html>
    @available(
      *, unavailable,
      message: "setLockTimeout needs the ENABLE_SETLK_TIMEOUT trait: add it to the Amalgam dependency's traits"
    )
    public func setLockTimeout(_ seconds: Double, blockOnConnect: Bool = false) throws {
      throw SQLiteError(code: .misuse, message: "setLockTimeout needs the ENABLE_SETLK_TIMEOUT trait")
    }
  }
#endif
