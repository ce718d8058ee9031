#if !ENABLE_PREUPDATE_HOOK
  // Without the ENABLE_PREUPDATE_HOOK trait the pre-update hook is declared but unavailable, so that a use
  // of it fails to compile with a message that names the trait. Nothing here can run.

  /// A row about to change, as seen by the pre-update hook. Needs the `ENABLE_PREUPDATE_HOOK` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
  @available(
    *, unavailable,
    message: "PreUpdateEvent needs the ENABLE_PREUPDATE_HOOK trait: add it to the Amalgam dependency's traits"
  )
  public struct PreUpdateEvent {}

  extension Database {
    /// FeistyDB's name for ``PreUpdateEvent``. Needs the `ENABLE_PREUPDATE_HOOK` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    @available(
      *, unavailable,
      message: "PreUpdateChange needs the ENABLE_PREUPDATE_HOOK trait: add it to the Amalgam dependency's traits"
    )
    public typealias PreUpdateChange = PreUpdateEvent

    /// Registers the pre-update hook. Needs the `ENABLE_PREUPDATE_HOOK` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    @available(
      *, unavailable,
      message: "setPreUpdateHook needs the ENABLE_PREUPDATE_HOOK trait: add it to the Amalgam dependency's traits"
    )
    @discardableResult
    public func setPreUpdateHook(_ hook: @escaping (PreUpdateEvent) -> Void) -> Bool { false }

    /// Removes the pre-update hook. Needs the `ENABLE_PREUPDATE_HOOK` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/preupdate_blobwrite.html>
    @available(
      *, unavailable,
      message: "removePreUpdateHook needs the ENABLE_PREUPDATE_HOOK trait: add it to the Amalgam dependency's traits"
    )
    public func removePreUpdateHook() {}
  }
#endif
