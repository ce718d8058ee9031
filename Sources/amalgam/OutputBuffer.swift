import Foundation

/// Collects text in memory and writes it to a file handle in large chunks, so that printing a big result
/// costs a few system calls rather than one per cell.
final class OutputBuffer {
  /// The handle written to (standard output or standard error).
  private let handle: FileHandle
  /// Bytes waiting to be written.
  private var bytes: [UInt8] = []
  /// How many bytes are collected before they are written.
  private let chunkSize: Int
  /// The first write error, after which further output is dropped.
  private(set) var writeError: (any Error)?

  /// Creates a buffer that writes to `handle` once `chunkSize` bytes have been collected.
  init(handle: FileHandle, chunkSize: Int = 64 * 1024) {
    self.handle = handle
    self.chunkSize = chunkSize
    bytes.reserveCapacity(chunkSize + 1024)
  }

  /// A buffer for standard output.
  static func standardOutput() -> OutputBuffer { OutputBuffer(handle: .standardOutput) }

  /// A buffer for standard error.
  static func standardError() -> OutputBuffer { OutputBuffer(handle: .standardError) }

  /// Appends `text` as UTF-8.
  func write(_ text: String) {
    bytes.append(contentsOf: text.utf8)
    if bytes.count >= chunkSize { flush() }
  }

  /// Appends bytes, which must be complete UTF-8 characters.
  func write<Bytes: Sequence<UInt8>>(bytes newBytes: Bytes) {
    bytes.append(contentsOf: newBytes)
    if bytes.count >= chunkSize { flush() }
  }

  /// Appends one byte, which must be a complete UTF-8 character (an ASCII character).
  func write(byte: UInt8) {
    bytes.append(byte)
    if bytes.count >= chunkSize { flush() }
  }

  /// Appends `count` spaces (nothing when `count` is zero or less).
  func writeSpaces(_ count: Int) {
    guard count > 0 else { return }
    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
    if bytes.count >= chunkSize { flush() }
  }

  /// Writes out everything collected so far.
  func flush() {
    guard !bytes.isEmpty else { return }
    defer { bytes.removeAll(keepingCapacity: true) }
    guard writeError == nil else { return }
    do {
      try handle.write(contentsOf: bytes)
    } catch {
      writeError = error
    }
  }
}
