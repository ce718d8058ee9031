import Foundation

/// Runs `body` with a new, empty directory under the system's temporary directory, and removes the
/// directory with everything in it when `body` returns or throws.
///
/// ```swift
/// try withTemporaryDirectory { directory in
///   let db = try Database(path: directory.appendingPathComponent("test.sqlite").path)
///   ...
/// }
/// ```
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
  let directory = try makeTemporaryDirectory()
  defer { removeTemporaryDirectory(directory) }
  return try body(directory)
}

/// Runs `body` with a new, empty directory under the system's temporary directory, and removes the
/// directory with everything in it when `body` returns or throws.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
  let directory = try makeTemporaryDirectory()
  defer { removeTemporaryDirectory(directory) }
  return try await body(directory)
}

private func makeTemporaryDirectory() throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("AmalgamTests-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// Removes `directory` and its contents, first making writable what a test made read-only (which would
/// otherwise stop the removal).
private func removeTemporaryDirectory(_ directory: URL) {
  let manager = FileManager.default
  try? manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
  for item in manager.subpaths(atPath: directory.path) ?? [] {
    let path = directory.appendingPathComponent(item).path
    var isDirectory: ObjCBool = false
    guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
    try? manager.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o755 : 0o644], ofItemAtPath: path)
  }
  try? manager.removeItem(at: directory)
}
