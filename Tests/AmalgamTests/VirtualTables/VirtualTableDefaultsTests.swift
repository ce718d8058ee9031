import Amalgam
import Testing

/// The numbers 1 to 3, from a module that implements only what it must: the query plan, `destroy` and
/// `rename` are the protocol's defaults.
private final class Numbers: VirtualTableModule {
  required init(database: Database, arguments: [String], create: Bool) {}
  var declaration: String { "CREATE TABLE x(n INTEGER)" }
  func openCursor() -> any VirtualTableCursor { NumberCursor(state: NumberCursor.State()) }
}

/// A cursor that is a struct (its position lives in a class it holds), as a FeistyDB module may write it.
private struct NumberCursor: VirtualTableCursor {
  final class State { var n: Int64 = 1 }
  let state: State
  func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { state.n = 1 }
  func next() { state.n += 1 }
  var eof: Bool { state.n > 3 }
  func rowid() -> Int64 { state.n }
  func column(_ index: Int32) -> DatabaseValue { .integer(state.n * 10) }
}

/// A module whose cursor implements neither way of filtering.
private final class Unfiltered: VirtualTableModule {
  required init(database: Database, arguments: [String], create: Bool) {}
  var declaration: String { "CREATE TABLE x(n INTEGER)" }
  func openCursor() -> any VirtualTableCursor { Cursor() }
  final class Cursor: VirtualTableCursor {
    func next() {}
    var eof: Bool { false }
    func rowid() -> Int64 { 0 }
    func column(_ index: Int32) -> DatabaseValue { .null }
  }
}

/// A module whose cursor implements neither way of reading a column.
private final class Columnless: VirtualTableModule {
  required init(database: Database, arguments: [String], create: Bool) {}
  var declaration: String { "CREATE TABLE x(n INTEGER)" }
  func openCursor() -> any VirtualTableCursor { Cursor() }
  final class Cursor: VirtualTableCursor {
    var done = false
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { done = false }
    func next() { done = true }
    var eof: Bool { done }
    func rowid() -> Int64 { 1 }
  }
}

/// What a ``Journal`` saw, shared with the test through ``TestObjects``.
private final class JournalStore {
  var rows: [Int64: DatabaseValue] = [:]
  var commits = 0
}

/// A writable table that takes part in transactions but implements only `commit`: every other
/// transaction method is the protocol's default, which does nothing.
private final class Journal: UpdatableVirtualTableModule, TransactionalVirtualTableModule {
  let store: JournalStore
  required init(database: Database, arguments: [String], create: Bool) throws {
    store = try TestObjects.shared.object(arguments, as: JournalStore.self)
  }
  var declaration: String { "CREATE TABLE x(entry)" }
  func openCursor() -> any VirtualTableCursor { Cursor(rows: store.rows.sorted { $0.key < $1.key }) }
  func insert(rowid: Int64?, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws -> Int64 {
    let rowid = rowid ?? Int64(store.rows.count + 1)
    store.rows[rowid] = values[0]
    return rowid
  }
  func update(rowid: Int64, newRowid: Int64, values: FunctionArguments, onConflict: VirtualTableConflictMode) {
    store.rows[rowid] = nil
    store.rows[newRowid] = values[0]
  }
  func delete(rowid: Int64, onConflict: VirtualTableConflictMode) { store.rows[rowid] = nil }
  func commit() { store.commits += 1 }

  final class Cursor: VirtualTableCursor {
    let rows: [(key: Int64, value: DatabaseValue)]
    var position = 0
    init(rows: [(key: Int64, value: DatabaseValue)]) { self.rows = rows }
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { position = 0 }
    func next() { position += 1 }
    var eof: Bool { position >= rows.count }
    func rowid() -> Int64 { rows[position].key }
    func column(_ index: Int32) -> DatabaseValue { rows[position].value }
  }
}

/// A table that passes its `n = ?` constraint to the cursor as an ordinary argument, whose cursor
/// nevertheless asks for it as an `IN` list.
private final class MisreadArgument: EponymousVirtualTableModule {
  required init(database: Database, arguments: [String]) {}
  var declaration: String { "CREATE TABLE x(n INTEGER)" }
  func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
    if let n = info.constraints.first(where: { $0.column == 0 && $0.operator == .equal && $0.isUsable }) {
      info.useConstraint(n.index, argumentIndex: 0, omit: true)
      info.indexNumber = 1
    }
    return .ok
  }
  func openCursor() -> any VirtualTableCursor { Cursor() }
  final class Cursor: VirtualTableCursor {
    func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) throws {
      if indexNumber == 1 { _ = try arguments.inListValues(at: 0) }
    }
    func next() {}
    var eof: Bool { true }
    func rowid() -> Int64 { 0 }
    func column(_ index: Int32) -> DatabaseValue { .null }
  }
}

