import Amalgam

/// Prints each result set as a JSON array of objects, one object per row on its own line:
///
/// ```
/// [
///   {"id": 1, "name": "Ada", "photo": "FFD8FF", "note": null}
/// ]
/// ```
///
/// Keys are the column names, in column order. Integers and reals are JSON numbers (a real always has
/// a fraction or exponent, such as `1.0`; the infinities, which JSON cannot spell, are the strings
/// `"Infinity"` and `"-Infinity"`), text is a string, NULL is `null`, and a blob is a string of
/// upper-case hex digits, as SQL's `hex()` writes it. Rows are written as they arrive, so large results
/// stream. Several result sets are several arrays, one after the other.
struct JSONFormatter: ResultFormatter {
  /// Where arrays are written.
  let output: OutputBuffer
  private var columns: [String] = []
  private var rowsWritten = 0

  /// Creates a formatter that writes to `output`.
  init(output: OutputBuffer) {
    self.output = output
  }

  mutating func begin(columns: [String]) {
    self.columns = columns
    rowsWritten = 0
    output.write("[")
  }

  mutating func write(row values: [DatabaseValue]) {
    output.write(rowsWritten == 0 ? "\n  {" : ",\n  {")
    rowsWritten += 1
    for (index, value) in values.enumerated() {
      if index > 0 { output.write(", ") }
      JSONText.writeString(index < columns.count ? columns[index] : "", to: output)
      output.write(": ")
      Self.writeValue(value, to: output)
    }
    output.write("}")
  }

  mutating func end() {
    output.write(rowsWritten == 0 ? "]\n" : "\n]\n")
  }

  /// Writes one value as JSON.
  private static func writeValue(_ value: DatabaseValue, to output: OutputBuffer) {
    switch value {
    case .null: output.write("null")
    case .integer(let integer): output.write(String(integer))
    case .real(let real):
      if real.isFinite {
        output.write(String(real))
      } else {
        output.write(real < 0 ? "\"-Infinity\"" : "\"Infinity\"")
      }
    case .text(let text): JSONText.writeString(text, to: output)
    case .blob(let data):
      output.write("\"")
      output.write(ValueText.hex(data))
      output.write("\"")
    }
  }
}

/// JSON spelling shared by `sql --json` and `info --json`.
enum JSONText {
  /// Writes `text` as a JSON string literal: quotes, backslashes and control characters are escaped,
  /// everything else is written as UTF-8.
  static func writeString(_ text: String, to output: OutputBuffer) {
    output.write(byte: UInt8(ascii: "\""))
    let utf8 = text.utf8
    if !utf8.contains(where: needsEscape) {
      output.write(text)
    } else {
      var runStart = utf8.startIndex
      var index = utf8.startIndex
      while index < utf8.endIndex {
        let byte = utf8[index]
        if needsEscape(byte) {
          output.write(bytes: utf8[runStart..<index])
          output.write(escape(byte))
          runStart = utf8.index(after: index)
        }
        index = utf8.index(after: index)
      }
      output.write(bytes: utf8[runStart..<utf8.endIndex])
    }
    output.write(byte: UInt8(ascii: "\""))
  }

  /// True for the bytes that JSON strings must escape.
  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
  }

  /// The escape sequence for a byte that needs one.
  private static func escape(_ byte: UInt8) -> String {
    switch byte {
    case UInt8(ascii: "\""): "\\\""
    case UInt8(ascii: "\\"): "\\\\"
    case UInt8(ascii: "\n"): "\\n"
    case UInt8(ascii: "\r"): "\\r"
    case UInt8(ascii: "\t"): "\\t"
    case 0x08: "\\b"
    case 0x0C: "\\f"
    default: "\\u00" + ValueText.hex(CollectionOfOne(byte))
    }
  }
}
