#if VECTOR
  import AmalgamSQLite

  /// A bit vector, as sqlite-vec stores `bit[N]` columns: a BLOB of N / 8 bytes, element `i` in bit
  /// `i % 8` (least significant first) of byte `i / 8`. Its distance is the Hamming distance.
  ///
  /// sqlite-vec reads an untyped BLOB as float32, so in SQL a bit parameter is written `vec_bit(?)`; the
  /// vector APIs of ``Database`` do that themselves.
  ///
  /// ```swift
  /// let code = BitVector(quantizing: embedding)  // 1 where an element is positive, as vec_quantize_binary
  /// try db.execute(literal: "INSERT INTO item(rowid, code) VALUES (1, vec_bit(\(code)))")
  /// ```
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_bit>
  public struct BitVector: DatabaseVector, CustomStringConvertible {
    /// The bytes, 8 elements each.
    public var bytes: [UInt8]

    /// A vector of `bytes`, 8 elements each (element `i` is bit `i % 8` of byte `i / 8`).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A vector of `bits`.
    ///
    /// - Throws: ``VectorError/bitCountNotMultipleOfEight(_:)`` when `bits.count` is not a multiple of 8.
    public init(bits: [Bool]) throws {
      guard bits.count % 8 == 0 else { throw VectorError.bitCountNotMultipleOfEight(bits.count) }
      var bytes = [UInt8](repeating: 0, count: bits.count / 8)
      for (index, bit) in bits.enumerated() where bit { bytes[index / 8] |= 1 << UInt8(index % 8) }
      self.bytes = bytes
    }

    /// The binary quantization of `elements`: bit `i` is 1 where `elements[i] > 0`, as sqlite-vec's
    /// `vec_quantize_binary` computes it.
    ///
    /// - Throws: ``VectorError/bitCountNotMultipleOfEight(_:)`` when `elements.count` is not a multiple of 8.
    public init(quantizing elements: [Float]) throws {
      try self.init(bits: elements.map { $0 > 0 })
    }

    /// `bit`.
    public static var elementType: VectorElementType { .bit }

    /// The number of elements: 8 per byte.
    public var dimensions: Int { bytes.count * 8 }

    /// Element `index` (0-based).
    public subscript(index: Int) -> Bool {
      bytes[index / 8] & (1 << UInt8(index % 8)) != 0
    }

    /// The elements as `0` and `1`, element 0 first.
    public var description: String {
      String((0..<dimensions).map { self[$0] ? "1" : "0" })
    }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
      try bytes.withUnsafeBytes(body)
    }

    public func validate() throws {
      if bytes.isEmpty { throw VectorError.emptyVector }
    }

    /// Reads a BLOB.
    public init(databaseValue: DatabaseValue) throws {
      bytes = try Self.elements(from: databaseValue)
    }

    /// Reads a BLOB column's bytes in place, without a ``DatabaseValue``.
    public init(row: borrowing Row, at index: Int32) throws {
      bytes = try Self.elements(row: row, at: index)
    }
  }
#endif
