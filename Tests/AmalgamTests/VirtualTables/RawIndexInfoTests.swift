import Amalgam
import AmalgamSQLite
import Testing

/// FeistyDB's port of SQLite's `generate_series`, as its test suite has it: the query plan reads and
/// writes SQLite's own `sqlite3_index_info`. It compiles here unchanged.
private final class FeistySeriesModule: EponymousVirtualTableModule {
  static let valueColumn: Int32 = 0
  static let startColumn: Int32 = 1
  static let stopColumn: Int32 = 2
  static let stepColumn: Int32 = 3

  struct QueryPlan: OptionSet {
    let rawValue: Int32
    static let start = QueryPlan(rawValue: 1 << 0)
    static let stop = QueryPlan(rawValue: 1 << 1)
    static let step = QueryPlan(rawValue: 1 << 2)
    static let isDescending = QueryPlan(rawValue: 1 << 3)
  }

  final class Cursor: VirtualTableCursor {
    var rowidValue: Int64 = 0
    var value: Int64 = 0
    var minimum: Int64 = 0
    var maximum: Int64 = 0
    var step: Int64 = 0
    var isDescending = false

    func column(_ index: Int32) -> DatabaseValue {
      switch index {
      case FeistySeriesModule.valueColumn: return .integer(value)
      case FeistySeriesModule.startColumn: return .integer(minimum)
      case FeistySeriesModule.stopColumn: return .integer(maximum)
      case FeistySeriesModule.stepColumn: return .integer(step)
      default: return nil
      }
    }

    func next() {
      value += isDescending ? -step : step
      rowidValue += 1
    }

    func rowid() -> Int64 { rowidValue }

    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) {
      rowidValue = 1
      minimum = 0
      maximum = 0xffff_ffff
      step = 1
      let queryPlan = QueryPlan(rawValue: indexNumber)
      var argumentNumber = 0
      if queryPlan.contains(.start) {
        if case let .integer(i) = arguments[argumentNumber] { minimum = i }
        argumentNumber += 1
      }
      if queryPlan.contains(.stop) {
        if case let .integer(i) = arguments[argumentNumber] { maximum = i }
        argumentNumber += 1
      }
      if queryPlan.contains(.step) {
        if case let .integer(i) = arguments[argumentNumber] { step = max(i, 1) }
        argumentNumber += 1
      }
      isDescending = queryPlan.contains(.isDescending)
      value = isDescending ? maximum : minimum
      if isDescending && step > 0 { value -= (maximum - minimum) % step }
    }

    var eof: Bool { isDescending ? value < minimum : value > maximum }
  }

  required init(database: Database, arguments: [String]) {}

  var declaration: String { "CREATE TABLE x(value,start hidden,stop hidden,step hidden)" }

  var options: Database.VirtualTableModuleOptions { [.innocuous] }

  func bestIndex(_ indexInfo: inout sqlite3_index_info) -> VirtualTableModuleBestIndexResult {
    let constraintCount = Int(indexInfo.nConstraint)
    let constraints = UnsafeBufferPointer<sqlite3_index_constraint>(
      start: indexInfo.aConstraint, count: constraintCount)
    let orderByCount = Int(indexInfo.nOrderBy)
    let orderBy = UnsafeBufferPointer<sqlite3_index_orderby>(start: indexInfo.aOrderBy, count: orderByCount)
    let constraintUsage = UnsafeMutableBufferPointer<sqlite3_index_constraint_usage>(
      start: indexInfo.aConstraintUsage, count: constraintCount)
    var queryPlan: QueryPlan = []
    var filterArgumentCount: Int32 = 1
    for i in 0..<constraintCount {
      let constraint = constraints[i]
      let part: QueryPlan
      switch constraint.iColumn {
      case FeistySeriesModule.startColumn: part = .start
      case FeistySeriesModule.stopColumn: part = .stop
      case FeistySeriesModule.stepColumn: part = .step
      default: continue
      }
      guard constraint.usable != 0 else { continue }
      guard constraint.op == SQLITE_INDEX_CONSTRAINT_EQ else { return .constraint }
      queryPlan.insert(part)
      constraintUsage[i].argvIndex = filterArgumentCount
      filterArgumentCount += 1
    }
    if queryPlan.contains(.start) && queryPlan.contains(.stop) {
      indexInfo.estimatedCost = 2 - (queryPlan.contains(.step) ? 1 : 0)
      indexInfo.estimatedRows = 1000
      if orderByCount == 1 {
        if orderBy[0].desc == 1 { queryPlan.insert(.isDescending) }
        indexInfo.orderByConsumed = 1
      }
    } else {
      indexInfo.estimatedRows = 2_147_483_647
    }
    indexInfo.idxNum = queryPlan.rawValue
    return .ok
  }

  func openCursor() -> any VirtualTableCursor { Cursor() }
}

