import Amalgam
import AmalgamSQLite

// Workloads 12 to 15: the everyday fetches and records (issue 16's speed targets).

/// Workload 12's struct, built by reading columns by index.
struct RowItem: RowConvertible {
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int
  init(row: borrowing Row) throws {
    i0 = try row.value(at: 0)
    i1 = try row.value(at: 1)
    i2 = try row.value(at: 2)
    i3 = try row.value(at: 3)
    i4 = try row.value(at: 4)
    i5 = try row.value(at: 5)
    i6 = try row.value(at: 6)
    i7 = try row.value(at: 7)
    i8 = try row.value(at: 8)
    i9 = try row.value(at: 9)
  }
  var sum: Int { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

/// Workload 14's record: the ten integers of `inserted`.
struct InsertedItem: TableRecord {
  static let tableName = "inserted"
  static let primaryKey = ["i0"]
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int
}

/// Workload 15's record.
struct KeyedRecord: TableRecord {
  static let tableName = "record"
  var id: Int64
  var name: String
  var score: Int
}

/// Workload 23's record: workload 16's, with its own `encode(to:)` and `init(row:)` instead of `Codable`.
struct WrittenRecord: TableRecord, RowConvertible {
  static let tableName = "record"
  var id: Int64
  var name: String
  var score: Int

  init(id: Int64, name: String, score: Int) {
    self.id = id
    self.name = name
    self.score = score
  }

  func encode(to container: inout PersistenceContainer) throws {
    try container.encode(id, forKey: "id")
    try container.encode(name, forKey: "name")
    try container.encode(score, forKey: "score")
  }

  init(row: borrowing Row) throws {
    id = try row.value(named: "id")
    name = try row.value(named: "name")
    score = try row.value(named: "score")
  }
}

let recordLoopCount = 10_000

/// The C side of workloads 16 and 23: insert a row, then read it back by primary key, 10,000 times.
func recordLoopC(_ handle: OpaquePointer) throws -> Int {
  try checkC(sqlite3_exec(handle, "BEGIN", nil, nil, nil), handle)
  let insert = try prepareC(handle, #"INSERT INTO "record"("id", "name", "score") VALUES (:id, :name, :score)"#)
  let select = try prepareC(handle, #"SELECT * FROM "record" WHERE "id" = ?"#)
  defer {
    sqlite3_finalize(insert)
    sqlite3_finalize(select)
  }
  // SQLite copies the name (SQLITE_TRANSIENT), as Amalgam's String binding does.
  let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
  var sum = 0
  for id in 1...recordLoopCount {
    sqlite3_bind_int64(insert, 1, Int64(id))
    sqlite3_bind_text(insert, 2, "player", -1, transient)
    sqlite3_bind_int64(insert, 3, Int64(id * 3))
    try checkC(sqlite3_step(insert), handle, SQLITE_DONE)
    sqlite3_reset(insert)
    sqlite3_bind_int64(select, 1, Int64(id))
    try checkC(sqlite3_step(select), handle, SQLITE_ROW)
    let name = String(cString: sqlite3_column_text(select, 1))
    sum &+= Int(sqlite3_column_int64(select, 0)) &+ name.utf8.count &+ Int(sqlite3_column_int64(select, 2))
    sqlite3_reset(select)
  }
  try checkC(sqlite3_exec(handle, "COMMIT", nil, nil, nil), handle)
  return sum
}

/// The record of workloads 16 and 23, whichever way it is read and written.
protocol LoopRecord: TableRecord {
  init(id: Int64, name: String, score: Int)
  var id: Int64 { get }
  var name: String { get }
  var score: Int { get }
}

extension KeyedRecord: LoopRecord {}
extension WrittenRecord: LoopRecord {}

/// The Amalgam side of workloads 16 and 23: insert a record, then fetch it back by primary key, 10,000
/// times. (Generic in this module, so it is specialised for each record type.)
func recordLoop<R: LoopRecord>(_ db: Database, _ type: R.Type) throws -> Int {
  try db.transaction { db in
    var sum = 0
    for id in 1...recordLoopCount {
      try db.insert(R(id: Int64(id), name: "player", score: id * 3))
      guard let record = try db.fetch(R.self, id: Int64(id)) else {
        throw BenchmarkFailure(description: "record \(id) not found")
      }
      sum &+= Int(record.id) &+ record.name.utf8.count &+ record.score
    }
    return sum
  }
}

/// Empties workloads 16 and 23's table.
func emptyRecordTable(_ db: Database) throws {
  try db.execute(sql: "CREATE TABLE IF NOT EXISTS record(id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
  try db.execute(sql: "DELETE FROM record")
}

/// The C side of workloads 12 and 13: the struct built from each row by index, into an array, as the
/// fetches return.
func fetchItemsC(_ handle: OpaquePointer) throws -> Int {
  let statement = try prepareC(handle, "SELECT * FROM items")
  defer { sqlite3_finalize(statement) }
  var items: [Item] = []
  while sqlite3_step(statement) == SQLITE_ROW {
    let item = Item(
      i0: Int(sqlite3_column_int64(statement, 0)), i1: Int(sqlite3_column_int64(statement, 1)),
      i2: Int(sqlite3_column_int64(statement, 2)), i3: Int(sqlite3_column_int64(statement, 3)),
      i4: Int(sqlite3_column_int64(statement, 4)), i5: Int(sqlite3_column_int64(statement, 5)),
      i6: Int(sqlite3_column_int64(statement, 6)), i7: Int(sqlite3_column_int64(statement, 7)),
      i8: Int(sqlite3_column_int64(statement, 8)), i9: Int(sqlite3_column_int64(statement, 9)))
    items.append(item)
  }
  return items.reduce(0) { $0 &+ $1.sum }
}

func recordWorkloads() -> [Workload] {
  [
    Workload(
      number: 13, name: "db.fetchAll 100k RowConvertible structs (init(row:))", target: 1.15,
      c: fetchItemsC,
      amalgam: { db in
        try db.fetchAll(RowItem.self, sql: "SELECT * FROM items").reduce(0) { $0 &+ $1.sum }
      }),
    Workload(
      number: 14, name: "db.fetchAll 100k Decodable structs", target: 3.0,
      c: fetchItemsC,
      amalgam: { db in
        try db.fetchAll(Item.self, sql: "SELECT * FROM items").reduce(0) { $0 &+ $1.sum }
      }),
    Workload(
      number: 15, name: "db.insert 20k Encodable records", target: 1.75,
      prepareRun: emptyInserted, verifyRun: insertedChecksum,
      c: namedInsertC,
      amalgam: { db in
        try db.transaction { db in
          for row in 0..<insertRowCount {
            let base = row * 10
            try db.insert(
              InsertedItem(
                i0: base, i1: base + 1, i2: base + 2, i3: base + 3, i4: base + 4, i5: base + 5, i6: base + 6,
                i7: base + 7, i8: base + 8, i9: base + 9))
          }
        }
        return 0
      }),
    Workload(
      number: 16, name: "10k record inserts, each fetched back by primary key", target: 1.6,
      prepareRun: emptyRecordTable,
      c: recordLoopC,
      amalgam: { db in try recordLoop(db, KeyedRecord.self) }),
    Workload(
      number: 23, name: "workload 16 with a record's own encode(to:) and init(row:)", target: 1.3,
      prepareRun: emptyRecordTable,
      c: recordLoopC,
      amalgam: { db in try recordLoop(db, WrittenRecord.self) }),
  ]
}
