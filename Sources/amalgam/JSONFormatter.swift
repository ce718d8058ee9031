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
      JSONText.writeValue(value, to: output)
    }
    output.write("}")
  }

  mutating func end() {
    output.write(rowsWritten == 0 ? "]\n" : "\n]\n")
  }
}
