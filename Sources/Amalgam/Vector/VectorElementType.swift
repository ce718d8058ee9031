#if VECTOR
  /// The element type of a sqlite-vec vector, and so its BLOB format.
  ///
  /// - ``float32``: 4 bytes per element, IEEE 754 in the platform's (little-endian) byte order.
  /// - ``int8``: 1 byte per element, a signed integer.
  /// - ``bit``: 1 bit per element, 8 elements per byte, element `i` in bit `i % 8` (least significant
  ///   first) of byte `i / 8`.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/guides/scalar-quant.html>
  public enum VectorElementType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 32-bit floating-point elements: `float[N]` in a `vec0` table.
    case float32 = "float"
    /// 8-bit signed integer elements: `int8[N]` in a `vec0` table.
    case int8 = "int8"
    /// Single-bit elements: `bit[N]` in a `vec0` table (N a multiple of 8).
    case bit = "bit"

    /// The SQL function that gives a BLOB this element type (`vec_f32`, `vec_int8`, `vec_bit`). sqlite-vec
    /// reads a plain BLOB as float32, so int8 and bit vectors bound as parameters go through it:
    /// `vec_int8(?)`, `vec_bit(?)`.
    public var sqlFunction: String {
      switch self {
      case .float32: "vec_f32"
      case .int8: "vec_int8"
      case .bit: "vec_bit"
      }
    }

    /// `float32`, `int8` or `bit`, as in error messages.
    public var description: String {
      switch self {
      case .float32: "float32"
      case .int8: "int8"
      case .bit: "bit"
      }
    }
  }
#endif
