#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A value as SQLite stores it: one of its five storage classes.
///
/// The cases mirror SQLite's storage classes one-to-one. The floating-point case is named ``real(_:)``
/// after SQLite's own name for the class (`REAL`, `SQLITE_FLOAT` in C); `Double` is what it holds.
///
/// Equality is structural: `.null == .null`, and `.integer(1) != .real(1.0)` (different classes),
/// which makes the type usable as a dictionary key or in a set. (SQLite stores no NaN: it turns NaN into
/// NULL, so every value read back is equal to itself.)
///
/// ```swift
/// let values: [DatabaseValue] = [nil, 42, 1.5, "text", .blob(Data([0xFF]))]
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/datatype3.html>
public enum DatabaseValue: Hashable, Sendable {
  /// SQL NULL.
  case null
  /// A 64-bit signed integer (`INTEGER`).
  case integer(Int64)
  /// An 8-byte IEEE floating-point number (`REAL`).
  case real(Double)
  /// UTF-8 text (`TEXT`). May contain NUL characters.
  case text(String)
  /// Bytes (`BLOB`).
  case blob(Data)

  /// The storage class's name in SQL: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
  public var storageClass: String {
    switch self {
    case .null: "NULL"
    case .integer: "INTEGER"
    case .real: "REAL"
    case .text: "TEXT"
    case .blob: "BLOB"
    }
  }

  /// True for ``null``.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// A short description for error messages: the storage class and, for short values, the value.
  var summary: String {
    switch self {
    case .null: return "NULL"
    case .integer(let value): return "INTEGER \(value)"
    case .real(let value): return "REAL \(value)"
    case .text(let value):
      let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
      return "TEXT \"\(shown)\""
    case .blob(let value): return "BLOB of \(value.count) bytes"
    }
  }
}

extension DatabaseValue: CustomStringConvertible {
  /// The value as SQL would print it: `NULL`, `42`, `1.5`, `'text'`, `x'FF'`.
  public var description: String {
    switch self {
    case .null: return "NULL"
    case .integer(let value): return String(value)
    case .real(let value): return String(value)
    case .text(let value): return "'" + value.replacing("'", with: "''") + "'"
    case .blob(let value):
      return "x'"
        + value.map { byte in
          let hex = String(byte, radix: 16, uppercase: true)
          return byte < 16 ? "0" + hex : hex
        }.joined() + "'"
    }
  }
}

extension DatabaseValue: ExpressibleByNilLiteral {
  /// `nil` is ``null``: `let value: DatabaseValue = nil`.
  public init(nilLiteral: ()) { self = .null }
}

extension DatabaseValue: ExpressibleByIntegerLiteral {
  /// An integer literal is an ``integer(_:)``: `let value: DatabaseValue = 42`.
  public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension DatabaseValue: ExpressibleByFloatLiteral {
  /// A floating-point literal is a ``real(_:)``: `let value: DatabaseValue = 1.5`.
  public init(floatLiteral value: Double) { self = .real(value) }
}

extension DatabaseValue: ExpressibleByStringLiteral {
  /// A string literal is a ``text(_:)``: `let value: DatabaseValue = "Ada"`.
  public init(stringLiteral value: String) { self = .text(value) }
}

extension DatabaseValue: ExpressibleByBooleanLiteral {
  /// `true` is stored as the integer 1 and `false` as 0, as SQLite's own `TRUE` and `FALSE` are.
  public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
