import AmalgamSQLite

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
/// A token is two words and holds no reference, so making and copying callback values costs no
/// reference counting: it points at a ``Cell`` that outlives every token. Cells come from a pool and go
/// back to it when their scope is released, but are never freed, and a cell's numbers keep increasing
/// from one owner to the next: a token kept past its scope still reads a valid cell, whose running
/// number is never its own again.
@usableFromInline
final class CallbackScope {
  /// A scope's counters: the number of the call running now (0 when none), the last number issued,
  /// and the number of the call in which SQLite ran out of memory converting a value that a
  /// non-throwing reader then read as a harmless default (see ``CallbackToken/recordOutOfMemory()``).
  @usableFromInline
  struct Cell {
    @usableFromInline var active: UInt64 = 0
    @usableFromInline var issued: UInt64 = 0
    /// Written and read only by the thread running the call (a write needs the call to be active).
    @usableFromInline var outOfMemory: UInt64 = 0
    /// The number reserved by the scope that owns the cell now: every number it issues is larger, and
    /// the next owner's is larger than all of them (see ``CallbackScopeMark``).
    @usableFromInline var owner: UInt64 = 0
  }

  @usableFromInline let cell: UnsafeMutablePointer<Cell>

  @usableFromInline
  init() {
    cell = Self.pool.withLock { $0.popLast() } ?? Self.newCell()
    let owner = cell.pointee.issued &+ 1
    cell.pointee.issued = owner
    amalgam_store_relaxed(&cell.pointee.owner, owner)
  }

  deinit {
    // Only the numbers of calls that have returned are left in the cell: clear the running one.
    amalgam_store_relaxed(&cell.pointee.active, 0)
    Self.pool.withLock { $0.append(cell) }
  }

  /// Cells of released scopes, for the next scopes. Never freed (see the type's comment).
  private static let pool = LockedState<[UnsafeMutablePointer<Cell>]>([])

  private static func newCell() -> UnsafeMutablePointer<Cell> {
    let cell = UnsafeMutablePointer<Cell>.allocate(capacity: 1)
    cell.initialize(to: Cell())
    return cell
  }

  /// Runs one call of the callback: `body` receives the call's token, which expires when `body`
  /// returns or throws.
  @inlinable
  func run<R>(_ body: (CallbackToken) throws -> R) rethrows -> R {
    try Self.run(cell: cell, body)
  }

  /// ``run(_:)`` for the scope that owns `cell`, for a caller that keeps the scope alive by other
  /// means and so need not hold (and reference-count) the scope itself.
  @inlinable
  static func run<R>(cell: UnsafeMutablePointer<Cell>, _ body: (CallbackToken) throws -> R) rethrows -> R {
    // The scope's thread is the only writer; kept values on other threads only read.
    let number = cell.pointee.issued &+ 1
    cell.pointee.issued = number
    let previous = cell.pointee.active
    // A nested call may record its own failure: the outer call's mark comes back when it returns.
    let previousOutOfMemory = cell.pointee.outOfMemory
    amalgam_store_relaxed(&cell.pointee.active, number)
    defer {
      amalgam_store_relaxed(&cell.pointee.active, previous)
      cell.pointee.outOfMemory = previousOutOfMemory
    }
    return try body(CallbackToken(cell: cell, number: number))
  }
}

/// One call of a callback: a value made for that call keeps its token and asks it, before every use,
/// whether the call is still running. See ``CallbackScope``.
@usableFromInline
struct CallbackToken {
  @usableFromInline let cell: UnsafeMutablePointer<CallbackScope.Cell>
  @usableFromInline let number: UInt64

  @inlinable
  init(cell: UnsafeMutablePointer<CallbackScope.Cell>, number: UInt64) {
    self.cell = cell
    self.number = number
  }

  /// A mark of this token's scope, valid whenever one of its calls runs (see ``CallbackScopeMark``).
  /// A token that has expired gives a mark that is never valid.
  @inlinable
  var scopeMark: CallbackScopeMark {
    CallbackScopeMark(cell: cell, owner: isActive ? amalgam_load_relaxed(&cell.pointee.owner) : .max)
  }

  /// True while the call that this token was issued for is running.
  @inlinable
  var isActive: Bool { amalgam_load_relaxed(&cell.pointee.active) == number }

  /// Records that SQLite ran out of memory converting a value of this call (a TEXT argument to UTF-8,
  /// a zero-filled BLOB to bytes) that a non-throwing reader then read as a harmless default. The
  /// callback's trampoline fails the call with `SQLITE_NOMEM` once the closure returns (see
  /// ``ranOutOfMemory``), so that no result computed from the default reaches SQL.
  @usableFromInline
  func recordOutOfMemory() {
    // Only during the call, on its thread: a value kept after the call never reaches SQLite.
    if isActive { cell.pointee.outOfMemory = number }
  }

  /// True when a value of this call could not be converted for lack of memory (see
  /// ``recordOutOfMemory()``). Read by the trampoline after the closure returned, during the call.
  @inlinable
  var ranOutOfMemory: Bool { cell.pointee.outOfMemory == number }

  /// Throws ``DatabaseError/callbackValueExpired(_:)`` naming `subject` once the call has returned.
  @inlinable
  func check(_ subject: @autoclosure () -> String) throws {
    if !isActive { throw DatabaseError.callbackValueExpired(subject()) }
  }
}

/// Any call of one scope, rather than one call: a value made once and reused from call to call (the
/// `Codable` containers a statement keeps between rows) holds a mark, which says whether a call of its
/// scope is running now. Like a token it is two words, holds no reference, and reads only the never-freed
/// cell, so a value kept after its scope was released finds another owner's number there and fails.
///
/// It is weaker than a token in one way, on purpose: a value kept from one call and used during a later
/// call of the same scope works, on that later call's data (the scope's owner keeps what the value
/// reads alive while a call runs, so this reads nothing freed).
@usableFromInline
struct CallbackScopeMark {
  @usableFromInline let cell: UnsafeMutablePointer<CallbackScope.Cell>
  @usableFromInline let owner: UInt64

  @inlinable
  init(cell: UnsafeMutablePointer<CallbackScope.Cell>, owner: UInt64) {
    self.cell = cell
    self.owner = owner
  }

  /// True while a call of the scope that made this mark is running.
  @inlinable
  var isActive: Bool {
    // The call's number is larger than its owner's reservation; a later owner's reservation is larger
    // than every number of this one.
    let active = amalgam_load_relaxed(&cell.pointee.active)
    return active > owner && amalgam_load_relaxed(&cell.pointee.owner) == owner
  }

  /// The token of the call running now; when none of this scope's calls is running, a token that is
  /// never valid.
  @inlinable
  var currentToken: CallbackToken {
    let active = amalgam_load_relaxed(&cell.pointee.active)
    guard active > owner, amalgam_load_relaxed(&cell.pointee.owner) == owner else {
      return CallbackToken(cell: cell, number: .max)  // numbers never reach this
    }
    return CallbackToken(cell: cell, number: active)
  }
}
