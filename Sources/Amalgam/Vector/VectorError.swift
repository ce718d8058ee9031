#if VECTOR
  /// A vector sqlite-vec cannot store, or a search that cannot run, found before SQLite sees it.
  ///
  /// Errors that sqlite-vec finds itself (a vector of the wrong dimension for its column, an unknown
  /// distance metric in SQL) are ``SQLiteError``s with sqlite-vec's message.
  public enum VectorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A vector without elements: sqlite-vec stores none.
    case emptyVector
    /// A float32 element at `index` that is NaN or infinite: no distance to it would mean anything.
    case nonFiniteElement(index: Int)
    /// A BLOB whose byte count is not a whole number of elements of `elementType`.
    case partialElement(byteCount: Int, elementType: VectorElementType)
    /// A number of bits that is not a multiple of 8: sqlite-vec stores bit vectors in whole bytes.
    case bitCountNotMultipleOfEight(Int)
    /// JSON text that is not an array of numbers of the element type.
    case invalidJSON(String)
    /// A value that is neither a BLOB nor JSON text, read as a vector.
    case notAVector(found: String)
    /// A number of neighbours that is not positive.
    case invalidNeighborCount(Int)

    /// What went wrong.
    public var description: String {
      switch self {
      case .emptyVector:
        "A vector needs at least one element: sqlite-vec stores no empty vector"
      case .nonFiniteElement(let index):
        "Element \(index) of the float32 vector is NaN or infinite: sqlite-vec needs finite numbers"
      case let .partialElement(byteCount, elementType):
        "A BLOB of \(byteCount) bytes is not a whole number of \(elementType) elements"
          + (elementType == .float32 ? " (4 bytes each)" : "")
      case .bitCountNotMultipleOfEight(let count):
        "A bit vector of \(count) bits: sqlite-vec stores bit vectors in whole bytes (a multiple of 8 bits)"
      case .invalidJSON(let reason):
        "Not a JSON array of vector elements: \(reason)"
      case .notAVector(let found):
        "A vector is stored as a BLOB (or float32/int8 JSON text), not as \(found)"
      case .invalidNeighborCount(let k):
        "k = \(k): a nearest-neighbour search needs a positive number of neighbours"
      }
    }
  }
#endif
