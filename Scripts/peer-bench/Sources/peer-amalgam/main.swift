// The Amalgam contender (`peer-amalgam amalgam`) and the C API contender on the same SQLite
// (`peer-amalgam c`): each workload written as Amalgam's documentation shows, and as C would.
import Amalgam
import AmalgamSQLite
import Foundation
import PeerHarness

struct Item: Codable {
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int
  init(base: Int) {
    (i0, i1, i2, i3, i4) = (base, base + 1, base + 2, base + 3, base + 4)
    (i5, i6, i7, i8, i9) = (base + 5, base + 6, base + 7, base + 8, base + 9)
  }
  var sum: Int { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

struct InsertedItem: TableRecord {
  static let tableName = "inserted"
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int
  init(base: Int) {
    (i0, i1, i2, i3, i4) = (base, base + 1, base + 2, base + 3, base + 4)
    (i5, i6, i7, i8, i9) = (base + 5, base + 6, base + 7, base + 8, base + 9)
  }
}

struct RowItem: RowConvertible {
  var sum: Int
  init(row: borrowing Row) throws {
    var sum = 0
    for column in 0..<10 { sum &+= try row.value(at: column) as Int }
    self.sum = sum
  }
}

struct KeyedRecord: TableRecord {
  static let tableName = "record"
  var id: Int64
  var name: String
  var score: Int
}

struct Failure: Error, CustomStringConvertible { let description: String }

let contender = CommandLine.arguments.dropFirst().first ?? ""
guard contender == "amalgam" || contender == "c" else {
  FileHandle.standardError.write(Data("usage: peer-amalgam amalgam|c --workload N [--repetitions R]\n".utf8))
  exit(2)
}

let db: Database
let handle: OpaquePointer
do {
  db = try Database()
  for sql in fixtureSQL { try db.execute(sql: sql) }
  handle = try db.sqliteHandle
} catch {
  FileHandle.standardError.write(Data("peer-amalgam: \(error)\n".utf8))
  exit(1)
}

func check(_ rc: Int32, _ expected: Int32 = SQLITE_OK) throws {
  if rc != expected { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
}

func prepareC(_ sql: String) throws -> OpaquePointer {
  var statement: OpaquePointer?
  try check(sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil))
  guard let statement else { throw Failure(description: "no statement") }
  return statement
}

func amalgamWorkload(_ number: Int) -> (() throws -> Int)? {
  switch number {
  case 1:
    return {
      var sum = 0
      try db.prepare(sql: "SELECT * FROM items").results { row in
        for column in 0..<10 { sum &+= try row.value(at: column) as Int }
      }
      return sum
    }
  case 2:
    return {
      var sum = 0
      try db.prepare(sql: "SELECT * FROM items").results { row in
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
    }
  case 3:
    return {
      try db.transaction { db in
        let statement = try db.prepare(sql: insertSQL)
        for row in 0..<insertRowCount {
          let base = row * 10
          try statement.bind(
            base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9
          ).execute()
        }
      }
      return 0
    }
  case 4:
    return {
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
    }
  case 5:
    return {
      var sum = 0
      let decoder = RowDecoder()
      try db.prepare(sql: "SELECT * FROM items").results { row in
        sum &+= try decoder.decode(Item.self, from: row).sum
      }
      return sum
    }
  case 6:
    return {
      try db.transaction { db in
        for row in 0..<insertRowCount { try db.insert(InsertedItem(base: row * 10)) }
      }
      return 0
    }
  case 7:
    return {
      var sum = 0
      try db.prepare(sql: "SELECT title, payload FROM documents").results { row in
        let title: String = try row.value(at: 0)
        let payload: Data = try row.value(at: 1)
        sum &+= title.utf8.count &+ payload.count &+ Int(title.utf8.first ?? 0) &+ Int(payload[63])
      }
      return sum
    }
  case 8:
    return {
      var sum = 0
      for execution in 0..<cacheExecutionCount {
        let statement = try db.cachedStatement(sql: cacheSQL[execution % 3])
        try statement.bind(value: execution % 100 + 1, toParameter: 1)
        sum &+= try statement.front(Int.self) ?? 0
      }
      return sum
    }
  case 13:
    return { try db.fetchAll(RowItem.self, sql: "SELECT * FROM items").reduce(0) { $0 &+ $1.sum } }
  case 14:
    return { try db.fetchAll(Item.self, sql: "SELECT * FROM items").reduce(0) { $0 &+ $1.sum } }
  case 16:
    return {
      try db.transaction { db in
        var sum = 0
        for id in 1...recordLoopCount {
          try db.insert(KeyedRecord(id: Int64(id), name: "player", score: id * 3))
          guard let record = try db.fetch(KeyedRecord.self, id: Int64(id)) else {
            throw Failure(description: "record \(id) not found")
          }
          sum &+= Int(record.id) &+ record.name.utf8.count &+ record.score
        }
        return sum
      }
    }
  default: return nil
  }
}

/// Reads every row's ten columns by index into `body`.
func scanItemsC(_ body: (OpaquePointer) -> Void) throws {
  let statement = try prepareC("SELECT * FROM items")
  defer { sqlite3_finalize(statement) }
  while sqlite3_step(statement) == SQLITE_ROW { body(statement) }
}

func insertC(_ sql: String, bind: (OpaquePointer, Int) -> Void) throws {
  try check(sqlite3_exec(handle, "BEGIN", nil, nil, nil))
  let statement = try prepareC(sql)
  for row in 0..<insertRowCount {
    bind(statement, row * 10)
    try check(sqlite3_step(statement), SQLITE_DONE)
    sqlite3_reset(statement)
  }
  sqlite3_finalize(statement)
  try check(sqlite3_exec(handle, "COMMIT", nil, nil, nil))
}

func cWorkload(_ number: Int) -> (() throws -> Int)? {
  switch number {
  case 1, 2, 5, 13, 14:
    // The C way for each: read by index (names, looked up once, are the same indexes here).
    return {
      var items: [Int] = []
      var sum = 0
      let collect = number == 13 || number == 14
      try scanItemsC { statement in
        var rowSum = 0
        for column in Int32(0)..<10 { rowSum &+= Int(sqlite3_column_int64(statement, column)) }
        if collect { items.append(rowSum) } else { sum &+= rowSum }
      }
      return collect ? items.reduce(0, &+) : sum
    }
  case 3:
    return {
      try insertC(insertSQL) { statement, base in
        for column in Int32(0)..<10 { sqlite3_bind_int64(statement, column + 1, Int64(base) + Int64(column)) }
      }
      return 0
    }
  case 4, 6:
    return {
      let names = (0..<10).map { ":i\($0)" }
      var indexes: [Int32] = []
      try insertC(namedInsertSQL) { statement, base in
        if indexes.isEmpty { indexes = names.map { sqlite3_bind_parameter_index(statement, $0) } }
        for (column, index) in indexes.enumerated() { sqlite3_bind_int64(statement, index, Int64(base + column)) }
      }
      return 0
    }
  case 7:
    return {
      let statement = try prepareC("SELECT title, payload FROM documents")
      defer { sqlite3_finalize(statement) }
      var sum = 0
      while sqlite3_step(statement) == SQLITE_ROW {
        let textCount = Int(sqlite3_column_bytes(statement, 0))
        guard let textBytes = sqlite3_column_text(statement, 0), let blobBytes = sqlite3_column_blob(statement, 1),
          let text = malloc(textCount + 1), let blob = malloc(64)
        else { throw Failure(description: "out of memory") }
        let blobCount = Int(sqlite3_column_bytes(statement, 1))
        memcpy(text, textBytes, textCount)
        memcpy(blob, blobBytes, blobCount)
        sum &+=
          textCount &+ blobCount &+ Int(text.load(as: UInt8.self)) &+ Int(blob.load(fromByteOffset: 63, as: UInt8.self))
        free(text)
        free(blob)
      }
      return sum
    }
  case 8:
    return {
      let statements = try cacheSQL.map { try prepareC($0) }
      defer { statements.forEach { sqlite3_finalize($0) } }
      var sum = 0
      for execution in 0..<cacheExecutionCount {
        let statement = statements[execution % 3]
        sqlite3_bind_int64(statement, 1, Int64(execution % 100 + 1))
        if sqlite3_step(statement) == SQLITE_ROW { sum &+= Int(sqlite3_column_int64(statement, 0)) }
        sqlite3_reset(statement)
      }
      return sum
    }
  case 16:
    return {
      try check(sqlite3_exec(handle, "BEGIN", nil, nil, nil))
      let insert = try prepareC("INSERT INTO record(id, name, score) VALUES (:id, :name, :score)")
      let select = try prepareC("SELECT * FROM record WHERE id = ?")
      defer {
        sqlite3_finalize(insert)
        sqlite3_finalize(select)
      }
      let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
      var sum = 0
      for id in 1...recordLoopCount {
        sqlite3_bind_int64(insert, 1, Int64(id))
        sqlite3_bind_text(insert, 2, "player", -1, transient)
        sqlite3_bind_int64(insert, 3, Int64(id * 3))
        try check(sqlite3_step(insert), SQLITE_DONE)
        sqlite3_reset(insert)
        sqlite3_bind_int64(select, 1, Int64(id))
        try check(sqlite3_step(select), SQLITE_ROW)
        let name = String(cString: sqlite3_column_text(select, 1))
        sum &+= Int(sqlite3_column_int64(select, 0)) &+ name.utf8.count &+ Int(sqlite3_column_int64(select, 2))
        sqlite3_reset(select)
      }
      try check(sqlite3_exec(handle, "COMMIT", nil, nil, nil))
      return sum
    }
  default: return nil
  }
}

runContender(
  arguments: Array(CommandLine.arguments.dropFirst(2)),
  reset: { for sql in resetSQL { try db.execute(sql: sql) } },
  verify: { checksum in checksum &+ (try db.prepare(sql: insertedChecksumSQL).front(Int.self) ?? 0) },
  workload: contender == "c" ? cWorkload : amalgamWorkload)
