import Amalgam
import Testing

/// `Database.overloadFunction(name:argumentCount:)`: a function that only a virtual table provides.
@Suite struct OverloadFunctionTests {
  /// A table of words that overloads `starts_with(word, prefix)` on its column.
  final class Words: EponymousVirtualTableModule {
    required init(database: Database, arguments: [String]) {}
    var declaration: String { "CREATE TABLE x(word)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
    func openCursor() -> any VirtualTableCursor { Cursor() }
    func findFunction(name: String, argumentCount: Int) -> VirtualTableFunction? {
      guard name.lowercased() == "starts_with", argumentCount == 2 else { return nil }
      return VirtualTableFunction { arguments, context in
        let word = arguments.text(at: 0) ?? ""
        context.setResult(.integer(word.hasPrefix(arguments.text(at: 1) ?? "") ? 1 : 0))
      }
    }
    final class Cursor: VirtualTableCursor {
      let words = ["apple", "banana", "apricot"]
      var index = 0
      func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { index = 0 }
      func next() { index += 1 }
      var eof: Bool { index >= words.count }
      func rowid() -> Int64 { Int64(index) }
      func column(_ index: Int32) -> DatabaseValue { .text(words[self.index]) }
    }
  }

  static let query = "SELECT word FROM overloading_words WHERE starts_with(word, 'ap')"

  @Test func withoutThePlaceholderTheNameIsUnknown() throws {
    let db = try Database()
    try db.addModule("overloading_words", type: Words.self)
    #expect {
      try db.prepare(sql: Self.query)
    } throws: { error in
      (error as? SQLiteError)?.message == "no such function: starts_with"
    }
  }

  @Test func thePlaceholderLetsTheTableOverloadTheFunction() throws {
    let db = try Database()
    try db.addModule("overloading_words", type: Words.self)
    try db.overloadFunction(name: "starts_with", argumentCount: 2)
    #expect(try db.prepare(sql: Self.query).column(0, as: String.self) == ["apple", "apricot"])
  }

  @Test func callingThePlaceholderElsewhereFailsWithSQLitesError() throws {
    let db = try Database()
    try db.overloadFunction(name: "starts_with", argumentCount: 2)
    #expect {
      try db.prepare(sql: "SELECT starts_with('apple', 'ap')").front(Int.self)
    } throws: { error in
      (error as? SQLiteError)?.message == "unable to use function starts_with in the requested context"
    }
    // Another argument count is still unknown.
    #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT starts_with('apple')") }
  }

  @Test func anExistingFunctionIsKept() throws {
    let db = try Database()
    try db.addFunction("starts_with", arity: 2) { values in .integer(values[0] == values[1] ? 1 : 0) }
    try db.overloadFunction(name: "starts_with", argumentCount: 2)
    #expect(try db.prepare(sql: "SELECT starts_with('a', 'a')").front(Int.self) == 1)
    try db.overloadFunction(name: "upper", argumentCount: 1)
    #expect(try db.prepare(sql: "SELECT upper('a')").front(String.self) == "A")
  }

  @Test func badArgumentsAndAClosedDatabaseThrow() throws {
    let db = try Database()
    #expect {
      try db.overloadFunction(name: "f", argumentCount: 200)
    } throws: { error in
      (error as? SQLiteError)?.code == .misuse
    }
    #expect(throws: SQLiteError.self) { try db.overloadFunction(name: "", argumentCount: 1) }
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.overloadFunction(name: "f", argumentCount: 1) }
  }
}
