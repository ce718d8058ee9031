import AmalgamSQLite

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
/// - The decoder and containers a type's `init(from:)` receives are valid during that call only, as
///   callback values are: one kept and used later throws ``DatabaseError/callbackValueExpired(_:)``.
///   (The keyed container is reused from row to row of a statement, so one kept from an earlier row and
///   used while a later row of the same statement decodes reads that later row.)
///
/// Related SQLite documentation: <https://sqlite.org/json1.html>
public struct RowDecoder: Sendable {
  /// How numbers are read as dates (text is always read as a date in any of SQLite's forms). Default:
  /// `nil`, the format of the row's connection (``ValueStorage/dates``), which reads numbers as Unix
  /// time unless the connection was told otherwise.
  public var dateFormat: DatabaseDateFormat?

  /// Creates a decoder; a `nil` date format follows the row's connection.
  public init(dateFormat: DatabaseDateFormat? = nil) {
    self.dateFormat = dateFormat
  }

  /// Decodes `type` from the current row. A ``ColumnConvertible`` type (`Int`, `String`, `Date`,
  /// `Data`, `URL`, `Decimal`, ...) reads the first column, as a property of that type would.
  public func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
    let statement = row.statement
    // Not through the type's own Codable form, which is not how the database stores it: a `Date`
    // decodes seconds since 2001, `Data` an array of bytes, `URL` and `Decimal` keyed containers.
    // (The conformance test is remembered per statement: it is a runtime lookup, and a fetch decodes
    // one type row after row.)
    let typeID = ObjectIdentifier(T.self)
    let isColumn: Bool
    if let memo = statement.coding.decodedTypeMemo, memo.type == typeID {
      isColumn = memo.isColumnConvertible
    } else {
      isColumn = T.self is any ColumnConvertible.Type
      statement.coding.decodedTypeMemo = (typeID, isColumn)
    }
    if isColumn { return try decodeColumn(type, row: row, index: 0, options: self) }
    let scope: CallbackScope
    if let existing = statement.coding.decodingScope {
      scope = existing
    } else {
      scope = CallbackScope()
      statement.coding.decodingScope = scope
    }
    let outerOptions = statement.coding.decodingOptions
    statement.coding.decodingOptions = self
    defer { statement.coding.decodingOptions = outerOptions }
    // The decoder and its containers hold the statement unretained, valid while this call runs: a
    // container that `init(from:)` kept throws once the call has returned instead of reading.
    return try scope.run { token in
      try T(from: RowDecoding(statement: Unretained(statement), token: token))
    }
  }

  /// Decodes a value stored in one column: ColumnConvertible types directly, others from JSON.
  func decodeValue<T: Decodable>(_ type: T.Type, from value: DatabaseValue, column: String) throws -> T {
    if T.self == Date.self, let date = try Date(databaseValue: value, format: dateFormat ?? .iso8601) as? T {
      return date
    }
    if T.self == Date?.self {
      let date = value.isNull ? nil : try Date(databaseValue: value, format: dateFormat ?? .iso8601)
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
  public func decodeFirst<T: Decodable>(_ type: T.Type = T.self, using decoder: RowDecoder = RowDecoder()) throws -> T?
  {
    defer { _ = try? reset() }
    guard let row = try step() else { return nil }
    return try decoder.decode(type, from: row)
  }
}

/// The `Decoder` over a statement's current row, during one ``RowDecoder/decode(_:from:)`` call. It
/// and its keyed container hold no reference: the statement unretained and the call's token, checked
/// before every use. So passing the decoder as `any Decoder` fits the existential's inline buffer, and
/// the standard library's copy of the container for each property costs no reference counting.
private struct RowDecoding: Decoder {
  let statement: Unretained<Statement>
  let token: CallbackToken
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  /// The statement, retained, after checking that the decode call is still running.
  func checkedStatement() throws -> Statement {
    try token.check("a RowDecoder's decoder")
    return statement.object
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    try token.check("a RowDecoder's decoder")
    return statement.withObject { statement in
      statement.refreshColumnNames()  // once per row (see columnIndexInCurrentRow)
      // The container holds only what is constant for the statement, so the next row with the same
      // keys gets it again, without the metadata lookups and allocation of a new one (ReusedContainer).
      if let reused = statement.coding.reusedDecodingContainer?.container(
        KeyedDecodingContainer<Key>.self, for: Key.self)
      {
        return reused
      }
      let container = KeyedDecodingContainer(
        RowKeyedContainer<Key>(statement: self.statement, handle: statement.sqliteHandle, mark: token.scopeMark))
      statement.coding.reusedDecodingContainer = ReusedContainer.keep(container, for: Key.self)
      return container
    }
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let statement = try checkedStatement()
    return RowUnkeyedContainer(
      row: Row(statement: statement), options: statement.coding.decodingOptions, codingPath: codingPath, parent: self)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    let statement = try checkedStatement()
    return RowSingleValueContainer(
      row: Row(statement: statement), options: statement.coding.decodingOptions, codingPath: codingPath)
  }
}

/// Reads column `index` of `row` as `T`, through the fast column path where `T` has one.
private func decodeColumn<T: Decodable>(_ type: T.Type, row: Row, index: Int, options: RowDecoder) throws -> T {
  // Dates, optional or not, read numbers in the decoder's format when it names one, else in the
  // connection's (which reading the column as a Date does).
  if options.dateFormat == nil || (T.self != Date.self && T.self != Date?.self),
    let convertible = T.self as? any ColumnConvertible.Type
  {
    if let value = try row.value(at: index, as: convertible) as? T { return value }
  }
  return try options.decodeValue(type, from: row[index], column: row.columnLabel(index))
}

/// Reads each property from the column of the same name in the statement's current row. Made once
/// per statement and `CodingKeys` type and reused from row to row (``StatementCodingState/reusedDecodingContainer``):
/// it holds the statement unretained and its decoding scope's mark, checked before every use, so that
/// one kept after its decode returned throws instead of reading (even once the statement is gone).
private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  /// Unretained: see ``RowDecoding``. Used only after `token` says a decode call is running.
  private let statement: Unretained<Statement>
  private let handle: OpaquePointer
  /// Says whether a decode of the statement's rows is running (the statement is alive meanwhile).
  private let token: CallbackScopeMark
  var codingPath: [any CodingKey] { [] }

  init(statement: Unretained<Statement>, handle: OpaquePointer, mark: CallbackScopeMark) {
    self.statement = statement
    self.handle = handle
    self.token = mark
  }

  private func expired() -> DatabaseError {
    .callbackValueExpired("a RowDecoder's keyed container, used after its decode returned")
  }

  /// Calls `body` with the statement's current row, after checking that the decode call still runs.
  @inline(__always)
  private func withRow<R>(_ body: (borrowing Row) throws -> R) throws -> R {
    guard token.isActive else { throw expired() }
    return try statement.withObject { try body(Row(statement: $0)) }
  }

  /// The index of the column named `key`'s string value.
  @inline(__always)
  private func columnIndex(_ key: Key) throws -> Int {
    try statement.withObject { try $0.columnIndexInCurrentRow(named: key.stringValue) }
  }

  var allKeys: [Key] {
    guard token.isActive else { return [] }
    return statement.withObject { $0.columnNames.compactMap { Key(stringValue: $0) } }
  }

  func contains(_ key: Key) -> Bool {
    guard token.isActive else { return false }
    return (try? columnIndex(key)) != nil
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    try withRow { row in try row.isNull(at: columnIndex(key)) }
  }

  /// Reads a standard type by the key's column name. 64-bit integers are read here, without making a
  /// row; other types through ``Row/value(at:as:)``.
  @inline(__always)
  private func read<T: ColumnConvertible>(_ key: Key) throws -> T {
    guard token.isActive else { throw expired() }
    let index = try columnIndex(key)
    if T.self == Int64.self || (T.self == Int.self && Int.bitWidth == 64) {
      let column = amalgam_column_integer(handle, Int32(truncatingIfNeeded: index))
      if column.type == SQLITE_INTEGER { return unsafeBitCast(column.value, to: T.self) }
    }
    return try statement.withObject { try Row(statement: $0).value(at: index) }
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
    guard token.isActive else { throw expired() }
    let index = try columnIndex(key)
    return try statement.withObject {
      try decodeColumn(type, row: Row(statement: $0), index: index, options: $0.coding.decodingOptions)
    }
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw DatabaseError.codingFailed(
      "Column \"\(key.stringValue)\": nested containers are not supported; make the property a Decodable type stored as JSON"
    )
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw DatabaseError.codingFailed(
      "Column \"\(key.stringValue)\": nested containers are not supported; make the property a Decodable type stored as JSON"
    )
  }

  func superDecoder() throws -> any Decoder {
    guard token.isActive else { throw expired() }
    return RowDecoding(statement: statement, token: token.currentToken)
  }
  func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }
}

/// Columns in order, for types that decode from an unkeyed container (tuples-like structs, arrays).
private struct RowUnkeyedContainer: UnkeyedDecodingContainer {
  let row: Row
  let options: RowDecoder
  let codingPath: [any CodingKey]
  /// The decoder that made this container, handed out as its super decoder.
  let parent: RowDecoding
  var currentIndex = 0

  init(row: Row, options: RowDecoder, codingPath: [any CodingKey], parent: RowDecoding) {
    self.row = row
    self.options = options
    self.codingPath = codingPath
    self.parent = parent
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

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
    NestedKey
  > {
    throw DatabaseError.codingFailed("Nested containers are not supported in a row")
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DatabaseError.codingFailed("Nested containers are not supported in a row")
  }

  mutating func superDecoder() throws -> any Decoder {
    try parent.token.check("a RowDecoder's unkeyed container")
    return parent
  }
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
