import Amalgam

/// JSON spelling shared by `sql --json`, `info --json` and `changeset show --json`.
enum JSONText {
  /// Writes one value as JSON: integers and reals as numbers (the infinities, which JSON cannot spell,
  /// as the strings `"Infinity"` and `"-Infinity"`), text as a string, NULL as `null`, and a blob as a
  /// string of upper-case hex digits, as SQL's `hex()` writes it.
  static func writeValue(_ value: DatabaseValue, to output: OutputBuffer) {
    switch value {
    case .null: output.write("null")
    case .integer(let integer): output.write(String(integer))
    case .real(let real):
      if real.isFinite {
        output.write(String(real))
      } else {
        output.write(real < 0 ? "\"-Infinity\"" : "\"Infinity\"")
      }
    case .text(let text): writeString(text, to: output)
    case .blob(let data):
      output.write("\"")
      output.write(ValueText.hex(data))
      output.write("\"")
    }
  }

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
