// Fuzzes Database.deserialize: the fuzzer's bytes are a database image (given SQLite's file header when
// the first byte asks, so that the fuzzer gets past the header check), loaded read-only or writable, then
// checked with PRAGMA quick_check, its schema read, a few rows of each table read through Row and
// DatabaseValue, and the database serialized back. Corrupt images must throw, never crash. A progress
// handler bounds each statement, since a corrupt image can describe very deep trees.
import Amalgam
import Foundation
import FuzzSupport

let header = Array("SQLite format 3\0".utf8)

func quoted(_ name: String) -> String {
  "\"" + name.replacing("\"", with: "\"\"") + "\""
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  let flags = input.byte()
  var image = input.rest()
  if flags & 1 != 0 && !image.starts(with: header) { image = header + image }
  guard let db = try? Database() else {
    fuzzCheck(false, "cannot open an in-memory database")
    return 0
  }
  // Bound the work of each statement over a corrupt image.
  var steps = 0
  try? db.setProgressHandler(every: 1000) {
    steps += 1
    return steps > 200 ? .interrupt : .continue
  }
  do {
    try db.deserialize(image, readOnly: flags & 2 != 0, resizable: flags & 4 != 0, maximumSize: 1 << 20)
  } catch {
    return 0
  }
  steps = 0
  _ = try? db.prepare(sql: "PRAGMA quick_check").allRows()
  steps = 0
  var tables: [String] = []
  if let statement = try? db.prepare(sql: "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema") {
    try? statement.results { row in
      _ = try? row.values()
      if (try? row.value(at: 0, as: String.self)) == "table", let name = try? row.value(at: 1, as: String.self) {
        tables.append(name)
      }
    }
  }
  for table in tables.prefix(8) {
    steps = 0
    guard let statement = try? db.prepare(sql: "SELECT * FROM \(quoted(table)) LIMIT 20") else { continue }
    try? statement.results { row in
      for index in 0..<row.count {
        _ = try? row.value(at: index, as: DatabaseValue.self)
        _ = try? row.value(at: index, as: String?.self)
        _ = try? row.value(at: index, as: Data?.self)
      }
      _ = try? row.dictionary()
    }
  }
  if flags & 8 != 0, flags & 2 == 0 {
    steps = 0
    try? db.batch(sql: "CREATE TABLE IF NOT EXISTS fuzz_extra(a); INSERT INTO fuzz_extra VALUES (randomblob(100))")
  }
  steps = 0
  if let bytes = try? db.serialize() {
    // What came out is a database SQLite wrote: it loads again.
    let again = try? Database()
    _ = try? again?.deserialize(bytes, readOnly: true)
  }
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_deserialize_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
