import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// The reliability suites, grouped so that `swift test --filter Reliability` selects them all.
@Suite enum ReliabilityTests {}

/// What one misuse case must throw.
enum ExpectedError: Sendable, CustomStringConvertible {
  /// An ``SQLiteError`` with this code (primary, or extended when the code is extended).
  case sqlite(ResultCode)
  /// A ``DatabaseError`` of this case (its name, such as `"databaseClosed"`).
  case database(String)
  /// An error of another type, named as `String(describing: type(of: error))` prints it.
  case other(String)

  var description: String {
    switch self {
    case let .sqlite(code): "SQLiteError \(code.rawValue) (\(code))"
    case let .database(name): "DatabaseError.\(name)"
    case let .other(name): name
    }
  }

  /// Whether `error` is the expected one.
  func matches(_ error: any Error) -> Bool {
    switch self {
    case let .sqlite(code):
      return code ~= error
    case let .database(name):
      guard let error = error as? DatabaseError else { return false }
      return ExpectedError.caseName(error) == name
    case let .other(name):
      return String(describing: type(of: error)) == name
    }
  }

  /// The name of a `DatabaseError` case, without its associated values.
  static func caseName(_ error: DatabaseError) -> String {
    switch error {
    case .databaseClosed: return "databaseClosed"
    case .concurrentUse: return "concurrentUse"
    default: return Mirror(reflecting: error).children.first?.label ?? "\(error)"
    }
  }
}

/// The database one misuse case runs against: a file in a fresh directory, holding the reference table
/// whose content must be the same after the case as before it.
final class MisuseFixture {
  /// The directory that holds the database file; the case may create other files in it.
  let directory: URL
  /// The database file's path.
  let path: String
  /// The connection the case misuses. The case may close it.
  let db: Database

  init(directory: URL) throws {
    self.directory = directory
    path = directory.appendingPathComponent("misuse.sqlite").path
    db = try Database(path: path)
    try db.batch(
      sql: """
        CREATE TABLE ref(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB);
        INSERT INTO ref VALUES (1, 'one', 1.5, x'01'), (2, 'two', NULL, x''), (3, 'three', -0.25, NULL);
        CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c BLOB);
        INSERT INTO t VALUES (1, 'x', x'00ff00'), (2, 'y', zeroblob(16));
        """)
  }

  /// A path in the case's directory.
  func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// Everything in the database file: schema and every row, read through a new connection.
  static func checksum(path: String) throws -> String {
    let reader = try Database(path: path, options: .readOnly)
    defer { try? reader.close() }
    var text = ""
    let tables: [String] = try reader.prepare(
      sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).column(0)
    text +=
      try reader.prepare(sql: "SELECT group_concat(type || name || ifnull(sql, ''), ';') FROM sqlite_schema")
      .front(String.self) ?? ""
    for table in tables {
      let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      // Sorted in Swift: a WITHOUT ROWID table (an FTS5 shadow table) has no rowid to order by.
      let rows = try reader.prepare(sql: "SELECT * FROM \(quoted)").allRows()
      for row in rows.map({ $0.map { "\($0)" }.joined(separator: "|") }).sorted() {
        text += "\n\(table): " + row
      }
    }
    return text
  }
}

/// One misuse of a public entry point: what it does to a fresh ``MisuseFixture``, the error it must
/// throw, and words the error's description must contain so that it says what went wrong.
struct MisuseCase: Sendable, CustomTestStringConvertible {
  let area: String
  let name: String
  let expected: ExpectedError
  let mentions: [String]
  /// Whether the case is expected to change the database (a case that writes on purpose before the
  /// misuse, such as a full disk after some inserts). Most cases leave it unchanged.
  let changesDatabase: Bool
  /// Work done before the checksum is taken (extra tables, say): it must not throw.
  let setup: (@Sendable (MisuseFixture) throws -> Void)?
  let body: @Sendable (MisuseFixture) throws -> Void

  init(
    _ area: String, _ name: String, _ expected: ExpectedError, mentions: [String] = [],
    changesDatabase: Bool = false, setup: (@Sendable (MisuseFixture) throws -> Void)? = nil,
    _ body: @escaping @Sendable (MisuseFixture) throws -> Void
  ) {
    self.area = area
    self.name = name
    self.expected = expected
    self.mentions = mentions
    self.changesDatabase = changesDatabase
    self.setup = setup
    self.body = body
  }

  var testDescription: String { "\(area): \(name)" }

  /// Runs the case and checks: the expected error is thrown (nothing else, and not success), its
  /// description mentions the given words, no statement is left unfinalized on the connection, and the
  /// database file holds what it held before.
  func run(sourceLocation: SourceLocation = #_sourceLocation) throws {
    try withTemporaryDirectory { directory in
      let fixture = try MisuseFixture(directory: directory)
      try setup?(fixture)
      let before = try MisuseFixture.checksum(path: fixture.path)

      var thrown: (any Error)?
      do {
        try body(fixture)
      } catch {
        thrown = error
      }
      guard let thrown else {
        Issue.record("\(testDescription): no error thrown; expected \(expected)", sourceLocation: sourceLocation)
        return
      }
      let description = String(describing: thrown)
      #expect(
        expected.matches(thrown), "\(testDescription): expected \(expected), got \(type(of: thrown)): \(description)",
        sourceLocation: sourceLocation)
      for word in mentions {
        #expect(
          description.localizedCaseInsensitiveContains(word),
          "\(testDescription): the message should mention \"\(word)\": \(description)", sourceLocation: sourceLocation)
      }
      #expect(!description.isEmpty, sourceLocation: sourceLocation)

      // The failed call left no statement running (holding a read transaction) and no transaction open.
      // Statements that SQLite's own modules keep prepared (FTS5's, for its shadow tables) are not
      // running between calls.
      if fixture.db.isOpen {
        let handle = try fixture.db.sqliteHandle
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
          #expect(
            sqlite3_stmt_busy(current) == 0,
            "\(testDescription): a statement was left running: \(String(cString: sqlite3_sql(current)))",
            sourceLocation: sourceLocation)
          statement = sqlite3_next_stmt(handle, current)
        }
        #expect(
          fixture.db.isInAutocommitMode, "\(testDescription): a transaction was left open",
          sourceLocation: sourceLocation
        )
        // The connection still works after the error.
        let count = try fixture.db.prepare(sql: "SELECT count(*) FROM ref").front(Int.self)
        #expect(count != nil, sourceLocation: sourceLocation)
        if !fixture.db.isInAutocommitMode { try fixture.db.rollback() }
        try fixture.db.close()
      }
      if !changesDatabase {
        let after = try MisuseFixture.checksum(path: fixture.path)
        #expect(before == after, "\(testDescription): the database changed", sourceLocation: sourceLocation)
      }
    }
  }
}
