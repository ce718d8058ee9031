#if ENABLE_SESSION
  extension RestrictedCallback {
    /// The conflict handler and table filter of a changeset apply may run SQL, but closing the connection
    /// would free the statements and buffers of the apply under way.
    static let changesetApplyCallback = RestrictedCallback(
      "conflict handler or table filter of a changeset apply", may: .everythingButClose)
  }
#endif
