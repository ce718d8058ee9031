import AmalgamSQLite

/// Holds a hook's closure for as long as SQLite holds a raw pointer to it (the C user data).
final class HookBox<Callback> {
  let callback: Callback

  /// The connection the hook is installed on, and what SQLite forbids the hook to do with it; set by
  /// `installHook`. Unretained: the connection owns this box (in its `HookRegistry`) and outlives it.
  var connection: Unretained<Connection>?
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
    return connection.withObject { $0.restricting(restriction) { body(callback) } }
  }

  /// The C user data that refers to this box without retaining it; the `HookRegistry` retains it.
  var userData: UnsafeMutableRawPointer { Unretained(self).opaque }

  /// The box that `userData` refers to. Only valid while the box is registered.
  static func from(_ userData: UnsafeMutableRawPointer) -> HookBox {
    Unretained<HookBox>(opaque: userData).object
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
    box?.connection = Unretained(connection)
    box?.restriction = slot.restriction
    try connection.withHandle { handle in
      register(handle, box?.userData)
      connection.state(HookRegistry.self).slots[slot] = box
    }
  }
}

/// Copies a C string that SQLite passes to a callback, or returns `nil` for a NULL pointer.
@inline(__always)
func hookString(_ text: UnsafePointer<CChar>?) -> String? {
  text.map { String(cString: $0) }
}
