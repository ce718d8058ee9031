import Amalgam
import Foundation
import Testing

/// The CustomFunctionsAndHooks article's functions example, verbatim between the
/// markers, followed by checks of what it computed. If the article changes, change this copy too.
@Suite("Functions article example")
struct FunctionReadmeExampleTests {
  @Test func exampleCompilesAndRuns() throws {
    // functions article example: begin
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE sample(sensor TEXT, t INTEGER, value REAL);
        INSERT INTO sample VALUES ('a', 1, 1), ('a', 2, 4), ('a', 3, 2), ('b', 1, 10), ('b', 2, 30);
        CREATE TABLE file(name TEXT);
        INSERT INTO file VALUES ('img10.png'), ('img2.png'), ('img1.png');
        """)

    // Scalar functions: typed parameters (the arity is their number), or [DatabaseValue] in and out.
    try db.addFunction("fahrenheit") { (celsius: Double) in celsius * 9 / 5 + 32 }
    try db.addFunction("first_non_empty", arity: -1) { values in
      values.first { $0 != .null && $0 != .text("") } ?? .null
    }

    // A thrown error fails the statement with its message.
    struct NegativeInput: Error, CustomStringConvertible { var description: String { "negative input" } }
    try db.addFunction("checked_sqrt") { (x: Double) throws -> Double in
      guard x >= 0 else { throw NegativeInput() }
      return x.squareRoot()
    }

    // Aggregates get a fresh value for every group; window functions add inverse() and value().
    struct Spread: SQLAggregateFunction {
      var low = Double.infinity, high = -Double.infinity
      mutating func step(_ arguments: FunctionArguments) throws {
        low = min(low, arguments.double(at: 0))
        high = max(high, arguments.double(at: 0))
      }
      func final() throws -> DatabaseValue { low > high ? .null : .real(high - low) }
    }
    struct MovingSum: SQLAggregateWindowFunction {
      var sum = 0.0
      mutating func step(_ arguments: FunctionArguments) throws { sum += arguments.double(at: 0) }
      mutating func inverse(_ arguments: FunctionArguments) throws { sum -= arguments.double(at: 0) }
      func value() throws -> DatabaseValue { .real(sum) }
    }
    try db.addAggregateFunction("spread", arity: 1, Spread.self)
    try db.addWindowFunction("moving_sum", arity: 1, MovingSum.self)

    // Collations: built-in natural and Unicode case-insensitive orders, or any closure.
    try db.addCollation(.natural)
    try db.addCollation(.unicodeCaseInsensitive)
    try db.addCollation("BY_LENGTH") { a, b in
      a.count != b.count
        ? (a.count < b.count ? .orderedAscending : .orderedDescending)
        : a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }

    let hot = try db.prepare(sql: "SELECT fahrenheit(40)").front(Double.self)  // 104.0
    let spreads = try db.prepare(sql: "SELECT sensor, spread(value) FROM sample GROUP BY sensor")
      .allRows()  // [["a", 3.0], ["b", 20.0]]
    let sums = try db.prepare(
      sql: """
        SELECT moving_sum(value) OVER (PARTITION BY sensor ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
        FROM sample ORDER BY sensor, t
        """
    ).column(0, as: Double.self)  // [5, 7, 6, 40, 40]
    let files = try db.prepare(sql: "SELECT name FROM file ORDER BY name COLLATE NATURAL_ORDER")
      .column(0, as: String.self)  // img1, img2, img10
    do {
      try db.execute(sql: "SELECT checked_sqrt(-1)")
    } catch let error as SQLiteError {
      print(error.message)  // negative input
    }
    // functions article example: end

    #expect(hot == 104)
    #expect(spreads == [["a", 3.0], ["b", 20.0]])
    #expect(sums == [5, 7, 6, 40, 40])
    #expect(files == ["img1.png", "img2.png", "img10.png"])
    #expect(try db.fetchOne(sql: "SELECT first_non_empty(NULL, '', 'x', 'y')") == "x")
    #expect(try db.fetchOne(sql: "SELECT 'ÉTÉ' = 'été' COLLATE UNICODE_NOCASE") == true)
    #expect(try db.fetchOne(sql: "SELECT name FROM file ORDER BY name COLLATE BY_LENGTH DESC") == "img10.png")
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT checked_sqrt(-1)") }
    #expect(error?.message == "negative input")
  }

  @Test func articleExampleMatchesThisTest() throws {
    // Keeps the copy above honest: every code line of the article's functions example appears in this file.
    try ArticleCodeBlocks.expectBlock(
      of: "CustomFunctionsAndHooks.md",
      containing: "try db.addFunction(\"fahrenheit\") { (celsius: Double) in celsius * 9 / 5 + 32 }", isIn: #filePath)
  }
}
