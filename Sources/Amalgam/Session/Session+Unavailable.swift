#if !ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif

  // Without the ENABLE_SESSION trait the session API is declared but unavailable, so that a use of it
  // fails to compile with a message that names the trait, instead of "cannot find 'Session' in scope".
  // Only what a call needs to resolve to these declarations is declared; nothing here can run.

  /// Records the changes made to tables of a database. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
  @available(
    *, unavailable,
    message: "Session needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public final class Session {
    /// Needs the `ENABLE_SESSION` trait.
    public init(database: Database, schema: String = "main") throws { throw sessionTraitMissing() }
    /// Needs the `ENABLE_SESSION` trait.
    public func attach(_ table: String? = nil) throws { throw sessionTraitMissing() }
    /// Needs the `ENABLE_SESSION` trait.
    public func changeset() throws -> Changeset { throw sessionTraitMissing() }
    /// Needs the `ENABLE_SESSION` trait.
    public func patchset() throws -> Patchset { throw sessionTraitMissing() }
  }

  /// A changeset or a patchset. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/sessionintro.html>
  @available(
    *, unavailable,
    message: "Changesets need the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public protocol ChangesetProtocol {}

  /// The changes recorded by a session. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_changeset.html>
  @available(
    *, unavailable,
    message: "Changeset needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public struct Changeset: ChangesetProtocol {
    /// Needs the `ENABLE_SESSION` trait.
    public init(data: Data) throws {}
  }

  /// The changes recorded by a session, without the old values. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3session_patchset.html>
  @available(
    *, unavailable,
    message: "Patchset needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public struct Patchset: ChangesetProtocol {
    /// Needs the `ENABLE_SESSION` trait.
    public init(data: Data) throws {}
  }

  /// One change of a changeset. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_op.html>
  @available(
    *, unavailable,
    message: "ChangesetOperation needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public struct ChangesetOperation {}

  /// Reads the changes of a changeset one by one. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/changeset_iter.html>
  @available(
    *, unavailable,
    message: "ChangesetReader needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public final class ChangesetReader {}

  /// Combines changesets. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/changegroup.html>
  @available(
    *, unavailable,
    message: "Changegroup needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public final class Changegroup {}

  /// Rebases changesets. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/rebaser.html>
  @available(
    *, unavailable,
    message: "Rebaser needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public final class Rebaser {}

  /// Streams of changeset bytes. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_add_strm.html>
  @available(
    *, unavailable,
    message: "ChangesetStreams needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public enum ChangesetStreams {}

  /// Reads changeset bytes from a stream. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_add_strm.html>
  @available(
    *, unavailable,
    message: "ChangesetInputStream needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public typealias ChangesetInputStream = (_ buffer: UnsafeMutableRawBufferPointer) throws -> Int

  /// Writes changeset bytes to a stream. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_add_strm.html>
  @available(
    *, unavailable,
    message: "ChangesetOutputStream needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public typealias ChangesetOutputStream = (_ chunk: UnsafeRawBufferPointer) throws -> Void

  /// Flags of a changeset apply. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changesetapply_fknoaction.html>
  @available(
    *, unavailable,
    message: "ChangesetApplyOptions needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public struct ChangesetApplyOptions: OptionSet {
    /// Needs the `ENABLE_SESSION` trait.
    public let rawValue: Int32
    /// Needs the `ENABLE_SESSION` trait.
    public init(rawValue: Int32) { self.rawValue = rawValue }
  }

  /// A conflict met while applying a changeset. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
  @available(
    *, unavailable,
    message: "ChangesetConflict needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public struct ChangesetConflict {}

  /// Tables of a changeset that do not fit the target. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
  @available(
    *, unavailable,
    message: "ChangesetSchemaMismatch needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public struct ChangesetSchemaMismatch: Error {}

  /// What a conflict handler decides. Needs the `ENABLE_SESSION` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_abort.html>
  @available(
    *, unavailable,
    message: "ChangesetConflictResolution needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
  )
  public enum ChangesetConflictResolution {
    /// Skip this change.
    case omit
    /// Apply the change over the conflicting row.
    case replace
    /// Stop and undo the apply.
    case abort
  }

  extension Database {
    /// Applies a changeset or patchset. Needs the `ENABLE_SESSION` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @available(
      *, unavailable,
      message: "apply(_:) needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
    )
    @discardableResult
    public func apply(
      _ changeset: some ChangesetProtocol, options: ChangesetApplyOptions = [],
      tableFilter: ((_ table: String) throws -> Bool)? = nil,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    ) throws -> Data { throw sessionTraitMissing() }

    /// Applies a changeset or patchset, aborting at the first conflict. Needs the `ENABLE_SESSION` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @available(
      *, unavailable,
      message: "apply(_:) needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
    )
    @discardableResult
    public func apply(_ changeset: some ChangesetProtocol, options: ChangesetApplyOptions = []) throws -> Data {
      throw sessionTraitMissing()
    }

    /// Applies a streamed changeset or patchset. Needs the `ENABLE_SESSION` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @available(
      *, unavailable,
      message: "applyChangeset(from:) needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
    )
    @discardableResult
    public func applyChangeset(
      from input: @escaping ChangesetInputStream, options: ChangesetApplyOptions = [],
      tableFilter: ((_ table: String) throws -> Bool)? = nil,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    ) throws -> Data { throw sessionTraitMissing() }

    /// Applies a streamed changeset or patchset, aborting at the first conflict. Needs the `ENABLE_SESSION`
    /// trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @available(
      *, unavailable,
      message: "applyChangeset(from:) needs the ENABLE_SESSION trait: add it to the Amalgam dependency's traits"
    )
    @discardableResult
    public func applyChangeset(
      from input: @escaping ChangesetInputStream, options: ChangesetApplyOptions = []
    ) throws -> Data { throw sessionTraitMissing() }
  }

  /// The error the bodies above would throw; they cannot be called.
  private func sessionTraitMissing() -> SQLiteError {
    SQLiteError(code: .misuse, message: "Sessions need the ENABLE_SESSION trait")
  }
#endif
