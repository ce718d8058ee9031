#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Decodes a row into a `Decodable` value: each property reads the column of the same name.
///
/// ```swift
/// struct Person: Decodable { var id: Int64; var name: String; var email: String? }
/// let people = try db.prepare(sql: "SELECT id, name, email FROM person").decodeAll(Person.self)
/// ```
///
/// - Types that are ``ColumnConvertible`` (numbers, `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal`)
///   read their column directly; an optional property reads NULL, or a missing column, as `nil`.
/// - Other values (nested structs, arrays, dictionaries) are stored as JSON text in one column; enums
///   and single-value wrappers read the column's value itself.
/// - A non-optional property with no column throws ``DatabaseError/noSuchColumn(name:available:)``.
///
/// Related SQLite documentation: <https://sqlite.org/json1.html>
public struct RowDecoder: Sendable {
  /// How numbers are read as dates (text is always ISO-8601). Default: ``DatabaseDateFormat/iso8601``,
  /// which reads numbers as Unix time.
  public var dateFormat: DatabaseDateFormat

  /// Creates a decoder.
  public init(dateFormat: DatabaseDateFormat = .iso8601) {
    self.dateFormat = dateFormat
  }

  /// Decodes `type` from the current row. A ``ColumnConvertible`` type (`Int`, `String`, `Date`,
  /// `Data`, `URL`, `Decimal`, ...) reads the first column, as a property of that type would.
  public func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
    // Not through the type's own Codable form, which is not how the database stores it: a `Date`
    // decodes seconds since 2001, `Data` an array of bytes, `URL` and `Decimal` keyed containers.
    if T.self is any ColumnConvertible.Type { return try decodeColumn(type, row: row, index: 0, options: self) }
    return try T(from: RowDecoding(row: row, options: self, codingPath: []))
  }

  /// Decodes a value stored in one column: ColumnConvertible types directly, others from JSON.
  func decodeValue<T: Decodable>(_ type: T.Type, from value: DatabaseValue, column: String) throws -> T {
    if T.self == Date.self, let date = try Date(databaseValue: value, format: dateFormat) as? T {
      return date
    }
    if T.self == Date?.self {
      let date = value.isNull ? nil : try Date(databaseValue: value, format: dateFormat)
      if let date = date as? T { return date }
    }
    if let convertible = T.self as? any ColumnConvertible.Type {
      if let decoded = try convertible.init(databaseValue: value) as? T { return decoded }
    }
    let json: Data
    switch value {
    case .null: json = Data("null".utf8)
    case .integer(let number): json = Data(String(number).utf8)
    case .real(let number): json = Data(String(number).utf8)
    case .text(let text):
      let first = text.utf8.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
      json = first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? Data(text.utf8) : try JSONEncoder().encode(text)
    case .blob(let data): json = data
    }
    do {
      return try JSONDecoder().decode(T.self, from: json)
    } catch {
      throw DatabaseError.codingFailed("Cannot decode \(T.self) from column \(column) (\(value.summary)): \(error)")
    }
  }
}

extension Row {
  /// Decodes the row into `type`. See ``RowDecoder``.
  public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: RowDecoder = RowDecoder()) throws -> T {
    try decoder.decode(type, from: self)
  }
}

extension Statement {
  /// Decodes every row into `type`, then resets the statement. See ``RowDecoder``.
  public func decodeAll<T: Decodable>(_ type: T.Type = T.self, using decoder: RowDecoder = RowDecoder()) throws -> [T] {
    var values: [T] = []
    try results { row in values.append(try decoder.decode(type, from: row)) }
    return values
  }

  /// Decodes the first row into `type`, or returns `nil` when there is none; resets the statement.
  public func decodeFirst<T: Decodable>(_ type: T.Type = T.self, using decoder: RowDecoder = RowDecoder()) throws -> T? {
    defer { _ = try? reset() }
    guard let row = try step() else { return nil }
    return try decoder.decode(type, from: row)
  }
}

/// What the decoder and its containers read from. A class, so that the decoder passed as `any Decoder`
/// and each container are one reference wide: the row and options are neither boxed nor copied (and so
/// not retained) per property.
private final class RowSource {
  let row: Row
  let options: RowDecoder
  /// The statement's column names, read once per row.
  let names: [String]
  /// The column after the last one read by name: properties usually come in the columns' order, so
  /// one string comparison finds the column. Only the decoding of one row on one thread touches it,
  /// and never re-entrantly: the runtime exclusivity check would cost more than the lookup.
  @exclusivity(unchecked) var next = 0

