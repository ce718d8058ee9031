#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

// The C side of virtual tables: the `sqlite3_module` that SQLite calls, the boxes that carry Swift's
// tables and cursors behind SQLite's objects, and the callbacks that turn each call into a call of the
// user's VirtualTableModule or VirtualTableCursor. The public API is in Database+VirtualTables.swift.

/// A registered module: SQLite's `sqlite3_module` and how to make its tables. SQLite holds one
/// reference, given back by ``releaseModuleBox`` when the module is removed or the connection closes
/// (after its last table has disconnected).
final class ModuleBox {
  let name: String
  /// Weak: the connection owns the module, and the module must not keep the `Database` alive.
  weak var database: Database?
  let construct: (Database, [String], Bool) throws -> any VirtualTableModule
  let module: UnsafeMutablePointer<sqlite3_module>

  init<T: VirtualTableModule>(name: String, kind: ModuleKind, database: Database, type: T.Type) {
    self.name = name
    self.database = database
    construct = { database, arguments, create in try T(database: database, arguments: arguments, create: create) }
    module = .allocate(capacity: 1)
    var methods = sqlite3_module()
    methods.iVersion = 4
    switch kind {
    case .regular:
      methods.xCreate = createTable
      methods.xConnect = connectTable
    case .eponymous:
      methods.xCreate = connectTable
      methods.xConnect = connectTable
    case .eponymousOnly:
      methods.xCreate = nil
      methods.xConnect = connectTable
    }
    methods.xBestIndex = bestIndex
    methods.xDisconnect = disconnectTable
    methods.xDestroy = destroyTable
    methods.xOpen = openCursor
    methods.xClose = closeCursor
    methods.xFilter = filterCursor
    methods.xNext = nextRow
    methods.xEof = isAtEnd
    methods.xColumn = readColumn
    methods.xRowid = readRowid
    if T.self is any UpdatableVirtualTableModule.Type {
      methods.xUpdate = updateTable
    }
    if T.self is any TransactionalVirtualTableModule.Type {
      methods.xBegin = { vtab in transaction(vtab) { try $0.begin() } }
      methods.xSync = { vtab in transaction(vtab) { try $0.sync() } }
      methods.xCommit = { vtab in transaction(vtab) { try $0.commit() } }
      methods.xRollback = { vtab in transaction(vtab) { try $0.rollback() } }
      methods.xSavepoint = { vtab, level in transaction(vtab, readsMessage: false) { try $0.savepoint(level) } }
      methods.xRelease = { vtab, level in transaction(vtab, readsMessage: false) { try $0.release(level) } }
      methods.xRollbackTo = { vtab, level in transaction(vtab, readsMessage: false) { try $0.rollback(to: level) } }
    }
    methods.xFindFunction = findFunction
    methods.xRename = renameTable
    methods.xIntegrity = checkIntegrity
    module.initialize(to: methods)
  }

  deinit {
    module.deinitialize(count: 1)
    module.deallocate()
  }
}

/// SQLite's destructor for a module's client data.
func releaseModuleBox(_ userData: UnsafeMutableRawPointer?) {
  guard let userData else { return }
  Unretained<ModuleBox>.releaseOpaque(userData)
}

/// One connected table: the user's instance and what its callbacks share. The `sqlite3_vtab` that
/// SQLite holds is followed in memory by one reference to this box, released by xDisconnect/xDestroy.
final class TableBox {
  let table: any VirtualTableModule
  let updatable: (any UpdatableVirtualTableModule)?
  let transactional: (any TransactionalVirtualTableModule)?
  /// The connection, for `sqlite3_vtab_on_conflict` during xUpdate.
  let handle: OpaquePointer
  /// The connection's box, which restricts what xBestIndex and xFindFunction may do with it (they run
  /// while SQLite plans a statement). Holding it makes no cycle: SQLite, not the connection, holds this box.
  let connection: Connection
  /// The module's name, for error messages and result contexts.
  let moduleName: String
  /// `moduleName`, for the contexts of column reads.
  let internedModuleName: InternedName
  /// The lifetime of the values the table's and its cursors' callbacks receive.
  let scope: CallbackScope
  /// Overloaded functions handed to SQLite by xFindFunction, by "name/argument count": SQLite holds
  /// raw pointers to them while the table is connected.
  var overloads: [String: OverloadBox] = [:]

