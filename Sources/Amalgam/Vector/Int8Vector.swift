#if VECTOR
  import AmalgamSQLite

  /// A vector of 8-bit signed integers, as sqlite-vec stores `int8[N]` columns: a BLOB of one byte per
  /// element.
  ///
  /// sqlite-vec reads an untyped BLOB as float32, so in SQL an int8 parameter is written `vec_int8(?)`;
  /// the vector APIs of ``Database`` do that themselves.
  ///
  /// ```swift
  /// let code: Int8Vector = [12, -3, 127, 0]
  /// try db.execute(literal: "INSERT INTO item(rowid, code) VALUES (1, vec_int8(\(code)))")
  /// ```
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_int8>
  public struct Int8Vector: DatabaseVector, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The elements.
    public var elements: [Int8]

    /// A vector of `elements`.
    public init(_ elements: [Int8]) { self.elements = elements }

    /// A vector of the literal's elements.
    public init(arrayLiteral elements: Int8...) { self.elements = elements }

    /// A vector from JSON text, such as `[12, -3, 127]`.
    ///
    /// - Throws: ``VectorError/invalidJSON(_:)`` when the text is not a JSON array of integers in
    ///   -128...127.
    public init(json: String) throws {
      elements = try Self.elements(json: json)
    }

    /// `int8`.
    public static var elementType: VectorElementType { .int8 }

    /// The number of elements.
    public var dimensions: Int { elements.count }

    /// The elements as JSON text: `[12,-3,127]`.
    public var json: String { Self.json(elements) }

    /// ``json``.
    public var description: String { json }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
      try elements.withUnsafeBytes(body)
    }

    public func validate() throws {
      if elements.isEmpty { throw VectorError.emptyVector }
    }

    /// Reads a BLOB (one byte per element), or JSON text of integers.
    public init(databaseValue: DatabaseValue) throws {
      elements = try Self.elements(from: databaseValue)
    }

    /// Reads a BLOB column's bytes in place, without a ``DatabaseValue``.
    public init(row: borrowing Row, at index: Int32) throws {
      elements = try Self.elements(row: row, at: index)
    }
  }
#endif
