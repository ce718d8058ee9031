import Amalgam
import Foundation

/// Reads structured values from a fuzzer's bytes, front to back. Every read succeeds: past the end it
/// returns zeros and empty values, so a short input is just a smaller case.
public struct FuzzInput {
  /// The bytes not read yet.
  public private(set) var bytes: ArraySlice<UInt8>

  /// Reads from a copy of the `count` bytes at `data`.
  public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
    if let data, count > 0 {
      bytes = ArraySlice(UnsafeBufferPointer(start: data, count: count))
    } else {
      bytes = []
    }
  }

  /// Reads from `bytes`.
  public init(bytes: [UInt8]) {
    self.bytes = bytes[...]
  }

  /// True when every byte has been read.
  public var isEmpty: Bool { bytes.isEmpty }

  /// One byte, or 0 past the end.
  public mutating func byte() -> UInt8 {
    bytes.popFirst() ?? 0
  }

  /// A little-endian integer of `size` bytes (1...8), sign-extended from its top byte.
  public mutating func integer(size: Int = 8) -> Int64 {
    var value: UInt64 = 0
    for index in 0..<size { value |= UInt64(byte()) << (8 * UInt64(index)) }
    let shift = UInt64(64 - 8 * size)
    return Int64(bitPattern: value << shift) >> Int64(shift)
  }

  /// Up to `maxCount` bytes: a length byte, then that many bytes (fewer at the end).
  public mutating func chunk(maxCount: Int = 255) -> [UInt8] {
    let count = min(Int(byte()), maxCount, bytes.count)
    let result = Array(bytes.prefix(count))
    bytes.removeFirst(count)
    return result
  }

  /// Every byte not read yet.
  public mutating func rest() -> [UInt8] {
    defer { bytes = [] }
    return Array(bytes)
  }

  /// Text from a chunk, decoded as UTF-8 with invalid sequences repaired (a Swift `String` is always
  /// valid UTF-8).
  public mutating func text(maxCount: Int = 255) -> String {
    String(decoding: chunk(maxCount: maxCount), as: UTF8.self)
  }

  /// One value of any storage class, chosen and filled from the bytes.
  public mutating func value() -> DatabaseValue {
    switch byte() % 8 {
    case 0: return .null
    case 1: return .integer(integer(size: 1))
    case 2: return .integer(integer(size: 8))
    case 3: return .real(Double(bitPattern: UInt64(bitPattern: integer(size: 8))))
    case 4: return .real(Double(integer(size: 2)) / 4)
    case 5: return .blob(Data(chunk()))
    default: return .text(text())
    }
  }
}

/// Stops the process with a message when an invariant the fuzz target checks does not hold; libFuzzer
/// records the input that got here as a crash.
public func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
  line: UInt = #line
) {
  if !condition() {
    fatalError("fuzz invariant failed: \(message())", file: file, line: line)
  }
}

/// libFuzzer's driver, for a program whose `main` is not libFuzzer's own.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<Int32>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Runs libFuzzer with the program's arguments on `target`. SwiftPM links an executable target's entry
/// point as `<module>_main` (and makes `main` an alias of it), so each target defines that symbol
/// with `@_cdecl` and calls this; libFuzzer then parses the arguments as usual.
public func runFuzzer(
  _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
  _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32 {
  var count = argc
  var arguments = argv
  return LLVMFuzzerRunDriver(&count, &arguments, target)
}
