// Fuzzes vector search (sqlite-vec, the VECTOR trait) with bytes it does not control: the vector functions
// (vec_f32, vec_int8, vec_bit, vec_distance_*, vec_length, vec_to_json, vec_normalize, vec_slice, vec_add,
// vec_sub, vec_quantize_*) on any value, inserts into vec0 tables of each element type with any vector,
// rowid and metadata, KNN queries with any query vector, k, metadata filter and rowid set, `vec0` tables
// created from fuzzed column definitions, and the Swift vector types read from any value and searched with.
// Nothing may crash; errors are fine. What is checked besides: a vector the Swift layer accepts is one
// sqlite-vec accepts, and a KNN search returns at most k rows ordered by distance.
import Amalgam
import Foundation
import FuzzSupport

/// The connection every run reuses (the fuzzer calls the target on one thread). Its vec0 tables have 4
/// dimensions (float32 L2, int8 cosine) and 16 bits, with a text metadata column and a partition key.
nonisolated(unsafe) let database: Database = {
  let db = try! Database()
  try! db.batch(
    sql: """
      CREATE VIRTUAL TABLE vf USING vec0(v float[4], kind text, +note text);
      CREATE VIRTUAL TABLE vi USING vec0(user integer partition key, v int8[4] distance_metric=cosine);
      CREATE VIRTUAL TABLE vb USING vec0(v bit[16], score float);
      """)
  return db
}()

/// The vector functions that take one value, then those that take two.
let unaryFunctions = [
  "vec_f32", "vec_int8", "vec_bit", "vec_length", "vec_to_json", "vec_normalize", "vec_quantize_binary",
  "vec_type",
]
let binaryFunctions = [
  "vec_distance_l2", "vec_distance_cosine", "vec_distance_l1", "vec_distance_hamming", "vec_add", "vec_sub",
  "vec_slice", "vec_quantize_int8",
]
let tables = ["vf", "vi", "vb"]

/// A value that is often vector-shaped: a BLOB of a whole or broken number of elements, JSON text (valid,
/// truncated, with NaN or huge numbers), or any value.
func vectorish(_ input: inout FuzzInput) -> DatabaseValue {
  switch input.byte() % 6 {
  case 0: return .blob(Data(input.chunk(maxCount: 64)))
  case 1:
    let count = Int(input.byte() % 9)
    return .blob(Data((0..<count * 4).map { _ in input.byte() }))
  case 2:
    let count = Int(input.byte() % 9)
    let numbers = (0..<count).map { _ in String(input.integer(size: 2)) }
    return .text("[" + numbers.joined(separator: ",") + (input.byte() % 4 == 0 ? "" : "]"))
  case 3:
    let words = ["1e39", "-1e39", "NaN", "inf", "0x10", "1.5", "-0", " ", ",", "[", "]", "\"", "128", "-129"]
    let count = Int(input.byte() % 9)
    return .text("[" + (0..<count).map { _ in words[Int(input.byte()) % words.count] }.joined(separator: ",") + "]")
  case 4: return .text(input.text(maxCount: 64))
  default: return input.value()
  }
}

/// Runs `sql` with `arguments` to its end; returns the rows' first two columns, or nil when it threw.
@discardableResult
func run(_ sql: String, _ arguments: [DatabaseValue]) -> [(DatabaseValue, DatabaseValue)]? {
  do {
    let statement = try database.prepare(sql: sql).bind(parameterValues: arguments)
    var rows: [(DatabaseValue, DatabaseValue)] = []
    try statement.results { row in
      let values = try row.values()
      rows.append((values.first ?? .null, values.dropFirst().first ?? .null))
    }
    return rows
  } catch {
    return nil
  }
}