  init(table: any VirtualTableModule, handle: OpaquePointer, connection: Connection, moduleName: String) {
    self.table = table
    updatable = table as? any UpdatableVirtualTableModule
    transactional = table as? any TransactionalVirtualTableModule
    self.handle = handle
    self.connection = connection
    self.moduleName = moduleName
    internedModuleName = InternedName(moduleName)
    scope = CallbackScope()
  }
}

/// One open cursor; follows its `sqlite3_vtab_cursor` in memory, as ``TableBox`` does its table.
final class CursorBox {
  let cursor: any VirtualTableCursor
  /// The cursor again when it is a class instance (the usual case): a call through a class-bound
  /// existential reads the reference directly, without projecting the existential's buffer.
  let object: (any VirtualTableCursor & AnyObject)?
  /// Keeps the table (and so its scope) alive while the cursor is open.
  let table: TableBox
  /// The table's scope's counters and the module's name, copied out of the table so that reading a
  /// column (once per row and column) touches no reference count.
  let scopeCell: UnsafeMutablePointer<CallbackScope.Cell>
  let moduleName: InternedName

  init(cursor: any VirtualTableCursor, table: TableBox) {
    self.cursor = cursor
    object = cursor as? any VirtualTableCursor & AnyObject
    self.table = table
    scopeCell = table.scope.cell
    moduleName = table.internedModuleName
  }
}

/// A function overload that a table returned from xFindFunction.
final class OverloadBox {
  let function: VirtualTableFunction
  let name: InternedName
  let scope: CallbackScope

  init(function: VirtualTableFunction, name: String) {
    self.function = function
    self.name = InternedName(name)
    scope = CallbackScope()
  }
}

// MARK: - Memory of SQLite's objects

private let vtabSize = MemoryLayout<sqlite3_vtab>.stride
private let cursorSize = MemoryLayout<sqlite3_vtab_cursor>.stride
private let boxAlignment = Swift.max(MemoryLayout<sqlite3_vtab>.alignment, MemoryLayout<UnsafeRawPointer>.alignment)

/// The box that follows `vtab` in memory. Kept alive by SQLite's table: the retain made in xCreate or
/// xConnect is given back only in xDisconnect or xDestroy.
@inline(__always)
private func tableBox(_ vtab: UnsafeMutablePointer<sqlite3_vtab>) -> Unretained<TableBox> {
  Unretained(opaque: UnsafeRawPointer(vtab).load(fromByteOffset: vtabSize, as: UnsafeRawPointer.self))
}

/// The box that follows `cursor` in memory. Kept alive by SQLite's cursor: the retain made in xOpen is
/// given back only in xClose.
@inline(__always)
private func cursorBox(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>) -> Unretained<CursorBox> {
  Unretained(opaque: UnsafeRawPointer(cursor).load(fromByteOffset: cursorSize, as: UnsafeRawPointer.self))
}

/// Makes `error` the table's error message (`zErrMsg`, which SQLite moves into the statement's error)
/// and returns its result code.
private func fail(_ vtab: UnsafeMutablePointer<sqlite3_vtab>, _ error: any Error) -> Int32 {
  sqlite3_free(vtab.pointee.zErrMsg)
  vtab.pointee.zErrMsg = sqliteCopy(callbackErrorMessage(error))
  return callbackResultCode(error)
}

/// ``fail(_:_:)`` for xDestroy, xIntegrity, xSavepoint, xRelease and xRollbackTo, whose `zErrMsg` SQLite never reads: the message waits in
/// the connection for the statement that fails (see `Connection.pendingCallbackError`).
private func failWithoutMessage(_ vtab: UnsafeMutablePointer<sqlite3_vtab>, _ box: TableBox, _ error: any Error)
  -> Int32
{
  let code = fail(vtab, error)
  box.connection.pendingCallbackError = (code, callbackErrorMessage(error))
  return code
}

// MARK: - Tables

private func createTable(
  _ db: OpaquePointer?, _ aux: UnsafeMutableRawPointer?, _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ vtab: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab>?>?,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  makeTable(db, aux, argc, argv, vtab, error, create: true)
}

private func connectTable(
  _ db: OpaquePointer?, _ aux: UnsafeMutableRawPointer?, _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ vtab: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab>?>?,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  makeTable(db, aux, argc, argv, vtab, error, create: false)
}

