import AmalgamSQLite

/// A callback's name (a SQL function's, a virtual table module's), kept once per process as a C string
/// that is never freed, so that the values made for every call of the callback
/// (``FunctionContext``) carry it as one pointer, without reference counting, and a value kept after
/// its call can still name its callback in an error message.
///
/// The memory grows with the number of distinct names registered in the process, as SQLite's own
/// registrations do; a name registered on many connections, or many times, is stored once.
@usableFromInline
struct InternedName: @unchecked Sendable {  // the pointed-to bytes are never written nor freed after interning
  @usableFromInline let pointer: UnsafePointer<CChar>

  /// The interned copy of `name`: the same pointer for equal names.
  init(_ name: String) {
    pointer = Self.names.withLock { names in
      if let existing = names[name] { return existing }
      let utf8 = Array(name.utf8CString)
      let storage = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
      storage.initialize(from: utf8, count: utf8.count)
      let pointer = UnsafePointer(storage)
      names[name] = pointer
      return pointer
    }
  }

  /// The name as a Swift string (read only for messages, so it is made on demand).
  var string: String { String(cString: pointer) }

  /// Every name interned so far.
  private static let names = LockedState<[String: UnsafePointer<CChar>]>([:])
}
