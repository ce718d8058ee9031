import Amalgam

/// Prints result sets as aligned text tables, in the style of the SQLite shell's column mode:
///
/// ```
/// id  name   score
/// --  -----  -----
///  1  Ada      9.5
///  2  NULL    NULL
/// ```
///
/// Columns are separated by two spaces and padded to their widest value (in terminal columns).
/// Integers and reals are right-aligned, everything else left-aligned; NULL prints as `NULL`, a blob as
/// `x'ABCD'` (see ``ValueText/blobLiteral(_:)``). The last column is not padded. A table needs every
/// row to know the widths, so rows are collected until ``end()``. Tables are separated by a blank line.
struct TableFormatter: ResultFormatter {
  /// One rendered value.
  private struct Cell {
    var text: String
    var width: Int
    var alignRight: Bool
  }

  /// Where tables are written.
  let output: OutputBuffer
  private var header: [Cell] = []
  private var rows: [[Cell]] = []
  private var tablesWritten = 0

  /// Creates a formatter that writes to `output`.
  init(output: OutputBuffer) {
    self.output = output
  }

  mutating func begin(columns: [String]) {
    header = columns.map { name in
      let text = ValueText.singleLine(name)
      return Cell(text: text, width: ValueText.displayWidth(text), alignRight: false)
    }
    rows = []
  }

  mutating func write(row values: [DatabaseValue]) {
    rows.append(values.map(Self.cell))
  }

  mutating func end() {
    if tablesWritten > 0 { output.write("\n") }
    tablesWritten += 1
    var widths = header.map { max($0.width, 1) }
    for row in rows {
      for (index, cell) in row.enumerated() where index < widths.count {
        widths[index] = max(widths[index], cell.width)
      }
    }
    writeLine(header, widths: widths)
    writeSeparator(widths: widths)
    for row in rows { writeLine(row, widths: widths) }
    header = []
    rows = []
  }

  /// The table cell for a value.
  private static func cell(_ value: DatabaseValue) -> Cell {
    let text: String
    var alignRight = false
    switch value {
    case .null: text = "NULL"
    case .integer(let integer):
      text = String(integer)
      alignRight = true
    case .real(let real):
      text = ValueText.real(real)
      alignRight = true
    case .text(let string): text = ValueText.singleLine(string)
    case .blob(let data): text = ValueText.blobLiteral(data)
    }
    return Cell(text: text, width: ValueText.displayWidth(text), alignRight: alignRight)
  }

  /// Writes one line of cells, each padded to its column's width.
  private func writeLine(_ cells: [Cell], widths: [Int]) {
    for (index, cell) in cells.enumerated() {
      let padding = widths[index] - cell.width
      if index > 0 { output.writeSpaces(2) }
      if cell.alignRight {
        output.writeSpaces(padding)
        output.write(cell.text)
      } else {
        output.write(cell.text)
        if index < cells.count - 1 { output.writeSpaces(padding) }
      }
    }
    output.write(byte: UInt8(ascii: "\n"))
  }

  /// Writes the line of dashes under the header.
  private func writeSeparator(widths: [Int]) {
    for (index, width) in widths.enumerated() {
      if index > 0 { output.writeSpaces(2) }
      output.write(String(repeating: "-", count: width))
    }
    output.write(byte: UInt8(ascii: "\n"))
  }
}
