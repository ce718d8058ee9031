#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
/// A misuse of ``DatabaseQueue``, ``DatabaseReadQueue`` or ``DatabasePool`` that Amalgam detects itself.
///
/// Errors from SQLite (`SQLITE_BUSY`, `SQLITE_READONLY`, ...) are ``SQLiteError``s, and a cancelled
/// `Task` gets `CancellationError`.
public enum ConcurrencyError: Error, Hashable, Sendable, CustomStringConvertible {
  /// A blocking call (`sync`, `read`, `transaction`, ...) was made from inside a closure that is already
  /// running on the same connection (or, for a pool, on one of its readers). It would wait for itself
  /// forever, so it throws instead. Use the `db` the closure was given, or the `async` variants.
  case reentrantAccess
  /// SQLite did not switch to the requested journal mode: WAL is impossible for an in-memory database,
  /// for example, and a read-only connection cannot change the mode.
  case journalModeNotApplied(requested: String, actual: String)
  /// A ``Configuration`` value is out of range (say, a pool with no readers).
  case invalidConfiguration(String)

  /// What went wrong and how to avoid it, in one sentence.
  public var description: String {
    switch self {
    case .reentrantAccess:
      return "A database queue or pool was called from inside one of its own closures; that would deadlock. "
        + "Use the Database the closure receives instead."
    case let .journalModeNotApplied(requested, actual):
      return "Could not set journal_mode to \(requested); the database is in \(actual) mode"
    case let .invalidConfiguration(message):
      return message
    }
  }
}

extension ConcurrencyError: LocalizedError {
  /// The same text as ``description``, so that `localizedDescription` (what an alert or a log shows
  /// of any `Error`) says what failed instead of "The operation could not be completed".
  public var errorDescription: String? { description }
}