  init(row: Row, options: RowDecoder) {
    self.row = row
    self.options = options
    self.names = row.statement.columnNames
  }

  /// The index of the column named `name`.
  func columnIndex(named name: String) throws -> Int {
    var index = next
    if index >= names.count || names[index] != name {
      index = try row.statement.columnIndex(named: name)
    }
    next = index + 1
    return index
  }
}

/// The `Decoder` over a row.
private struct RowDecoding: Decoder {
  let source: RowSource
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(source: RowSource) { self.source = source }
  init(row: Row, options: RowDecoder, codingPath: [any CodingKey]) {
    source = RowSource(row: row, options: options)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(RowKeyedContainer<Key>(source: source))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    RowUnkeyedContainer(row: source.row, options: source.options, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    RowSingleValueContainer(row: source.row, options: source.options, codingPath: codingPath)
  }
}

/// Reads column `index` of `row` as `T`, through the fast column path where `T` has one.
private func decodeColumn<T: Decodable>(_ type: T.Type, row: Row, index: Int, options: RowDecoder) throws -> T {
  // Dates, optional or not, read numbers in the decoder's format.
  if T.self != Date.self, T.self != Date?.self, let convertible = T.self as? any ColumnConvertible.Type {
    if let value = try row.value(at: index, as: convertible) as? T { return value }
  }
  return try options.decodeValue(type, from: row[index], column: row.columnLabel(index))
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  private let source: RowSource
  var codingPath: [any CodingKey] { [] }

  init(source: RowSource) { self.source = source }

  var allKeys: [Key] { source.row.statement.columnNames.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool {
    (try? source.row.statement.columnIndex(named: key.stringValue)) != nil
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    try source.row.isNull(at: source.columnIndex(named: key.stringValue))
  }

  /// Reads a standard type by the key's column name.
  @inline(__always)
  private func read<T: ColumnConvertible>(_ key: Key) throws -> T {
    try source.row.value(at: source.columnIndex(named: key.stringValue))
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(key) }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decodeColumn(type, row: source.row, index: source.columnIndex(named: key.stringValue), options: source.options)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw DatabaseError.codingFailed(
      "Column \"\(key.stringValue)\": nested containers are not supported; make the property a Decodable type stored as JSON")
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw DatabaseError.codingFailed(
      "Column \"\(key.stringValue)\": nested containers are not supported; make the property a Decodable type stored as JSON")
  }

  func superDecoder() throws -> any Decoder { RowDecoding(source: source) }
  func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }
}

/// Columns in order, for types that decode from an unkeyed container (tuples-like structs, arrays).
private struct RowUnkeyedContainer: UnkeyedDecodingContainer {
  let row: Row
  let options: RowDecoder
  let codingPath: [any CodingKey]
  var currentIndex = 0

  init(row: Row, options: RowDecoder, codingPath: [any CodingKey]) {
    self.row = row
    self.options = options
    self.codingPath = codingPath
  }

  var count: Int? { row.count }
  var isAtEnd: Bool { currentIndex >= row.count }

  mutating func decodeNil() throws -> Bool {
    let isNull = try row.isNull(at: currentIndex)
    if isNull { currentIndex += 1 }
    return isNull
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let value = try decodeColumn(type, row: row, index: currentIndex, options: options)
    currentIndex += 1
    return value
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
    throw DatabaseError.codingFailed("Nested containers are not supported in a row")
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DatabaseError.codingFailed("Nested containers are not supported in a row")
  }

  mutating func superDecoder() throws -> any Decoder { RowDecoding(row: row, options: options, codingPath: codingPath) }
}

/// The first column, for a type that decodes from a single value (`Int`, an enum, a wrapper).
private struct RowSingleValueContainer: SingleValueDecodingContainer {
  let row: Row
  let options: RowDecoder
  let codingPath: [any CodingKey]

  func decodeNil() -> Bool { (try? row.isNull(at: 0)) ?? true }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decodeColumn(type, row: row, index: 0, options: options)
  }
}
