/// The lifetime of values that SQLite hands to a callback and that are valid only while the callback
/// runs: a function's arguments and context, a pre-update event's row values, and the values of the
/// virtual-table, FTS5 and changeset callbacks.
///
/// This is Amalgam's one mechanism for such values. Each registered callback (a function, a hook) owns
/// one scope. Every call of the callback enters the scope and receives a fresh ``CallbackToken``; the
/// values made for that call carry the token and check it on every use. When the call returns, the
/// token expires, so a value the closure kept (stored in a variable, appended to an array) can no longer
/// reach the C pointers it was made from: its throwing readers throw
/// ``DatabaseError/callbackValueExpired(_:)``, and its non-throwing readers return a documented default.
///
/// Tokens are numbered, never reused, so a value kept from one call is also invalid during a later call.
/// A call that runs while another call of the same callback is still running (a function whose SQL calls
/// itself) gets its own token; the outer call's token is valid again once the inner call returns.
///
/// The values are not `Sendable`, so Swift's checks keep them on the thread that runs the callback; the
/// scope's counters are therefore read and written by that thread only.
@usableFromInline
final class CallbackScope {
  /// The token of the call running now, or 0 when none is.
  // Unchecked: read on every access to a callback value; only the callback's thread touches it and
  // no access overlaps another (see the type's comment).
  @exclusivity(unchecked) @usableFromInline var active: UInt64 = 0

  /// The last token issued.
  @exclusivity(unchecked) @usableFromInline var issued: UInt64 = 0

  /// What the values are, for error messages: "the arguments of SQL function \"f\"".
  @usableFromInline let subject: String

  @usableFromInline
  init(subject: String) {
    self.subject = subject
  }

  /// Runs one call of the callback: `body` receives the call's token, which expires when `body`
  /// returns or throws.
  @inlinable
  func run<R>(_ body: (CallbackToken) throws -> R) rethrows -> R {
    issued &+= 1
    let token = CallbackToken(scope: self, number: issued)
    let previous = active
    active = issued
    defer { active = previous }
    return try body(token)
  }
}

/// One call of a callback: a value made for that call keeps its token and asks it, before every use,
/// whether the call is still running. See ``CallbackScope``.
@usableFromInline
struct CallbackToken {
  @usableFromInline let scope: CallbackScope
  @usableFromInline let number: UInt64

  @inlinable
  init(scope: CallbackScope, number: UInt64) {
    self.scope = scope
    self.number = number
  }

  /// True while the call that this token was issued for is running.
  @inlinable
  var isActive: Bool { scope.active == number }

  /// Throws ``DatabaseError/callbackValueExpired(_:)`` once the call has returned.
  @inlinable
  func check() throws {
    if scope.active != number { throw expired() }
  }

  @usableFromInline
  func expired() -> DatabaseError {
    .callbackValueExpired(scope.subject)
  }
}