private func makeTable(
  _ db: OpaquePointer?, _ aux: UnsafeMutableRawPointer?, _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?,
  _ vtab: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab>?>?,
  _ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  create: Bool
) -> Int32 {
  guard let db, let aux, let vtab else { return SQLITE_MISUSE }
  let module = Unretained<ModuleBox>(opaque: aux).object
  func report(_ text: String, _ code: Int32) -> Int32 {
    error?.pointee = sqliteCopy(text)
    return code
  }
  guard let database = module.database else {
    return report("The Database that registered module \"\(module.name)\" no longer exists", SQLITE_ERROR)
  }
  let arguments = (0..<Int(Swift.max(argc, 0))).map { index in argv?[index].map { String(cString: $0) } ?? "" }
  let table: any VirtualTableModule
  do {
    // xConnect runs while SQLite prepares a statement that names the table: it may only read.
    table =
      try create
      ? module.construct(database, arguments, true)
      : database.connection.restricting(.virtualTableConnect) { try module.construct(database, arguments, false) }
  } catch {
    return report(callbackErrorMessage(error), callbackResultCode(error))
  }
  let rc = sqlite3_declare_vtab(db, table.declaration)
  guard rc == SQLITE_OK else {
    return report("Module \"\(module.name)\" declared its table wrongly: \(String(cString: sqlite3_errmsg(db)))", rc)
  }
  let options = table.options
  if options.contains(.constraintSupport) { _ = amalgam_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1) }
  if options.contains(.innocuous) { _ = amalgam_vtab_config(db, SQLITE_VTAB_INNOCUOUS, 0) }
  if options.contains(.directOnly) { _ = amalgam_vtab_config(db, SQLITE_VTAB_DIRECTONLY, 0) }
  if options.contains(.usesAllSchemas) { _ = amalgam_vtab_config(db, SQLITE_VTAB_USES_ALL_SCHEMAS, 0) }

  let memory = UnsafeMutableRawPointer.allocate(
    byteCount: vtabSize + MemoryLayout<UnsafeRawPointer>.stride, alignment: boxAlignment)
  let base = memory.initializeMemory(as: sqlite3_vtab.self, repeating: sqlite3_vtab(), count: 1)
  let box = TableBox(table: table, handle: db, connection: database.connection, moduleName: module.name)
  memory.storeBytes(
    of: UnsafeRawPointer(Unretained.retainedOpaque(box)), toByteOffset: vtabSize, as: UnsafeRawPointer.self)
  vtab.pointee = base
  return SQLITE_OK
}

/// Releases the table's box and frees SQLite's object.
private func freeTable(_ vtab: UnsafeMutablePointer<sqlite3_vtab>) {
  Unretained<TableBox>.releaseOpaque(tableBox(vtab).opaque)
  sqlite3_free(vtab.pointee.zErrMsg)
  vtab.deinitialize(count: 1)
  UnsafeMutableRawPointer(vtab).deallocate()
}

