import Amalgam
import AmalgamSQLite
import Foundation
import Testing

@Suite("Scalar functions")
struct ScalarFunctionTests {
  // MARK: - Forms

  @Test func databaseValueClosureReceivesTheArgumentsAndReturnsItsValue() throws {
    let db = try Database()
    try db.addFunction("describe", arity: 2) { values in
      .text(values.map(\.storageClass).joined(separator: ","))
    }
    #expect(try db.fetchOne(sql: "SELECT describe(1, 'a')") == "INTEGER,TEXT")
    #expect(try db.fetchOne(sql: "SELECT describe(1.5, x'00')") == "REAL,BLOB")
    #expect(try db.fetchOne(sql: "SELECT describe(NULL, NULL)") == "NULL,NULL")
    let values = try db.prepare(sql: "SELECT describe(?, ?)").allRows()  // unbound parameters are NULL
    #expect(values == [["NULL,NULL"]])
  }

  @Test func argumentsArriveWithTheirValues() throws {
    let db = try Database()
    var received: [DatabaseValue] = []
    try db.addFunction("capture", arity: 5) { values in
      received = values
      return .null
    }
    _ = try db.fetchOne(DatabaseValue.self, sql: "SELECT capture(-7, 2.5, 'héllo', x'0001FF', NULL)")
    #expect(received == [.integer(-7), .real(2.5), .text("héllo"), .blob(Data([0, 1, 255])), .null])
  }

  @Test func typedClosureConvertsArgumentsAndResult() throws {
    let db = try Database()
    try db.addFunction("half") { (value: Double) in value / 2 }
    try db.addFunction("plus") { (a: Int64, b: Int64) in a + b }
    try db.addFunction("shout") { (text: String) in text.uppercased() + "!" }
    #expect(try db.fetchOne(sql: "SELECT half(5)") == 2.5)
    #expect(try db.fetchOne(sql: "SELECT plus(40, 2)") == 42)
    #expect(try db.fetchOne(sql: "SELECT shout('hé')") == "HÉ!")
    #expect(try db.fetchOne(sql: "SELECT typeof(plus(1, 2))") == "integer")
    #expect(try db.fetchOne(sql: "SELECT typeof(half(1))") == "real")
  }

  @Test func typedClosureWithNoParametersHasArityZero() throws {
    let db = try Database()
    try db.addFunction("answer") { 42 }
    #expect(try db.fetchOne(sql: "SELECT answer()") == 42)
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT answer(1)") }
    #expect(error?.message == "wrong number of arguments to function answer()")
  }

  @Test func typedOptionalParameterReceivesNullAndOptionalResultReturnsNull() throws {
    let db = try Database()
    try db.addFunction("greet") { (name: String?, times: Int) in
      String(repeating: "Hi \(name ?? "stranger"). ", count: times)
    }
    try db.addFunction("nonblank") { (text: String?) -> String? in
      guard let text, !text.isEmpty else { return nil }
      return text
    }
    #expect(try db.fetchOne(sql: "SELECT greet(NULL, 2)") == "Hi stranger. Hi stranger. ")
    #expect(try db.fetchOne(sql: "SELECT greet('Ada', 1)") == "Hi Ada. ")
    #expect(try db.fetchOne(sql: "SELECT typeof(nonblank(''))") == "null")
    #expect(try db.fetchOne(sql: "SELECT typeof(nonblank(NULL))") == "null")
    #expect(try db.fetchOne(sql: "SELECT nonblank('x')") == "x")
  }

