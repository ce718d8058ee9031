#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// Flags of ``Database/apply(_:options:tableFilter:onConflict:)`` (`SQLITE_CHANGESETAPPLY_*`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changesetapply_fknoaction.html>
  public struct ChangesetApplyOptions: OptionSet, Sendable, Hashable {
    /// The flag bits, as SQLite defines them.
    public let rawValue: Int32

    /// Creates options from SQLite's flag bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Do not wrap the apply in a savepoint (`SQLITE_CHANGESETAPPLY_NOSAVEPOINT`). An aborted or failed
    /// apply then leaves the changes made so far: use it inside your own transaction, and roll that back.
    public static let noSavepoint = ChangesetApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_NOSAVEPOINT)
    /// Apply the inverse of the changeset (`SQLITE_CHANGESETAPPLY_INVERT`); not allowed for a patchset.
    public static let invert = ChangesetApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_INVERT)
    /// Do not report conflicts for changes that would not modify the database
    /// (`SQLITE_CHANGESETAPPLY_IGNORENOOP`).
    public static let ignoreNoOp = ChangesetApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_IGNORENOOP)
    /// Foreign keys behave as `ON UPDATE NO ACTION ON DELETE NO ACTION` during the apply
    /// (`SQLITE_CHANGESETAPPLY_FKNOACTION`).
    public static let foreignKeyNoAction = ChangesetApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_FKNOACTION)
    /// Report updates that can only be applied together (such as swapped unique values) as constraint
    /// conflicts instead of retrying them (`SQLITE_CHANGESETAPPLY_NOUPDATELOOP`).
    public static let noUpdateLoop = ChangesetApplyOptions(rawValue: SQLITE_CHANGESETAPPLY_NOUPDATELOOP)
  }

  /// A change that could not be applied as recorded, given to the conflict handler of
  /// ``Database/apply(_:options:tableFilter:onConflict:)``. Its values are copies: it stays valid after
  /// the handler returns.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_conflict.html>
  public struct ChangesetConflict: Sendable, Hashable {
    /// Why the change could not be applied.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_conflict.html>
    public enum Kind: Sendable, Hashable {
      /// An update or delete found its row, but the row's values differ from the change's old values
      /// (`SQLITE_CHANGESET_DATA`). ``ChangesetConflict/conflictingValues`` holds the row.
      case data
      /// An update or delete did not find its row (`SQLITE_CHANGESET_NOTFOUND`).
      case notFound
      /// An insert found a row with the same primary key (`SQLITE_CHANGESET_CONFLICT`).
      /// ``ChangesetConflict/conflictingValues`` holds the row.
      case conflict
      /// The change violates a `UNIQUE`, `CHECK` or `NOT NULL` constraint (`SQLITE_CHANGESET_CONSTRAINT`).
      case constraint
      /// The changeset, fully applied, leaves foreign-key violations (`SQLITE_CHANGESET_FOREIGN_KEY`),
      /// reported once, at the end. ``ChangesetConflict/foreignKeyViolationCount`` counts them.
      case foreignKey

      init?(code: Int32) {
        switch code {
        case SQLITE_CHANGESET_DATA: self = .data
        case SQLITE_CHANGESET_NOTFOUND: self = .notFound
        case SQLITE_CHANGESET_CONFLICT: self = .conflict
        case SQLITE_CHANGESET_CONSTRAINT: self = .constraint
        case SQLITE_CHANGESET_FOREIGN_KEY: self = .foreignKey
        default: return nil
        }
      }
    }

    /// Why the change could not be applied.
    public let kind: Kind
    /// The change being applied; `nil` for ``Kind/foreignKey``, which concerns the whole changeset.
    public let change: ChangesetOperation?
    /// The row in the target database that conflicts, for ``Kind/data`` and ``Kind/conflict``
    /// (`sqlite3changeset_conflict`); else `nil`. TEXT that is not valid UTF-8 is given as
    /// ``DatabaseValue/blob(_:)`` of its bytes, its column listed in ``conflictingNonUTF8TextColumns``.
    public let conflictingValues: [DatabaseValue]?
    /// The indices, in ascending order, of the ``conflictingValues`` that are TEXT which is not valid
    /// UTF-8, given as ``DatabaseValue/blob(_:)`` of the text's bytes. Usually empty.
    public let conflictingNonUTF8TextColumns: [Int]
    /// The number of foreign-key violations, for ``Kind/foreignKey`` (`sqlite3changeset_fk_conflicts`);
    /// else 0.
    public let foreignKeyViolationCount: Int
  }

  /// What a conflict handler decides (`SQLITE_CHANGESET_OMIT`, `_REPLACE`, `_ABORT`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/c_changeset_abort.html>
  public enum ChangesetConflictResolution: Sendable, Hashable {
    /// Skip this change and go on; for ``ChangesetConflict/Kind/foreignKey``, keep the changes despite
    /// the violations.
    case omit
    /// Apply the change over the conflicting row: only for ``ChangesetConflict/Kind/data`` and
    /// ``ChangesetConflict/Kind/conflict``.
    case replace
    /// Stop, undo every change of this apply, and throw `SQLITE_ABORT`.
    case abort
  }

  /// The closures of one apply, and the first error one of them threw.
  private final class ApplyContext {
    let tableFilter: ((String) throws -> Bool)?
    let onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    var error: (any Error)?

    init(
      tableFilter: ((String) throws -> Bool)?,
      onConflict: @escaping (ChangesetConflict) throws -> ChangesetConflictResolution
    ) {
      self.tableFilter = tableFilter
      self.onConflict = onConflict
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> ApplyContext? {
      pointer.map { Unmanaged<ApplyContext>.fromOpaque($0).takeUnretainedValue() }
    }

    static let filterCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32 = {
      pointer, table in
      guard let context = ApplyContext.from(pointer), context.error == nil else { return 0 }
      guard let filter = context.tableFilter else { return 1 }
      do {
        return try filter(hookString(table) ?? "") ? 1 : 0
      } catch {
        context.error = error
        return 0
      }
    }

    static let conflictCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, OpaquePointer?) -> Int32 = {
      pointer, code, iterator in
      guard let context = ApplyContext.from(pointer), context.error == nil, let iterator,
        let kind = ChangesetConflict.Kind(code: code)
      else { return SQLITE_CHANGESET_ABORT }
      do {
        var change: ChangesetOperation?
        var conflicting: [DatabaseValue]?
        var conflictingNonUTF8Text: [Int] = []
        var violations: Int32 = 0
        if kind == .foreignKey {
          _ = sqlite3changeset_fk_conflicts(iterator, &violations)
        } else {
          let operation = try ChangesetOperation(iterator: iterator)
          change = operation
          if kind == .data || kind == .conflict {
            let row = try ChangesetOperation.values(iterator, operation.columnCount, sqlite3changeset_conflict)
            conflicting = row.values.map { $0 ?? .null }
            conflictingNonUTF8Text = row.nonUTF8TextColumns
          }
        }
        let conflict = ChangesetConflict(
          kind: kind, change: change, conflictingValues: conflicting,
          conflictingNonUTF8TextColumns: conflictingNonUTF8Text, foreignKeyViolationCount: Int(violations))
        switch try context.onConflict(conflict) {
        case .omit: return SQLITE_CHANGESET_OMIT
        case .abort: return SQLITE_CHANGESET_ABORT
        case .replace:
          guard kind == .data || kind == .conflict else {
            throw SQLiteError(
              code: .misuse,
              message: "A conflict handler answered .replace to a \(kind) conflict; only data and conflict "
                + "conflicts can be replaced")
          }
          return SQLITE_CHANGESET_REPLACE
        }
      } catch {
        context.error = error
        return SQLITE_CHANGESET_ABORT
      }
    }
  }

  extension Database {
    /// Applies a changeset or patchset to the main database (`sqlite3changeset_apply_v2`), and returns
    /// the rebase data that a ``Rebaser`` needs (empty when there was no conflict, and for a patchset).
    ///
    /// ```swift
    /// try replica.apply(changeset) { conflict in
    ///   conflict.kind == .data ? .replace : .omit
    /// }
    /// ```
    ///
    /// Unless `options` holds ``ChangesetApplyOptions/noSavepoint``, the apply runs in a savepoint: when a
    /// handler answers ``ChangesetConflictResolution/abort``, a closure throws, or the changeset is
    /// corrupt, every change of this apply is undone and the database is as it was. Bytes in memory are
    /// checked whole before anything is applied.
    ///
    /// The conflict handler and the table filter run while SQLite's apply is under way: they may read
    /// and write this database (what they write is part of the apply, and undone with it), but they must
    /// not close it, which would free what the apply is using: ``close()`` throws `SQLITE_MISUSE` there.
    ///
    /// - Parameters:
    ///   - changeset: the changes to apply.
    ///   - options: apply flags.
    ///   - tableFilter: called once per table in the changeset; changes to tables it rejects are skipped.
    ///     `nil` applies every table.
    ///   - onConflict: decides each conflict. It may run SQL on this database, but not close it.
    ///     ``apply(_:options:)`` aborts on any conflict.
    /// - Returns: the rebase data (``Rebaser/configure(_:)``).
    /// - Throws: ``SQLiteError`` with `SQLITE_ABORT` when a handler aborted, `SQLITE_CORRUPT` for corrupt
    ///   input (`SQLITE_MISUSE` for a patchset with ``ChangesetApplyOptions/invert``), or SQLite's error;
    ///   the error a closure threw.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @discardableResult
    public func apply(
      _ changeset: some ChangesetProtocol, options: ChangesetApplyOptions = [],
      tableFilter: ((_ table: String) throws -> Bool)? = nil,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    ) throws -> Data {
      let size = try cInt(count: changeset.data.count)
      _ = try ChangesetValidator.validate(changeset.data, inverting: options.contains(.invert))
      return try applying(tableFilter: tableFilter, onConflict: onConflict) {
        connection, context, rebase, rebaseCount in
        changeset.data.withUnsafeBytes { bytes in
          sqlite3changeset_apply_v2(
            connection, size, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
            ApplyContext.filterCallback, ApplyContext.conflictCallback, context, rebase, rebaseCount,
            options.rawValue)
        }
      }
    }

    /// Applies a changeset or patchset read from `input` as it is needed
    /// (`sqlite3changeset_apply_v2_strm`), for changesets larger than memory. See
    /// ``apply(_:options:tableFilter:onConflict:)``. The bytes are checked as they are read: corrupt or
    /// truncated input throws `SQLITE_CORRUPT`, and the savepoint undoes what was applied before it.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @discardableResult
    public func applyChangeset(
      from input: @escaping ChangesetInputStream, options: ChangesetApplyOptions = [],
      tableFilter: ((_ table: String) throws -> Bool)? = nil,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    ) throws -> Data {
      let stream = StreamContext(input: input, inverting: options.contains(.invert))
      return try withExtendedLifetime(stream) {
        try applying(tableFilter: tableFilter, onConflict: onConflict, stream: stream) {
          connection, context, rebase, rebaseCount in
          sqlite3changeset_apply_v2_strm(
            connection, StreamContext.inputCallback, stream.pointer, ApplyContext.filterCallback,
            ApplyContext.conflictCallback, context, rebase, rebaseCount, options.rawValue)
        }
      }
    }

    /// Applies a changeset or patchset, aborting (and undoing everything) at the first conflict. See
    /// ``apply(_:options:tableFilter:onConflict:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @discardableResult
    public func apply(_ changeset: some ChangesetProtocol, options: ChangesetApplyOptions = []) throws -> Data {
      try apply(changeset, options: options, tableFilter: nil) { _ in .abort }
    }

    /// Applies a streamed changeset or patchset, aborting at the first conflict. See
    /// ``applyChangeset(from:options:tableFilter:onConflict:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @discardableResult
    public func applyChangeset(
      from input: @escaping ChangesetInputStream, options: ChangesetApplyOptions = []
    ) throws -> Data {
      try applyChangeset(from: input, options: options, tableFilter: nil) { _ in .abort }
    }

    private func applying(
      tableFilter: ((String) throws -> Bool)?,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution,
      stream: StreamContext? = nil,
      _ apply: (
        OpaquePointer, UnsafeMutableRawPointer, UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        UnsafeMutablePointer<Int32>
      ) -> Int32
    ) throws -> Data {
      try withoutActuallyEscaping(onConflict) { onConflict in
        let context = ApplyContext(tableFilter: tableFilter, onConflict: onConflict)
        let box = connectionBox
        return try box.withHandle { connection in
          // The handler and the filter may run SQL, but closing the connection would free the statements
          // and buffers of the apply under way.
          let previous = box.closeRefusedDuring
          box.closeRefusedDuring = "the conflict handler or table filter of a changeset apply"
          var rebase: UnsafeMutableRawPointer?
          var rebaseCount: Int32 = 0
          let rc = withExtendedLifetime(context) {
            apply(connection, Unmanaged.passUnretained(context).toOpaque(), &rebase, &rebaseCount)
          }
          box.closeRefusedDuring = previous
          let rebaseData = takeSQLiteBuffer(rebase, count: rebaseCount)
          if let error = context.error ?? stream?.error { throw error }
          if rc != SQLITE_OK {
            if rc == SQLITE_CORRUPT { throw sessionError(rc) }
            throw error(rc)
          }
          return rebaseData
        }
      }
    }
  }
#endif
