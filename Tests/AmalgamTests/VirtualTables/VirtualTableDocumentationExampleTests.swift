import Amalgam
import Foundation
import Testing

// A countdown table-valued function, and the VirtualTables article's examples verbatim (types in
// an enum each, statements in a test). If the documentation changes, change this copy too.

enum VirtualTableCountdownExample {
  /// `SELECT value FROM countdown(5)`: 5, 4, 3, 2, 1.
  final class Countdown: EponymousVirtualTableModule {
    init(database: Database, arguments: [String]) {}
    var declaration: String { "CREATE TABLE x(value INTEGER, start HIDDEN)" }

    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      guard let start = info.constraints.first(where: { $0.column == 1 && $0.operator == .equal }),
        start.isUsable
      else { return .constraint }
      info.useConstraint(start.index, argumentIndex: 0, omit: true)
      return .ok
    }

    func openCursor() -> any VirtualTableCursor { Cursor() }

    final class Cursor: VirtualTableCursor {
      var value: Int64 = 0
      func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) {
        value = arguments.int64(at: 0)
      }
      func next() { value -= 1 }
      var eof: Bool { value <= 0 }
      func rowid() -> Int64 { value }
      func column(_ index: Int32, context: FunctionContext) { context.setResult(.integer(value)) }
    }
  }

}

enum VirtualTableArticleExample {
  /// `CREATE VIRTUAL TABLE temp.words USING word_list(apple, banana, cherry)`
  final class WordList: VirtualTableModule {
    let words: [String]

    init(database: Database, arguments: [String], create: Bool) {
      words = VirtualTableModuleArgument.parse(arguments).map(\.value)
    }

    var declaration: String { "CREATE TABLE x(word TEXT, length INTEGER)" }

    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      info.estimatedCost = Double(words.count)
      info.estimatedRows = Int64(words.count)
      return .ok
    }

    func openCursor() -> any VirtualTableCursor { Cursor(words: words) }

    final class Cursor: VirtualTableCursor {
      let words: [String]
      var index = 0
      init(words: [String]) { self.words = words }

      func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { index = 0 }
      func next() { index += 1 }
      var eof: Bool { index >= words.count }
      func rowid() -> Int64 { Int64(index) }
      func column(_ column: Int32) -> DatabaseValue {
        column == 0 ? .text(words[index]) : .integer(Int64(words[index].count))
      }
    }
  }

  /// `SELECT value FROM countdown(5)`: 5, 4, 3, 2, 1.
  final class Countdown: EponymousVirtualTableModule {
    init(database: Database, arguments: [String]) {}

    var declaration: String { "CREATE TABLE x(value INTEGER, start HIDDEN)" }

    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      guard let start = info.constraints.first(where: { $0.column == 1 && $0.operator == .equal }) else {
        return .constraint
      }
      guard start.isUsable else { return .constraint }
      info.useConstraint(start.index, argumentIndex: 0, omit: true)
      info.estimatedCost = 1
      return .ok
    }

    func openCursor() -> any VirtualTableCursor { Cursor() }

    final class Cursor: VirtualTableCursor {
      var value: Int64 = 0
      func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) {
        value = arguments.int64(at: 0)
      }
      func next() { value -= 1 }
      var eof: Bool { value <= 0 }
      func rowid() -> Int64 { value }
      func column(_ index: Int32, context: FunctionContext) { context.setResult(.integer(value)) }
    }
  }

  /// A table of notes kept in a Swift dictionary: `CREATE VIRTUAL TABLE temp.notes USING notes`.
  final class Notes: UpdatableVirtualTableModule {
    var notes: [Int64: String] = [:]
    var nextRowid: Int64 = 1

    init(database: Database, arguments: [String], create: Bool) {}

    var declaration: String { "CREATE TABLE x(body TEXT)" }

    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
    func openCursor() -> any VirtualTableCursor { Cursor(rows: notes.sorted { $0.key < $1.key }) }

    func insert(rowid: Int64?, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws -> Int64 {
      let rowid = rowid ?? nextRowid
      notes[rowid] = try values.value(at: 0, as: String.self)
      nextRowid = max(nextRowid, rowid + 1)
      return rowid
    }

    func update(rowid: Int64, newRowid: Int64, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws {
      notes[rowid] = nil
      notes[newRowid] = try values.value(at: 0, as: String.self)
    }

    func delete(rowid: Int64, onConflict: VirtualTableConflictMode) { notes[rowid] = nil }

    final class Cursor: VirtualTableCursor {
      let rows: [(key: Int64, value: String)]
      var index = 0
      init(rows: [(key: Int64, value: String)]) { self.rows = rows }

      func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { index = 0 }
      func next() { index += 1 }
      var eof: Bool { index >= rows.count }
      func rowid() -> Int64 { rows[index].key }
      func column(_ column: Int32) -> DatabaseValue { .text(rows[index].value) }
    }
  }

}

@Suite("Virtual tables documentation examples")
struct VirtualTableDocumentationExampleTests {
  @Test func countdownExampleCompilesAndRuns() throws {
    typealias Countdown = VirtualTableCountdownExample.Countdown
    let db = try Database()
    try db.addModule("countdown", type: Countdown.self)
    let values = try db.prepare(sql: "SELECT value FROM countdown(3)").column(0, as: Int.self)  // [3, 2, 1]
    #if ENABLE_CARRAY
      let ids = try db.prepare(sql: "SELECT value FROM carray(?) WHERE value % 2 = 0")
        .bind(array: [Int64(1), 2, 3, 4], toParameter: 1).column(0, as: Int.self)  // [2, 4]
    #endif
    #expect(values == [3, 2, 1])
    #if ENABLE_CARRAY
      #expect(ids == [2, 4])
    #endif
  }

  @Test func articleExamplesCompileAndRun() throws {
    typealias WordList = VirtualTableArticleExample.WordList
    typealias Countdown = VirtualTableArticleExample.Countdown
    typealias Notes = VirtualTableArticleExample.Notes
    let db = try Database()
    try db.addModule("word_list", type: WordList.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.words USING word_list(apple, banana, cherry)")
    let long = try db.prepare(sql: "SELECT word FROM words WHERE length > 5").column(0, as: String.self)
    // ["banana", "cherry"]
    try db.addModule("countdown", type: Countdown.self)
    let values = try db.prepare(sql: "SELECT value FROM countdown(5)").column(0, as: Int.self)  // [5, 4, 3, 2, 1]
    try db.addModule("notes", type: Notes.self)
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.notes USING notes")
    try db.execute(sql: "INSERT INTO notes(body) VALUES ('buy milk'), ('call Ada')")
    try db.execute(sql: "UPDATE notes SET body = 'buy oat milk' WHERE rowid = 1")
    try db.execute(sql: "DELETE FROM notes WHERE body LIKE 'call%'")
    let remaining = try db.prepare(sql: "SELECT body FROM notes").column(0, as: String.self)  // ["buy oat milk"]
    #expect(long == ["banana", "cherry"])
    #expect(values == [5, 4, 3, 2, 1])
    #expect(remaining == ["buy oat milk"])
  }
}
