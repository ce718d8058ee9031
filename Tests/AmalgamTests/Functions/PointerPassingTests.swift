import Amalgam
import Foundation
import Testing

/// SQLite's pointer-passing interface for Swift objects: `Statement.bind(pointer:)`,
/// `FunctionArguments.pointer(at:as:)`, `FunctionContext.setResult(pointer:)`.
@Suite struct PointerPassingTests {
  final class Tally {
    var total: Int64 = 0
  }

  final class Other {}

  final class Matcher {
    let prefix: String
    init(prefix: String) { self.prefix = prefix }
  }

  /// A table of the words `a1, b2, a3, a4`.
  static func makeDatabase() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: "CREATE TABLE t(word TEXT, n INTEGER); INSERT INTO t VALUES ('a1', 1), ('b2', 2), ('a3', 3), ('a4', 4);")
    // tally(object, n): adds n to the bound Tally; returns 1 when it found one, 0 otherwise.
    try db.addFunction("tally", arity: 2) { arguments, context in
      guard let tally = arguments.pointer(at: 0, as: Tally.self) else { return context.setResult(.integer(0)) }
      tally.total += arguments.int64(at: 1)
      context.setResult(.integer(1))
    }
    return db
  }

  @Test func aBoundObjectReachesTheFunctionThatAsksForItsType() throws {
    let db = try Self.makeDatabase()
    let tally = Tally()
    let statement = try db.prepare(sql: "SELECT sum(tally(?, n)) FROM t").bind(pointer: tally, toParameter: 1)
    #expect(try statement.front(Int.self) == 4)
    #expect(tally.total == 10)
  }

  @Test func anotherTypeOrTypeNameReadsAsNil() throws {
    let db = try Self.makeDatabase()
    // An object of another type.
    #expect(
      try db.prepare(sql: "SELECT sum(tally(?, n)) FROM t").bind(pointer: Other(), toParameter: 1).front(Int.self) == 0)
    // The right type under another name.
    let tally = Tally()
    let renamed = try db.prepare(sql: "SELECT sum(tally(?, n)) FROM t")
      .bind(pointer: tally, typeName: "my tally", toParameter: 1)
    #expect(try renamed.front(Int.self) == 0)
    #expect(tally.total == 0)
    // Ordinary values, and NULL.
    #expect(
      try db.prepare(sql: "SELECT sum(tally(x'00', n)) + sum(tally(NULL, n)) + sum(tally(7, n)) FROM t").front(Int.self)
        == 0)
  }

  @Test func anExplicitTypeNameIsMatchedByAReaderThatGivesIt() throws {
    let db = try Database()
    try db.addFunction("total_of", arity: 1) { arguments, context in
      let tally = arguments.pointer(at: 0, as: Tally.self, typeName: "shared tally")
      context.setResult(tally.map { .integer($0.total) } ?? .null)
    }
    let tally = Tally()
    tally.total = 42
    let statement = try db.prepare(sql: "SELECT total_of(?)").bind(
      pointer: tally, typeName: "shared tally", toParameter: 1)
    #expect(try statement.front(Int.self) == 42)
  }

  @Test func sqlSeesAPointerAsNull() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT typeof(?1), ?1 IS NULL, quote(?1)").bind(
      pointer: Tally(), toParameter: 1)
    #expect(try statement.firstRow() == [.text("null"), .integer(1), .text("NULL")])
  }

  @Test func sqliteReleasesTheObjectWhenTheStatementIsDone() throws {
    let db = try Self.makeDatabase()
    weak var released: Tally?
    var statement: Statement? = try db.prepare(sql: "SELECT sum(tally(?, n)) FROM t")
    do {
      let tally = Tally()
      released = tally
      try statement?.bind(pointer: tally, toParameter: 1)
    }
    #expect(released != nil)  // SQLite holds it
    #expect(try statement?.front(Int.self) == 4)
    #expect(released?.total == 10)
    // Binding again releases the first object.
    try statement?.bind(pointer: Tally(), toParameter: 1)
    #expect(released == nil)
    weak var second: Tally?
    do {
      let tally = Tally()
      second = tally
      try statement?.bind(pointer: tally, toParameter: 1)
    }
    statement = nil  // finalized
    #expect(second == nil)
  }

  @Test func clearingBindingsReleasesTheObject() throws {
    let db = try Self.makeDatabase()
    weak var released: Tally?
    let statement = try db.prepare(sql: "SELECT tally(?, 1)")
    do {
      let tally = Tally()
      released = tally
      try statement.bind(pointer: tally, toParameter: 1)
    }
    #expect(released != nil)
    try statement.clearBindings()
    #expect(released == nil)
  }

  @Test func bindingChecksTheParameterIndexAndTheConnection() throws {
    let db = try Self.makeDatabase()
    let statement = try db.prepare(sql: "SELECT tally(?, 1)")
    #expect {
      try statement.bind(pointer: Tally(), toParameter: 2)
    } throws: { error in
      (error as? SQLiteError)?.code == .range
    }
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try statement.bind(pointer: Tally(), toParameter: 1) }
  }

  @Test func aFunctionResultCarriesAnObjectToAnotherFunction() throws {
    let db = try Self.makeDatabase()
    try db.addFunction("matcher", arity: 1) { arguments, context in
      context.setResult(pointer: Matcher(prefix: try arguments.value(at: 0, as: String.self)))
    }
    try db.addFunction("matches", arity: 2) { arguments, context in
      guard let matcher = arguments.pointer(at: 0, as: Matcher.self) else {
        throw SQLiteError(code: .mismatch, message: "matches() needs a matcher as its first argument")
      }
      context.setResult(.integer((arguments.text(at: 1) ?? "").hasPrefix(matcher.prefix) ? 1 : 0))
    }
    let words = try db.prepare(sql: "SELECT word FROM t WHERE matches(matcher('a'), word) ORDER BY word")
      .column(0, as: String.self)
    #expect(words == ["a1", "a3", "a4"])
    #expect {
      try db.prepare(sql: "SELECT matches('a', 'abc')").front(Int.self)
    } throws: { error in
      (error as? SQLiteError)?.message == "matches() needs a matcher as its first argument"
    }
  }

  @Test func aKeptArgumentListReadsNoPointerAfterTheCall() throws {
    let db = try Database()
    nonisolated(unsafe) var kept: FunctionArguments?
    try db.addFunction("keep", arity: 1) { arguments, context in
      kept = arguments
      context.setResult(.integer(arguments.pointer(at: 0, as: Tally.self) == nil ? 0 : 1))
    }
    #expect(try db.prepare(sql: "SELECT keep(?)").bind(pointer: Tally(), toParameter: 1).front(Int.self) == 1)
    #expect(kept?.pointer(at: 0, as: Tally.self) == nil)
  }

  /// `word_source(source)`: a table-valued function whose hidden argument is a Swift object that
  /// supplies its rows.
  final class WordSource {
    let words: [String]
    init(_ words: [String]) { self.words = words }
  }

  final class WordsModule: EponymousVirtualTableModule {
    required init(database: Database, arguments: [String]) {}
    var declaration: String { "CREATE TABLE x(word, source HIDDEN)" }

    func bestIndex(_ info: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
      guard let constraint = info.constraints.first(where: { $0.column == 1 && $0.operator == .equal }) else {
        throw SQLiteError(code: .error, message: "word_source() needs its source argument")
      }
      guard constraint.isUsable else { return .constraint }
      info.useConstraint(constraint.index, argumentIndex: 0, omit: true)
      info.estimatedCost = 1
      return .ok
    }

    func openCursor() -> any VirtualTableCursor { Cursor() }

    final class Cursor: VirtualTableCursor {
      var words: [String] = []
      var position = 0

      func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) throws {
        guard let source = arguments.pointer(at: 0, as: WordSource.self) else {
          throw SQLiteError(code: .mismatch, message: "word_source() takes a WordSource object")
        }
        words = source.words
        position = 0
      }

      func next() { position += 1 }
      var eof: Bool { position >= words.count }
      func rowid() -> Int64 { Int64(position) }
      func column(_ index: Int32) -> DatabaseValue { index == 0 ? .text(words[position]) : .null }
    }
  }

  @Test func aVirtualTableReadsAnObjectFromItsArguments() throws {
    let db = try Database()
    try db.addModule("word_source", type: WordsModule.self)
    let statement = try db.prepare(sql: "SELECT group_concat(word, ' ') FROM word_source(?)")
      .bind(pointer: WordSource(["one", "two", "three"]), toParameter: 1)
    #expect(try statement.front(String.self) == "one two three")
    #expect {
      try db.prepare(sql: "SELECT word FROM word_source('text')").allRows()
    } throws: { error in
      (error as? SQLiteError)?.message == "word_source() takes a WordSource object"
    }
  }
}
