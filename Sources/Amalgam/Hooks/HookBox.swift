import AmalgamSQLite

/// The registration slots of the per-connection hooks, used as keys of
/// `Connection.retainedCallbacks`. SQLite keeps one callback per slot, so registering again replaces
/// the previous closure, and removing the entry releases it.
enum HookSlot: String {
  case update = "updateHook"
  /// Shared with sessions: see `Database.isPreUpdateHookInUse`.
  case preUpdate = "preupdateHook"
  case authorizer = "authorizer"
  case trace = "trace"
  case progress = "progressHandler"
  case busy = "busyHandler"
  case wal = "walHook"
  case collationNeeded = "collationNeeded"

  /// The restriction SQLite places on the slot's callback: all but the trace callback, the WAL hook and
  /// the collation-needed handler must not use their connection; the collation-needed handler runs
  /// while SQLite prepares a statement, so it may only read (and register collations).
  var restriction: RestrictedCallback? {
    switch self {
    case .update: .updateHook
    case .preUpdate: .preUpdateHook
    case .authorizer: .authorizer
    case .progress: .progressHandler
    case .busy: .busyHandler
    case .collationNeeded: .collationNeeded
    case .trace, .wal: nil
    }
  }
}

/// Holds a hook's closure for as long as SQLite holds a raw pointer to it (the C user data).
final class HookBox<Callback> {
  let callback: Callback

  /// The connection the hook is installed on, and what SQLite forbids the hook to do with it; set by
  /// `installHook`. Unowned: the connection owns this box (in `retainedCallbacks`) and outlives it.
  unowned(unsafe) var connection: Connection?
  var restriction: RestrictedCallback?

  /// The lifetime of the values that a call of the hook reads on demand (a pre-update event's row values).
  lazy var scope = CallbackScope()

  init(_ callback: Callback) {
    self.callback = callback
  }

  /// Calls the hook's closure through `body`, refusing calls into the connection while it runs when
  /// SQLite forbids them.
  @inline(__always)
  func call<R>(_ body: (Callback) -> R) -> R {
    guard let restriction, let connection else { return body(callback) }
    return connection.restricting(restriction) { body(callback) }
  }

  /// The C user data that refers to this box without retaining it; `retainedCallbacks` retains it.
  var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

  /// The box that `userData` refers to. Only valid while the box is registered.
  static func from(_ userData: UnsafeMutableRawPointer) -> HookBox {
    Unmanaged<HookBox>.fromOpaque(userData).takeUnretainedValue()
  }
}

extension Database {
  /// Registers (or, with a `nil` box, removes) a hook: `register` hands SQLite the box's user data,
  /// then the box replaces the slot's previous one, which is released.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` or ``DatabaseError/concurrentUse``.
  func installHook<Callback>(
    _ box: HookBox<Callback>?, in slot: HookSlot,
    _ register: (OpaquePointer, UnsafeMutableRawPointer?) -> Void
  ) throws {
    box?.connection = connection
    box?.restriction = slot.restriction
    try connection.withHandle { handle in
      register(handle, box?.userData)
      connection.retainedCallbacks[slot.rawValue] = box
    }
  }
}

/// Copies a C string that SQLite passes to a callback, or returns `nil` for a NULL pointer.
@inline(__always)
func hookString(_ text: UnsafePointer<CChar>?) -> String? {
  text.map { String(cString: $0) }
}
