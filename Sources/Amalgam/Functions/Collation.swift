#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A named text ordering for SQL: `ORDER BY name COLLATE NATURAL_ORDER`, `name TEXT COLLATE UNICODE_NOCASE`.
///
/// Register one with ``Database/addCollation(_:)``, or a closure with
/// ``Database/addCollation(_:_:)``. Two built-ins cover common needs:
///
/// ```swift
/// try db.addCollation(.natural)                 // "file2" < "file10"
/// try db.addCollation(.unicodeCaseInsensitive)  // "Émile" = "émile"
/// try db.execute(sql: "CREATE TABLE file(name TEXT COLLATE NATURAL_ORDER)")
/// let sorted = try db.prepare(sql: "SELECT name FROM file ORDER BY name").column(0, as: String.self)
/// ```
///
/// A comparison must be a consistent total order (if a < b and b < c then a < c; equal is symmetric
/// and transitive) and must never change once an index uses it, or SQLite's indexes and sorts break.
/// This is why there is no locale-dependent built-in: its order differs between machines and versions.
///
/// ``compare(_:_:)`` applies the ordering in Swift, to sort values the way SQL does.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/create_collation.html>,
/// <https://sqlite.org/datatype3.html#collation>
public struct Collation: Sendable {
  /// The name SQL uses after COLLATE. SQLite compares collation names case-insensitively.
  public let name: String

