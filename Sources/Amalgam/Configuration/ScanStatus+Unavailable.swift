#if !ENABLE_STMT_SCANSTATUS
  // Without the ENABLE_STMT_SCANSTATUS trait, a statement's scan counters are declared but unavailable, so
  // that a use of them fails to compile with a message that names the trait. Nothing here can run.

  /// What one element of a statement's query plan did. Needs the `ENABLE_STMT_SCANSTATUS` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_scanstatus.html>
  @available(
    *, unavailable,
    message: "ScanStatus needs the ENABLE_STMT_SCANSTATUS trait: add it to the Amalgam dependency's traits"
  )
  public struct ScanStatus {}

  extension Statement {
    /// The run-time counters of the statement's plan. Needs the `ENABLE_STMT_SCANSTATUS` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_scanstatus.html>
    @available(
      *, unavailable,
      message: "scanStatus() needs the ENABLE_STMT_SCANSTATUS trait: add it to the Amalgam dependency's traits"
    )
    public func scanStatus(allElements: Bool = false) -> [ScanStatus] { [] }

    /// Sets the scan counters back to zero. Needs the `ENABLE_STMT_SCANSTATUS` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/stmt_scanstatus_reset.html>
    @available(
      *, unavailable,
      message: "resetScanStatus() needs the ENABLE_STMT_SCANSTATUS trait: add it to the Amalgam dependency's traits"
    )
    public func resetScanStatus() {}
  }
#endif
