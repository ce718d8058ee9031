import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// Every `SQLITE_RANGE` error says what was out of range, and none repeats SQLite's description of the
/// code, "column index out of range", for something that is not a column.
@Suite("Error descriptions: out-of-range errors")
struct ErrorDescriptionTests {
  /// The `SQLiteError` thrown by `body`, after checking that it is an `SQLITE_RANGE` error whose
  /// description does not speak of a column index.
  private func rangeError(
    _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
  ) -> SQLiteError? {
    let error = #expect(throws: SQLiteError.self, comment, sourceLocation: sourceLocation) { try body() }
    guard let error else { return nil }
    #expect(error.code == .range, comment, sourceLocation: sourceLocation)
    #expect(!error.description.contains("column index"), "\(error.description)", sourceLocation: sourceLocation)
    #expect(!error.message.contains("column index"), "\(error.message)", sourceLocation: sourceLocation)
    return error
  }

  @Test func theRangeCodeIsNotDescribedAsAColumnIndex() {
    #expect(String(cString: sqlite3_errstr(SQLITE_RANGE)) == "column index out of range")
    #expect(ResultCode.range.description == "out of range")
    #expect(SQLiteError(code: .range).description == "SQLite error 25 (SQLITE_RANGE, out of range): out of range")
    // Other codes keep SQLite's description.
    #expect(ResultCode.busy.description == "database is locked")
  }

  @Test func aNegativeLimitNamesTheLimitAndTheValue() throws {
    let db = try Database()
    let error = rangeError { try db.setLimit(.sqlLength, to: -1) }
    #expect(error?.description.contains("sqlLength") == true)
    #expect(error?.description.contains("-1") == true)
    #expect(error?.description.hasPrefix("SQLite error 25 (SQLITE_RANGE, out of range): ") == true)
  }

  @Test func aParameterIndexOutOfRangeNamesTheIndexAndTheParameterCount() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, ?")
    for index in [-1, 0, 3, Int(Int32.max) + 1] {
      let typed = rangeError("\(index)") { try statement.bind(value: 7, toParameter: index) }
      #expect(typed?.message == "Parameter index \(index) is out of range; the statement has 2 parameter(s)")
      #expect(typed?.sql == "SELECT ?, ?")
      let boxed = rangeError("\(index)") {
        try statement.bind(value: nil as (any ParameterBindable)?, toParameter: index)
      }
      #expect(boxed?.message == typed?.message)
    }
  }

  @Test func bindingThroughAValuesOwnBindNamesTheParameterIndex() throws {
    // ParameterBindable.bind(to:at:) is public: an index SQLite rejects used to throw SQLite's
    // "column index out of range".
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ?, ?")
    let expected = "Parameter index -1 is out of range; the statement has 2 parameter(s)"
    let bindings: [(String, () throws -> Void)] = [
      ("Int", { try 42.bind(to: statement, at: -1) }),
      ("Int8", { try Int8(1).bind(to: statement, at: -1) }),
      ("UInt64", { try UInt64(5).bind(to: statement, at: -1) }),
      ("Double", { try 1.5.bind(to: statement, at: -1) }),
      ("Float", { try Float(1.5).bind(to: statement, at: -1) }),
      ("Bool", { try true.bind(to: statement, at: -1) }),
      ("String", { try "text".bind(to: statement, at: -1) }),
      ("[UInt8]", { try [UInt8]([1, 2]).bind(to: statement, at: -1) }),
      ("empty [UInt8]", { try [UInt8]().bind(to: statement, at: -1) }),
      ("Data", { try Data([1]).bind(to: statement, at: -1) }),
      ("Date", { try Date(timeIntervalSince1970: 0).bind(to: statement, at: -1) }),
      ("Decimal", { try Decimal(5).bind(to: statement, at: -1) }),
      ("UUID", { try UUID().bind(to: statement, at: -1) }),
      ("DatabaseValue.null", { try DatabaseValue.null.bind(to: statement, at: -1) }),
      ("DatabaseValue.blob", { try DatabaseValue.blob(Data()).bind(to: statement, at: -1) }),
      ("Int?.none", { try (nil as Int?).bind(to: statement, at: -1) }),
      ("Int?.some", { try (5 as Int?).bind(to: statement, at: -1) }),
    ]
    for (name, bind) in bindings {
      let error = rangeError("\(name)") { try bind() }
      #expect(error?.message == expected, "\(name)")
      #expect(error?.description.contains("Parameter index -1 is out of range") == true, "\(name)")
    }
    let past = rangeError { try 42.bind(to: statement, at: 3) }
    #expect(past?.message == "Parameter index 3 is out of range; the statement has 2 parameter(s)")
  }

  @Test func otherRangeErrorsNameWhatWasOutOfRange() throws {
    let db = try Database()
    let digits = rangeError { try db.setFloatingPointDigits(3) }
    #expect(digits?.description.contains("Floating-point digits") == true)
    #if !OMIT_PROGRESS_CALLBACK
      let progress = rangeError { try db.setProgressHandler(every: 0) { .continue } }
      #expect(progress?.description.contains("progress handler's period") == true)
    #endif
    try db.addFunction("second", arity: -1) { arguments, context in
      context.setResult(try arguments.value(at: 1, as: DatabaseValue.self))
    }
    let argument = rangeError { try db.execute(sql: "SELECT second(1)") }
    #expect(argument?.description.contains("Argument index 1 is out of range") == true)
  }
}
