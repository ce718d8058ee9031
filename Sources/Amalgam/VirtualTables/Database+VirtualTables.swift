#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

extension Database {
  /// Registers a virtual table module: `CREATE VIRTUAL TABLE t USING name(arguments)` then creates
  /// tables whose instances are of type `T`.
  ///
  /// ```swift
  /// try db.addModule("squares", type: Squares.self)
  /// try db.execute(sql: "CREATE VIRTUAL TABLE temp.sq USING squares")
  /// ```
  ///
  /// Registering a name again replaces the module for tables connected afterwards. The registration
  /// lasts until ``removeModule(_:)``, ``removeAllModules(except:)`` or the connection closes.
  ///
  /// - Throws: ``SQLiteError`` (``ResultCode/misuse`` for a name SQLite refuses, ``ResultCode/busy``
  ///   while a statement runs), ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_module.html>
  public func addModule<T: VirtualTableModule>(_ name: String, type: T.Type) throws {
    try registerModule(name, type: type, kind: .regular)
  }

  /// Registers an eponymous-only module: the table `name` exists in every schema, for example as a
  /// table-valued function, and `CREATE VIRTUAL TABLE ... USING name` is refused (as in FeistyDB).
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#eponymous_only_virtual_tables>
  public func addModule<T: EponymousVirtualTableModule>(_ name: String, type: T.Type) throws {
    try registerModule(name, type: type, kind: .eponymousOnly)
  }

  /// Registers an eponymous module: the table `name` exists in every schema without `CREATE VIRTUAL
  /// TABLE`. With `eponymousOnly` false, `CREATE VIRTUAL TABLE ... USING name(arguments)` also makes
  /// tables of the module.
  ///
  /// ```swift
  /// try db.addModule("squares", type: SquaresFunction.self, eponymousOnly: true)
  /// let total: Int? = try db.prepare(sql: "SELECT sum(square) FROM squares(1, 10)").front()
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/vtab.html#eponymous_virtual_tables>
  public func addModule<T: EponymousVirtualTableModule>(_ name: String, type: T.Type, eponymousOnly: Bool) throws {
    try registerModule(name, type: type, kind: eponymousOnly ? .eponymousOnly : .eponymous)
  }

  /// Removes the module `name`. Tables already connected keep working until they disconnect; new
  /// statements on tables of the module fail with "no such module". Removing an unknown name does
  /// nothing.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_module.html>
  public func removeModule(_ name: String) throws {
    let rc = try connection.withHandle { handle in
      sqlite3_create_module_v2(handle, name, nil, nil, nil)
    }
    try check(rc)
  }

  /// Removes every module except those named in `except` (`sqlite3_drop_modules`), including those
  /// that SQLite's own extensions registered (such as `generate_series` and `carray`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/drop_modules.html>
  public func removeAllModules(except names: [String] = []) throws {
    var copies: [UnsafeMutablePointer<CChar>?] = names.map { sqliteCopy($0) }
    defer { for copy in copies { sqlite3_free(copy) } }
    copies.append(nil)
    let rc = try connection.withHandle { handle in
      copies.withUnsafeMutableBufferPointer { buffer in
        // The buffer holds at least the terminating nil, so it has an address.
        guard let base = buffer.baseAddress else { return SQLITE_MISUSE }
        return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
          sqlite3_drop_modules(handle, names.isEmpty ? nil : $0)
        }
      }
    }
    try check(rc)
  }

  /// Registers `T` under `name` with the xCreate/xConnect pair that `kind` calls for.
  fileprivate func registerModule<T: VirtualTableModule>(_ name: String, type: T.Type, kind: ModuleKind) throws {
    try SQLiteError.checkNoNUL(name, "module name")
    let box = ModuleBox(name: name, kind: kind, database: self, type: T.self)
    let suffixes = T.shadowTableSuffixes
    if !suffixes.isEmpty {
      guard let shadowName = shadowNameFunction(suffixes) else {
        throw DatabaseError.message(
          "Cannot register module \(name): SQLite's xShadowName needs a C function per list of shadow table "
            + "suffixes, and 64 different lists are registered in this process already")
      }
      box.module.pointee.xShadowName = shadowName
    }
    let rc = try connection.withHandle { handle in
      // SQLite calls releaseModuleBox even when registration fails.
      sqlite3_create_module_v2(handle, name, box.module, Unretained.retainedOpaque(box), releaseModuleBox)
    }
    try check(rc)
  }
}

