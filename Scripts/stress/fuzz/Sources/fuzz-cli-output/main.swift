// Fuzzes the command-line tool's output formats (`amalgam sql --csv`, `--json`, and the table), whose
// sources are linked here from Sources/amalgam: result sets whose column names and values come from the
// fuzzer's bytes are written, then read back:
// - the CSV is parsed as RFC 4180 and gives back every name and every value's spelling;
// - the JSON is parsed with JSONSerialization and gives back every value (numbers, text, null, hex);
// - the table has exactly one line per row plus the header and the separator.
import Amalgam
import Foundation
import FuzzSupport

/// The tool's output formats (in the tool, declared beside its argument parsing).
enum OutputFormat: Equatable {
  case table
  case json
  case csv
}

/// A file the formatters write to, read back after each run.
let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-fuzz-cli-\(getpid())").path

/// Formats one result set and returns the bytes written.
func render(_ format: OutputFormat, columns: [String], rows: [[DatabaseValue]], chunkSize: Int) -> [UInt8] {
  _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
  guard let handle = FileHandle(forWritingAtPath: outputPath) else { fatalError("cannot write \(outputPath)") }
  let output = OutputBuffer(handle: handle, chunkSize: chunkSize)
  var formatter = makeFormatter(format, output: output)
  formatter.begin(columns: columns)
  for row in rows { formatter.write(row: row) }
  formatter.end()
  output.flush()
  try? handle.close()
  fuzzCheck(output.writeError == nil, "writing failed: \(String(describing: output.writeError))")
  return Array(FileManager.default.contents(atPath: outputPath) ?? Data())
}

/// Splits RFC 4180 CSV (CRLF line ends, fields in double quotes with doubled quotes) into records.
func parseCSV(_ bytes: [UInt8]) -> [[String]]? {
  var records: [[String]] = []
  var record: [String] = []
  var field: [UInt8] = []
  var index = 0
  var quoted = false
  var afterQuote = false
  while index < bytes.count {
    let byte = bytes[index]
    if quoted {
      if byte == UInt8(ascii: "\"") {
        if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
          field.append(byte)
          index += 1
        } else {
          quoted = false
          afterQuote = true
        }
      } else {
        field.append(byte)
      }
    } else if byte == UInt8(ascii: "\"") && field.isEmpty && !afterQuote {
      quoted = true
    } else if byte == UInt8(ascii: ",") {
      record.append(String(decoding: field, as: UTF8.self))
      field = []
      afterQuote = false
    } else if byte == UInt8(ascii: "\r") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") {
      record.append(String(decoding: field, as: UTF8.self))
      records.append(record)
      record = []
      field = []
      afterQuote = false
      index += 1
    } else {
      if afterQuote { return nil }  // text after a closing quote
      if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") { return nil }  // a bare line break
      field.append(byte)
    }
    index += 1
  }
  guard !quoted, field.isEmpty, record.isEmpty else { return nil }  // the last record ends with CRLF
  return records
}

/// How the CSV spells a value.
func csvSpelling(_ value: DatabaseValue) -> String {
  switch value {
  case .null: ""
  case .integer(let integer): String(integer)
  case .real(let real): ValueText.real(real)
  case .text(let text): text
  case .blob(let data): ValueText.hex(data)
  }
}

func checkCSV(columns: [String], rows: [[DatabaseValue]], chunkSize: Int) {
  let bytes = render(.csv, columns: columns, rows: rows, chunkSize: chunkSize)
  guard let records = parseCSV(bytes) else {
    fuzzCheck(false, "the CSV does not parse: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
    return
  }
  // A result set of zero columns is an empty header line.
  let expected = [columns] + rows.map { $0.map(csvSpelling) }
  let normalized = records.map { $0 == [""] && columns.isEmpty ? [] : $0 }
  fuzzCheck(normalized == expected, "CSV \(normalized) for \(expected)")
}

func checkJSON(columns: [String], rows: [[DatabaseValue]], chunkSize: Int) {
  let bytes = render(.json, columns: columns, rows: rows, chunkSize: chunkSize)
  let parsed: Any
  do {
    parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
  } catch {
    fuzzCheck(false, "the JSON does not parse (\(error)): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
    return
  }
  guard let objects = parsed as? [[String: Any]] else {
    fuzzCheck(false, "the JSON is not an array of objects: \(parsed)")
    return
  }
  fuzzCheck(objects.count == rows.count, "\(objects.count) JSON objects for \(rows.count) rows")
  guard Set(columns).count == columns.count else { return }  // duplicate keys: the last one wins
  for (object, row) in zip(objects, rows) {
    fuzzCheck(object.count == columns.count, "JSON object \(object) for columns \(columns)")
    for (name, value) in zip(columns, row) {
      let found = object[name]
      let matches: Bool
      switch value {
      case .null: matches = found is NSNull
      case .integer(let integer): matches = (found as? NSNumber)?.int64Value == integer
      case .real(let real):
        if real.isInfinite {
          matches = (found as? String) == (real < 0 ? "-Infinity" : "Infinity")
        } else {
          // JSONSerialization may keep a number as a decimal whose doubleValue is off by a unit in the
          // last place (1.7276521069126785e-77 did): read its digits back instead.
          let number = found as? NSNumber
          matches = number?.doubleValue == real || number.flatMap { Double($0.description) } == real
        }
      case .text(let text): matches = (found as? String) == text
      case .blob(let data): matches = (found as? String) == ValueText.hex(data)
      }
      fuzzCheck(matches, "column \(name.debugDescription): \(value) came back as \(String(describing: found))")
    }
  }
}

func checkTable(columns: [String], rows: [[DatabaseValue]], chunkSize: Int) {
  let bytes = render(.table, columns: columns, rows: rows, chunkSize: chunkSize)
  let lines = bytes.filter { $0 == UInt8(ascii: "\n") }.count
  fuzzCheck(lines == rows.count + 2, "\(lines) lines for \(rows.count) rows")
  fuzzCheck(!bytes.contains(UInt8(ascii: "\r")), "a carriage return in a table")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  let shape = input.byte()
  let columnCount = Int(shape % 5)
  let chunkSize = Int(input.byte()) + 1
  let columns = (0..<columnCount).map { _ in input.text(maxCount: 12) }
  var rows: [[DatabaseValue]] = []
  while !input.isEmpty && rows.count < 16 && columnCount > 0 {
    var values = (0..<columnCount).map { _ in input.value() }
    // NaN is never a result value: SQLite stores it as NULL.
    values = values.map { if case .real(let real) = $0, real.isNaN { .null } else { $0 } }
    rows.append(values)
  }
  checkCSV(columns: columns, rows: rows, chunkSize: chunkSize)
  checkJSON(columns: columns, rows: rows, chunkSize: chunkSize)
  checkTable(columns: columns, rows: rows, chunkSize: chunkSize)
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_cli_output_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
