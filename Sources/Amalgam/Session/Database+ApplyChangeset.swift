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

  /// The error that ``Database/apply(_:options:tableFilter:onConflict:)`` throws when tables of a
  /// changeset do not fit the schema of the target database: a table it lacks, one with fewer columns,
  /// or one with another primary key.
  ///
  /// SQLite's apply skips the changes of such a table without an error (it reports the table only to
  /// the error log, `sqlite3_log`). Amalgam checks each table the way SQLite does as the apply reaches
  /// it, lets SQLite skip the ones that do not fit, then undoes the whole apply (unless
  /// ``ChangesetApplyOptions/noSavepoint`` is given) and throws this error, which names every such table.
  /// To apply the rest deliberately, leave these tables out with the table filter:
  ///
  /// ```swift
  /// do {
  ///   try replica.apply(changeset)
  /// } catch let mismatch as ChangesetSchemaMismatch {
  ///   let skipped = Set(mismatch.tables.map(\.name))
  ///   try replica.apply(changeset, tableFilter: { !skipped.contains($0) }) { _ in .abort }
  /// }
  /// ```
  ///
  /// A table that the table filter rejects is never checked, and never reported here.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
  public struct ChangesetSchemaMismatch: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why a table of a changeset does not fit the target database, as SQLite's apply decides it.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
      /// The main database has no table of that name.
      case noSuchTable
      /// The table has fewer columns than the changeset records.
      case tooFewColumns(database: Int, changeset: Int)
      /// The table's primary key is not the changeset's: other columns, or the same in another order.
      /// (A table without a declared primary key counts its rowid as a first, primary-key column.)
      case primaryKeyMismatch

      /// The reason in words: "the database has no such table".
      public var description: String {
        switch self {
        case .noSuchTable: "the database has no such table"
        case let .tooFewColumns(database, changeset):
          "the database's table has \(database) column(s), the changeset records \(changeset)"
        case .primaryKeyMismatch: "the database's table has another primary key"
        }
      }
    }

    /// A table of the changeset whose changes were not applied.
    public struct Table: Hashable, Sendable {
      /// The table's name, as the changeset spells it.
      public let name: String
      /// Why it does not fit.
      public let reason: Reason
      /// How many changes of the changeset it has.
      public let changeCount: Int
    }

    /// The tables that do not fit, in the changeset's order.
    public let tables: [Table]

    /// Names each table, its number of changes and the reason.
    public var description: String {
      let count = tables.reduce(0) { $0 + $1.changeCount }
      let list = tables.map { table in "table \"\(table.name)\" (\(table.changeCount) change(s)): \(table.reason)" }
      return
        "\(count) change(s) of the changeset do not fit the database's schema: "
        + list.joined(separator: "; ")
    }
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

  /// The closures of one apply, the first error one of them threw, and the tables that do not fit.
  private final class ApplyContext {
    let tableFilter: ((String) throws -> Bool)?
    let onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    var error: (any Error)?
    /// The connection applied to, whose schema the table filter callback checks.
    let connection: OpaquePointer
    /// The table runs of the changeset read so far: all of them for bytes in memory, those the input
    /// stream delivered for a stream.
    let runs: () -> [ChangesetValidator.TableRun]
    /// The index in `runs()` of the next run that SQLite's apply may reach.
    var nextRun = 0
    /// The runs that do not fit the target, with the reason.
    var mismatches: [(run: Int, reason: ChangesetSchemaMismatch.Reason)] = []

    init(
      connection: OpaquePointer, runs: @escaping () -> [ChangesetValidator.TableRun],
      tableFilter: ((String) throws -> Bool)?,
      onConflict: @escaping (ChangesetConflict) throws -> ChangesetConflictResolution
    ) {
      self.connection = connection
      self.runs = runs
      self.tableFilter = tableFilter
      self.onConflict = onConflict
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> ApplyContext? {
      pointer.map { Unretained<ApplyContext>(opaque: $0).object }
    }

    /// SQLite's apply calls its filter once per run of changes to one table, in order (skipping runs
    /// made only of updates that change nothing); this finds the run named `table`.
    private func reachRun(named table: UnsafePointer<CChar>) -> Int? {
      var name: [UInt8] = []
      var byte = table
      while byte.pointee != 0 {
        name.append(UInt8(bitPattern: byte.pointee))
        byte += 1
      }
      let runs = runs()
      while nextRun < runs.count {
        defer { nextRun += 1 }
        if ChangesetValidator.sameTable(runs[nextRun].name, name) { return nextRun }
      }
      return nil
    }

    /// Why SQLite's apply skips `run`, or `nil` when it applies it: the checks of
    /// `sessionChangesetApply`, on the columns that `sessionTableInfo` reads, in SQLite 3.53.4.
    private func mismatch(of run: ChangesetValidator.TableRun) throws -> ChangesetSchemaMismatch.Reason? {
      // A statement of the library's own: the user's trace handler and authorizer do not hear of it.
      let target = try runningOwnStatements(on: connection) { try primaryKeyOfTarget(run.name) }
      if target.isEmpty { return .noSuchTable }
      if target.count < run.columnCount { return .tooFewColumns(database: target.count, changeset: run.columnCount) }
      let keyColumns = (target.lastIndex { $0 != 0 } ?? -1) + 1
      if run.columnCount < keyColumns || Array(target.prefix(run.columnCount)) != run.primaryKey {
        return .primaryKeyMismatch
      }
      return nil
    }

    /// The primary-key bytes of table `name` of the main database as SQLite's apply reads them, one per
    /// column (the position in the key, 0 for other columns); empty when there is no such table. Hidden
    /// and generated columns do not count; a table without a declared key gets its rowid as a first,
    /// key column; `sqlite_stat1` has the key (tbl, idx).
    private func primaryKeyOfTarget(_ name: [UInt8]) throws -> [UInt8] {
      let cName = name + [0]
      if ChangesetValidator.sameTable(name, Array("sqlite_stat1".utf8)) {
        let rc = cName.withUnsafeBufferPointer { name in
          name.withMemoryRebound(to: CChar.self) { name in
            sqlite3_table_column_metadata(connection, "main", name.baseAddress, nil, nil, nil, nil, nil, nil)
          }
        }
        if rc == SQLITE_ERROR { return [] }
        if rc != SQLITE_OK { throw SQLiteError(resultCode: rc, connection: connection) }
        return [1, 2, 0]
      }
      let sql = "SELECT pk, hidden FROM pragma_table_xinfo(?1, 'main')"
      var statement: OpaquePointer?
      var rc = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
      defer { sqlite3_finalize(statement) }
      guard rc == SQLITE_OK, let statement else { throw SQLiteError(resultCode: rc, connection: connection, sql: sql) }
      rc = cName.withUnsafeBufferPointer { name in
        name.withMemoryRebound(to: CChar.self) { name in
          sqlite3_bind_text(statement, 1, name.baseAddress, Int32(name.count - 1), transientDestructor)
        }
      }
      guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: connection, sql: sql) }
      var key: [UInt8] = []
      var hasDeclaredKey = false
      rc = sqlite3_step(statement)
      while rc == SQLITE_ROW {
        // SQLite reads both as an `int` and keeps the low byte of the key position.
        let position = Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 0))
        if position != 0 { hasDeclaredKey = true }
        if sqlite3_column_int64(statement, 1) == 0 { key.append(UInt8(truncatingIfNeeded: position)) }
        rc = sqlite3_step(statement)
      }
      guard rc == SQLITE_DONE else { throw SQLiteError(resultCode: rc, connection: connection, sql: sql) }
      if !key.isEmpty && !hasDeclaredKey { key.insert(1, at: 0) }
      return key
    }

    /// The error for the runs that do not fit, once the apply has read the whole changeset.
    func mismatchError() -> ChangesetSchemaMismatch? {
      guard !mismatches.isEmpty else { return nil }
      let runs = runs()
      return ChangesetSchemaMismatch(
        tables: mismatches.map { mismatch in
          let run = runs[mismatch.run]
          return .init(name: run.tableName, reason: mismatch.reason, changeCount: run.changeCount)
        })
    }

    /// The table filter: the user's filter first, then the schema check, so that a table the user
    /// leaves out is neither checked nor reported.
    static let filterCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32 = {
      pointer, table in
      guard let context = ApplyContext.from(pointer), context.error == nil, let table else { return 0 }
      let run = context.reachRun(named: table)
      do {
        if let filter = context.tableFilter, try !filter(String(cString: table)) { return 0 }
        guard let run else { return 1 }
        if let reason = try context.mismatch(of: context.runs()[run]) {
          context.mismatches.append((run, reason))
          return 0
        }
        return 1
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
    /// handler answers ``ChangesetConflictResolution/abort``, a closure throws, a table does not fit the
    /// database's schema, or the changeset is corrupt, every change of this apply is undone and the
    /// database is as it was. Bytes in memory are checked whole before anything is applied.
    ///
    /// A table of the changeset that the database lacks, or whose columns or primary key differ (fewer
    /// columns, another key), cannot be applied. SQLite skips such a table silently; Amalgam throws
    /// ``ChangesetSchemaMismatch``, naming every such table, and undoes the apply. Leave such tables
    /// out with `tableFilter` to apply the rest. A changeset whose tables all fit applies exactly as
    /// SQLite applies it.
    ///
    /// The conflict handler and the table filter run while SQLite's apply is under way: they may read
    /// and write this database (what they write is part of the apply, and undone with it), but they must
    /// not close it, which would free what the apply is using: ``close()`` throws `SQLITE_MISUSE` there.
    ///
    /// - Parameters:
    ///   - changeset: the changes to apply.
    ///   - options: apply flags.
    ///   - tableFilter: called once per table in the changeset, in order; changes to tables it rejects
    ///     are skipped (and not checked against the schema). `nil` applies every table.
    ///   - onConflict: decides each conflict. It may run SQL on this database, but not close it.
    ///     ``apply(_:options:)`` aborts on any conflict.
    /// - Returns: the rebase data (``Rebaser/configure(_:)``).
    /// - Throws: ``SQLiteError`` with `SQLITE_ABORT` when a handler aborted, `SQLITE_CORRUPT` for corrupt
    ///   input (`SQLITE_MISUSE` for a patchset with ``ChangesetApplyOptions/invert``), or SQLite's error;
    ///   ``ChangesetSchemaMismatch`` for tables that do not fit; the error a closure threw.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_apply.html>
    @discardableResult
    public func apply(
      _ changeset: some ChangesetProtocol, options: ChangesetApplyOptions = [],
      tableFilter: ((_ table: String) throws -> Bool)? = nil,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution
    ) throws -> Data {
      let size = try cInt(count: changeset.data.count)
      let runs = try ChangesetValidator.validate(changeset.data, inverting: options.contains(.invert))
      return try applying(options: options, runs: { runs }, tableFilter: tableFilter, onConflict: onConflict) {
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
        try applying(
          options: options, runs: { stream.validator.runs }, tableFilter: tableFilter, onConflict: onConflict,
          stream: stream
        ) { connection, context, rebase, rebaseCount in
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

    /// The savepoint that undoes an apply that SQLite completed but that fails in Swift: a table that
    /// does not fit, or an error thrown by the table filter, which SQLite gives no way to report.
    private static let applySavepoint = "amalgam_changeset_apply"

    private func applying(
      options: ChangesetApplyOptions,
      runs: @escaping () -> [ChangesetValidator.TableRun],
      tableFilter: ((String) throws -> Bool)?,
      onConflict: (ChangesetConflict) throws -> ChangesetConflictResolution,
      stream: StreamContext? = nil,
      _ apply: (
        OpaquePointer, UnsafeMutableRawPointer, UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        UnsafeMutablePointer<Int32>
      ) -> Int32
    ) throws -> Data {
      try withoutActuallyEscaping(onConflict) { onConflict in
        let box = connection
        return try box.withHandle { connection in
          let context = ApplyContext(
            connection: connection, runs: runs, tableFilter: tableFilter, onConflict: onConflict)
          let usesSavepoint = !options.contains(.noSavepoint)
          if usesSavepoint { try execute(sql: "SAVEPOINT \(Self.applySavepoint)") }
          // The handler and the filter may run SQL, but closing the connection would free the statements
          // and buffers of the apply under way.
          var rebase: UnsafeMutableRawPointer?
          var rebaseCount: Int32 = 0
          let rc = withExtendedLifetime(context) {
            box.restricting(.changesetApplyCallback) {
              apply(connection, Unretained(context).opaque, &rebase, &rebaseCount)
            }
          }
          let rebaseData = takeSQLiteBuffer(rebase, count: rebaseCount)
          var failure: (any Error)? = context.error ?? stream?.error
          if failure == nil && rc != SQLITE_OK { failure = rc == SQLITE_CORRUPT ? sessionError(rc) : error(rc) }
          if failure == nil { failure = context.mismatchError() }
          if usesSavepoint {
            if failure == nil {
              do { try execute(sql: "RELEASE \(Self.applySavepoint)") } catch { failure = error }
            }
            if failure != nil {
              // What SQLite's apply does for its own savepoint; a failure here leaves `failure` to report.
              try? execute(sql: "ROLLBACK TO \(Self.applySavepoint)")
              try? execute(sql: "RELEASE \(Self.applySavepoint)")
            }
          }
          if let failure { throw failure }
          return rebaseData
        }
      }
    }
  }

  extension ChangesetSchemaMismatch: LocalizedError {
    /// The same text as ``description``, so that `localizedDescription` says what failed.
    public var errorDescription: String? { description }
  }
#endif
