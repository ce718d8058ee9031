#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// Merges many changesets (or many patchsets) into one that has the same effect as applying them in
  /// order (`sqlite3_changegroup`). Faster than concatenating them two by two.
  ///
  /// ```swift
  /// let group = try Changegroup()
  /// for changeset in changesets { try group.add(changeset) }
  /// let merged = try group.changeset()
  /// ```
  ///
  /// Changes can also be added one at a time, as ``ChangesetOperation`` values or column by column
  /// (``beginChange(_:table:indirect:)``), for a table whose schema the group knows from
  /// ``setSchema(database:schema:)`` or from a changeset already added.
  ///
  /// A changegroup is used by one thread at a time.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/changegroup.html>
  ///
  /// ## Topics
  ///
  /// ### Adding changes
  ///
  /// - ``add(_:)-(ChangesetProtocol)``
  /// - ``add(_:)-(ChangesetOperation)``
  /// - ``add(from:)``
  /// - ``beginChange(_:table:indirect:)``
  /// - ``setOldValue(_:at:)``
  /// - ``setNewValue(_:at:)``
  /// - ``finishChange(discard:)``
  ///
  /// ### Configuring
  ///
  /// - ``setSchema(database:schema:)``
  /// - ``setProducesPatchset(_:)``
  /// - ``producesPatchset``
  ///
  /// ### Output
  ///
  /// - ``changeset()``
  /// - ``patchset()``
  /// - ``write(to:)``
  public final class Changegroup {
    private let handle: OpaquePointer
    /// The database given to ``setSchema(database:schema:)``, which SQLite keeps a pointer to.
    private var schemaDatabase: Database?
    /// The schema name given to ``setSchema(database:schema:)``.
    private var schemaName = "main"

    /// Creates an empty changegroup (`sqlite3changegroup_new`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_new.html>
    public init() throws {
      var handle: OpaquePointer?
      let rc = sqlite3changegroup_new(&handle)
      guard rc == SQLITE_OK, let handle else { throw sessionError(rc) }
      self.handle = handle
    }

    deinit {
      sqlite3changegroup_delete(handle)
    }

    /// Runs `body`, holding the connection given to ``setSchema(database:schema:)`` when there is one,
    /// since SQLite reads that connection's schema while changes are added.
    ///
    /// - Throws: ``DatabaseError/databaseClosed`` when that database was closed.
    private func withSchema<T>(_ body: () throws -> T) throws -> T {
      guard let schemaDatabase else { return try body() }
      return try schemaDatabase.connection.withHandle { _ in try body() }
    }

    /// Makes the group use the schema of the tables in `schema` of `database`
    /// (`sqlite3changegroup_schema`): changesets recorded with fewer columns (before an
    /// `ALTER TABLE ... ADD COLUMN`) are then widened with the columns' default values, and changes can
    /// be built for its tables. Call it before adding anything. The group keeps `database` alive.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_schema.html>
    public func setSchema(database: Database, schema: String = "main") throws {
      try database.connection.withHandle { connection in
        let rc = sqlite3changegroup_schema(handle, connection, schema)
        if rc == SQLITE_MISUSE {
          throw SQLiteError(
            code: .misuse,
            message: "A changegroup takes its schema once, before anything is added to it; this one "
              + (schemaDatabase == nil ? "already holds changes" : "already has a schema"))
        }
        if rc != SQLITE_OK { throw sessionError(rc, on: database) }
      }
      schemaDatabase = database
      schemaName = schema
    }

    /// Makes an empty group produce a patchset (`true`) or a changeset (`false`)
    /// (`sqlite3changegroup_config` with `SQLITE_CHANGEGROUP_CONFIG_PATCHSET`). Once the group holds
    /// changes it keeps its kind. Useful before building changes with ``beginChange(_:table:indirect:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_config.html>
    public func setProducesPatchset(_ patchset: Bool) throws {
      var value: Int32 = patchset ? 1 : 0
      let rc = sqlite3changegroup_config(handle, SQLITE_CHANGEGROUP_CONFIG_PATCHSET, &value)
      if rc != SQLITE_OK { throw sessionError(rc) }
    }

    /// True when the group produces a patchset (`sqlite3changegroup_config`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_config.html>
    public var producesPatchset: Bool {
      var value: Int32 = -1
      _ = sqlite3changegroup_config(handle, SQLITE_CHANGEGROUP_CONFIG_PATCHSET, &value)
      return value == 1
    }

    /// Adds a changeset or patchset (`sqlite3changegroup_add`). A group holds changesets or patchsets,
    /// not both.
    ///
    /// - Throws: ``SQLiteError``: `SQLITE_CORRUPT` for corrupt input (the group keeps what it held),
    ///   `SQLITE_SCHEMA` for a table recorded with other columns (or, with ``setSchema(database:schema:)``,
    ///   a table the schema database does not have), `SQLITE_ERROR` for a patchset added to
    ///   changesets or the reverse.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_add.html>
    public func add(_ changeset: some ChangesetProtocol) throws {
      let size = try cInt(count: changeset.data.count)
      let runs = try ChangesetValidator.validate(changeset.data)
      if let database = schemaDatabase {
        var checked: Set<String> = []
        for table in runs.map(\.tableName) where checked.insert(table).inserted {
          try checkTableExists(table, in: database)
        }
      }
      let rc = try withSchema {
        changeset.data.withUnsafeBytes { bytes in
          sqlite3changegroup_add(handle, size, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
      }
      if rc != SQLITE_OK { throw addError(rc) }
    }

    /// Throws `SQLITE_SCHEMA` when schema ``schemaName`` of `database` has no table `table`: with a
    /// schema set, SQLite 3.53.4's `sqlite3changegroup_add` dereferences a null pointer for such a
    /// table (fuzz-changeset found it), so the Swift layer checks first.
    private func checkTableExists(_ table: String, in database: Database) throws {
      let columns = try database.connection.runningOwnStatements {
        try database.prepare(sql: "SELECT count(*) FROM pragma_table_xinfo(?, ?)")
          .bind(parameterValues: [table, schemaName]).front(Int.self)
      }
      if (columns ?? 0) == 0 {
        throw SQLiteError(
          code: .schema,
          message:
            "The changeset changes table \"\(table)\", which schema \"\(schemaName)\" of the changegroup's "
            + "database does not have")
      }
    }

    /// Adds a changeset or patchset read from `input` (`sqlite3changegroup_add_strm`).
    ///
    /// With a schema set (``setSchema(database:schema:)``), the changes are read one by one from a
    /// streamed iterator (`sqlite3changeset_start_v2_strm`) and added with `sqlite3changegroup_add_change`,
    /// each table checked before its first change goes in, so that memory stays bounded by SQLite's
    /// stream buffer as with `sqlite3changegroup_add_strm`. A changeset for a table the schema database
    /// lacks throws `SQLITE_SCHEMA` (SQLite 3.53.4 dereferences a null pointer there); the changes read
    /// before it stay in the group, as they do when SQLite stops at corrupt input.
    ///
    /// - Throws: the error the stream threw, or an ``SQLiteError`` as for ``add(_:)-(ChangesetProtocol)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_add.html>
    public func add(from input: @escaping ChangesetInputStream) throws {
      let stream = StreamContext(input: input)
      guard let database = schemaDatabase else {
        try withStreams([stream], error: addError) {
          sqlite3changegroup_add_strm(handle, StreamContext.inputCallback, stream.pointer)
        }
        return
      }
      var schemaError: (any Error)?
      try withSchema {
        try withStreams([stream], error: addError) {
          var checked: Set<String> = []
          return ChangesetIterator(stream: stream, inverted: false).forEachChange { iterator in
            var name: UnsafePointer<CChar>?
            var columns: Int32 = 0
            var operation: Int32 = 0
            var indirect: Int32 = 0
            let rc = sqlite3changeset_op(iterator, &name, &columns, &operation, &indirect)
            // A change without a table name (which SQLite never makes) ends the reading.
            guard rc == SQLITE_OK, let name else { return rc == SQLITE_OK ? SQLITE_DONE : rc }
            let table = String(cString: name)
            if !checked.contains(table) {
              do {
                try checkTableExists(table, in: database)
                checked.insert(table)
              } catch {
                schemaError = error
                return SQLITE_DONE
              }
            }
            return sqlite3changegroup_add_change(handle, iterator)
          }
        }
      }
      if let schemaError { throw schemaError }
    }

    /// The error for `rc` from `sqlite3changegroup_add`, which gives only a code.
    private func addError(_ rc: Int32) -> any Error {
      switch rc {
      case SQLITE_ERROR:
        let kind = producesPatchset ? "patchsets" : "changesets"
        return SQLiteError(
          code: .error, message: "A changegroup holds changesets or patchsets, not both; this one holds \(kind)")
      case SQLITE_SCHEMA:
        let other = schemaDatabase == nil ? "the changes already in the group" : "the group's schema database"
        return SQLiteError(
          code: .schema,
          message: "The changeset records a table with other columns, or another primary key, than \(other)")
      default: return sessionError(rc)
      }
    }

    /// Adds one change, such as one read from a changeset by ``ChangesetReader`` (and perhaps edited),
    /// through ``beginChange(_:table:indirect:)``. `nil` values are left out of the change. The BLOB
    /// values of the columns listed in ``ChangesetOperation/oldNonUTF8TextColumns`` and
    /// ``ChangesetOperation/newNonUTF8TextColumns`` are written as TEXT of the same bytes.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_change_begin.html>
    public func add(_ operation: ChangesetOperation) throws {
      try beginChange(operation.operation, table: operation.table, indirect: operation.isIndirect)
      do {
        for (column, value) in operation.oldValues.enumerated() {
          guard let value else { continue }
          let isText = operation.oldNonUTF8TextColumns.contains(column)
          try setValue(value, isNew: false, column: column, bytesAsText: isText)
        }
        for (column, value) in operation.newValues.enumerated() {
          guard let value else { continue }
          let isText = operation.newNonUTF8TextColumns.contains(column)
          try setValue(value, isNew: true, column: column, bytesAsText: isText)
        }
      } catch {
        try? finishChange(discard: true)
        throw error
      }
      try finishChange()
    }

    /// Starts building one change to `table` (`sqlite3changegroup_change_begin`). Give its values with
    /// ``setOldValue(_:at:)`` and ``setNewValue(_:at:)``, then call ``finishChange(discard:)``.
    ///
    /// ```swift
    /// try group.beginChange(.update, table: "notes", indirect: false)
    /// try group.setOldValue(1, at: 0)             // primary key
    /// try group.setOldValue("draft", at: 1)
    /// try group.setNewValue("final", at: 1)
    /// try group.finishChange()
    /// ```
    ///
    /// - Throws: ``SQLiteError`` with SQLite's message: `SQLITE_ERROR` when the group does not know the
    ///   table, `SQLITE_MISUSE` while another change is being built.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_change_begin.html>
    public func beginChange(_ operation: DatabaseEvent.Operation, table: String, indirect: Bool = false) throws {
      let code: Int32
      switch operation {
      case .insert: code = SQLITE_INSERT
      case .update: code = SQLITE_UPDATE
      case .delete: code = SQLITE_DELETE
      }
      var message: UnsafeMutablePointer<CChar>?
      let rc = try withSchema { sqlite3changegroup_change_begin(handle, code, table, indirect ? 1 : 0, &message) }
      let text = takeSQLiteString(message)
      if rc != SQLITE_OK { throw sessionError(rc, message: text) }
    }

    /// Gives the value of column `column` before the change being built (`sqlite3changegroup_change_int64`
    /// and its siblings). For a rowid table without a primary key, column 0 is the rowid.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_change_int64.html>
    public func setOldValue(_ value: DatabaseValue, at column: Int) throws {
      try setValue(value, isNew: false, column: column)
    }

    /// Gives the value of column `column` after the change being built. See ``setOldValue(_:at:)``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_change_int64.html>
    public func setNewValue(_ value: DatabaseValue, at column: Int) throws {
      try setValue(value, isNew: true, column: column)
    }

    /// Gives a value of the change being built; with `bytesAsText`, a BLOB is given as TEXT of its bytes
    /// (TEXT that is not valid UTF-8, as ``ChangesetOperation`` carries it).
    private func setValue(_ value: DatabaseValue, isNew: Bool, column: Int, bytesAsText: Bool = false) throws {
      guard let index = Int32(exactly: column) else {
        throw SQLiteError(code: .range, message: "Column \(column) is out of range")
      }
      let new: Int32 = isNew ? 1 : 0
      let rc: Int32
      switch value {
      case .null: rc = sqlite3changegroup_change_null(handle, new, index)
      case .integer(let integer): rc = sqlite3changegroup_change_int64(handle, new, index, integer)
      case .real(let real): rc = sqlite3changegroup_change_double(handle, new, index, real)
      case .text(let text):
        var text = text
        rc = text.withUTF8 { bytes in
          bytes.withMemoryRebound(to: CChar.self) { chars in
            // A non-NULL pointer even for empty text, which SQLite would otherwise read as NULL.
            withUnsafePointer(to: CChar(0)) { empty in
              sqlite3changegroup_change_text(handle, new, index, chars.baseAddress ?? empty, Int32(chars.count))
            }
          }
        }
      case .blob(let data) where bytesAsText:
        let size = try cInt(count: data.count)
        rc = data.withUnsafeBytes { bytes in
          withUnsafePointer(to: CChar(0)) { empty in
            let chars = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? empty
            return sqlite3changegroup_change_text(handle, new, index, chars, size)
          }
        }
      case .blob(let data):
        let size = try cInt(count: data.count)
        rc = data.withUnsafeBytes { bytes in
          withUnsafePointer(to: UInt8(0)) { empty in
            sqlite3changegroup_change_blob(handle, new, index, bytes.baseAddress ?? UnsafeRawPointer(empty), size)
          }
        }
      }
      if rc != SQLITE_OK {
        let message =
          switch rc {
          case SQLITE_RANGE: "Column \(column) is out of range for the change being built"
          case SQLITE_MISUSE: "No change is being built; call beginChange first"
          default: isNew ? "This change has no new values" : "This change has no old values"
          }
        throw sessionError(rc, message: message)
      }
    }

    /// Adds the change being built to the group, or with `discard`, drops it
    /// (`sqlite3changegroup_change_finish`).
    ///
    /// - Throws: ``SQLiteError`` with SQLite's message when the change is incomplete (a missing
    ///   primary-key value, say); the change is then dropped.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_change_finish.html>
    public func finishChange(discard: Bool = false) throws {
      var message: UnsafeMutablePointer<CChar>?
      let rc = try withSchema { sqlite3changegroup_change_finish(handle, discard ? 1 : 0, &message) }
      let text = takeSQLiteString(message)
      if rc != SQLITE_OK { throw sessionError(rc, message: text) }
    }

    /// The merged changes, as a changeset (`sqlite3changegroup_output`).
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_MISUSE` when the group holds patchsets.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_output.html>
    public func changeset() throws -> Changeset {
      guard !producesPatchset else {
        throw SQLiteError(code: .misuse, message: "This changegroup holds patchsets; use patchset()")
      }
      return Changeset(uncheckedData: try output())
    }

    /// The merged changes, as a patchset (`sqlite3changegroup_output`).
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_MISUSE` when the group holds changesets.
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_output.html>
    public func patchset() throws -> Patchset {
      guard producesPatchset else {
        throw SQLiteError(code: .misuse, message: "This changegroup holds changesets; use changeset()")
      }
      return Patchset(uncheckedData: try output())
    }

    private func output() throws -> Data {
      var count: Int32 = 0
      var bytes: UnsafeMutableRawPointer?
      let rc = sqlite3changegroup_output(handle, &count, &bytes)
      let data = takeSQLiteBuffer(bytes, count: count)
      if rc != SQLITE_OK { throw sessionError(rc) }
      return data
    }

    /// Writes the merged changes to `output` in chunks (`sqlite3changegroup_output_strm`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changegroup_output.html>
    public func write(to output: @escaping ChangesetOutputStream) throws {
      let sink = StreamContext(output: output)
      try withStreams([sink]) {
        sqlite3changegroup_output_strm(handle, StreamContext.outputCallback, sink.pointer)
      }
    }
  }
#endif
