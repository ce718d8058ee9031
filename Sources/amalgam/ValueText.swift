#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import Amalgam

/// How values are spelled in the output formats, shared by the formatters.
enum ValueText {
  /// A real as text: the shortest spelling that reads back as the same number (`1.0`, `0.1`, `1e+100`),
  /// with `Inf` and `-Inf` for the infinities, as SQLite's shell writes them.
  static func real(_ value: Double) -> String {
    if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
    return String(value)
  }

  /// The bytes as upper-case hex digits, as SQL's `hex()` writes them: `[0xAB, 0x01]` is `AB01`.
  static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
    let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Blobs longer than this many bytes are cut short in a table.
  static let longBlob = 32
  /// How many bytes of a long blob a table shows.
  static let shownBlobPrefix = 16

  /// A blob as an SQL literal for a table: `x'ABCD'`. Blobs longer than ``longBlob`` bytes show their
  /// first ``shownBlobPrefix`` bytes, an ellipsis and their size: `x'000102…' (100 bytes)`.
  static func blobLiteral(_ data: Data) -> String {
    if data.count <= longBlob { return "x'" + hex(data) + "'" }
    return "x'" + hex(data.prefix(shownBlobPrefix)) + "…' (\(data.count) bytes)"
  }

  /// Text made safe for one table cell: tab, line feed and carriage return become `\t`, `\n` and `\r`,
  /// other control characters `\xHH`, so that every row stays on one line.
  static func singleLine(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\t": result += "\\t"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        result += "\\x" + hex(CollectionOfOne(UInt8(truncatingIfNeeded: scalar.value)))
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Text that is not valid UTF-8, made safe for one line as ``singleLine(_:)`` makes text, with each
  /// byte that is not part of a valid UTF-8 sequence as `\xHH`: the bytes `FF FE 41` are `\xFF\xFEA`.
  static func escapingInvalidUTF8(_ bytes: Data) -> String {
    let bytes = [UInt8](bytes)
    var result = ""
    var validStart = 0
    var index = 0
    while index < bytes.count {
      // A fresh parser reads exactly the scalar at `index`, or the length of the invalid bytes there.
      var parser = Unicode.UTF8.ForwardParser()
      var iterator = bytes[index...].makeIterator()
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded): index += encoded.count
      case .error(let length):
        result += singleLine(String(decoding: bytes[validStart..<index], as: UTF8.self))
        result += bytes[index..<(index + length)].map { "\\x" + hex(CollectionOfOne($0)) }.joined()
        index += length
        validStart = index
      case .emptyInput: index = bytes.count
      }
    }
    return result + singleLine(String(decoding: bytes[validStart...], as: UTF8.self))
  }

  /// The number of terminal columns `text` takes: East Asian wide characters and emoji count two,
  /// combining marks and other zero-width characters none, everything else one.
  static func displayWidth(_ text: String) -> Int {
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
    var width = 0
    for character in text { width += displayWidth(character) }
    return width
  }

  /// The number of terminal columns one character (grapheme cluster) takes.
  static func displayWidth(_ character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if first.isASCII { return 1 }
    if scalars.contains(where: { $0.value == 0xFE0F }) || first.properties.isEmojiPresentation { return 2 }
    if isWide(first.value) { return 2 }
    switch first.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: return 1
    }
  }

  /// True for code points in the East Asian Wide and Fullwidth blocks (Hangul, CJK, kana, fullwidth forms).
  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
      return true
    default:
      return false
    }
  }
}
