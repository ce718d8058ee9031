import Amalgam

/// Prints result sets as RFC 4180 CSV: a header line of column names, then one line per row, each line
/// ended by CRLF. A field holding a comma, a double quote, a CR or an LF is put in double quotes, with
/// its double quotes doubled. NULL is an empty field, integers and reals are written as in a table
/// (`1`, `2.5`), and a blob is upper-case hex digits, as SQL's `hex()` writes it. Rows are written as
/// they arrive. Several result sets follow one another, each with its header line.
struct CSVFormatter: ResultFormatter {
  /// Where lines are written.
  let output: OutputBuffer

  /// Creates a formatter that writes to `output`.
  init(output: OutputBuffer) {
    self.output = output
  }

  mutating func begin(columns: [String]) {
    for (index, name) in columns.enumerated() {
      if index > 0 { output.write(byte: UInt8(ascii: ",")) }
      Self.writeField(name, to: output)
    }
    output.write("\r\n")
  }

  mutating func write(row values: [DatabaseValue]) {
    for (index, value) in values.enumerated() {
      if index > 0 { output.write(byte: UInt8(ascii: ",")) }
      switch value {
      case .null: break
      case .integer(let integer): output.write(String(integer))
      case .real(let real): output.write(ValueText.real(real))
      case .text(let text): Self.writeField(text, to: output)
      case .blob(let data): output.write(ValueText.hex(data))
      }
    }
    output.write("\r\n")
  }

  mutating func end() {}

  /// Writes one field, quoted when it holds a comma, a double quote, a CR or an LF.
  static func writeField(_ text: String, to output: OutputBuffer) {
    let needsQuotes = text.utf8.contains { byte in
      byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\r")
        || byte == UInt8(ascii: "\n")
    }
    guard needsQuotes else {
      output.write(text)
      return
    }
    // Work on bytes: a quote followed by a combining mark is one Character, but still a quote to CSV.
    var quoted: [UInt8] = [UInt8(ascii: "\"")]
    quoted.reserveCapacity(text.utf8.count + 8)
    for byte in text.utf8 {
      quoted.append(byte)
      if byte == UInt8(ascii: "\"") { quoted.append(byte) }
    }
    quoted.append(UInt8(ascii: "\""))
    output.write(bytes: quoted)
  }
}
