/// A reference to an object that does not keep the object alive: the one way Amalgam holds an object it
/// does not own, and the one way the `void *` user data that SQLite hands back to a callback becomes a
/// Swift object again.
///
/// The rule, stated once: **someone else keeps the object alive for as long as an `Unretained` to it is
/// used.** Each stored `Unretained` says in its comment who that is (a statement keeps its encoder sink, a
/// connection keeps the boxes of its registered callbacks, SQLite keeps the user data of a registration
/// until it calls the registration's destructor). Reading the object through ``withObject(_:)`` touches no
/// reference count, which is why the hot paths use it; ``object`` returns a strong reference for code
/// that keeps it.
///
/// The model is swift-collections' `_UnmanagedHashNode`: unsafe lifetime fenced in one small type, so that
/// call sites read like safe code.
@frozen @usableFromInline
struct Unretained<Object: AnyObject> {
  @usableFromInline
  let reference: Unmanaged<Object>

  /// A reference to `object` that does not retain it.
  @inlinable @inline(__always)
  init(_ object: Object) {
    reference = .passUnretained(object)
  }

  /// The object that `opaque` (C user data made by ``opaque`` or ``retainedOpaque(_:)``) refers to.
  @inlinable @inline(__always)
  init(opaque: UnsafeRawPointer) {
    reference = .fromOpaque(opaque)
  }

  /// The reference as C user data (not retained: see the rule above).
  @inlinable
  var opaque: UnsafeMutableRawPointer { reference.toOpaque() }

  /// A strong reference to the object.
  @inlinable
  var object: Object { reference.takeUnretainedValue() }

  /// Calls `body` with the object, without retaining or releasing it.
  @inlinable @inline(__always)
  func withObject<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
    try reference._withUnsafeGuaranteedRef(body)
  }
}

extension Unretained {
  /// Retains `object` once on behalf of C code and returns it as C user data, for a registration whose
  /// destructor calls ``releaseOpaque(_:)`` (SQLite calls it when it drops the registration).
  @inlinable
  static func retainedOpaque(_ object: Object) -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(object).toOpaque()
  }

  /// Balances ``retainedOpaque(_:)``: releases the retain made for C code.
  @inlinable
  static func releaseOpaque(_ opaque: UnsafeRawPointer) {
    Unmanaged<Object>.fromOpaque(opaque).release()
  }

  /// Balances ``retainedOpaque(_:)`` and returns the object: ownership moves back to Swift.
  @inlinable
  static func takeRetained(_ opaque: UnsafeRawPointer) -> Object {
    Unmanaged<Object>.fromOpaque(opaque).takeRetainedValue()
  }
}
