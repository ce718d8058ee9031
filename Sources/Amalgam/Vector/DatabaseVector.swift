#if VECTOR
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// A vector in one of sqlite-vec's BLOB formats: ``Float32Vector``, ``Int8Vector`` or ``BitVector``.
  ///
  /// A vector binds as its BLOB, copied once and never converted element by element, and reads back
  /// from a BLOB the same way. sqlite-vec reads a BLOB that no function has typed as float32, so in SQL
  /// an int8 or bit parameter goes through its type's function: `vec_int8(?)`, `vec_bit(?)` (see
  /// ``VectorElementType/sqlFunction``). The vector APIs of ``Database`` do that themselves.
  ///
  /// ```swift
  /// let query: Float32Vector = [0.1, 0.2, 0.3]
  /// let distance = try db.fetchOne(Double.self, literal: "SELECT vec_distance_cosine(\(query), embedding) FROM note_embedding WHERE rowid = 1")
  /// ```
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/api-reference.html>
  public protocol DatabaseVector: ParameterBindable, ColumnConvertible, Sendable, Hashable {
    /// The element type, which fixes the BLOB format.
    static var elementType: VectorElementType { get }

    /// The number of elements (bits for a ``BitVector``).
    var dimensions: Int { get }

    /// Calls `body` with the vector's bytes in sqlite-vec's BLOB format, valid only while it runs.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result

    /// Throws ``VectorError`` when sqlite-vec could not store the vector: no elements, or a float32
    /// element that is NaN or infinite. Binding calls it.
    func validate() throws
  }

  extension DatabaseVector {
    /// The vector's BLOB, after ``validate()``.
    public func databaseValue() throws -> DatabaseValue {
      try validate()
      return .blob(withUnsafeBytes { Data($0) })
    }

    /// Binds the vector's BLOB after ``validate()``: one copy, by SQLite (`SQLITE_TRANSIENT`).
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
    public func bind(to statement: Statement, at index: Int32) throws {
      try validate()
      let handle = statement.sqliteHandle
      let rc = withUnsafeBytes { bytes in
        sqlite3_bind_blob64(handle, index, bytes.baseAddress, UInt64(bytes.count), transientDestructor)
      }
      try statement.checkBinding(rc, at: index)
    }

    /// The SQL expression that binds this vector as parameter `?` with its element type:
    /// `?`, `vec_int8(?)` or `vec_bit(?)`.
    static var parameterSQL: String {
      elementType == .float32 ? "?" : "\(elementType.sqlFunction)(?)"
    }
  }

  /// Reads a vector's elements from a BLOB of whole elements, or the error to throw.
  func vectorElements<Element>(
    _ bytes: UnsafeRawBufferPointer, as type: Element.Type, elementType: VectorElementType
  ) -> Result<[Element], VectorError> {
    let width = MemoryLayout<Element>.stride
    guard bytes.count % width == 0 else {
      return .failure(.partialElement(byteCount: bytes.count, elementType: elementType))
    }
    let count = bytes.count / width
    return .success(
      [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
        if let source = bytes.baseAddress, let target = buffer.baseAddress {
          UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: bytes.count)
        }
        initialized = count
      })
  }

  /// Reads a vector's elements from a stored value: a BLOB in sqlite-vec's format, or JSON text (float32
  /// and int8 only, as sqlite-vec reads it). Throws ``DatabaseError/conversionFailed(column:type:found:reason:)``,
  /// or ``VectorError/invalidJSON(_:)`` for bad JSON when `jsonError` is true.
  func vectorElements<Element: Decodable>(
    _ value: DatabaseValue, as type: Element.Type, elementType: VectorElementType, vectorType: Any.Type,
    jsonError: Bool = false
  ) throws -> [Element] {
    switch value {
    case .blob(let data):
      let result = data.withUnsafeBytes { vectorElements($0, as: type, elementType: elementType) }
      switch result {
      case .success(let elements): return elements
      case .failure(let error): throw DatabaseError.cannotConvert(value, to: vectorType, error.description)
      }
    case .text(let text) where elementType != .bit:
      do {
        return try JSONDecoder().decode([Element].self, from: Data(text.utf8))
      } catch {
        if jsonError { throw VectorError.invalidJSON("\(elementType) elements expected in \(text.debugDescription)") }
        throw DatabaseError.cannotConvert(
          value, to: vectorType, VectorError.invalidJSON("\(elementType) elements expected").description)
      }
    default:
      throw DatabaseError.cannotConvert(
        value, to: vectorType,
        elementType == .bit ? "a bit vector is stored as a BLOB" : "a vector is stored as a BLOB or as JSON text")
    }
  }

  /// Reads column `index` of `row` as a vector's elements without going through ``DatabaseValue`` when
  /// it is a BLOB.
  func vectorElements<Element: Decodable>(
    row: borrowing Row, at index: Int32, as type: Element.Type, elementType: VectorElementType,
    vectorType: Any.Type
  ) throws -> [Element] {
    if sqlite3_column_type(row.sqliteHandle, index) == SQLITE_BLOB {
      let result = try row.withUnsafeBytes(at: Int(index)) { bytes in
        vectorElements(bytes ?? UnsafeRawBufferPointer(start: nil, count: 0), as: type, elementType: elementType)
      }
      if case .success(let elements) = result { return elements }
    }
    return try vectorElements(row.databaseValue(at: index), as: type, elementType: elementType, vectorType: vectorType)
  }

  /// JSON text of a vector's elements, as sqlite-vec reads it: `[0.5,-1.0]`.
  func vectorJSON<Element>(_ elements: [Element]) -> String {
    "[" + elements.map { "\($0)" }.joined(separator: ",") + "]"
  }
#endif
