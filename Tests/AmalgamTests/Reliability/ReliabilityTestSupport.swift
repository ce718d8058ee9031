import Foundation

/// Counts that the scripts which run the reliability tests at length raise through the environment.
enum Reliability {
  /// A positive integer from the environment (set by the Scripts/ that run these tests at length), or
  /// `defaultValue`.
  static func count(_ variable: String, default defaultValue: Int) -> Int {
    guard let text = ProcessInfo.processInfo.environment[variable], let value = Int(text), value > 0 else {
      return defaultValue
    }
    return value
  }
}