private func disconnectTable(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 {
  guard let vtab else { return SQLITE_MISUSE }
  freeTable(vtab)
  return SQLITE_OK
}

private func destroyTable(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?) -> Int32 {
  guard let vtab else { return SQLITE_MISUSE }
  let box = tableBox(vtab).object
  do {
    try box.scope.run { _ in try box.table.destroy() }
  } catch {
    return failWithoutMessage(vtab, box, error)
  }
  freeTable(vtab)
  return SQLITE_OK
}

private func bestIndex(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ info: UnsafeMutablePointer<sqlite3_index_info>?)
  -> Int32
{
  guard let vtab, let info else { return SQLITE_MISUSE }
  let box = tableBox(vtab).object
  do {
    return try box.scope.run { token in
      var indexInfo = VirtualTableIndexInfo(info, token: token)
      switch try box.connection.restricting(.virtualTableBestIndex, { try box.table.bestIndex(&indexInfo) }) {
      case .ok:
        indexInfo.apply()
        return SQLITE_OK
      case .constraint:
        return SQLITE_CONSTRAINT
      }
    }
  } catch {
    return fail(vtab, error)
  }
}

private func renameTable(_ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ name: UnsafePointer<CChar>?) -> Int32 {
  guard let vtab else { return SQLITE_MISUSE }
  let box = tableBox(vtab).object
  do {
    try box.scope.run { _ in try box.table.rename(to: name.map { String(cString: $0) } ?? "") }
    return SQLITE_OK
  } catch {
    return fail(vtab, error)
  }
}

private func checkIntegrity(
  _ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ schema: UnsafePointer<CChar>?, _ table: UnsafePointer<CChar>?,
  _ flags: Int32, _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
  guard let vtab else { return SQLITE_MISUSE }
  let box = tableBox(vtab).object
  do {
    let problem = try box.scope.run { _ in
      try box.table.integrityCheck(
        schema: schema.map { String(cString: $0) } ?? "main", table: table.map { String(cString: $0) } ?? "",
        quick: flags & 1 != 0)
    }
    if let problem { report?.pointee = sqliteCopy(problem) }
    return SQLITE_OK
  } catch {
    return failWithoutMessage(vtab, box, error)
  }
}

private func updateTable(
  _ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ argc: Int32, _ argv: UnsafeMutablePointer<OpaquePointer?>?,
  _ rowid: UnsafeMutablePointer<sqlite3_int64>?
) -> Int32 {
  guard let vtab, let argv, argc >= 1 else { return SQLITE_MISUSE }
  let box = tableBox(vtab).object
  guard let table = box.updatable else { return SQLITE_READONLY }
  let conflict = VirtualTableConflictMode(code: sqlite3_vtab_on_conflict(box.handle))
  do {
    try box.scope.run { token in
      if argc == 1 {
        try table.delete(rowid: sqlite3_value_int64(argv[0]), onConflict: conflict)
        return
      }
      let values = FunctionArguments(count: argc - 2, values: argv + 2, token: token)
      if sqlite3_value_type(argv[0]) == SQLITE_NULL {
        let requested = sqlite3_value_type(argv[1]) == SQLITE_NULL ? nil : sqlite3_value_int64(argv[1])
        let newRowid = try table.insert(rowid: requested, values: values, onConflict: conflict)
        rowid?.pointee = newRowid
      } else {
        try table.update(
          rowid: sqlite3_value_int64(argv[0]), newRowid: sqlite3_value_int64(argv[1]), values: values,
          onConflict: conflict)
      }
      try values.throwIfOutOfMemory()
    }
    return SQLITE_OK
  } catch {
    return fail(vtab, error)
  }
}

/// Runs a transaction method of the table (xBegin, xSync, ...).
/// Runs a transaction callback; `readsMessage` is false for the callbacks whose `zErrMsg` SQLite ignores.
private func transaction(
  _ vtab: UnsafeMutablePointer<sqlite3_vtab>?, readsMessage: Bool = true,
  _ body: (any TransactionalVirtualTableModule) throws -> Void
) -> Int32 {
  guard let vtab else { return SQLITE_MISUSE }
  let box = tableBox(vtab).object
  guard let table = box.transactional else { return SQLITE_OK }
  do {
    try box.scope.run { _ in try body(table) }
    return SQLITE_OK
  } catch {
    return readsMessage ? fail(vtab, error) : failWithoutMessage(vtab, box, error)
  }
}

private func findFunction(
  _ vtab: UnsafeMutablePointer<sqlite3_vtab>?, _ argc: Int32, _ name: UnsafePointer<CChar>?,
  _ function: UnsafeMutablePointer<
    (@convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)?
  >?,
  _ userData: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> Int32 {
  guard let vtab, let name, let function, let userData else { return 0 }
  let box = tableBox(vtab).object
  let functionName = String(cString: name)
  let key = "\(functionName.lowercased())/\(argc)"
  let overload: OverloadBox
  if let existing = box.overloads[key] {
    overload = existing
  } else {
    let found = box.connection.restricting(.virtualTableFindFunction) {
      box.table.findFunction(name: functionName, argumentCount: Int(argc))
    }
    guard let found else { return 0 }
    overload = OverloadBox(function: found, name: functionName)
    box.overloads[key] = overload
  }
  function.pointee = callOverload
  // Kept alive by the table's box, whose `overloads` holds it while SQLite may call it.
  userData.pointee = Unretained(overload).opaque
  if let code = overload.function.constraintOperator, Int32(code) >= SQLITE_INDEX_CONSTRAINT_FUNCTION {
    return Int32(code)
  }
  return 1
}

/// The xFunc of every overloaded function.
private func callOverload(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
  guard let context, let userData = sqlite3_user_data(context) else { return }
  let overload = Unretained<OverloadBox>(opaque: userData).object
  overload.scope.run { token in
    do {
      try overload.function.body(
        FunctionArguments(count: count, values: values, token: token),
        FunctionContext(context, flags: [], name: overload.name, token: token))
    } catch {
      setFunctionError(error, on: context)
    }
    failIfOutOfMemory(token, on: context)
  }
}

// MARK: - Cursors

private func openCursor(
  _ vtab: UnsafeMutablePointer<sqlite3_vtab>?,
  _ cursor: UnsafeMutablePointer<UnsafeMutablePointer<sqlite3_vtab_cursor>?>?
) -> Int32 {
  guard let vtab, let cursor else { return SQLITE_MISUSE }
  let table = tableBox(vtab).object
  do {
    let opened = try table.scope.run { _ in try table.table.openCursor() }
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: cursorSize + MemoryLayout<UnsafeRawPointer>.stride, alignment: boxAlignment)
    let base = memory.initializeMemory(as: sqlite3_vtab_cursor.self, repeating: sqlite3_vtab_cursor(), count: 1)
    let box = CursorBox(cursor: opened, table: table)
    memory.storeBytes(
      of: UnsafeRawPointer(Unretained.retainedOpaque(box)), toByteOffset: cursorSize, as: UnsafeRawPointer.self)
    cursor.pointee = base
    return SQLITE_OK
  } catch {
    return fail(vtab, error)
  }
}

private func closeCursor(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Int32 {
  guard let cursor else { return SQLITE_MISUSE }
  Unretained<CursorBox>.releaseOpaque(cursorBox(cursor).opaque)
  cursor.deinitialize(count: 1)
  UnsafeMutableRawPointer(cursor).deallocate()
  return SQLITE_OK
}

private func filterCursor(
  _ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ indexNumber: Int32, _ indexName: UnsafePointer<CChar>?,
  _ argc: Int32, _ argv: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
  guard let cursor else { return SQLITE_MISUSE }
  return cursorBox(cursor).withObject { box in
    do {
      try box.table.scope.run { token in
        let arguments = FunctionArguments(count: argc, values: argv, token: token)
        try box.cursor.filter(arguments, indexNumber: indexNumber, indexName: indexName.map { String(cString: $0) })
        try arguments.throwIfOutOfMemory()
      }
      return SQLITE_OK
    } catch {
      guard let vtab = cursor.pointee.pVtab else { return callbackResultCode(error) }
      return fail(vtab, error)
    }
  }
}

// The per-row callbacks (xNext, xEof, xColumn, xRowid) keep the error handling out of the closure that
// borrows the box, so that the closure inlines and a row costs no reference counting. xNext and xEof
// inline into the C-convention thunk that SQLite calls; xColumn does not (inlined, its callback-counter
// updates were compiled as calls, which cost more than the thunk's call).

@inline(__always)
private func nextRow(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Int32 {
  guard let cursor else { return SQLITE_MISUSE }
  do {
    try cursorBox(cursor).withObject { box in
      if let object = box.object { try object.next() } else { try box.cursor.next() }
    }
    return SQLITE_OK
  } catch {
    return fail(cursor, error)
  }
}

@inline(__always)
private func isAtEnd(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> Int32 {
  guard let cursor else { return 1 }
  return cursorBox(cursor).withObject { box in
    if let object = box.object { return object.eof ? 1 : 0 }
    return box.cursor.eof ? 1 : 0
  }
}

private func readColumn(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ context: OpaquePointer?, _ index: Int32)
  -> Int32
{
  guard let cursor, let context else { return SQLITE_MISUSE }
  do {
    try cursorBox(cursor).withObject { box in
      try CallbackScope.run(cell: box.scopeCell) { token in
        let context = FunctionContext(context, flags: [], name: box.moduleName, token: token)
        if let object = box.object {
          try object.column(index, context: context)
        } else {
          try box.cursor.column(index, context: context)
        }
      }
    }
    return SQLITE_OK
  } catch {
    setFunctionError(error, on: context)
    return callbackResultCode(error)
  }
}

@inline(__always)
private func readRowid(
  _ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ rowid: UnsafeMutablePointer<sqlite3_int64>?
) -> Int32 {
  guard let cursor, let rowid else { return SQLITE_MISUSE }
  do {
    rowid.pointee = try cursorBox(cursor).withObject { try $0.cursor.rowid() }
    return SQLITE_OK
  } catch {
    return fail(cursor, error)
  }
}

/// Makes `error` the cursor's table's error message and returns its result code.
@inline(never)
private func fail(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>, _ error: any Error) -> Int32 {
  guard let vtab = cursor.pointee.pVtab else { return callbackResultCode(error) }
  return fail(vtab, error)
}
