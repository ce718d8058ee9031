import Amalgam
import Foundation
import Testing

/// An object a hook closure captures, to check through a weak reference that the closure is released.
final class HookTestToken {}

/// Collects what callbacks report, for assertions after the statement that triggered them.
final class HookRecorder<Value> {
  var values: [Value] = []

  func append(_ value: Value) { values.append(value) }
}

/// Runs `body` with a fresh, empty directory under the system's temporary directory, and removes the
/// directory (with every database file in it) afterwards.
func withHookTestDirectory<T>(_ body: (URL) throws -> T) throws -> T {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("AmalgamHookTests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  return try body(directory)
}

/// Checks that a closure registered by `install` is kept while registered, and released by `remove`,
/// by `Database.close()`, and when the database is deinitialised.
func expectHookClosureReleased(
  install: (Database, HookTestToken) throws -> Void, remove: (Database) throws -> Void,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  // Removed explicitly.
  weak var removedToken: HookTestToken?
  let db = try Database()
  do {
    let token = HookTestToken()
    removedToken = token
    try install(db, token)
  }
  #expect(removedToken != nil, "the registered closure is kept", sourceLocation: sourceLocation)
  try remove(db)
  #expect(removedToken == nil, "removing the hook releases its closure", sourceLocation: sourceLocation)

  // Released by close().
  weak var closedToken: HookTestToken?
  do {
    let token = HookTestToken()
    closedToken = token
    try install(db, token)
  }
  #expect(closedToken != nil, sourceLocation: sourceLocation)
  try db.close()
  #expect(closedToken == nil, "closing the database releases the closure", sourceLocation: sourceLocation)

  // Released with the database.
  weak var deinitToken: HookTestToken?
  do {
    let other = try Database()
    let token = HookTestToken()
    deinitToken = token
    try install(other, token)
  }
  #expect(deinitToken == nil, "deinitialising the database releases the closure", sourceLocation: sourceLocation)
}

/// The first column of the first row of `sql`, converted to `T` (nil for no row or NULL).
func hookScalar<T: ColumnConvertible>(_ db: Database, _ sql: String, as type: T.Type = T.self) throws -> T? {
  try db.prepare(sql: sql).front(T.self)
}

/// Calls `body`, which must throw an ``SQLiteError``, and returns it.
func expectSQLiteError(
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> SQLiteError? {
  do {
    try body()
    Issue.record("expected an SQLiteError, but nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as SQLiteError {
    return error
  } catch {
    Issue.record("expected an SQLiteError, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}
