#if OMIT_PROGRESS_CALLBACK
  // The OMIT_PROGRESS_CALLBACK trait leaves SQLite's progress callback out: the progress handler API is then
  // declared but unavailable, so that a use of it fails to compile with a message that names the trait.
  // Nothing here can run.

  /// What a progress handler decides. Unavailable with the `OMIT_PROGRESS_CALLBACK` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
  @available(
    *, unavailable,
    message: "ProgressDecision is left out by the OMIT_PROGRESS_CALLBACK trait: remove it from Amalgam's traits"
  )
  public enum ProgressDecision {
    /// Keep running.
    case `continue`
    /// Stop the statement.
    case interrupt
  }

  extension Database {
    /// Registers a progress handler. Unavailable with the `OMIT_PROGRESS_CALLBACK` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
    @available(
      *, unavailable,
      message: "setProgressHandler is left out by the OMIT_PROGRESS_CALLBACK trait: remove it from Amalgam's traits"
    )
    public func setProgressHandler(every instructions: Int, _ handler: @escaping () -> ProgressDecision) throws {
      throw progressCallbackOmitted()
    }

    /// Removes the progress handler. Unavailable with the `OMIT_PROGRESS_CALLBACK` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/progress_handler.html>
    @available(
      *, unavailable,
      message: "removeProgressHandler is left out by the OMIT_PROGRESS_CALLBACK trait: remove it from Amalgam's traits"
    )
    public func removeProgressHandler() throws { throw progressCallbackOmitted() }
  }

  /// The error the bodies above would throw; they cannot be called.
  private func progressCallbackOmitted() -> SQLiteError {
    SQLiteError(code: .misuse, message: "The progress handler is left out by the OMIT_PROGRESS_CALLBACK trait")
  }
#endif