  /// Compares two UTF-8 byte strings.
  let compareBytes: @Sendable (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> ComparisonResult

  /// Creates a collation from a comparison of two strings.
  ///
  /// ```swift
  /// let byLength = Collation("LENGTH") { a, b in
  ///   a.count == b.count ? (a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending)
  ///     : a.count < b.count ? .orderedAscending : .orderedDescending
  /// }
  /// ```
  ///
  /// Text that is not valid UTF-8 reaches `compare` with invalid bytes replaced by U+FFFD.
  public init(_ name: String, _ compare: @escaping @Sendable (String, String) -> ComparisonResult) {
    self.name = name
    self.compareBytes = { left, right in
      compare(String(decoding: left, as: UTF8.self), String(decoding: right, as: UTF8.self))
    }
  }

  /// Creates a collation that compares UTF-8 bytes directly, without making strings.
  init(
    name: String, compareBytes: @escaping @Sendable (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> ComparisonResult
  ) {
    self.name = name
    self.compareBytes = compareBytes
  }

  /// Compares two strings as SQL does with this collation.
  ///
  /// ```swift
  /// ["a10", "a2", "a1"].sorted { Collation.natural.compare($0, $1) == .orderedAscending }  // a1, a2, a10
  /// ```
  public func compare(_ left: String, _ right: String) -> ComparisonResult {
    var left = left
    var right = right
    return left.withUTF8 { leftBytes in
      right.withUTF8 { rightBytes in
        compareBytes(UnsafeRawBufferPointer(leftBytes), UnsafeRawBufferPointer(rightBytes))
      }
    }
  }
}

// MARK: - Built-in collations

extension Collation {
  /// `NATURAL_ORDER`: like SQLite's BINARY order, except that each run of ASCII digits compares by its
  /// numeric value, so that `"file2" < "file10"` and `"v1.9" < "v1.10"`. (Not `NATURAL`, which is an SQL
  /// keyword.)
  ///
  /// A number sorts where the character `"0"` would among other characters (after `"-"` and `"."`,
  /// before letters). Other characters compare by code point, so the order is case-sensitive. Numbers
  /// of any length compare exactly. Strings equal but for leading zeros are ordered by their bytes
  /// (`"a01"` before `"a1"`), so only identical strings compare equal.
  public static let natural = Collation(name: "NATURAL_ORDER", compareBytes: naturalOrder)

  /// `UNICODE_NOCASE`: compares strings after mapping them to lower case with Unicode's rules
  /// (`String.lowercased()`), so `"ÉMILE"` equals `"émile"` and `"ÄRGER"` equals `"ärger"`; SQLite's own
  /// `NOCASE` folds only ASCII letters. Strings then compare as Swift compares them: canonically
  /// equivalent spellings are equal (a precomposed `"é"` and `"e"` with a combining accent), and the
  /// order is that of Unicode code points, so `"é"` sorts after `"z"`.
  ///
  /// Meant for case-insensitive matching, uniqueness and a stable order, not for dictionary order. It
  /// does not depend on the locale, so its order is the same on every machine.
  public static let unicodeCaseInsensitive = Collation(
    name: "UNICODE_NOCASE", compareBytes: unicodeCaseInsensitiveOrder)
}

/// The order of ``Collation/natural``.
@Sendable
func naturalOrder(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> ComparisonResult {
  // Both strings are read as a sequence of elements: a single non-digit byte, or a whole run of digits
  // (a number). A number orders as the byte "0" against a byte; numbers order by value. Comparing
  // element sequences lexicographically is a total preorder; breaking its ties with the bytes makes it
  // a total order.
  @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
  let zero = UInt8(ascii: "0")
  var i = 0
  var j = 0
  while i < left.count && j < right.count {
    let a = left[i]
    let b = right[j]
    switch (isDigit(a), isDigit(b)) {
    case (true, true):
      var leftEnd = i
      while leftEnd < left.count && isDigit(left[leftEnd]) { leftEnd += 1 }
      var rightEnd = j
      while rightEnd < right.count && isDigit(right[rightEnd]) { rightEnd += 1 }
      // Without leading zeros, a longer number is larger; equal lengths compare digit by digit.
      var leftStart = i
      while leftStart < leftEnd && left[leftStart] == zero { leftStart += 1 }
      var rightStart = j
      while rightStart < rightEnd && right[rightStart] == zero { rightStart += 1 }
      let leftLength = leftEnd - leftStart
      let rightLength = rightEnd - rightStart
      if leftLength != rightLength { return leftLength < rightLength ? .orderedAscending : .orderedDescending }
      for offset in 0..<leftLength where left[leftStart + offset] != right[rightStart + offset] {
        return left[leftStart + offset] < right[rightStart + offset] ? .orderedAscending : .orderedDescending
      }
      i = leftEnd
      j = rightEnd
    case (true, false):
      return zero < b ? .orderedAscending : .orderedDescending
    case (false, true):
      return a < zero ? .orderedAscending : .orderedDescending
    case (false, false):
      if a != b { return a < b ? .orderedAscending : .orderedDescending }
      i += 1
      j += 1
    }
  }
  if i < left.count { return .orderedDescending }
  if j < right.count { return .orderedAscending }
  return binaryOrder(left, right)
}

/// The order of ``Collation/unicodeCaseInsensitive``.
@Sendable
func unicodeCaseInsensitiveOrder(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> ComparisonResult {
  // ASCII text, the common case, compares without allocating: lower-casing ASCII folds A-Z, and Swift
  // orders ASCII strings by their bytes, so this gives exactly the order of the general path.
  if !left.contains(where: { $0 >= 0x80 }) && !right.contains(where: { $0 >= 0x80 }) {
    @inline(__always) func folded(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }
    for (a, b) in zip(left, right) where folded(a) != folded(b) {
      return folded(a) < folded(b) ? .orderedAscending : .orderedDescending
    }
    return left.count == right.count ? .orderedSame : left.count < right.count ? .orderedAscending : .orderedDescending
  }
  let a = String(decoding: left, as: UTF8.self).lowercased()
  let b = String(decoding: right, as: UTF8.self).lowercased()
  return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
}

/// SQLite's BINARY order: bytes, then length.
func binaryOrder(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> ComparisonResult {
  for (a, b) in zip(left, right) where a != b {
    return a < b ? .orderedAscending : .orderedDescending
  }
  return left.count == right.count ? .orderedSame : left.count < right.count ? .orderedAscending : .orderedDescending
}
