// The GRDB contender: each workload written the way GRDB's documentation tells users to write it, on
// the SQLite GRDB links (Debian's libsqlite3 here).
import Foundation
import GRDB
import PeerHarness

struct Item: Codable, FetchableRecord {
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int
  var sum: Int { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

struct InsertedItem: Codable, PersistableRecord {
  static let databaseTableName = "inserted"
  var i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int
  init(base: Int) {
    (i0, i1, i2, i3, i4) = (base, base + 1, base + 2, base + 3, base + 4)
    (i5, i6, i7, i8, i9) = (base + 5, base + 6, base + 7, base + 8, base + 9)
  }
}

struct RowItem: FetchableRecord {
  var sum: Int
  init(row: Row) throws {
    var sum = 0
    for column in 0..<10 { sum &+= row[column] as Int }
    self.sum = sum
  }
}

struct KeyedRecord: Codable, FetchableRecord, PersistableRecord {
  static let databaseTableName = "record"
  var id: Int64
  var name: String
  var score: Int
}

struct Failure: Error { let description: String }

let dbQueue: DatabaseQueue
do {
  dbQueue = try DatabaseQueue()
  try dbQueue.inDatabase { db in for sql in fixtureSQL { try db.execute(sql: sql) } }
} catch {
  FileHandle.standardError.write(Data("peer-grdb: \(error)\n".utf8))
  exit(1)
}

func workload(_ number: Int) -> (() throws -> Int)? {
  switch number {
  case 1:
    return {
      try dbQueue.inDatabase { db in
        var sum = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM items")
        while let row = try rows.next() {
          for column in 0..<10 { sum &+= row[column] as Int }
        }
        return sum
      }
    }
  case 2:
    return {
      try dbQueue.inDatabase { db in
        var sum = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM items")
        while let row = try rows.next() {
          sum &+= row["i0"] as Int
          sum &+= row["i1"] as Int
          sum &+= row["i2"] as Int
          sum &+= row["i3"] as Int
          sum &+= row["i4"] as Int
          sum &+= row["i5"] as Int
          sum &+= row["i6"] as Int
          sum &+= row["i7"] as Int
          sum &+= row["i8"] as Int
          sum &+= row["i9"] as Int
        }
        return sum
      }
    }
  case 3:
    return {
      try dbQueue.write { db in
        let statement = try db.makeStatement(sql: insertSQL)
        for row in 0..<insertRowCount {
          let base = row * 10
          try statement.execute(arguments: [
            base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9,
          ])
        }
      }
      return 0
    }
  case 4:
    return {
      try dbQueue.write { db in
        let statement = try db.makeStatement(sql: namedInsertSQL)
        for row in 0..<insertRowCount {
          let base = row * 10
          try statement.execute(arguments: [
            "i0": base, "i1": base + 1, "i2": base + 2, "i3": base + 3, "i4": base + 4,
            "i5": base + 5, "i6": base + 6, "i7": base + 7, "i8": base + 8, "i9": base + 9,
          ])
        }
      }
      return 0
    }
  case 5:
    return {
      try dbQueue.inDatabase { db in
        var sum = 0
        let items = try Item.fetchCursor(db, sql: "SELECT * FROM items")
        while let item = try items.next() { sum &+= item.sum }
        return sum
      }
    }
  case 6:
    return {
      try dbQueue.write { db in
        for row in 0..<insertRowCount { try InsertedItem(base: row * 10).insert(db) }
      }
      return 0
    }
  case 7:
    return {
      try dbQueue.inDatabase { db in
        var sum = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT title, payload FROM documents")
        while let row = try rows.next() {
          let title: String = row[0]
          let payload: Data = row[1]
          sum &+= title.utf8.count &+ payload.count &+ Int(title.utf8.first ?? 0) &+ Int(payload[63])
        }
        return sum
      }
    }
  case 8:
    return {
      try dbQueue.inDatabase { db in
        var sum = 0
        for execution in 0..<cacheExecutionCount {
          let statement = try db.cachedStatement(sql: cacheSQL[execution % 3])
          sum &+= try Int.fetchOne(statement, arguments: [execution % 100 + 1]) ?? 0
        }
        return sum
      }
    }
  case 13:
    return {
      try dbQueue.inDatabase { db in
        try RowItem.fetchAll(db, sql: "SELECT * FROM items").reduce(0) { $0 &+ $1.sum }
      }
    }
  case 14:
    return {
      try dbQueue.inDatabase { db in
        try Item.fetchAll(db, sql: "SELECT * FROM items").reduce(0) { $0 &+ $1.sum }
      }
    }
  case 16:
    return {
      try dbQueue.write { db in
        var sum = 0
        for id in 1...recordLoopCount {
          try KeyedRecord(id: Int64(id), name: "player", score: id * 3).insert(db)
          guard let record = try KeyedRecord.fetchOne(db, key: Int64(id)) else {
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

runContender(
  arguments: Array(CommandLine.arguments.dropFirst()),
  reset: { try dbQueue.inDatabase { db in for sql in resetSQL { try db.execute(sql: sql) } } },
  verify: { checksum in
    checksum &+ (try dbQueue.inDatabase { db in try Int.fetchOne(db, sql: insertedChecksumSQL) } ?? 0)
  },
  workload: workload)
