import Amalgam
import Testing

/// An error of the user's own type, known only by its description.
private struct MyError: Error, CustomStringConvertible {
  let place: String
  var description: String { "MyError: refused in \(place)" }
}

/// A writable table of two rows that throws from the method named by its argument
/// (`CREATE VIRTUAL TABLE t USING refusing(filter)`).
private final class RefusingTable: UpdatableVirtualTableModule, TransactionalVirtualTableModule {
  let place: String

  init(database: Database, arguments: [String], create: Bool) throws {
    place = arguments.count > 3 ? arguments[3] : ""
    if place == "connect" { throw MyError(place: "connect") }
  }

  var declaration: String { "CREATE TABLE x(a)" }

  private func refuse(in method: String) throws {
    if place == method { throw MyError(place: method) }
  }

  func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
    try refuse(in: "bestIndex")
    return .ok
  }

  func openCursor() throws -> any VirtualTableCursor {
    try refuse(in: "open")
    return Cursor(place: place)
  }

  func rename(to newName: String) throws { try refuse(in: "rename") }
  func insert(rowid: Int64?, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws -> Int64 {
    try refuse(in: "insert")
    return 3
  }
  func update(rowid: Int64, newRowid: Int64, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws {
    try refuse(in: "update")
  }
  func delete(rowid: Int64, onConflict: VirtualTableConflictMode) throws { try refuse(in: "delete") }
  func begin() throws { try refuse(in: "begin") }
  func sync() throws { try refuse(in: "sync") }
  func savepoint(_ level: Int32) throws { try refuse(in: "savepoint") }
  func release(_ level: Int32) throws { try refuse(in: "release") }
  func rollback(to level: Int32) throws { try refuse(in: "rollbackTo") }

  final class Cursor: VirtualTableCursor {
    let place: String
    var row: Int64 = 0
    init(place: String) { self.place = place }
    private func refuse(in method: String) throws {
      if place == method { throw MyError(place: method) }
    }
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) throws {
      try refuse(in: "filter")
      row = 1
    }
    func next() throws {
      try refuse(in: "next")
      row += 1
    }
    var eof: Bool { row > 2 }
    func rowid() throws -> Int64 {
      try refuse(in: "rowid")
      return row
    }
    func column(_ index: Int32) throws -> DatabaseValue {
      try refuse(in: "column")
      return .integer(row)
    }
  }
}

/// A Swift error thrown from a virtual table's callbacks reaches the caller as an ``SQLiteError`` whose
/// message is the error's description, never a bare "SQL logic error".
@Suite struct VirtualTableCallbackMessageTests {
  @Test func everyCallbackPassesTheSwiftErrorsMessageOn() throws {
    let cases: [(place: String, sql: String)] = [
      ("bestIndex", "SELECT a FROM t"), ("open", "SELECT a FROM t"), ("filter", "SELECT a FROM t"),
      ("next", "SELECT a FROM t"), ("rowid", "SELECT rowid FROM t"), ("column", "SELECT a FROM t"),
      ("insert", "INSERT INTO t(a) VALUES (1)"), ("update", "UPDATE t SET a = 5"), ("delete", "DELETE FROM t"),
      ("begin", "INSERT INTO t(a) VALUES (1)"), ("rename", "ALTER TABLE t RENAME TO u"),
    ]
    for (place, sql) in cases {
      let message = try refusal(in: place, running: sql)
      #expect(message == "MyError: refused in \(place)", "\(place)")
    }
    // xConnect, and xSync, which the transaction of CREATE VIRTUAL TABLE itself calls.
    for place in ["connect", "sync"] {
      let db = try Database()
      try db.addModule("refusing", type: RefusingTable.self)
      let error = #expect(throws: SQLiteError.self) {
        try db.execute(sql: "CREATE VIRTUAL TABLE t USING refusing(\(place))")
      }
      #expect(error?.message == "MyError: refused in \(place)", "\(String(describing: error))")
    }
  }

  @Test func savepointCallbacksPassTheSwiftErrorsMessageOn() throws {
    let cases: [(place: String, sql: String)] = [
      ("savepoint", "BEGIN; INSERT INTO t(a) VALUES (1); SAVEPOINT s"),
      ("release", "BEGIN; INSERT INTO t(a) VALUES (1); SAVEPOINT s; INSERT INTO t(a) VALUES (2); RELEASE s"),
      ("rollbackTo", "BEGIN; INSERT INTO t(a) VALUES (1); SAVEPOINT s; INSERT INTO t(a) VALUES (2); ROLLBACK TO s"),
    ]
    for (place, sql) in cases {
      let message = try refusal(in: place, running: sql)
      // SQLite does not take xSavepoint's, xRelease's or xRollbackTo's error message (zErrMsg) into
      // the statement's error: the message waits on the connection (`Connection.pendingCallbackError`).
      #expect(message == "MyError: refused in \(place)", "\(place)")
    }
  }

  /// Creates table `t` refusing in `place`, runs `sql`, and returns the message of the error it throws.
  private func refusal(in place: String, running sql: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> String?
  {
    let db = try Database()
    try db.addModule("refusing", type: RefusingTable.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE t USING refusing(\(place))")
    let error = #expect(throws: SQLiteError.self, "\(place)", sourceLocation: sourceLocation) { try db.batch(sql: sql) }
    #expect(error?.code == .error, "\(place)", sourceLocation: sourceLocation)
    return error?.message
  }
}
