import Amalgam
import AmalgamSQLite
import Foundation

/// Ten integer columns, as in GRDB's performance suite.
struct Item: Codable {
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int

  var sum: Int { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

let fetchRowCount = 100_000
let insertRowCount = 20_000
let textRowCount = 100_000
let cacheExecutionCount = 50_000
let functionRowCount = 1_000_000
let columnNames = (0..<10).map { "i\($0)" }
let insertSQL = "INSERT INTO inserted VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
let namedInsertSQL = "INSERT INTO inserted VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)"

/// Creates the tables every workload reads or writes.
func makeBenchmarkDatabase() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE items(i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER,
                         i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER);
      CREATE TABLE inserted(i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER,
                            i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER);
      CREATE TABLE documents(title TEXT, payload BLOB);
      CREATE TABLE numbers(n INTEGER);
      CREATE TABLE kv(k INTEGER PRIMARY KEY, v INTEGER);
      """)
  try db.transaction { db in
    let insert = try db.prepare(sql: "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    for row in 0..<fetchRowCount {
      for column in 0..<10 { try insert.bind(value: row * 10 + column, toParameter: column + 1) }
      try insert.execute()
    }
    let document = try db.prepare(sql: "INSERT INTO documents VALUES (?, ?)")
    for row in 0..<textRowCount {
      let title = String(String(format: "%06d", row).padding(toLength: 30, withPad: "abcdefghij", startingAt: 0))
      let payload = Data((0..<64).map { UInt8(truncatingIfNeeded: row &+ $0) })
      try document.bind(parameterValues: [title, payload]).execute()
    }
    try db.execute(sql: "INSERT INTO numbers SELECT value FROM generate_series(1, \(functionRowCount))")
    try db.execute(sql: "INSERT INTO kv SELECT value, value * 2 FROM generate_series(1, 100)")
  }
  // Workload 9's function, once through the C API and once through Amalgam's typed API.
  let handle = try db.sqliteHandle
  try checkC(
    sqlite3_create_function_v2(
      handle, "c_scale", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
      { context, _, arguments in
        sqlite3_result_int64(context, sqlite3_value_int64(arguments?[0]) &* 3 &+ 1)
      }, nil, nil, nil), handle)
  try db.addFunction("amalgam_scale") { (value: Int64) -> Int64 in value &* 3 &+ 1 }
  #if ENABLE_FTS5
    try setUpFTS5Benchmark(db)
  #endif
  return db
}

func emptyInserted(_ db: Database) throws { try db.execute(sql: "DELETE FROM inserted") }

/// Sums the inserted table, so insert workloads have a checksum of what they wrote (their `verifyRun`,
/// outside the measured region).
func insertedChecksum(_ db: Database) throws -> Int {
  let handle = try db.sqliteHandle
  let statement = try prepareC(
    handle, "SELECT total(i0 + i1 + i2 + i3 + i4 + i5 + i6 + i7 + i8 + i9), count(*) FROM inserted")
  defer { sqlite3_finalize(statement) }
  try checkC(sqlite3_step(statement), handle, SQLITE_ROW)
  return Int(sqlite3_column_double(statement, 0)) &+ Int(sqlite3_column_int64(statement, 1))
}

/// Workloads 4 and 10 through the C API: look each parameter name up once, then bind by index.
func namedInsertC(_ handle: OpaquePointer) throws -> Int {
  try checkC(sqlite3_exec(handle, "BEGIN", nil, nil, nil), handle)
  let statement = try prepareC(handle, namedInsertSQL)
  let indexes = columnNames.map { sqlite3_bind_parameter_index(statement, ":" + $0) }
  for row in 0..<insertRowCount {
    for (column, index) in indexes.enumerated() {
      sqlite3_bind_int64(statement, index, Int64(row * 10 + column))
    }
    try checkC(sqlite3_step(statement), handle, SQLITE_DONE)
    sqlite3_reset(statement)
  }
  sqlite3_finalize(statement)
  try checkC(sqlite3_exec(handle, "COMMIT", nil, nil, nil), handle)
  return 0
}

/// Workloads 7 and 11 through the C API: owned copies of the text and the blob, as Swift makes.
func textAndBlobC(_ handle: OpaquePointer) throws -> Int {
  let statement = try prepareC(handle, "SELECT title, payload FROM documents")
  defer { sqlite3_finalize(statement) }
  // A String and a Data are owned copies, so the C side makes owned copies too (malloc and memcpy,
  // as strdup would), and frees them.
  var sum = 0
  while sqlite3_step(statement) == SQLITE_ROW {
    let textBytes = sqlite3_column_text(statement, 0)
    let textCount = Int(sqlite3_column_bytes(statement, 0))
    let blobBytes = sqlite3_column_blob(statement, 1)
    let blobCount = Int(sqlite3_column_bytes(statement, 1))
    guard let textBytes, let blobBytes, let text = malloc(textCount + 1), let blob = malloc(blobCount) else {
      throw BenchmarkFailure(description: "out of memory")
    }
    memcpy(text, textBytes, textCount)
    memcpy(blob, blobBytes, blobCount)
    sum &+=
      textCount &+ blobCount &+ Int(text.load(as: UInt8.self)) &+ Int(blob.load(fromByteOffset: 63, as: UInt8.self))
    free(text)
    free(blob)
  }
  return sum
}

/// Workload 28 through the C API: the text and the blob read where SQLite holds them, as C code does.
func textAndBlobInPlaceC(_ handle: OpaquePointer) throws -> Int {
  let statement = try prepareC(handle, "SELECT title, payload FROM documents")
  defer { sqlite3_finalize(statement) }
  var sum = 0
  while sqlite3_step(statement) == SQLITE_ROW {
    guard let text = sqlite3_column_text(statement, 0), let blob = sqlite3_column_blob(statement, 1) else {
      throw BenchmarkFailure(description: "out of memory")
    }
    let textCount = Int(sqlite3_column_bytes(statement, 0))
    let blobCount = Int(sqlite3_column_bytes(statement, 1))
    sum &+= textCount &+ blobCount &+ Int(text[0]) &+ Int(blob.load(fromByteOffset: 63, as: UInt8.self))
  }
  return sum
}

func allWorkloads() -> [Workload] {
  [
    Workload(
      number: 1, name: "fetch 100k rows x 10 ints by index", target: 1.10,
      c: { handle in
        let statement = try prepareC(handle, "SELECT * FROM items")
        defer { sqlite3_finalize(statement) }
        var sum = 0
        while sqlite3_step(statement) == SQLITE_ROW {
          for column in Int32(0)..<10 { sum &+= Int(sqlite3_column_int64(statement, column)) }
        }
        return sum
      },
      amalgam: { db in
        let statement = try db.prepare(sql: "SELECT * FROM items")
        var sum = 0
        while let row = try statement.step() {
          for column in 0..<10 { sum &+= try row.value(at: column) as Int }
        }
        return sum
      }),
    Workload(
      number: 2, name: "fetch 100k rows x 10 ints by name", target: 1.15,
      c: { handle in
        let statement = try prepareC(handle, "SELECT * FROM items")
        defer { sqlite3_finalize(statement) }
        // The C way: look each name up once, then read by index.
        var indexes: [Int32] = []
        for name in columnNames {
          for column in Int32(0)..<sqlite3_column_count(statement)
          where String(cString: sqlite3_column_name(statement, column)) == name {
            indexes.append(column)
          }
        }
        var sum = 0
        while sqlite3_step(statement) == SQLITE_ROW {
          for column in indexes { sum &+= Int(sqlite3_column_int64(statement, column)) }
        }
        return sum
      },
      amalgam: { db in
        let statement = try db.prepare(sql: "SELECT * FROM items")
        var sum = 0
        while let row = try statement.step() {
          sum &+= try row.value(named: "i0") as Int
          sum &+= try row.value(named: "i1") as Int
          sum &+= try row.value(named: "i2") as Int
          sum &+= try row.value(named: "i3") as Int
          sum &+= try row.value(named: "i4") as Int
          sum &+= try row.value(named: "i5") as Int
          sum &+= try row.value(named: "i6") as Int
          sum &+= try row.value(named: "i7") as Int
          sum &+= try row.value(named: "i8") as Int
          sum &+= try row.value(named: "i9") as Int
        }
        return sum
      }),
    Workload(
      number: 3, name: "insert 20k rows x 10 ints, reused statement", target: 1.10,
      prepareRun: emptyInserted, verifyRun: insertedChecksum,
      c: { handle in
        try checkC(sqlite3_exec(handle, "BEGIN", nil, nil, nil), handle)
        let statement = try prepareC(handle, insertSQL)
        for row in 0..<insertRowCount {
          for column in Int32(0)..<10 {
            sqlite3_bind_int64(statement, column + 1, Int64(row * 10) + Int64(column))
          }
          try checkC(sqlite3_step(statement), handle, SQLITE_DONE)
          sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        try checkC(sqlite3_exec(handle, "COMMIT", nil, nil, nil), handle)
        return 0
      },
      amalgam: { db in
        try db.transaction { db in
          let statement = try db.prepare(sql: insertSQL)
          for row in 0..<insertRowCount {
            let base = row * 10
            try statement.bind(
              base, base + 1, base + 2, base + 3, base + 4,
              base + 5, base + 6, base + 7, base + 8, base + 9
            ).execute()
          }
        }
        return 0
      }),
    Workload(
      number: 4, name: "insert 20k rows x 10 ints, named parameters", target: 1.25,
      prepareRun: emptyInserted, verifyRun: insertedChecksum,
      c: namedInsertC,
      amalgam: { db in
        try db.transaction { db in
          let statement = try db.prepare(sql: namedInsertSQL)
          for row in 0..<insertRowCount {
            let base = row * 10
            try statement.bind(
              named: ("i0", base), ("i1", base + 1), ("i2", base + 2), ("i3", base + 3), ("i4", base + 4),
              ("i5", base + 5), ("i6", base + 6), ("i7", base + 7), ("i8", base + 8), ("i9", base + 9)
            ).execute()
          }
        }
        return 0
      }),
    Workload(
      number: 5, name: "fetch 100k Decodable structs", target: 1.5,
      c: { handle in
        let statement = try prepareC(handle, "SELECT * FROM items")
        defer { sqlite3_finalize(statement) }
        var sum = 0
        while sqlite3_step(statement) == SQLITE_ROW {
          let item = Item(
            i0: Int(sqlite3_column_int64(statement, 0)), i1: Int(sqlite3_column_int64(statement, 1)),
            i2: Int(sqlite3_column_int64(statement, 2)), i3: Int(sqlite3_column_int64(statement, 3)),
            i4: Int(sqlite3_column_int64(statement, 4)), i5: Int(sqlite3_column_int64(statement, 5)),
            i6: Int(sqlite3_column_int64(statement, 6)), i7: Int(sqlite3_column_int64(statement, 7)),
            i8: Int(sqlite3_column_int64(statement, 8)), i9: Int(sqlite3_column_int64(statement, 9)))
          sum &+= item.sum
        }
        return sum
      },
      amalgam: { db in
        let statement = try db.prepare(sql: "SELECT * FROM items")
        var sum = 0
        let decoder = RowDecoder()
        while let row = try statement.step() {
          sum &+= try decoder.decode(Item.self, from: row).sum
        }
        return sum
      }),
    Workload(
      number: 6, name: "insert 20k Encodable structs", target: 1.5,
      prepareRun: emptyInserted, verifyRun: insertedChecksum,
      c: { handle in
        try checkC(sqlite3_exec(handle, "BEGIN", nil, nil, nil), handle)
        let statement = try prepareC(handle, namedInsertSQL)
        for row in 0..<insertRowCount {
          let base = row * 10
          let item = Item(
            i0: base, i1: base + 1, i2: base + 2, i3: base + 3, i4: base + 4,
            i5: base + 5, i6: base + 6, i7: base + 7, i8: base + 8, i9: base + 9)
          sqlite3_bind_int64(statement, 1, Int64(item.i0))
          sqlite3_bind_int64(statement, 2, Int64(item.i1))
          sqlite3_bind_int64(statement, 3, Int64(item.i2))
          sqlite3_bind_int64(statement, 4, Int64(item.i3))
          sqlite3_bind_int64(statement, 5, Int64(item.i4))
          sqlite3_bind_int64(statement, 6, Int64(item.i5))
          sqlite3_bind_int64(statement, 7, Int64(item.i6))
          sqlite3_bind_int64(statement, 8, Int64(item.i7))
          sqlite3_bind_int64(statement, 9, Int64(item.i8))
          sqlite3_bind_int64(statement, 10, Int64(item.i9))
          try checkC(sqlite3_step(statement), handle, SQLITE_DONE)
          sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        try checkC(sqlite3_exec(handle, "COMMIT", nil, nil, nil), handle)
        return 0
      },
      amalgam: { db in
        try db.transaction { db in
          let statement = try db.prepare(sql: namedInsertSQL)
          let encoder = StatementEncoder()
          for row in 0..<insertRowCount {
            let base = row * 10
            let item = Item(
              i0: base, i1: base + 1, i2: base + 2, i3: base + 3, i4: base + 4,
              i5: base + 5, i6: base + 6, i7: base + 7, i8: base + 8, i9: base + 9)
            try encoder.encode(item, to: statement)
            try statement.execute()
          }
        }
        return 0
      }),
    Workload(
      number: 7, name: "fetch 100k rows of 30-char text + 64-byte blob", target: 1.25,
      c: textAndBlobC,
      amalgam: { db in
        let statement = try db.prepare(sql: "SELECT title, payload FROM documents")
        var sum = 0
        while let row = try statement.step() {
          let title: String = try row.value(at: 0)
          let payload: Data = try row.value(at: 1)
          sum &+= title.utf8.count &+ payload.count &+ Int(title.utf8.first ?? 0) &+ Int(payload[63])
        }
        return sum
      }),
    Workload(
      number: 8, name: "statement cache: 3 SQL strings x 50k executions", target: 1.25,
      c: { handle in
        let sqls = [
          "SELECT v FROM kv WHERE k = ?", "SELECT count(*) FROM kv WHERE k < ?", "SELECT max(v) FROM kv WHERE k <= ?",
        ]
        let statements = try sqls.map { try prepareC(handle, $0) }
        defer { statements.forEach { sqlite3_finalize($0) } }
        var sum = 0
        for execution in 0..<cacheExecutionCount {
          let statement = statements[execution % 3]
          sqlite3_bind_int64(statement, 1, Int64(execution % 100 + 1))
          if sqlite3_step(statement) == SQLITE_ROW { sum &+= Int(sqlite3_column_int64(statement, 0)) }
          sqlite3_reset(statement)
        }
        return sum
      },
      amalgam: { db in
        let sqls = [
          "SELECT v FROM kv WHERE k = ?", "SELECT count(*) FROM kv WHERE k < ?", "SELECT max(v) FROM kv WHERE k <= ?",
        ]
        var sum = 0
        for execution in 0..<cacheExecutionCount {
          let statement = try db.cachedStatement(sql: sqls[execution % 3])
          try statement.bind(value: execution % 100 + 1, toParameter: 1)
          sum &+= try statement.front(Int.self) ?? 0
        }
        return sum
      }),
    Workload(
      number: 9, name: "custom scalar function on 1M rows", target: 1.5,
      c: { handle in
        let statement = try prepareC(handle, "SELECT sum(c_scale(n)) FROM numbers")
        defer { sqlite3_finalize(statement) }
        try checkC(sqlite3_step(statement), handle, SQLITE_ROW)
        return Int(sqlite3_column_int64(statement, 0))
      },
      amalgam: { db in
        try db.prepare(sql: "SELECT sum(amalgam_scale(n)) FROM numbers").front(Int.self) ?? 0
      }),
    Workload(
      number: 10, name: "insert 20k rows x 10 ints, named parameters as a literal", target: 2.0,
      prepareRun: emptyInserted, verifyRun: insertedChecksum,
      c: namedInsertC,
      amalgam: { db in
        try db.transaction { db in
          let statement = try db.prepare(sql: namedInsertSQL)
          for row in 0..<insertRowCount {
            let base = row * 10
            try statement.bind(parameters: [
              "i0": base, "i1": base + 1, "i2": base + 2, "i3": base + 3, "i4": base + 4,
              "i5": base + 5, "i6": base + 6, "i7": base + 7, "i8": base + 8, "i9": base + 9,
            ]).execute()
          }
        }
        return 0
      }),
    Workload(
      number: 11, name: "fetch 100k rows of 30-char text + 64-byte blob as [UInt8]", target: 1.25,
      c: textAndBlobC,
      amalgam: { db in
        let statement = try db.prepare(sql: "SELECT title, payload FROM documents")
        var sum = 0
        while let row = try statement.step() {
          let title: String = try row.value(at: 0)
          let payload: [UInt8] = try row.value(at: 1)
          sum &+= title.utf8.count &+ payload.count &+ Int(title.utf8.first ?? 0) &+ Int(payload[63])
        }
        return sum
      }),
    Workload(
      number: 28, name: "workload 7 read in place with row.withUnsafeBytes(at:), C in place too", target: 1.15,
      c: textAndBlobInPlaceC,
      amalgam: { db in
        let statement = try db.prepare(sql: "SELECT title, payload FROM documents")
        var sum = 0
        while let row = try statement.step() {
          sum &+= try row.withUnsafeBytes(at: 0) { text in (text?.count ?? 0) &+ Int(text?.first ?? 0) }
          sum &+= try row.withUnsafeBytes(at: 1) { blob in (blob?.count ?? 0) &+ Int(blob?[63] ?? 0) }
        }
        return sum
      }),
  ] + sessionWorkloads() + recordWorkloads() + virtualTableWorkloads() + optionalWorkloads()
}

/// The workloads of optional SQLite features, present when their trait is on.
func optionalWorkloads() -> [Workload] {
  var workloads: [Workload] = []
  #if ENABLE_FTS5
    workloads += fts5Workloads()
  #endif
  return workloads
}