/// A typed module that reaches the raw struct for one field, and records what it saw.
private final class MixedModule: EponymousVirtualTableModule {
  nonisolated(unsafe) static var seen: [String] = []
  nonisolated(unsafe) static var kept: VirtualTableIndexInfo?

  final class Cursor: VirtualTableCursor {
    var row: Int64 = 0
    var last: Int64 = 0
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) {
      MixedModule.seen.append("filter \(indexNumber) \(indexName ?? "-") \(arguments)")
      row = 1
      last = indexNumber == 7 ? 3 : 5
    }
    func next() { row += 1 }
    var eof: Bool { row > last }
    func rowid() -> Int64 { row }
    func column(_ index: Int32) -> DatabaseValue { .integer(row) }
  }

  required init(database: Database, arguments: [String]) {}
  var declaration: String { "CREATE TABLE x(n)" }

  func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
    Self.kept = indexInfo
    if let equal = indexInfo.constraints.first(where: { $0.operator == .equal && $0.isUsable }) {
      // The typed plan, then a field set through SQLite's struct: both reach SQLite.
      indexInfo.useConstraint(equal.index, argumentIndex: 0, omit: true)
      indexInfo.indexName = "typed"
      let flags = try indexInfo.withUnsafeRawIndexInfo { raw in
        // The typed plan is in the struct already.
        Self.seen.append("raw sees argv \(raw.pointee.aConstraintUsage[equal.index].argvIndex)")
        raw.pointee.idxNum = 7
        raw.pointee.estimatedCost = 3
        return raw.pointee.idxFlags
      }
      Self.seen.append("flags \(flags), index number \(indexInfo.indexNumber), cost \(indexInfo.estimatedCost)")
    }
    return .ok
  }

  func openCursor() -> any VirtualTableCursor { Cursor() }
}

@Suite(.serialized) struct RawIndexInfoTests {
  @Test func aFeistyDBModuleWithTheRawBestIndexCompilesAndPlans() throws {
    let db = try Database()
    try db.addModule("feisty_series", type: FeistySeriesModule.self)
    let ascending = try db.fetchAll(Int.self, sql: "SELECT value FROM feisty_series(1, 10, 3)")
    #expect(ascending == [1, 4, 7, 10])
    let descending = try db.fetchAll(
      Int.self, sql: "SELECT value FROM feisty_series WHERE start = 1 AND stop = 10 ORDER BY value DESC")
    #expect(descending == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
    // A constraint the plan cannot use: bestIndex says .constraint, and SQLite finds no plan.
    #expect(throws: SQLiteError.self) {
      try db.fetchAll(Int.self, sql: "SELECT value FROM feisty_series WHERE start > 1 AND stop = 3")
    }
  }

  @Test func theRawStructSeesTheTypedPlanAndWhatItSetsReachesSQLite() throws {
    MixedModule.seen = []
    let db = try Database()
    try db.addModule("mixed", type: MixedModule.self)
    #expect(try db.fetchAll(Int.self, sql: "SELECT n FROM mixed WHERE n = 2") == [1, 2, 3])
    #expect(
      MixedModule.seen == [
        "raw sees argv 1", "flags 0, index number 7, cost 3.0", "filter 7 typed [2]",
      ])
  }

  @Test func theRawStructIsOnlyReachableDuringTheCall() throws {
    let db = try Database()
    try db.addModule("mixed", type: MixedModule.self)
    _ = try db.fetchAll(Int.self, sql: "SELECT n FROM mixed")
    var kept = try #require(MixedModule.kept)
    #expect(throws: DatabaseError.self) { try kept.withUnsafeRawIndexInfo { _ in Issue.record("reached") } }
  }
}
