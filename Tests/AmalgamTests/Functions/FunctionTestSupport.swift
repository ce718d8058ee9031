import Amalgam
import Testing

/// The first column of the first row of `sql`, converted to `T` (nil for no row or NULL).
func firstValue<T: ColumnConvertible>(
  _ db: Database, _ sql: String, _ values: [(any ParameterBindable)?] = [], as type: T.Type = T.self
) throws -> T? {
  try db.prepare(sql: sql).bind(parameterValues: values).front(T.self)
}

/// Every row of `sql`, as values.
func allRows(_ db: Database, _ sql: String) throws -> [[DatabaseValue]] {
  try db.prepare(sql: sql).allRows()
}

/// An object captured by a registered closure, to check through a weak reference when SQLite lets it go.
final class LifetimeProbe {}

/// Counts the aggregate states that a factory creates and that are destroyed, through a token each
/// state holds: after every query has ended, both counts must be equal.
final class StateCounter {
  var created = 0
  var destroyed = 0

  /// A new token, counted as one created state.
  func token() -> StateToken {
    created += 1
    return StateToken(counter: self)
  }
}

/// Counts its own destruction on its counter.
final class StateToken {
  let counter: StateCounter
  init(counter: StateCounter) { self.counter = counter }
  deinit { counter.destroyed += 1 }
}

/// An error a function throws, with a readable description.
struct FunctionTestError: Error, CustomStringConvertible {
  let reason: String
  var description: String { "test failure: \(reason)" }
}
