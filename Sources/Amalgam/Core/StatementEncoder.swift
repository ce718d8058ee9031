#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Encodes an `Encodable` value into named statement parameters: each property binds the parameter of
/// the same name (`:name`, `@name` or `$name`).
///
/// ```swift
/// struct Person: Encodable { var name: String; var email: String? }
/// try db.prepare(sql: "INSERT INTO person(name, email) VALUES (:name, :email)")
///   .bind(Person(name: "Ada", email: nil))
///   .execute()
/// ```
///
/// - ``ParameterBindable`` types (numbers, `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal`) bind
///   directly; `nil` binds NULL.
/// - Other values (nested structs, arrays, dictionaries) are stored as JSON text; enums and
///   single-value wrappers store their single value.
/// - Every parameter of the statement needs a property; properties without a parameter are ignored.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
public struct StatementEncoder: Sendable {
  /// How dates are stored. Default: ``DatabaseDateFormat/iso8601`` text.
  public var dateFormat: DatabaseDateFormat

  /// Creates an encoder.
  public init(dateFormat: DatabaseDateFormat = .iso8601) {
    self.dateFormat = dateFormat
  }

  /// The value's properties as database values, by property name.
  public func encode<T: Encodable>(_ value: T) throws -> [String: DatabaseValue] {
    let storage = EncodedValues()
    try value.encode(to: StatementEncoding(storage: storage, options: self))
    return storage.values
  }

  /// Binds the value's properties to `statement`'s named parameters.
  ///
  /// - Throws: ``DatabaseError/missingParameter(name:sql:)`` for a parameter no property matches, and
  ///   ``DatabaseError/unnamedParameter(index:sql:)`` for a `?` parameter.
  public func encode<T: Encodable>(_ value: T, to statement: Statement) throws {
    let values = try encode(value)
    for index in 1...max(1, statement.parameterCount) where index <= statement.parameterCount {
      guard let name = statement.parameterName(at: index) else {
        throw DatabaseError.unnamedParameter(index: index, sql: statement.sql)
      }
      guard let value = values[String(name.dropFirst())] else {
        throw DatabaseError.missingParameter(name: name, sql: statement.sql)
      }
      try statement.bind(value: value, toParameter: index)
    }
  }

  /// Converts one property value.
  func encodeValue<T: Encodable>(_ value: T) throws -> DatabaseValue {
    if let date = value as? Date { return try date.databaseValue(format: dateFormat) }
    if let bindable = value as? any ParameterBindable { return try bindable.databaseValue() }
    let json: Data
    do {
      json = try JSONEncoder().encode(value)
    } catch {
      throw DatabaseError.codingFailed("Cannot encode \(T.self): \(error)")
    }
    // Objects and arrays are stored as JSON text; a single value (an enum's raw value) as itself.
    guard let first = json.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") else {
      return .text(String(decoding: json, as: UTF8.self))
    }
    if first == UInt8(ascii: "\""), let text = try? JSONDecoder().decode(String.self, from: json) { return .text(text) }
    if let integer = try? JSONDecoder().decode(Int64.self, from: json) { return .integer(integer) }
    if let real = try? JSONDecoder().decode(Double.self, from: json) { return .real(real) }
    if let flag = try? JSONDecoder().decode(Bool.self, from: json) { return .integer(flag ? 1 : 0) }
    return .null
  }
}

extension Statement {
  /// Binds an `Encodable` value's properties to the named parameters. See ``StatementEncoder``.
  @discardableResult
  public func bind<T: Encodable>(_ value: T, using encoder: StatementEncoder = StatementEncoder()) throws -> Statement {
    try encoder.encode(value, to: self)
    return self
  }
}

/// The values encoded so far. A class because Swift's encoding containers are values handed out by the
/// encoder, and they must all write to one place.
private final class EncodedValues {
  var values: [String: DatabaseValue] = [:]
}

private struct StatementEncoding: Encoder {
  let storage: EncodedValues
  let options: StatementEncoder
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(ParameterContainer<Key>(storage: storage, options: options))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    PositionalFailure()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    PositionalFailure()
  }
}

/// Top-level arrays and single values have no parameter names: encoding one throws.
private struct PositionalFailure: UnkeyedEncodingContainer, SingleValueEncodingContainer {
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }
  private var failure: DatabaseError {
    .codingFailed("StatementEncoder encodes keyed values (structs, classes) into named parameters only")
  }
  mutating func encodeNil() throws { throw failure }
  mutating func encode<T: Encodable>(_ value: T) throws { throw failure }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(IgnoredContainer<NestedKey>())
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
  mutating func superEncoder() -> any Encoder { FailingEncoder() }
}

private struct FailingEncoder: Encoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(IgnoredContainer<Key>())
  }
  func unkeyedContainer() -> any UnkeyedEncodingContainer { PositionalFailure() }
  func singleValueContainer() -> any SingleValueEncodingContainer { PositionalFailure() }
}

/// A container whose every write throws (reached only after a failure was already reported).
private struct IgnoredContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  var codingPath: [any CodingKey] { [] }
  mutating func encodeNil(forKey key: Key) throws { throw Self.failure }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw Self.failure }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(IgnoredContainer<NestedKey>())
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { PositionalFailure() }
  mutating func superEncoder() -> any Encoder { FailingEncoder() }
  mutating func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder() }
  static var failure: DatabaseError { .codingFailed("StatementEncoder: nested containers are not supported") }
}

/// Writes each property to the parameter of the same name. `nil` optionals write NULL (the default
/// `encodeIfPresent` would skip them, leaving the parameter unbound).
private struct ParameterContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let storage: EncodedValues
  let options: StatementEncoder
  var codingPath: [any CodingKey] { [] }

  private func store(_ value: DatabaseValue, _ key: Key) { storage.values[key.stringValue] = value }

  mutating func encodeNil(forKey key: Key) throws { store(.null, key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    store(try options.encodeValue(value), key)
  }
  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    store(try value.map(options.encodeValue) ?? .null, key)
  }
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { store(try value.databaseValue(), key) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { store(try value.databaseValue(), key) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(IgnoredContainer<NestedKey>())
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { PositionalFailure() }
  mutating func superEncoder() -> any Encoder { StatementEncoding(storage: storage, options: options) }
  mutating func superEncoder(forKey key: Key) -> any Encoder { StatementEncoding(storage: storage, options: options) }
}