  @Test func typedNumericArgumentsConvertStrictlyFromEachStorageClass() throws {
    let db = try Database()
    try db.addFunction("small") { (value: Int8) in Int64(value) * 2 }
    try db.addFunction("real") { (value: Double) in value / 4 }
    try db.addFunction("maybe") { (value: Int?) in value.map { $0 + 1 } ?? -1 }
    #expect(try db.fetchOne(sql: "SELECT small(-64)") == -128)
    #expect(try db.fetchOne(sql: "SELECT small(3.0)") == 6)  // a whole REAL reads as an integer
    #expect(try db.fetchOne(sql: "SELECT real(2)") == 0.5)  // an INTEGER reads as a Double
    #expect(try db.fetchOne(sql: "SELECT maybe(NULL), maybe(41)") == -1)
    #expect(try db.prepare(sql: "SELECT maybe(41)").front(Int.self) == 42)
    let overflow = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT small(128)") }
    #expect(overflow?.code == .mismatch)
    #expect(overflow?.message.contains("128 is outside Int8's range") == true)
    let fraction = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT small(2.5)") }
    #expect(fraction?.message.contains("not a whole number") == true)
    let text = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT real('x')") }
    #expect(
      text?.message == "real() argument 1: Cannot convert TEXT \"x\" to Double: a TEXT value cannot be read as Double")
  }

  @Test func typedArgumentThatDoesNotConvertFailsTheStatementNamingTheArgument() throws {
    let db = try Database()
    try db.addFunction("plus") { (a: Int64, b: Int64) in a + b }
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT plus(1, 'two')") }
    #expect(error?.code == .mismatch)
    #expect(
      error?.message
        == "plus() argument 2: Cannot convert TEXT \"two\" to Int64: a TEXT value cannot be read as Int64")
    let nullError = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT plus(NULL, 1)") }
    #expect(nullError?.message.hasPrefix("plus() argument 1: Cannot convert NULL to Int64") == true)
  }

  @Test func variadicFunctionReceivesAnyNumberOfArguments() throws {
    let db = try Database()
    try db.addFunction("count_args", arity: -1) { values in .integer(Int64(values.count)) }
    #expect(try db.fetchOne(sql: "SELECT count_args()") == 0)
    #expect(try db.fetchOne(sql: "SELECT count_args(1)") == 1)
    #expect(try db.fetchOne(sql: "SELECT count_args(1, 'a', NULL, x'00', 2.0)") == 5)
    // An exact arity is a better match than -1.
    try db.addFunction("count_args", arity: 2) { _ in "two" }
    #expect(try db.fetchOne(sql: "SELECT count_args(1, 2)") == "two")
    #expect(try db.fetchOne(sql: "SELECT count_args(1, 2, 3)") == 3)
  }

  // MARK: - Results

  @Test func everyResultTypeHasItsStorageClass() throws {
    let db = try Database()
    try db.addFunction("make", arity: 1) { arguments, context in
      switch arguments.text(at: 0) {
      case "null": context.setResult(.null)
      case "integer": context.setResult(.integer(Int64.min))
      case "real": context.setResult(.real(-0.25))
      case "text": context.setResult(.text("a\u{0}b"))
      case "empty text": context.setResult(.text(""))
      case "blob": context.setResult(.blob(Data([0xDE, 0xAD])))
      case "empty blob": context.setResult(.blob(Data()))
      case "zeroblob": context.setResultZeroBlob(count: 4)
      case "nan": context.setResult(.real(.nan))
      default: break  // no result: NULL
      }
    }
    let cases: [(String, String, DatabaseValue)] = [
      ("null", "null", .null),
      ("integer", "integer", .integer(Int64.min)),
      ("real", "real", .real(-0.25)),
      ("text", "text", .text("a\u{0}b")),
      ("empty text", "text", .text("")),
      ("blob", "blob", .blob(Data([0xDE, 0xAD]))),
      ("empty blob", "blob", .blob(Data())),
      ("zeroblob", "blob", .blob(Data(count: 4))),
      ("nan", "null", .null),
      ("nothing", "null", .null),
    ]
    for (kind, type, value) in cases {
      let row = try #require(
        try db.prepare(sql: "SELECT typeof(make(?1)), make(?1)").bind(parameterValues: [kind]).firstRow())
      #expect(row == [.text(type), value], "\(kind)")
    }
    #expect(try db.fetchOne(sql: "SELECT length(make('text'))") == 1)  // length() counts to the NUL
    #expect(try db.fetchOne(sql: "SELECT octet_length(make('text'))") == 3)
    #expect(try db.fetchOne(sql: "SELECT hex(make('zeroblob'))") == "00000000")
  }

  @Test func negativeZeroBlobCountGivesAnEmptyBlob() throws {
    let db = try Database()
    try db.addFunction("zeros", arity: 1) { arguments, context in
      context.setResultZeroBlob(count: try arguments.value(at: 0))
    }
    #expect(
      try db.prepare(sql: "SELECT typeof(zeros(-5)), length(zeros(-5)), length(zeros(1000000))").allRows()
        == [["blob", 0, 1_000_000]])
  }

  #if !OMIT_JSON  // SQLite's JSON functions
    @Test func jsonResultIsEmbeddedAsJSONByTheJSONFunctions() throws {
      let db = try Database()
      try db.addFunction("pair_json", arity: 0, flags: [.deterministic, .directOnly, .resultSubtype]) { _, context in
        try context.setResultJSON("[1,2]")
      }
      try db.addFunction("pair_text", arity: 0) { _ in .text("[1,2]") }
      #expect(try db.fetchOne(sql: "SELECT json_array(pair_json())") == "[[1,2]]")
      #expect(try db.fetchOne(sql: "SELECT json_array(pair_text())") == "[\"[1,2]\"]")
      #expect(try db.fetchOne(sql: "SELECT typeof(pair_json())") == "text")
      #expect(try db.fetchOne(sql: "SELECT json_object('pair', pair_json())") == "{\"pair\":[1,2]}")
    }
  #endif

  @Test func jsonResultWithoutTheResultSubtypeFlagFails() throws {
    let db = try Database()
    try db.addFunction("bad_json", arity: 0) { _, context in try context.setResultJSON("{}") }
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT bad_json()") }
    #expect(error?.code == .misuse)
    #expect(
      error?.message
        == "bad_json() gives its result a subtype, so it must be registered with FunctionFlags.resultSubtype")
  }

  // MARK: - Arguments

  @Test func argumentsAreReadInPlace() throws {
    let db = try Database()
    var seen: [String] = []
    try db.addFunction("inspect", arity: 4) { arguments, context in
      seen.append("count \(arguments.count)")
      seen.append("bytes \(arguments.withUnsafeBytes(at: 0) { Array($0) })")
      seen.append("text bytes \(arguments.withUnsafeBytes(at: 1) { Array($0) })")
      seen.append("null \(arguments.isNull(at: 2)) \(arguments.withUnsafeBytes(at: 2) { $0.count })")
      seen.append(
        "int64 \(arguments.int64(at: 3)) double \(arguments.double(at: 3)) text \(arguments.text(at: 3) ?? "-")")
      seen.append("null text \(arguments.text(at: 2) ?? "nil")")
      context.setResult(.integer(Int64(arguments.count)))
    }
    _ = try db.fetchOne(Int.self, sql: "SELECT inspect(x'01FF', 'hé', NULL, '12abc')")
    #expect(
      seen == [
        "count 4",
        "bytes [1, 255]",
        "text bytes [104, 195, 169]",
        "null true 0",
        "int64 12 double 12.0 text 12abc",
        "null text nil",
      ])
  }

  @Test func typedArgumentReadsAreStrictAndLooseReadsFollowSQLite() throws {
    let db = try Database()
    try db.addFunction("strict_int", arity: 1) { arguments, context in
      context.setResult(.integer(try arguments.value(at: 0, as: Int64.self)))
    }
    try db.addFunction("loose_int", arity: 1) { arguments, context in
      context.setResult(.integer(arguments.int64(at: 0)))
    }
    #expect(try db.fetchOne(sql: "SELECT strict_int(3.0)") == 3)
    #expect(try db.fetchOne(sql: "SELECT loose_int('7 dwarfs')") == 7)
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT strict_int('7 dwarfs')") }
    #expect(error?.code == .error)
    #expect(error?.message == "Cannot convert TEXT \"7 dwarfs\" to Int64: a TEXT value cannot be read as Int64")
  }

  @Test func textThatIsNotUTF8IsRepairedAsAValueAndRejectedAsAString() throws {
    let db = try Database()
    try db.addFunction("as_value", arity: 1) { values in values[0] }
    try db.addFunction("as_string") { (text: String) in text }
    try db.addFunction("byte_count", arity: 1) { arguments, context in
      context.setResult(.integer(Int64(arguments.withUnsafeBytes(at: 0) { $0.count })))
    }
    #expect(try db.fetchOne(sql: "SELECT as_value(CAST(x'61FF' AS TEXT))") == "a\u{FFFD}")
    #expect(try db.fetchOne(sql: "SELECT byte_count(CAST(x'61FF' AS TEXT))") == 2)
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT as_string(CAST(x'61FF' AS TEXT))") }
    #expect(error?.code == .mismatch)
    #expect(error?.message.contains("the text is not valid UTF-8") == true)
  }

  @Test func argumentIndexOutOfRangeThrowsARangeError() throws {
    let db = try Database()
    try db.addFunction("second", arity: -1) { arguments, context in
      context.setResult(try arguments.value(at: 1, as: DatabaseValue.self))
    }
    #expect(try db.fetchOne(sql: "SELECT second(1, 2)") == 2)
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT second(1)") }
    #expect(error?.code == .range)
    #expect(error?.message == "Argument index 1 is out of range; the function received 1 argument(s)")
  }

  #if !OMIT_JSON  // SQLite's JSON functions
    @Test func argumentSubtypeIsVisibleWithTheSubtypeFlag() throws {
      let db = try Database()
      try db.addFunction("is_json", arity: 1, flags: [.deterministic, .directOnly, .subtype]) { arguments, context in
        context.setResult(.integer(arguments.subtype(at: 0) == FunctionContext.jsonSubtype ? 1 : 0))
      }
      #expect(try db.fetchOne(sql: "SELECT is_json(json('[1]'))") == 1)
      #expect(try db.fetchOne(sql: "SELECT is_json('[1]')") == 0)
    }
  #endif

  // MARK: - Errors

  @Test func thrownErrorBecomesTheStatementsErrorWithItsMessage() throws {
    let db = try Database()
    try db.addFunction("fail") { (reason: String) -> Int in throw FunctionTestError(reason: reason) }
    let sql = "SELECT fail('bad input')"
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: sql) }
    #expect(error?.code == .error)
    #expect(error?.message == "test failure: bad input")
    #expect(error?.sql == sql)
    // The connection is fine afterwards.
    #expect(try db.fetchOne(sql: "SELECT 1") == 1)
  }

  @Test func thrownLocalizedErrorUsesItsDescription() throws {
    struct Refusal: LocalizedError {
      var errorDescription: String? { "not today" }
    }
    let db = try Database()
    try db.addFunction("refuse", arity: 0) { _ in throw Refusal() }
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT refuse()") }
    #expect(error?.message == "not today")
  }

  @Test func thrownSQLiteErrorKeepsItsCode() throws {
    let db = try Database()
    try db.addFunction("guard_positive") { (value: Int) -> Int in
      guard value > 0 else { throw SQLiteError(code: .constraintCheck, message: "\(value) is not positive") }
      return value
    }
    try db.execute(sql: "CREATE TABLE t(x)")
    let error = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "INSERT INTO t VALUES (guard_positive(-3))")
    }
    #expect(error?.code == .constraint)
    #expect(error?.extendedCode == .constraintCheck)
    #expect(error?.message == "-3 is not positive")
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM t") == 0)
  }

  @Test func errorStopsAStatementMidwayAndRollsBackItsChanges() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); CREATE TABLE copy(x); INSERT INTO t VALUES (1), (2), (0), (3)")
    try db.addFunction("inverse") { (x: Double) -> Double in
      guard x != 0 else { throw FunctionTestError(reason: "division by zero") }
      return 1 / x
    }
    let error = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "INSERT INTO copy SELECT inverse(x) FROM t ORDER BY rowid")
    }
    #expect(error?.message == "test failure: division by zero")
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM copy") == 0)
  }

  // MARK: - Registration and lifetime

  @Test func badArityOrNameIsRefusedWithMisuse() throws {
    let db = try Database()
    for arity in [200, 128, -2] {
      let error = #expect(throws: SQLiteError.self) { try db.addFunction("f", arity: arity) { _ in .null } }
      #expect(error?.code == .misuse)
      #expect(
        error?.message == "f() cannot take \(arity) arguments: the arity must be 0 through 127, or -1 for any number")
    }
    let long = String(repeating: "n", count: 256)
    let error = #expect(throws: SQLiteError.self) { try db.addFunction(long, arity: 0) { _ in .null } }
    #expect(error?.code == .misuse)
    #expect(error?.message.hasSuffix("has 256 bytes") == true)
    #expect(throws: SQLiteError.self) { try db.addFunction("", arity: 0) { _ in .null } }
    #expect(throws: SQLiteError.self) { try db.removeFunction("f", arity: 500) }
    // The longest allowed name works.
    try db.addFunction(String(repeating: "n", count: 255), arity: 0) { _ in 1 }
    #expect(try db.fetchOne(sql: "SELECT \(String(repeating: "n", count: 255))()") == 1)
  }

  @Test func refusedRegistrationKeepsNoClosure() throws {
    let db = try Database()
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      #expect(throws: SQLiteError.self) {
        try db.addFunction("f", arity: 300) { _ in
          _ = probe; return .null
        }
      }
    }
    #expect(weakProbe == nil)
  }

  @Test func removeFunctionReleasesTheClosureAndLaterCallsFail() throws {
    let db = try Database()
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      try db.addFunction("probe", arity: 0) { _ in
        _ = probe; return 1
      }
    }
    #expect(try db.fetchOne(sql: "SELECT probe()") == 1)
    #expect(weakProbe != nil)
    try db.removeFunction("probe", arity: 0)
    #expect(weakProbe == nil)
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT probe()") }
    #expect(error?.message == "no such function: probe")
    // Removing again, or removing what never existed, does nothing.
    try db.removeFunction("probe", arity: 0)
    try db.removeFunction("never_added", arity: 3)
  }

  @Test func removeFunctionRemovesOnlyThatArity() throws {
    let db = try Database()
    try db.addFunction("f", arity: 1) { _ in "one" }
    try db.addFunction("f", arity: 2) { _ in "two" }
    try db.removeFunction("f", arity: 1)
    #expect(try db.fetchOne(sql: "SELECT f(1, 2)") == "two")
    #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT f(1)") }
  }

  @Test func replacingAFunctionUsesTheNewClosureAndReleasesTheOldOne() throws {
    let db = try Database()
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      try db.addFunction("version", arity: 0) { _ in
        _ = probe; return 1
      }
    }
    try db.addFunction("version", arity: 0) { _ in 2 }
    #expect(weakProbe == nil)
    #expect(try db.fetchOne(sql: "SELECT version()") == 2)
  }

  @Test func closingTheDatabaseReleasesEveryClosure() throws {
    let db = try Database()
    weak var weakScalar: LifetimeProbe?
    weak var weakAggregate: LifetimeProbe?
    weak var weakCollation: LifetimeProbe?
    do {
      let scalar = LifetimeProbe()
      let aggregate = LifetimeProbe()
      let collation = LifetimeProbe()
      weakScalar = scalar
      weakAggregate = aggregate
      weakCollation = collation
      try db.addFunction("f", arity: 0) { _ in
        _ = scalar; return .null
      }
      try db.addAggregateFunction("agg", arity: 1) { () -> CountRows in
        _ = aggregate; return CountRows()
      }
      try db.addCollation("C") { a, b in
        _ = collation; return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
      }
    }
    #expect(weakScalar != nil && weakAggregate != nil && weakCollation != nil)
    try db.close()
    #expect(weakScalar == nil)
    #expect(weakAggregate == nil)
    #expect(weakCollation == nil)
  }

  @Test func closingWithAStatementStillAliveReleasesTheClosureAtClose() throws {
    var db: Database? = try Database()
    weak var weakProbe: LifetimeProbe?
    var statement: Statement?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      try db?.addFunction("f", arity: 0) { _ in
        _ = probe; return 1
      }
      statement = try db?.prepare(sql: "SELECT f()")
    }
    try db?.close()
    db = nil
    // SQLite keeps the connection until the last statement is finalized, but close() has made it delete
    // its functions already, which releases their closures.
    #expect(weakProbe == nil)
    #expect(throws: DatabaseError.databaseClosed) { try statement?.front(Int.self) }
    statement = nil
    #expect(statement == nil)
  }

  @Test func releasingTheDatabaseWithoutClosingReleasesClosures() throws {
    weak var weakProbe: LifetimeProbe?
    do {
      let db = try Database()
      let probe = LifetimeProbe()
      weakProbe = probe
      try db.addFunction("f", arity: 0) { _ in
        _ = probe; return 1
      }
    }
    #expect(weakProbe == nil)
  }

  @Test func changingAFunctionWhileAStatementRunsFailsWithBusyAndKeepsTheOldOne() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
    try db.addFunction("f", arity: 1) { _ in "old" }
    let running = try db.prepare(sql: "SELECT f(x) FROM t")
    #expect(try running.step() != nil)
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      let error = #expect(throws: SQLiteError.self) {
        try db.addFunction("f", arity: 1) { _ in
          _ = probe; return "new"
        }
      }
      #expect(error?.code == .busy)
      #expect(error?.message == "unable to delete/modify user-function due to active statements")
    }
    // SQLite released the closure it refused.
    #expect(weakProbe == nil)
    #expect(try running.step()?.value(at: 0) == "old")
    try running.reset()
    try db.removeFunction("f", arity: 1)
  }

  @Test func registeringOnAClosedDatabaseThrowsDatabaseClosed() throws {
    let db = try Database()
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.addFunction("f", arity: 0) { _ in .null } }
    #expect(throws: DatabaseError.databaseClosed) { try db.removeFunction("f", arity: 0) }
    #expect(throws: DatabaseError.databaseClosed) { try db.addCollation(.natural) }
    #expect(throws: DatabaseError.databaseClosed) { try db.addAggregateFunction("a", arity: 1, CountRows.self) }
  }

  @Test func functionCanQueryItsOwnDatabase() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE price(item TEXT PRIMARY KEY, amount INTEGER); INSERT INTO price VALUES ('tea', 3)")
    try db.addFunction("price_of") { [weak db] (item: String) -> Int? in
      guard let db else { return nil }
      return try db.prepare(sql: "SELECT amount FROM price WHERE item = ?").bind(parameterValues: [item]).front()
    }
    #expect(try db.prepare(sql: "SELECT price_of('tea'), price_of('cake')").allRows() == [[3, .null]])
  }
}

/// Counts the rows of its group.
private struct CountRows: SQLAggregateFunction {
  var count: Int64 = 0
  mutating func step(_ arguments: FunctionArguments) throws { count += 1 }
  func final() throws -> DatabaseValue { .integer(count) }
}
