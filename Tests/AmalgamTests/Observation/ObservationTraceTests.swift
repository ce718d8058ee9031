import Foundation
import Testing

@testable import Amalgam

/// What the user's trace handler, authorizer and the library's observation see of each other: the
/// statements the library runs for its own bookkeeping on the user's connection (learning which tables
/// are virtual, how a table's columns are laid out, which files changed) reach neither the user's trace
/// handler nor the user's authorizer.
@Suite struct ObservationTraceTests {
  private static let schema = """
    CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
    CREATE TABLE log(noteID INTEGER);
    CREATE TRIGGER noteLogged AFTER INSERT ON note BEGIN INSERT INTO log VALUES (new.id); END;
    """

  /// The SQL of every event a trace handler receives.
  private final class TraceLog: Sendable {
    let statements = Shared<[String]>([])
    let profiled = Shared<[String]>([])
    /// The SQL of the statement of each row (`nil` for a statement without SQL: SQLite's own reading of
    /// a schema entry that a `CREATE` added).
    let rows = Shared<[String?]>([])

    func install(on db: Database) throws {
      try db.setTraceHandler(for: .all) { [statements, profiled, rows] event in
        switch event {
        case .statement(let sql, _): statements.withLock { $0.append(sql) }
        case .profile(let sql, _): profiled.withLock { $0.append(sql) }
        case .row(let sql): rows.withLock { $0.append(sql.isEmpty ? nil : sql) }
        case .close: break
        }
      }
    }
  }

  /// The distinct SQL of each kind of event that a trace handler receives while a queue on a new file
  /// runs a few writes (an insert that fires a trigger, updates, a schema change, which makes an
  /// observation learn the tables it reads again) and the query `SELECT text FROM note WHERE id = 1`:
  /// run by an observation of it when `observing`, or once at the end otherwise.
  private func traceOfWrites(observing: Bool) async throws -> (
    statements: Set<String>, profiled: Set<String>, rows: Set<String?>
  ) {
    try await withTemporaryDirectory { directory in
      let queue = try DatabaseQueue(path: directory.appendingPathComponent("notes.sqlite").path)
      try queue.sync { db in try db.batch(sql: Self.schema) }
      let log = TraceLog()
      try queue.sync { db in try log.install(on: db) }
      let query = "SELECT text FROM note WHERE id = 1"
      let collector =
        observing ? Collector(queue.observe { db in try db.prepare(sql: query).front(String.self) }) : nil
      defer { collector?.task.cancel() }
      if let collector { #expect(await collector.waitFor(count: 1)) }
      for sql in [
        "INSERT INTO note(id, text) VALUES (1, 'first')", "UPDATE note SET text = 'second' WHERE id = 1",
        "CREATE TABLE other(x)", "UPDATE note SET text = 'third' WHERE id = 1",
      ] {
        try await queue.write { db in try db.execute(sql: sql) }
      }
      if let collector {
        #expect(await eventually { collector.current.last == "third" })
      } else {
        _ = try queue.sync { db in try db.prepare(sql: query).front(String.self) }
      }
      try queue.sync { _ in }
      return (Set(log.statements.current), Set(log.profiled.current), Set(log.rows.current))
    }
  }

  @Test func aTraceHandlerOnAnObservedConnectionSeesOnlyTheUsersStatements() async throws {
    let observed = try await traceOfWrites(observing: true)
    let unobserved = try await traceOfWrites(observing: false)
    // The user's statements and the trigger SQLite runs for the insert, as without the observation, and
    // the transaction the observation runs its closure in; none of the observation's bookkeeping.
    let transaction: Set = ["BEGIN DEFERRED TRANSACTION", "COMMIT TRANSACTION"]
    #expect(observed.statements == unobserved.statements.union(transaction))
    #expect(observed.profiled == unobserved.profiled.union(transaction))
    #expect(observed.rows == unobserved.rows)
    #expect(observed.statements.isSuperset(of: ["SELECT text FROM note WHERE id = 1", "-- TRIGGER noteLogged"]))
    #expect(!observed.statements.contains { $0.contains("sqlite_schema") || $0.hasPrefix("PRAGMA") })
  }

  @Test func theUsersAuthorizerIsNotAskedAboutTheObservationsOwnQueries() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.batch(sql: Self.schema) }
    let reads = Shared<Set<String>>([])
    try queue.sync { db in
      try db.setAuthorizer { request in
        if case .read(let table, _) = request.action { reads.withLock { _ = $0.insert(table) } }
        // Nothing of the schema table for the user: the library's own queries must not need it.
        if case .read("sqlite_schema", _) = request.action { return .deny }
        if case .read("sqlite_master", _) = request.action { return .deny }
        return .allow
      }
    }
    let collector = Collector(
      queue.observe { db in try db.prepare(sql: "SELECT text FROM note WHERE id = 1").front(String.self) })
    defer { collector.task.cancel() }
    #expect(await collector.waitFor(count: 1))
    try await queue.write { db in try db.execute(sql: "INSERT INTO note(id, text) VALUES (1, 'first')") }
    #expect(await eventually { collector.current.last == "first" })
    #expect(collector.failure.current == nil)
    #expect(reads.current == ["note"])
  }
}