/// The xShadowName function for `suffixes` (see ``VirtualTableModule/shadowTableSuffixes``), or nil
/// when the process has no function left for a new list.
private func shadowNameFunction(_ suffixes: [String]) -> amalgam_shadow_name_function? {
  var copies: [UnsafeMutablePointer<CChar>?] = suffixes.map { sqliteCopy($0) }
  defer { for copy in copies { sqlite3_free(copy) } }
  guard !copies.contains(where: { $0 == nil }) else { return nil }
  return copies.withUnsafeMutableBufferPointer { buffer in
    buffer.baseAddress?.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
      amalgam_shadow_name($0, Int32(buffer.count))
    }
  }
}

/// How a module's tables come to be.
enum ModuleKind {
  /// Only through `CREATE VIRTUAL TABLE` (distinct xCreate and xConnect).
  case regular
  /// Eponymous, and through `CREATE VIRTUAL TABLE` (xCreate is xConnect).
  case eponymous
  /// Eponymous only (no xCreate).
  case eponymousOnly
}

// MARK: - Values of virtual-table callbacks

extension FunctionArguments {
  /// The members of argument `index` when it is an `IN` list handed over all at once
  /// (``VirtualTableIndexInfo/useConstraint(_:argumentIndex:omit:allAtOnce:)`` with `allAtOnce`), in a
  /// virtual table cursor's `filter` (`sqlite3_vtab_in_first`, `sqlite3_vtab_in_next`).
  ///
  /// - Throws: an ``SQLiteError`` when the argument is not such a list (``ResultCode/error``) or its
  ///   values cannot be read; ``DatabaseError/callbackValueExpired(_:)`` after the call.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_in_first.html>
  public func inListValues(at index: Int) throws -> [DatabaseValue] {
    guard index >= 0 && index < count else { throw indexOutOfRange(index) }
    guard token.isActive, let values, let list = values[index] else { throw expired() }
    var result: [DatabaseValue] = []
    var member: OpaquePointer?
    var rc = sqlite3_vtab_in_first(list, &member)
    while rc == SQLITE_OK, let value = member {
      guard let copied = DatabaseValue.copied(value) else {
        throw SQLiteError(code: .noMemory, message: "Out of memory reading the IN list of argument \(index)")
      }
      result.append(copied)
      rc = sqlite3_vtab_in_next(list, &member)
    }
    guard rc == SQLITE_DONE else {
      throw SQLiteError(
        code: ResultCode(rawValue: rc),
        message: rc == SQLITE_ERROR
          ? "Argument \(index) is not an IN list handed over all at once (useConstraint(_:argumentIndex:omit:allAtOnce:))"
          : "Reading the IN list of argument \(index) failed: \(ResultCode(rawValue: rc))")
    }
    return result
  }

  /// True when argument `index` is a column that an UPDATE of a virtual table leaves unchanged
  /// (`sqlite3_value_nochange`); see ``FunctionContext/isUnchangedColumn``. False after the call.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/value_blob.html>
  public func isUnchanged(at index: Int) -> Bool {
    guard let value = sqliteValue(at: index) else { return false }
    return sqlite3_value_nochange(value) != 0
  }
}

extension FunctionContext {
  /// True when a virtual table cursor's ``VirtualTableCursor/column(_:context:)`` is asked for a
  /// column only to learn whether an UPDATE changes it (`sqlite3_vtab_nochange`): leave the result
  /// unset to say "unchanged" and save fetching the value; the table's
  /// ``UpdatableVirtualTableModule/update(rowid:newRowid:values:onConflict:)`` then sees
  /// ``FunctionArguments/isUnchanged(at:)``. False after the call and outside a virtual table.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_nochange.html>
  public var isUnchangedColumn: Bool {
    guard token.isActive else { return false }
    return sqlite3_vtab_nochange(context) != 0
  }
}
