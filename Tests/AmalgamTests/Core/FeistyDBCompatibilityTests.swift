import Amalgam
import Foundation
import Testing

/// FeistyDB's spellings, reached through protocols so that this file calls the deprecated declarations
/// without deprecation warnings (the build allows none). Each requirement is FeistyDB's signature.
private protocol FeistyStatement {
  func leftmostColumn<T: ColumnConvertible>(_ type: T.Type) throws -> [T]
}
extension Statement: FeistyStatement {}

private protocol FeistyRow {
  func leftmostValue<T: ColumnConvertible>(_ type: T.Type) throws -> T
}
extension Row: FeistyRow {}

private protocol FeistyDatabase {
  func addAggregateWindowFunction<W: SQLAggregateWindowFunction>(
    _ name: String, arity: Int, flags: FunctionFlags, _ type: W.Type) throws
}
extension Database: FeistyDatabase {}

private protocol FeistyMessageError { init(_ message: String) }
extension DatabaseError: FeistyMessageError {}
private protocol FeistySQLiteError { init(_ message: String, code: Int32) }
extension SQLiteError: FeistySQLiteError {}
private func make<E: FeistyMessageError>(_ type: E.Type, _ message: String) -> E { E(message) }
private func make<E: FeistySQLiteError>(_ type: E.Type, _ message: String, code: Int32) -> E { E(message, code: code) }

private struct Total: SQLAggregateWindowFunction {
  var sum: Int64 = 0
  mutating func step(_ arguments: FunctionArguments) throws { sum += arguments.int64(at: 0) }
  mutating func inverse(_ arguments: FunctionArguments) throws { sum -= arguments.int64(at: 0) }
  func value() throws -> DatabaseValue { .integer(sum) }
}

private func makeNumbers() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE t(a INTEGER, b TEXT);
      INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, NULL);
      """)
  return db
}

@Suite struct FeistyDBCompatibilityTests {
  @Test func columnsReturnsOneTypedArrayPerColumn() throws {
    let db = try makeNumbers()
    let statement = try db.prepare(sql: "SELECT a, a * 10, b FROM t ORDER BY a")
    let numbers: [[Int]] = try statement.columns([0, 1])
    #expect(numbers == [[1, 2, 3], [10, 20, 30]])
    let texts = try statement.columns([2], as: String?.self)
    #expect(texts == [["one", "two", nil]])
    // Untyped, as stored.
    #expect(try statement.columns([2, 0]) == [["one", "two", .null], [1, 2, 3]])
    // The per-row form has its own name.
    #expect(try statement.rows(columns: [0, 2]) == [[1, "one"], [2, "two"], [3, .null]])
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 5, count: 3)) { try statement.columns([5]) }
  }

  @Test func frontIsNonOptionalOrOptionalByTheTypeAskedFor() throws {
    let db = try makeNumbers()
    let first = try db.prepare(sql: "SELECT a FROM t ORDER BY a")
    let none = try db.prepare(sql: "SELECT a FROM t WHERE a > 100")
    // FeistyDB's non-optional front(): a value, or an error when there is no row.
    let value: Int = try first.front()
    #expect(value == 1)
    #expect(throws: DatabaseError.noRow(sql: "SELECT a FROM t WHERE a > 100")) {
      let _: Int = try none.front()
    }
    // Asking for an optional keeps meaning "nil when there is no row" (existing callers).
    let missing: Int? = try none.front()
    #expect(missing == nil)
    #expect(try none.front(Int.self) == nil)
    #expect(try first.front(Int.self) == 1)
    let stored: DatabaseValue = try first.front()
    #expect(stored == .integer(1))
  }

  @Test func feistyDBNamesStillWork() throws {
    let db = try makeNumbers()
    let statement = try db.prepare(sql: "SELECT a FROM t ORDER BY a")
    #expect(try (statement as any FeistyStatement).leftmostColumn(Int.self) == [1, 2, 3])
    guard let row = try statement.step() else {
      Issue.record("no row")
      return
    }
    #expect(try (row as any FeistyRow).leftmostValue(Int.self) == 1)
    try statement.reset()
    try (db as any FeistyDatabase).addAggregateWindowFunction("feisty_total", arity: 1, flags: .default, Total.self)
    #expect(try db.fetchValue(Int.self, sql: "SELECT feisty_total(a) FROM t") == 6)
  }

  @Test func feistyDBErrorsWithAMessage() {
    let error = make(DatabaseError.self, "Statement returned no rows")
    #expect(error == DatabaseError.message("Statement returned no rows"))
    let sqliteError = make(SQLiteError.self, "Cannot step", code: 5)
    #expect(sqliteError.code == .busy)
    #expect(sqliteError.message == "Cannot step")
    #expect(error.description == "Statement returned no rows")
    #expect(DatabaseError.noRow(sql: "SELECT 1").description == "\"SELECT 1\" returned no row")
  }

  /// The deprecated declarations whose replacement is not a plain rename, so no `renamed:` fix-it can
  /// rewrite a call to them; their message says exactly what to write instead.
  static let deprecatedWithoutRename: [String: String] = [
    "leftmostColumn": "write column(0) or column(0, as: T.self)",
    "leftmostValue": "write value(at: 0) or value(at: 0, as: T.self)",
    "init(_ message: String, code: Int32)":
      "write SQLiteError(code: ResultCode(rawValue: code), message: message)",
    "prepareDatabase": "assign the closure: configuration.prepareDatabase = { db in ... }",
  ]

  @Test func everyDeprecatedDeclarationOffersAFixItOrSaysExactlyWhatToWrite() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Amalgam")
    let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
    var deprecated = 0
    var withoutRename: [String: String] = [:]
    for file in files where file.hasSuffix(".swift") {
      let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      for (index, first) in lines.enumerated() where first.contains("@available(") {
        // The attribute, also when the formatter wrapped it over the next lines.
        let end = lines[index...].firstIndex { $0.contains(")") && !$0.hasSuffix("(") } ?? index
        let line = lines[index...end].joined(separator: " ")
        guard line.contains("deprecated") else { continue }
        deprecated += 1
        if line.contains("renamed: \"") { continue }
        // The declaration follows the attribute; name it by the words before its parameters.
        let declaration = lines[(end + 1)...].first { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("@") } ?? ""
        let key = Self.deprecatedWithoutRename.keys.first { declaration.contains($0) } ?? declaration
        let message =
          line.components(separatedBy: "message: \"").dropFirst().first?
          .components(separatedBy: "\"").first ?? ""
        withoutRename[key] = message
      }
    }
    #expect(deprecated >= 10)
    #expect(withoutRename == Self.deprecatedWithoutRename)
  }

  @Test func theWrittenReplacementsGiveWhatTheDeprecatedCallsGave() throws {
    let db = try makeNumbers()
    let statement = try db.prepare(sql: "SELECT a FROM t ORDER BY a")
    // What the messages say to write, each beside the call it replaces.
    let column: [Int] = try statement.column(0)
    #expect(try column == (statement as any FeistyStatement).leftmostColumn(Int.self))
    #expect(try statement.column(0, as: Int.self) == column)
    let row = try #require(try statement.step())
    let value: Int = try row.value(at: 0)
    #expect(try value == (row as any FeistyRow).leftmostValue(Int.self))
    #expect(try row.value(at: 0, as: Int.self) == 1)
    try statement.reset()
    let code: Int32 = 5
    let message = "Cannot step"
    #expect(
      SQLiteError(code: ResultCode(rawValue: code), message: message) == make(SQLiteError.self, message, code: code))
    #expect(DatabaseError.message("gone") == make(DatabaseError.self, "gone"))
  }
}
