// Fuzzes RowDecoder: rows whose column names and values (every storage class, JSON-looking text,
// arbitrary blobs) come from the fuzzer's bytes are decoded into records with properties of every kind
// RowDecoder handles (numbers, text, blobs, dates, UUIDs, URLs, decimals, enums, nested JSON values,
// arrays, dictionaries, optionals), by keyed, unkeyed and single-value containers. Decoding may throw;
// it must not crash, and a decoded integer property holds the column's integer.
import Amalgam
import Foundation
import FuzzSupport

enum Kind: String, Codable { case small, large }
enum Level: Int, Codable { case low = 1, high = 2 }

struct Nested: Codable {
  var name: String
  var values: [Int]?
  var child: [String: Double]?
}

struct Record: Decodable {
  var id: Int64
  var small: Int8?
  var unsigned: UInt32?
  var real: Double?
  var single: Float?
  var text: String?
  var bytes: Data?
  var date: Date?
  var flag: Bool?
  var uuid: UUID?
  var url: URL?
  var decimal: Decimal?
  var kind: Kind?
  var level: Level?
  var tags: [String]?
  var nested: Nested?
  var map: [String: Int]?
}

/// A record that reads every column by name, whatever the names are.
struct AnyColumns: Decodable {
  var columns: [String: String?]
  init(from decoder: any Decoder) throws {
    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int?
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { return nil }
    }
    let container = try decoder.container(keyedBy: Key.self)
    columns = [:]
    for key in container.allKeys {
      columns[key.stringValue] = try? container.decode(String?.self, forKey: key)
      _ = try? container.decodeNil(forKey: key)
      _ = try? container.decode(Int64.self, forKey: key)
      _ = try? container.decode(Double.self, forKey: key)
      _ = try? container.decode(Data.self, forKey: key)
      _ = try? container.decode(Nested.self, forKey: key)
    }
  }
}

/// Reads the columns in order with an unkeyed container.
struct Positional: Decodable {
  var values: [String?]
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    values = []
    while !container.isAtEnd {
      // A decode that throws does not move on (as with any Decoder): stop there.
      if try container.decodeNil() {
        values.append(nil)
      } else {
        guard let value = try? container.decode(String.self) else { break }
        values.append(value)
        if container.isAtEnd { break }
        guard (try? container.decode(Int.self)) != nil else { break }
      }
    }
  }
}

let recordColumns = [
  "id", "small", "unsigned", "real", "single", "text", "bytes", "date", "flag", "uuid", "url", "decimal", "kind",
  "level", "tags", "nested", "map",
]

nonisolated(unsafe) let database = try! Database()  // The fuzzer calls the target on one thread.

func quoted(_ name: String) -> String {
  "\"" + name.replacing("\"", with: "\"\"") + "\""
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  let mode = input.byte()
  var names: [String] = []
  var values: [DatabaseValue] = []
  while !input.isEmpty && names.count < 24 {
    let selector = input.byte()
    let name: String
    if selector & 0x80 == 0 {
      name = recordColumns[Int(selector) % recordColumns.count]
    } else {
      name = String(input.text(maxCount: 16).unicodeScalars.filter { $0 != "\0" })
    }
    var value = input.value()
    if selector & 0x40 != 0, case .text(let text) = value {
      // JSON-looking text for the nested properties.
      value = .text((selector & 0x20 != 0 ? "[" : "{") + text)
    }
    names.append(name)
    values.append(value)
  }
  if names.isEmpty { return 0 }
  let sql = "SELECT " + names.enumerated().map { "?\($0.offset + 1) AS \(quoted($0.element))" }.joined(separator: ", ")
  let statement: Statement
  do {
    statement = try database.prepare(sql: sql)
    try statement.bind(parameterValues: values)
  } catch {
    return 0
  }
  let decoder = RowDecoder(dateFormat: [.iso8601, .unixTime, .julianDay][Int(mode % 3)])
  do {
    guard let row = try statement.step() else {
      fuzzCheck(false, "a SELECT of values returned no row")
      return 0
    }
    if let record = try? row.decode(Record.self, using: decoder) {
      // The first column named "id" is the one a keyed read finds.
      if let index = names.firstIndex(of: "id"), case .integer(let integer) = values[index] {
        fuzzCheck(record.id == integer, "id \(integer) decoded as \(record.id)")
      }
    }
    _ = try? row.decode(AnyColumns.self, using: decoder)
    if let positional = try? row.decode(Positional.self, using: decoder) {
      fuzzCheck(positional.values.count <= values.count, "more values than columns: \(positional.values)")
    }
    _ = try? row.decode(Kind.self, using: decoder)
    _ = try? row.decode(Level?.self, using: decoder)
    _ = try? row.decode(Nested.self, using: decoder)
    _ = try? row.decode([String: String].self, using: decoder)
    _ = try? row.decode([Int?].self, using: decoder)
    _ = try? row.decode(Date.self, using: decoder)
    _ = try? row.decode(Decimal.self, using: decoder)
  } catch {
    fuzzCheck(false, "stepping a SELECT of values failed: \(error)")
  }
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_row_decoder_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
