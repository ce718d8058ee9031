import Amalgam
import Foundation
import Testing

/// Runs `body` with a fresh, empty directory under the system's temporary directory, and removes the
/// directory (with every database file in it) afterwards.
func withCoreTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("AmalgamCoreTests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  return try body(directory)
}

/// The first column of the first row of `sql`, converted to `T` (nil for no row or NULL).
func coreScalar<T: ColumnConvertible>(
  _ db: Database, _ sql: String, _ values: [(any ParameterBindable)?] = [], as type: T.Type = T.self
) throws -> T? {
  try db.prepare(sql: sql).bind(parameterValues: values).front(T.self)
}

/// An error thrown by test closures, to check that the library rethrows exactly what it was given.
struct CoreTestError: Error, Equatable {
  let id: Int
}
