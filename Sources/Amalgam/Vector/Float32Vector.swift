#if VECTOR
  import AmalgamSQLite

  /// A vector of 32-bit floats, as sqlite-vec stores `float[N]` columns: a BLOB of 4 bytes per element.
  ///
  /// Binding copies the elements' bytes once (no per-element conversion); reading copies them back. It
  /// also reads sqlite-vec's JSON text (`'[0.1, 0.2]'`), and ``json`` writes it.
  ///
  /// ```swift
  /// let embedding = Float32Vector(model.embed(text))  // [Float] from the app's model
  /// try db.execute(literal: "INSERT INTO note_embedding(rowid, embedding) VALUES (\(id), \(embedding))")
  /// let stored = try db.fetchOne(Float32Vector.self, literal: "SELECT embedding FROM note_embedding WHERE rowid = \(id)")
  /// ```
  ///
  /// Binding throws ``VectorError/emptyVector`` for no elements and ``VectorError/nonFiniteElement(index:)``
  /// for NaN or an infinity.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_f32>
  public struct Float32Vector: DatabaseVector, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The elements.
    public var elements: [Float]

    /// A vector of `elements`.
    public init(_ elements: [Float]) { self.elements = elements }

    /// A vector of the literal's elements.
    public init(arrayLiteral elements: Float...) { self.elements = elements }

    /// A vector from sqlite-vec's JSON text, such as `[0.5, -1, 2e-3]`.
    ///
    /// - Throws: ``VectorError/invalidJSON(_:)`` when the text is not a JSON array of numbers.
    public init(json: String) throws {
      elements = try Self.elements(json: json)
    }

    /// `float32`.
    public static var elementType: VectorElementType { .float32 }

    /// The number of elements.
    public var dimensions: Int { elements.count }

    /// The elements as JSON text, as sqlite-vec reads it: `[0.5,-1.0]`.
    public var json: String { Self.json(elements) }

    /// ``json``.
    public var description: String { json }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
      try elements.withUnsafeBytes(body)
    }

    public func validate() throws {
      if elements.isEmpty { throw VectorError.emptyVector }
      if let index = elements.firstIndex(where: { !$0.isFinite }) { throw VectorError.nonFiniteElement(index: index) }
    }

    /// Reads a BLOB of whole float32 elements, or float32 JSON text.
    public init(databaseValue: DatabaseValue) throws {
      elements = try Self.elements(from: databaseValue)
    }

    /// Reads a BLOB column's bytes in place, without a ``DatabaseValue``.
    public init(row: borrowing Row, at index: Int32) throws {
      elements = try Self.elements(row: row, at: index)
    }
  }
#endif
