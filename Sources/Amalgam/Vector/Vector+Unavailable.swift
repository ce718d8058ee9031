#if !VECTOR
  // Without the VECTOR trait the vector API is declared but unavailable, so that a use of it fails to compile
  // with a message that names the trait. Nothing here can run.

  /// A vector of 32-bit floats for sqlite-vec. Needs the `VECTOR` trait.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_f32>
  @available(
    *, unavailable,
    message: "Float32Vector needs the VECTOR trait: add it to the Amalgam dependency's traits"
  )
  public struct Float32Vector: Sendable, Hashable {
    /// Needs the `VECTOR` trait.
    public init(_ elements: [Float]) {}
  }

  /// A vector of 8-bit integers for sqlite-vec. Needs the `VECTOR` trait.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_int8>
  @available(
    *, unavailable,
    message: "Int8Vector needs the VECTOR trait: add it to the Amalgam dependency's traits"
  )
  public struct Int8Vector: Sendable, Hashable {
    /// Needs the `VECTOR` trait.
    public init(_ elements: [Int8]) {}
  }

  /// A bit vector for sqlite-vec. Needs the `VECTOR` trait.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html#vec_bit>
  @available(
    *, unavailable,
    message: "BitVector needs the VECTOR trait: add it to the Amalgam dependency's traits"
  )
  public struct BitVector: Sendable, Hashable {
    /// Needs the `VECTOR` trait.
    public init(bytes: [UInt8]) {}
  }

  /// The definition of a sqlite-vec `vec0` table. Needs the `VECTOR` trait.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/vec0.html>
  @available(
    *, unavailable,
    message: "VectorTableDefinition needs the VECTOR trait: add it to the Amalgam dependency's traits"
  )
  public struct VectorTableDefinition: Sendable, Hashable {}

  extension Database {
    /// Creates a sqlite-vec `vec0` table. Needs the `VECTOR` trait.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/vec0.html>
    @available(
      *, unavailable,
      message: "create(vectorTable:) needs the VECTOR trait: add it to the Amalgam dependency's traits"
    )
    public func create(
      vectorTable name: String, schema: String? = nil, ifNotExists: Bool = false,
      _ body: (inout VectorTableDefinition) throws -> Void
    ) throws {}

    /// A nearest-neighbour search in a `vec0` table. Needs the `VECTOR` trait.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/knn.html>
    @available(
      *, unavailable,
      message: "nearestNeighbors needs the VECTOR trait: add it to the Amalgam dependency's traits"
    )
    public func nearestNeighbors(
      to query: Float32Vector, in table: String, column: String, k: Int, filter: SQLLiteral? = nil,
      schema: String? = nil
    ) throws {}
  }
#endif
