import Amalgam
import Foundation
import Testing

/// A shuffled integer sequence written in FeistyDB's shape (`init(database:arguments:create:)`,
/// `declaration`, `options`, `bestIndex` with an inout index info, a cursor with
/// `filter(_:[DatabaseValue],indexNumber:indexName:)`, `column(_:) -> DatabaseValue`, `eof`): FeistyDB
/// code ports by renaming `sqlite3_index_info` to `VirtualTableIndexInfo`.
///
/// `CREATE VIRTUAL TABLE temp.shuffled USING shuffled_sequence(count=10, start=5)`
final class ShuffledSequenceModule: VirtualTableModule {
  final class Cursor: VirtualTableCursor {
    let table: ShuffledSequenceModule
    var _rowid: Int64 = 0

    init(_ table: ShuffledSequenceModule) { self.table = table }

    func column(_ index: Int32) -> DatabaseValue { .integer(Int64(table.values[Int(_rowid - 1)])) }
    func next() { _rowid += 1 }
    func rowid() -> Int64 { _rowid }
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { _rowid = 1 }
    var eof: Bool { _rowid > table.values.count }
  }

  let values: [Int]

  required init(database: Database, arguments: [String], create: Bool) throws {
    var count: Int?
    var start = 1
    for argument in arguments.dropFirst(3) {
      let parts = argument.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      guard parts.count == 2, let number = Int(parts[1]) else {
        throw SQLiteError(code: .error, message: "shuffled_sequence: unexpected argument \(argument)")
      }
      if parts[0] == "count" { count = number } else if parts[0] == "start" { start = number }
    }
    guard let count, count > 0 else {
      throw SQLiteError(code: .error, message: "shuffled_sequence: count must be given and positive")
    }
    values = Array(start..<(start + count)).shuffled()
  }

  var declaration: String { "CREATE TABLE x(value)" }
  var options: Database.VirtualTableModuleOptions { [.innocuous] }

  func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
  func openCursor() -> VirtualTableCursor { Cursor(self) }
}

@Suite("Virtual tables: FeistyDB ports, overloads, pools, async code")
struct VirtualTableIntegrationTests {
  @Test func theFeistyDBShuffledSequencePortsByRenaming() throws {
    let db = try Database()
    try db.addModule("shuffled_sequence", type: ShuffledSequenceModule.self)
    #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT value FROM shuffled_sequence") }
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.shuffled USING shuffled_sequence(count=50)")
    let values = try db.prepare(sql: "SELECT value FROM shuffled").column(0, as: Int.self)
    #expect(values.sorted() == Array(1...50))
    try db.execute(sql: "CREATE VIRTUAL TABLE temp.shuffled2 USING shuffled_sequence(start=10, count=5)")
    #expect(
      try db.prepare(sql: "SELECT value FROM shuffled2 ORDER BY 1").column(0, as: Int.self) == [10, 11, 12, 13, 14])
    let error = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "CREATE VIRTUAL TABLE temp.bad USING shuffled_sequence(start=1)")
    }
    #expect(error?.message.contains("count must be given and positive") == true)
  }

  /// Overloads `upper()` and a `near(column, x)` constraint function on its column.
  final class Overloading: EponymousVirtualTableModule {
    nonisolated(unsafe) static var nearSeen = false
    required init(database: Database, arguments: [String]) {}
    var declaration: String { "CREATE TABLE x(word)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      if info.constraints.contains(where: { $0.operator == .function(151) }) { Self.nearSeen = true }
      return .ok
    }
    func openCursor() -> any VirtualTableCursor { Cursor() }
    func findFunction(name: String, argumentCount: Int) -> VirtualTableFunction? {
      switch (name.lowercased(), argumentCount) {
      case ("upper", 1):
        return VirtualTableFunction { arguments, context in
          context.setResult(.text("<" + (arguments.text(at: 0) ?? "") + ">"))
        }
      case ("near", 2):
        return VirtualTableFunction(constraintOperator: 151) { arguments, context in
          context.setResult(.integer(arguments.text(at: 0)?.hasPrefix(arguments.text(at: 1) ?? "") == true ? 1 : 0))
        }
      default:
        return nil
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

  @Test func aTableOverloadsFunctionsOfItsColumns() throws {
    let db = try Database()
    try db.addModule("words", type: Overloading.self)
    try db.addFunction("near", arity: 2) { _ in .integer(0) }
    #expect(
      try db.prepare(sql: "SELECT upper(word) FROM words").column(0, as: String.self) == [
        "<apple>", "<banana>", "<apricot>",
      ])
    #expect(try db.fetchOne(sql: "SELECT upper('plain')") == "PLAIN")
    Overloading.nearSeen = false
    #expect(
      try db.prepare(sql: "SELECT word FROM words WHERE near(word, 'ap')").column(0, as: String.self) == [
        "apple", "apricot",
      ])
    #expect(Overloading.nearSeen)
  }

  @Test func modulesWorkOnEveryConnectionOfAPoolAndFromAsyncCode() async throws {
    try await withTemporaryDirectory { folder in
      var configuration = Configuration(maximumReaderCount: 3)
      configuration.prepareDatabase = { db in try db.addModule("swift_series", type: SwiftSeries.self) }
      let pool = try DatabasePool(path: folder.appendingPathComponent("pool.db").path, configuration: configuration)
      let written = try await pool.write { db in
        try db.prepare(sql: "SELECT sum(value) FROM swift_series(1, 100)").front(Int.self)
      }
      #expect(written == 5050)
      let sums = try await withThrowingTaskGroup(of: Int?.self) { group in
        for stop in 1...8 {
          group.addTask {
            try await pool.read { db in
              try db.prepare(sql: "SELECT sum(value) FROM swift_series(1, \(stop))").front(Int.self)
            }
          }
        }
        var sums: [Int] = []
        for try await sum in group { sums.append(sum ?? -1) }
        return sums.sorted()
      }
      #expect(sums == [1, 3, 6, 10, 15, 21, 28, 36])
      try pool.close()
    }
  }

  @Test func modulesWorkThroughADatabaseQueue() async throws {
    var configuration = Configuration()
    configuration.prepareDatabase = { db in try db.addModule("swift_series", type: SwiftSeries.self) }
    let queue = try DatabaseQueue(configuration: configuration)
    let count = try await queue.read { db in
      try db.prepare(sql: "SELECT count(*) FROM swift_series(1, 10, 2)").front(Int.self)
    }
    #expect(count == 5)
  }
}
