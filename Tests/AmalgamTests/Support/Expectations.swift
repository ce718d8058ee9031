import Amalgam
import Testing

/// An error thrown by test closures, to check that the library rethrows exactly what it was given.
struct TestError: Error, Equatable {
  let id: Int
}

/// Calls `body`, which must throw an ``SQLiteError``, and returns it.
func expectSQLiteError(
  sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> SQLiteError? {
  do {
    try body()
    Issue.record("expected an SQLiteError, but nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as SQLiteError {
    return error
  } catch {
    Issue.record("expected an SQLiteError, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}
