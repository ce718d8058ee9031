import Amalgam

/// Writes the result sets of statements in one output format. The runner calls ``begin(columns:)``,
/// then ``write(row:)`` for each row, then ``end()``, for each statement that has result columns.
protocol ResultFormatter {
  /// Starts a result set with these column names.
  mutating func begin(columns: [String])
  /// Writes (or collects) one row; `values` has one value per column.
  mutating func write(row values: [DatabaseValue])
  /// Ends the current result set.
  mutating func end()
}

/// The formatter for `format`, writing to `output`.
func makeFormatter(_ format: OutputFormat, output: OutputBuffer) -> any ResultFormatter {
  switch format {
  case .table: TableFormatter(output: output)
  case .json: JSONFormatter(output: output)
  case .csv: CSVFormatter(output: output)
  }
}
