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
  }

  // Reading: each vector type's initializers call these with its own element type and Swift type, so the
  // format rules (whole elements, JSON for float32 and int8, BLOB only for bits) live in one place.
  extension DatabaseVector {
    /// The elements of a stored value: a BLOB in sqlite-vec's format, or JSON text (float32 and int8
    /// only, as sqlite-vec reads it).
    ///
    /// - Throws: ``DatabaseError/conversionFailed(column:type:found:reason:)`` naming this vector type.
    static func elements<Element: Decodable>(from value: DatabaseValue) throws -> [Element] {
      switch value {
      case .blob(let data):
        switch data.withUnsafeBytes({ elements(copying: $0, as: Element.self) }) {
        case .success(let elements): return elements
        case .failure(let error): throw DatabaseError.cannotConvert(value, to: Self.self, error.description)
        }
      case .text(let text) where elementType != .bit:
        guard let elements: [Element] = decodeJSON(text) else {
          throw DatabaseError.cannotConvert(
            value, to: Self.self, VectorError.invalidJSON("\(elementType) elements expected").description)
        }
        return elements
      default:
        throw DatabaseError.cannotConvert(
          value, to: Self.self,
          elementType == .bit ? "a bit vector is stored as a BLOB" : "a vector is stored as a BLOB or as JSON text")
      }
    }

    /// The elements of JSON text such as `[0.5, -1, 2e-3]`.
    ///
    /// - Throws: ``VectorError/invalidJSON(_:)`` when the text is not a JSON array of this type's elements.
    static func elements<Element: Decodable>(json: String) throws -> [Element] {
      guard let elements: [Element] = decodeJSON(json) else {
        throw VectorError.invalidJSON("\(elementType) elements expected in \(json.debugDescription)")
      }
      return elements
    }

    /// The elements of column `index` of `row`, read in place (one copy) when it is a BLOB of whole
    /// elements, and as ``elements(from:)`` reads its ``DatabaseValue`` otherwise.
    static func elements<Element: Decodable>(row: borrowing Row, at index: Int32) throws -> [Element] {
      if sqlite3_column_type(row.sqliteHandle, index) == SQLITE_BLOB {
        let result = try row.withUnsafeBytes(at: Int(index)) { bytes in
          elements(copying: bytes ?? UnsafeRawBufferPointer(start: nil, count: 0), as: Element.self)
        }
        if case .success(let elements) = result { return elements }
      }
      return try elements(from: row.databaseValue(at: index))
    }

    /// The elements of a BLOB of whole elements, copied once, or the error to throw.
    private static func elements<Element>(
      copying bytes: UnsafeRawBufferPointer, as type: Element.Type
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

    /// The elements of JSON text, or nil when it is not a JSON array of `Element`s.
    private static func decodeJSON<Element: Decodable>(_ text: String) -> [Element]? {
      try? JSONDecoder().decode([Element].self, from: Data(text.utf8))
    }

    /// JSON text of `elements`, as sqlite-vec reads it: `[0.5,-1.0]`.
    static func json<Element>(_ elements: [Element]) -> String {
      "[" + elements.map { "\($0)" }.joined(separator: ",") + "]"
    }
  }
#endif
