import Amalgam
import Testing

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
