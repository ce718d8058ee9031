import Amalgam
import AmalgamSQLite
import Foundation

/// `swift_series(start, stop)`: the integers from start to stop, as a Swift table-valued function.
final class BenchSeries: EponymousVirtualTableModule {
  init(database: Database, arguments: [String]) {}
  var declaration: String { "CREATE TABLE x(value, start HIDDEN, stop HIDDEN)" }

  func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
    var argument = 0
    var plan: Int32 = 0
    for column: Int32 in 1...2 {
      guard let constraint = info.constraints.first(where: { $0.column == column && $0.operator == .equal }) else {
        continue
      }
      guard constraint.isUsable else { return .constraint }
      info.useConstraint(constraint.index, argumentIndex: argument, omit: true)
      argument += 1
      plan |= column
    }
    info.indexNumber = plan
    info.estimatedCost = plan == 3 ? 1 : 1e9
    return .ok
  }

  func openCursor() -> any VirtualTableCursor { Cursor() }

  final class Cursor: VirtualTableCursor {
    var value: Int64 = 0
    var stop: Int64 = 0
    func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) {
      value = indexNumber & 1 != 0 ? arguments.int64(at: 0) : 0
      stop = indexNumber & 2 != 0 ? arguments.int64(at: indexNumber & 1 != 0 ? 1 : 0) : 0xffff_ffff
    }
    func next() { value += 1 }
    var eof: Bool { value > stop }
    func rowid() -> Int64 { value }
    func column(_ index: Int32, context: FunctionContext) { context.setResult(.integer(value)) }
  }
}

/// Virtual-table workloads: numbered 30 and up so that other capabilities' numbers stay free.
func virtualTableWorkloads() -> [Workload] {
  var workloads: [Workload] = []
  #if ENABLE_EXTENSIONS
    workloads.append(
      Workload(
        number: 17, name: "scan a 1M-row table-valued function (Swift vs C series)", target: 1.5,
        c: { handle in
          let statement = try prepareC(handle, "SELECT value FROM generate_series(1, 1000000)")
          defer { sqlite3_finalize(statement) }
          var sum = 0
          while sqlite3_step(statement) == SQLITE_ROW { sum &+= Int(sqlite3_column_int64(statement, 0)) }
          return sum
        },
        amalgam: { db in
          try db.addModule("swift_series", type: BenchSeries.self)
          let statement = try db.prepare(sql: "SELECT value FROM swift_series(1, 1000000)")
          var sum = 0
          try statement.results { row in sum &+= try row.value(at: 0) as Int }
          return sum
        }))
  #endif
  #if ENABLE_CARRAY
    let ids = (0..<10_000).map { Int64($0 * 10 + 1) }
    let repetitions = 20
    workloads.append(
      Workload(
        number: 18, name: "WHERE rowid IN carray(?) with 10k values, 20 times", target: 1.15,
        c: { handle in
          let statement = try prepareC(handle, "SELECT i0 FROM items WHERE rowid IN carray(?)")
          defer { sqlite3_finalize(statement) }
          var sum = 0
          for _ in 0..<repetitions {
            var copy = ids
            try copy.withUnsafeMutableBytes { bytes in
              let rc = sqlite3_carray_bind_v2(
                statement, 1, bytes.baseAddress, Int32(ids.count), SQLITE_CARRAY_INT64,
                unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self), nil)
              try checkC(rc, handle)
            }
            while sqlite3_step(statement) == SQLITE_ROW { sum &+= Int(sqlite3_column_int64(statement, 0)) }
            sqlite3_reset(statement)
          }
          return sum
        },
        amalgam: { db in
          let statement = try db.prepare(sql: "SELECT i0 FROM items WHERE rowid IN carray(?)")
          var sum = 0
          for _ in 0..<repetitions {
            try statement.bind(array: ids, toParameter: 1)
            while let row = try statement.step() { sum &+= try row.value(at: 0) as Int }
            try statement.reset()
          }
          return sum
        }))
  #endif
  return workloads
}
