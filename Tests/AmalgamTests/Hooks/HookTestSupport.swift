import Amalgam
import Foundation
import Testing

/// Collects what callbacks report, for assertions after the statement that triggered them.
final class HookRecorder<Value> {
  var values: [Value] = []

  func append(_ value: Value) { values.append(value) }
}

/// Checks that a closure registered by `install` is kept while registered, and released by `remove`,
/// by `Database.close()`, and when the database is deinitialised.
func expectHookClosureReleased(
  install: (Database, LifetimeProbe) throws -> Void, remove: (Database) throws -> Void,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  // Removed explicitly.
  weak var removedToken: LifetimeProbe?
  let db = try Database()
  do {
    let token = LifetimeProbe()
    removedToken = token
    try install(db, token)
  }
  #expect(removedToken != nil, "the registered closure is kept", sourceLocation: sourceLocation)
  try remove(db)
  #expect(removedToken == nil, "removing the hook releases its closure", sourceLocation: sourceLocation)

  // Released by close().
  weak var closedToken: LifetimeProbe?
  do {
    let token = LifetimeProbe()
    closedToken = token
    try install(db, token)
  }
  #expect(closedToken != nil, sourceLocation: sourceLocation)
  try db.close()
  #expect(closedToken == nil, "closing the database releases the closure", sourceLocation: sourceLocation)

  // Released with the database.
  weak var deinitToken: LifetimeProbe?
  do {
    let other = try Database()
    let token = LifetimeProbe()
    deinitToken = token
    try install(other, token)
  }
  #expect(deinitToken == nil, "deinitialising the database releases the closure", sourceLocation: sourceLocation)
}
