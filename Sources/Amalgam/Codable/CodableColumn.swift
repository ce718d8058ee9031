#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// A `Codable` type that declares `ColumnConvertible` and `ParameterBindable` without implementing them
// is stored in one column as JSON, as FeistyDB stores it: no more code than the declaration.
//
// A type that implements a requirement itself keeps its own (String, Date, UUID, URL, Data, Decimal
// and the numbers all do), since a type's own implementation wins over a protocol extension's.

extension ColumnConvertible where Self: Decodable {
  /// Reads a `Codable` type from its JSON: TEXT (as ``ParameterBindable/databaseValue()`` writes it and
  /// ``JSONColumn`` reads it), or a BLOB of JSON text (as FeistyDB writes it), decoded by `JSONDecoder`
  /// at its default settings.
  ///
  /// ```swift
  /// struct Point: Codable, ColumnConvertible, ParameterBindable { var x: Int; var y: Int }
  /// let point: Point = try db.prepare(sql: "SELECT position FROM shape").front()
  /// ```
  ///
  /// - Throws: ``DatabaseError/conversionFailed(column:type:found:reason:)`` for NULL, a number, and
  ///   JSON that does not decode as `Self` (a BLOB of SQLite's binary JSONB included: read that with
  ///   ``JSONColumn``).
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html>
  public init(databaseValue: DatabaseValue) throws {
    let json: Data
    switch databaseValue {
    case .text(let text): json = Data(text.utf8)
    case .blob(let bytes): json = bytes
    default:
      throw DatabaseError.cannotConvert(
        databaseValue, to: Self.self, "JSON is stored as TEXT, or as a BLOB of JSON text")
    }
    do {
      self = try JSONDecoder().decode(Self.self, from: json)
    } catch {
      throw DatabaseError.conversionFailed(
        column: nil, type: "\(Self.self)", found: databaseValue.summary, reason: "the JSON does not decode: \(error)")
    }
  }
}

extension ParameterBindable where Self: Encodable {
  /// The value's JSON as TEXT, exactly as ``JSONColumn`` writes it: `JSONEncoder` with the keys of every
  /// object sorted, so that one value always gives the same text.
  ///
  /// ```swift
  /// try db.execute(sql: "INSERT INTO shape(position) VALUES (?)", parameterValues: [Point(x: 1, y: 2)])
  /// ```
  ///
  /// - Throws: ``DatabaseError/codingFailed(_:)`` when the value does not encode.
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html>
  public func databaseValue() throws -> DatabaseValue {
    do {
      return .text(String(decoding: try canonicalJSONEncoder().encode(self), as: UTF8.self))
    } catch {
      throw DatabaseError.codingFailed("Cannot encode \(Self.self) as JSON: \(error)")
    }
  }
}
