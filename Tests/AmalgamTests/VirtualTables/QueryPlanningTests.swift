import Amalgam
import Testing

@Suite("Virtual tables: query planning")
struct QueryPlanningTests {
  /// A key-value table of 1,000 rows, keys "k000" to "k999".
  private func makeTable() throws -> (Database, KeyValueStore) {
    let db = try Database()
    try db.addModule("keyvalue", type: KeyValueTable.self)
    let store = KeyValueStore()
    for index in 0..<1000 {
      store.entries[Int64(index + 1)] = .init(
        key: "k" + String(repeating: "0", count: 3 - String(index).count) + String(index), value: .integer(Int64(index))
      )
    }
    store.nextRowid = 1001
    try db.execute(sql: "CREATE VIRTUAL TABLE kv USING keyvalue(id=\(TestObjects.shared.register(store)))")
    return (db, store)
  }

  @Test func equalityOnTheKeyProducesOneRow() throws {
    let (db, store) = try makeTable()
    #expect(try db.fetchOne(sql: "SELECT value FROM kv WHERE key = ?", arguments: ["k123"]) == 123)
    #expect(store.rowsProduced == 1)
  }

  @Test func anINListReachesTheCursorWholeInOneFilter() throws {
    let (db, store) = try makeTable()
    let values = try db.prepare(
      sql: "SELECT value FROM kv WHERE key IN ('k001', 'k500', 'k999', 'none') ORDER BY value"
    )
    .column(0, as: Int.self)
    #expect(values == [1, 500, 999])
    #expect(store.rowsProduced == 3)
    #expect(store.filterCalls == 1)
  }

  @Test func limitIsPushedDown() throws {
    let (db, store) = try makeTable()
    #expect(try db.prepare(sql: "SELECT key FROM kv LIMIT 5").column(0, as: String.self).count == 5)
    #expect(store.rowsProduced == 5)
  }

  @Test func orderByTheKeyIsConsumedSoNothingIsSorted() throws {
    let (db, store) = try makeTable()
    let keys = try db.prepare(sql: "SELECT key FROM kv ORDER BY key DESC LIMIT 3").column(0, as: String.self)
    #expect(keys == ["k999", "k998", "k997"])
    #expect(store.rowsProduced == 3)
    let plan = try db.prepare(sql: "EXPLAIN QUERY PLAN SELECT key FROM kv ORDER BY key").column(3, as: String.self)
    #expect(!plan.joined().contains("ORDER BY"))
    let sortedByValue = try db.prepare(sql: "EXPLAIN QUERY PLAN SELECT key FROM kv ORDER BY value")
      .column(3, as: String.self)
    #expect(sortedByValue.joined().contains("USE TEMP B-TREE FOR ORDER BY"))
  }

  @Test func withoutConstraintsTheTableIsScannedInFull() throws {
    let (db, store) = try makeTable()
    #expect(try db.fetchOne(sql: "SELECT count(*) FROM kv WHERE value >= 0") == 1000)
    #expect(store.rowsProduced == 1000)
  }

  /// Records what bestIndex saw, to check the typed index info.
  final class PlanRecorder: EponymousVirtualTableModule {
    nonisolated(unsafe) static var seen: [VirtualTableIndexInfo] = []
    nonisolated(unsafe) static var rightHandValues: [DatabaseValue?] = []
    required init(database: Database, arguments: [String]) {}
    var declaration: String { "CREATE TABLE x(a, b, c)" }
    func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
      Self.seen.append(info)
      Self.rightHandValues = info.constraints.map { info.rightHandValue(of: $0.index) }
      return .ok
    }
    func openCursor() -> any VirtualTableCursor { Empty() }
    final class Empty: VirtualTableCursor {
      func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) {}
      func next() {}
      var eof: Bool { true }
      func rowid() -> Int64 { 0 }
      func column(_ index: Int32) -> DatabaseValue { .null }
    }
  }

  @Test func indexInfoCarriesEveryOperatorCollationOrderAndColumns() throws {
    let db = try Database()
    try db.addModule("recorder", type: PlanRecorder.self)
    try db.addFunction("regexp", arity: 2) { _ in .integer(1) }
    PlanRecorder.seen = []
    let sql = """
      SELECT a, c FROM recorder WHERE a = 1 AND a > 2 AND a <= 3 AND a < 4 AND a >= 5 AND a != 6
      AND b LIKE 'x%' AND b GLOB 'y*' AND b REGEXP 'z' AND b IS NOT 7 AND b IS NULL AND c IS NOT NULL
      AND c IS 8 AND b = 'q' COLLATE NOCASE ORDER BY c DESC, a
      """
    _ = try db.prepare(sql: sql).allRows()
    let info = try #require(PlanRecorder.seen.last)
    let operators = info.constraints.map(\.operator)
    for expected: VirtualTableIndexInfo.Operator in [
      .equal, .greaterThan, .lessThanOrEqual, .lessThan, .greaterThanOrEqual, .notEqual, .like, .glob, .regexp,
      .isNot, .isNull, .isNotNull, .is,
    ] {
      #expect(operators.contains(expected), "\(expected)")
    }
    #expect(info.constraints.contains { $0.collation == "NOCASE" && $0.column == 1 })
    #expect(info.constraints.contains { $0.collation == "BINARY" && $0.column == 0 })
    #expect(info.orderBy == [.init(column: 2, descending: true), .init(column: 0, descending: false)])
    #expect(info.isColumnUsed(0) && info.isColumnUsed(1) && info.isColumnUsed(2))
    #expect(PlanRecorder.rightHandValues.contains(.integer(8)))
    #expect(PlanRecorder.rightHandValues.contains(.text("x%")))

    PlanRecorder.seen = []
    _ = try db.prepare(sql: "SELECT a FROM recorder LIMIT 10 OFFSET 2").allRows()
    let limits = try #require(PlanRecorder.seen.last).constraints.map(\.operator)
    #expect(limits.contains(.limit) && limits.contains(.offset))
    #expect(try #require(PlanRecorder.seen.last).columnsUsed == 1)

    PlanRecorder.seen = []
    _ = try db.prepare(sql: "SELECT DISTINCT a FROM recorder").allRows()
    #expect(try #require(PlanRecorder.seen.last).distinct == .distinct)
    PlanRecorder.seen = []
    _ = try db.prepare(sql: "SELECT a, count(*) FROM recorder GROUP BY a").allRows()
    #expect(try #require(PlanRecorder.seen.last).distinct == .grouped)
    PlanRecorder.seen = []
    _ = try db.prepare(sql: "SELECT a FROM recorder WHERE a IN (1, 2, 3)").allRows()
    #expect(try #require(PlanRecorder.seen.last).constraints.contains { $0.isINListAvailable })

    // Kept after the call: the index info no longer reads from SQLite.
    let kept = try #require(PlanRecorder.seen.last)
    #expect(kept.rightHandValue(of: 0) == nil)
  }
}