/// A table that overloads `double(x)` on its column with a function that fails for negative numbers.
private final class Signed: EponymousVirtualTableModule {
  required init(database: Database, arguments: [String]) {}
  var declaration: String { "CREATE TABLE x(n INTEGER)" }
  func openCursor() -> any VirtualTableCursor { Cursor() }
  func findFunction(name: String, argumentCount: Int) -> VirtualTableFunction? {
    guard name == "double", argumentCount == 1 else { return nil }
    return VirtualTableFunction { arguments, context in
      let n = arguments.int64(at: 0)
      guard n >= 0 else { throw SQLiteError(code: .range, message: "double() takes no negative number, got \(n)") }
      context.setResult(.integer(n * 2))
    }
  }
  final class Cursor: VirtualTableCursor {
    let values: [Int64] = [4, -1]
    var position = 0
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { position = 0 }
    func next() { position += 1 }
    var eof: Bool { position >= values.count }
    func rowid() -> Int64 { Int64(position) }
    func column(_ index: Int32) -> DatabaseValue { .integer(values[position]) }
  }
}

@Suite struct VirtualTableDefaultsTests {
  @Test func aModuleWithOnlyTheRequiredMethodsScansRenamesAndDrops() throws {
    let db = try Database()
    try db.addModule("numbers", type: Numbers.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE nums USING numbers")
    #expect(try db.fetchAll(Int.self, sql: "SELECT n FROM nums") == [10, 20, 30])
    #expect(try db.fetchAll(Int.self, sql: "SELECT rowid FROM nums WHERE n > 15") == [2, 3])
    try db.execute(sql: "ALTER TABLE nums RENAME TO renamed")
    #expect(try db.fetchAll(Int.self, sql: "SELECT n FROM renamed") == [10, 20, 30])
    try db.execute(sql: "DROP TABLE renamed")
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 0)
    #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT n FROM renamed") }
  }

  @Test func aCursorWithoutFilterFailsTheQueryAndSaysSo() throws {
    let db = try Database()
    try db.addModule("unfiltered", type: Unfiltered.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.u USING unfiltered")
    let error = expectSQLiteError { try db.execute(sql: "SELECT n FROM u") }
    #expect(error?.code == .error)
    #expect(error?.message == "Cursor implements no filter(_:indexNumber:indexName:)")
  }

  @Test func aCursorWithoutColumnFailsTheQueryAndSaysSo() throws {
    let db = try Database()
    try db.addModule("columnless", type: Columnless.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.c USING columnless")
    // The row exists, only its column cannot be read.
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM c") == 1)
    let error = expectSQLiteError { try db.execute(sql: "SELECT n FROM c") }
    #expect(error?.code == .error)
    #expect(error?.message == "Cursor implements no column(_:)")
  }

  @Test func aTransactionalModuleWithOnlyCommitGoesThroughSavepointsAndRollbacks() throws {
    let db = try Database()
    try db.addModule("journal", type: Journal.self)
    let store = JournalStore()
    let id = TestObjects.shared.register(store)
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.j USING journal(id=\(id))")
    let commitsBefore = store.commits  // CREATE VIRTUAL TABLE commits too
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO j(entry) VALUES ('a')")
    try db.execute(sql: "SAVEPOINT inner")
    try db.execute(sql: "INSERT INTO j(entry) VALUES ('b')")
    try db.execute(sql: "ROLLBACK TO inner")
    try db.execute(sql: "RELEASE inner")
    try db.execute(sql: "COMMIT")
    // The default rollback(to:) does nothing: the table keeps what it was given.
    #expect(try db.fetchAll(String.self, sql: "SELECT entry FROM j") == ["a", "b"])
    #expect(store.commits == commitsBefore + 1)
    try db.execute(sql: "BEGIN")
    try db.execute(sql: "INSERT INTO j(entry) VALUES ('c')")
    try db.execute(sql: "ROLLBACK")
    #expect(store.commits == commitsBefore + 1)
    #expect(db.isInAutocommitMode)
  }

  @Test func readingAnOrdinaryArgumentAsAnINListFailsTheQueryAndSaysWhy() throws {
    let db = try Database()
    try db.addModule("misread", type: MisreadArgument.self)
    #expect(try db.fetchAll(Int.self, sql: "SELECT n FROM misread") == [])
    let error = expectSQLiteError { try db.execute(sql: "SELECT n FROM misread WHERE n = 5") }
    #expect(error?.code == .error)
    #expect(
      error?.message
        == "Argument 0 is not an IN list handed over all at once (useConstraint(_:argumentIndex:omit:allAtOnce:))")
  }

  @Test func anOverloadedFunctionThatThrowsFailsTheStatementWithItsError() throws {
    let db = try Database()
    try db.addModule("signed", type: Signed.self)
    try db.overloadFunction(name: "double", argumentCount: 1)
    #expect(try db.fetchAll(Int.self, sql: "SELECT double(n) FROM signed WHERE n >= 0") == [8])
    let error = expectSQLiteError { try db.execute(sql: "SELECT double(n) FROM signed") }
    #expect(error?.code == .range)
    #expect(error?.message == "double() takes no negative number, got -1")
  }

  #if ENABLE_CARRAY
    @Test func anArrayOfIntBindsToCArray() throws {
      let db = try Database()
      let statement = try db.prepare(sql: "SELECT value * 2 FROM carray(?) ORDER BY value")
      try statement.bind(array: [3, -1, 2] as [Int], toParameter: 1)
      #expect(try statement.column(0, as: Int.self) == [-2, 4, 6])
    }
  #endif
}