/// KNN rows must come nearest first, at most k of them.
func checkKNN(_ rows: [(DatabaseValue, DatabaseValue)]?, k: Int64, _ what: String) {
  guard let rows else { return }
  fuzzCheck(k < 0 || rows.count <= k, "\(what): \(rows.count) rows for k = \(k)")
  let distances = rows.compactMap { row -> Double? in
    if case .real(let distance) = row.1 { return distance }
    return nil
  }
  for (a, b) in zip(distances, distances.dropFirst()) where !a.isNaN && !b.isNaN {
    fuzzCheck(a <= b, "\(what): distances out of order: \(distances)")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  // A few operations per input, so that inserts and queries meet.
  for _ in 0..<Int(input.byte() % 8 + 1) where !input.isEmpty {
    switch input.byte() % 10 {
    case 0:
      let function = unaryFunctions[Int(input.byte()) % unaryFunctions.count]
      run("SELECT \(function)(?)", [vectorish(&input)])
    case 1:
      let function = binaryFunctions[Int(input.byte()) % binaryFunctions.count]
      let extra = function == "vec_slice" ? ", ?" : ""
      let third: [DatabaseValue] = function == "vec_slice" ? [.integer(input.integer(size: 1))] : []
      let second: DatabaseValue =
        function == "vec_slice"
        ? .integer(input.integer(size: 1))
        : function == "vec_quantize_int8" ? .text(["unit", "x", ""][Int(input.byte()) % 3]) : vectorish(&input)
      run("SELECT \(function)(?, ?\(extra))", [vectorish(&input), second] + third)
    case 2, 3:
      let table = tables[Int(input.byte()) % tables.count]
      let rowid: DatabaseValue = input.byte() % 4 == 0 ? input.value() : .integer(input.integer(size: 1))
      switch table {
      case "vf":
        run(
          "INSERT INTO vf(rowid, v, kind, note) VALUES (?, ?, ?, ?)",
          [rowid, vectorish(&input), input.value(), input.value()])
      case "vi":
        run("INSERT INTO vi(rowid, user, v) VALUES (?, ?, vec_int8(?))", [rowid, input.value(), vectorish(&input)])
      default:
        run("INSERT INTO vb(rowid, v, score) VALUES (?, vec_bit(?), ?)", [rowid, vectorish(&input), input.value()])
      }
    case 4, 5:
      let table = tables[Int(input.byte()) % tables.count]
      let k = input.integer(size: 2)
      let query = vectorish(&input)
      let cast = table == "vi" ? "vec_int8(?)" : table == "vb" ? "vec_bit(?)" : "?"
      var filter = ""
      var arguments: [DatabaseValue] = [query, .integer(k)]
      switch input.byte() % 4 {
      case 1 where table == "vf":
        filter = " AND kind = ?"
        arguments.append(input.value())
      case 1 where table == "vi":
        filter = " AND user = ?"
        arguments.append(input.value())
      case 2:
        filter = " AND rowid IN (?, ?, ?)"
        arguments += [input.value(), .integer(input.integer(size: 1)), .integer(input.integer(size: 1))]
      case 3:
        filter = " AND distance < ?"
        arguments.append(input.value())
      default: break
      }
      let rows = run(
        "SELECT rowid, distance FROM \(table) WHERE v MATCH \(cast) AND k = ?\(filter) ORDER BY distance", arguments)
      checkKNN(rows, k: k, "\(table) KNN\(filter)")
    case 6:
      // The Swift types: read any value; what they accept sqlite-vec must accept too.
      let value = vectorish(&input)
      if let vector = try? Float32Vector(databaseValue: value), (try? vector.validate()) != nil {
        fuzzCheck(run("SELECT vec_length(?)", [try! vector.databaseValue()]) != nil, "Float32Vector \(vector)")
        if vector.dimensions == 4 {
          let k = Int(input.integer(size: 1))
          if let matches = try? database.nearestNeighbors(to: vector, in: "vf", column: "v", k: k) {
            fuzzCheck(matches.count <= max(k, 0), "nearestNeighbors: \(matches.count) for k = \(k)")
          }
        }
      }
      if let vector = try? Int8Vector(databaseValue: value), (try? vector.validate()) != nil {
        fuzzCheck(run("SELECT vec_length(vec_int8(?))", [try! vector.databaseValue()]) != nil, "Int8Vector \(vector)")
      }
      if let vector = try? BitVector(databaseValue: value), (try? vector.validate()) != nil {
        fuzzCheck(run("SELECT vec_length(vec_bit(?))", [try! vector.databaseValue()]) != nil, "BitVector \(vector)")
      }
      if case .text(let text) = value {
        _ = try? Float32Vector(json: text)
        _ = try? Int8Vector(json: text)
      }
    case 7:
      // A vec0 table from fuzzed column definitions, used once and dropped.
      let definition = input.text(maxCount: 80)
      if run("CREATE VIRTUAL TABLE temp.fuzz USING vec0(\(definition))", []) != nil {
        run("INSERT INTO temp.fuzz(rowid, v) VALUES (1, ?)", [vectorish(&input)])
        run("SELECT rowid, distance FROM temp.fuzz WHERE v MATCH ? AND k = 3", [vectorish(&input)])
        run("SELECT * FROM temp.fuzz", [])
        run("DROP TABLE temp.fuzz", [])
      }
    case 8:
      let table = tables[Int(input.byte()) % tables.count]
      if input.byte() % 2 == 0 {
        run("DELETE FROM \(table) WHERE rowid = ?", [.integer(input.integer(size: 1))])
      } else {
        run("UPDATE \(table) SET v = ? WHERE rowid = ?", [vectorish(&input), .integer(input.integer(size: 1))])
      }
    default:
      let table = tables[Int(input.byte()) % tables.count]
      run("SELECT rowid, v FROM \(table) WHERE rowid = ?", [.integer(input.integer(size: 1))])
      run("SELECT count(*) FROM \(table)", [])
    }
  }
  // Keep the tables small: the fuzzer runs millions of inputs on one connection.
  for table in tables {
    if case .integer(let count)? = run("SELECT count(*) FROM \(table)", [])?.first?.0, count >= 200 {
      run("DELETE FROM \(table)", [])
    }
  }
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_vector_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
