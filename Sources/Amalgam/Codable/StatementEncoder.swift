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
/// - Other values (nested structs, arrays, dictionaries) are stored as JSON text with sorted keys, so
///   that one value always gives the same text; enums and single-value wrappers store their single value.
/// - Every parameter of the statement needs a property; properties without a parameter are ignored.
/// - The encoder and containers a type's `encode(to:)` receives are valid during that call only: one
///   kept and used later throws ``DatabaseError/callbackValueExpired(_:)``. (The keyed container is
///   reused from value to value of a statement, so one kept from an earlier value and used while a later
///   value encodes into the same statement binds that statement's parameters.)
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
public struct StatementEncoder: Sendable {
  /// How dates are stored. Default: `nil`, the format of the statement's connection
  /// (``ValueStorage/dates``), which is ``DatabaseDateFormat/iso8601`` text unless the connection was
  /// told otherwise. (``encode(_:)``, which has no statement, uses ISO-8601 then.)
  public var dateFormat: DatabaseDateFormat?

  /// Creates an encoder; a `nil` date format follows the statement's connection.
  public init(dateFormat: DatabaseDateFormat? = nil) {
    self.dateFormat = dateFormat
  }

  /// The value's properties as database values, by property name.
  public func encode<T: Encodable>(_ value: T) throws -> [String: DatabaseValue] {
    let sink = DictionarySink(options: self)
    try sink.encodeProperties(of: value)
    return sink.values
  }

  /// Binds the value's properties to `statement`'s named parameters, each straight to its parameter
  /// (no intermediate dictionary).
  ///
  /// - Throws: ``DatabaseError/missingParameter(name:sql:)`` for a parameter no property matches,
  ///   ``DatabaseError/unnamedParameter(index:sql:)`` for a `?` parameter, and
  ///   ``DatabaseError/duplicateParameter(name:sql:)`` when two properties name one parameter.
  public func encode<T: Encodable>(_ value: T, to statement: Statement) throws {
    try withSink(of: statement) { try $0.encodeProperties(of: value) }
  }

  /// Runs `body` with `statement`'s sink ready to bind named parameters, then throws for the first
  /// parameter `body` gave no value.
  func withSink(of statement: Statement, _ body: (StatementSink) throws -> Void) throws {
    // Holding the connection for the whole encode: every property binds.
    try statement.whileOpen {
      // The statement keeps one sink between encodes, so that encoding a row allocates none; a nested
      // encode into the same statement (from inside a property's `encode(to:)`) finds it busy and makes
      // its own.
      if let kept = statement.coding.unretainedEncoderSink, kept.withObject({ !$0.isEncoding }) {
        // The statement holds its sink for good, and the caller holds the statement.
        try kept.withObject { try encode(into: $0, body) }
      } else {
        let sink = StatementSink(statement: statement)
        statement.coding.keepEncoderSink(sink)
        try encode(into: sink, body)
      }
    }
  }

  private func encode(into sink: StatementSink, _ body: (StatementSink) throws -> Void) throws {
    sink.begin(options: self)
    defer { sink.end() }
    try body(sink)
    try sink.finish()
  }

  /// Converts a property value that is not one of the standard types to a database value.
  func encodeValue<T: Encodable>(_ value: T) throws -> DatabaseValue {
    if let date = value as? Date { return try date.databaseValue(format: dateFormat ?? .iso8601) }
    if let bindable = value as? any ParameterBindable { return try bindable.databaseValue() }
    let json: Data
    do {
      json = try canonicalJSONEncoder().encode(value)
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

/// A `JSONEncoder` that writes the keys of every object in sorted order, so that encoding a value gives
/// the same bytes every time (a `Dictionary` iterates in an order that changes from run to run).
func canonicalJSONEncoder() -> JSONEncoder {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return encoder
}

extension Statement {
  /// Binds an `Encodable` value's properties to the named parameters. See ``StatementEncoder``.
  ///
  /// ```swift
  /// try db.prepare(sql: "INSERT INTO player VALUES (:id, :name)").bind(player).execute()
  /// ```
  ///
  /// A value that can also be bound as one parameter (`Int`, `String`, `Data`, `UUID`, ...) binds to
  /// parameter 1 when written `bind(value)`, as in FeistyDB (see ``bind(_:)``; this overload is the
  /// disfavored one); name the encoder, `bind(value, using: StatementEncoder())`, to bind its
  /// properties instead.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @discardableResult @_disfavoredOverload
  public func bind<T: Encodable>(_ value: T, using encoder: StatementEncoder = StatementEncoder()) throws -> Statement {
    try encoder.encode(value, to: self)
    return self
  }
}

/// Where encoded properties go: straight to a statement's parameters, or into a dictionary. A class
/// because Swift's encoding containers are values handed out by the encoder, and they must all write
/// to one place.
protocol ParameterSink: AnyObject {
  var options: StatementEncoder { get }
  /// The lifetime of the encoders and containers made for this sink's encodes, which hold the sink
  /// unretained.
  var scope: CallbackScope { get }
  /// Stores a value of a type that binds itself (numbers, text, blobs, ...).
  func store<Value: ParameterBindable>(_ value: Value, forKey key: String) throws
  /// The keyed container last handed out for this sink, reused for the next value with the same
  /// `CodingKeys` (see ``ReusedContainer``).
  var reusedContainer: ReusedContainer? { get set }
}

/// The sink an encode writes to, unretained: one of the two concrete sinks. Two cases rather than a
/// generic parameter or an existential, so that every write reaches code specialized for its sink and
/// value type, and the encoder and container types need no runtime metadata lookup per sink.
/// Unretained: whoever starts an encode holds the sink until the encode returns, and the encoders and
/// containers that outlive it check their token or mark before touching it.
@usableFromInline
enum SinkReference {
  case statement(Unretained<StatementSink>)
  case dictionary(Unretained<DictionarySink>)

  /// Stores a value of a type that binds itself.
  @inline(__always) @usableFromInline
  func store<Value: ParameterBindable>(_ value: Value, forKey key: String) throws {
    switch self {
    case .statement(let sink): try sink.withObject { try $0.store(value, forKey: key) }
    case .dictionary(let sink): try sink.withObject { try $0.store(value, forKey: key) }
    }
  }

  /// Stores any `Encodable` value (see ``ParameterSink/storeEncodable(_:forKey:)``).
  func storeEncodable<Value: Encodable>(_ value: Value, forKey key: String) throws {
    switch self {
    case .statement(let sink): try sink.withObject { try $0.storeEncodable(value, forKey: key) }
    case .dictionary(let sink): try sink.withObject { try $0.storeEncodable(value, forKey: key) }
    }
  }

  /// The options of the encode running now.
  var options: StatementEncoder {
    switch self {
    case .statement(let sink): sink.withObject { $0.options }
    case .dictionary(let sink): sink.withObject { $0.options }
    }
  }

  /// The keyed container last handed out for this sink (see ``ParameterSink/reusedContainer``).
  var reusedContainer: ReusedContainer? {
    get {
      switch self {
      case .statement(let sink): sink.withObject { $0.reusedContainer }
      case .dictionary(let sink): sink.withObject { $0.reusedContainer }
      }
    }
    nonmutating set {
      switch self {
      case .statement(let sink): sink.withObject { $0.reusedContainer = newValue }
      case .dictionary(let sink): sink.withObject { $0.reusedContainer = newValue }
      }
    }
  }

  /// Stores each property of `value` (through its `encode(to:)`).
  func encodeProperties<T: Encodable>(of value: T) throws {
    // Each case reads its sink's scope in place (a `scope` getter would retain and release it).
    switch self {
    case .statement(let sink):
      try sink.withObject { sink in
        try sink.scope.run { token in try value.encode(to: ParameterEncoding(sink: self, token: token)) }
      }
    case .dictionary(let sink):
      try sink.withObject { sink in
        try sink.scope.run { token in try value.encode(to: ParameterEncoding(sink: self, token: token)) }
      }
    }
  }
}

extension ParameterSink {
  /// Stores any `Encodable` property: dates in the encoder's format, bindable types directly, other
  /// values as JSON.
  func storeEncodable<Value: Encodable>(_ value: Value, forKey key: String) throws {
    // `is Date` also matches an optional date, which the encoder's date format applies to as well; a
    // date bound as itself takes its statement's connection's format.
    if options.dateFormat == nil || !(value is Date), let bindable = value as? any ParameterBindable {
      try store(bindable, forKey: key)
    } else {
      try store(options.encodeValue(value), forKey: key)
    }
  }
}

/// Binds each property to the parameter of its name, and remembers which parameters got a value.
/// Reused from one encode to the next by its statement (``StatementCodingState/keepEncoderSink(_:)``); a container
/// kept after its encode returned binds nothing (it throws).
@usableFromInline
final class StatementSink: ParameterSink {
  /// The statement that owns this sink. Unretained, since the statement holds the sink: it is used only
  /// while an encode runs (`isEncoding`), and the encode holds the statement.
  @usableFromInline let statement: Unretained<Statement>
  private(set) var options = StatementEncoder()
  let scope = CallbackScope()
  /// Only this sink's encoder touches it, during an encode.
  @exclusivity(unchecked) var reusedContainer: ReusedContainer?
  /// The named parameters, kept from one encode to the next (the names never change); only this sink's
  /// encoding container reaches it, one property at a time: the runtime exclusivity check would cost
  /// more than binding.
  @exclusivity(unchecked) private var resolver: NamedParameterResolver
  /// True between ``begin(options:)`` and ``end()``.
  private(set) var isEncoding = false
  /// True when a key that no parameter of the statement has was encoded since ``begin(options:)``:
  /// ignored by a plain encode, but a record write must not lose a column (see `bindColumns`). Only this
  /// sink's encode touches it, on the statement's thread: no runtime exclusivity check, which would cost
  /// two calls per record written.
  @exclusivity(unchecked) private(set) var skippedKey = false
  /// The keys of the last encode that completed (every parameter given one value), in order, each with
  /// its parameter (0 for a key the statement has no parameter for). A type encodes the same keys in the
  /// same order every time, so the next encode compares each key with the remembered one (equal literal
  /// keys compare in a few instructions) instead of resolving it, and needs no duplicate or missing
  /// check when all of them match. Parameter names come from the SQL text, which a re-prepare keeps.
  /// Only this sink's encode touches these, one key at a time.
  @exclusivity(unchecked) private var memo = NamedBinding()
  @exclusivity(unchecked) private var hasMemo = false
  /// The keys of the running encode once it left the memo: the next memo if the encode completes.
  @exclusivity(unchecked) private var recording = NamedBinding()
  /// How many keys of the running encode matched the memo, in order; -1 once one did not (or there is
  /// no memo), after which every key goes through the resolver.
  @exclusivity(unchecked) private var matched = -1

  init(statement: Statement) {
    self.statement = Unretained(statement)
    resolver = NamedParameterResolver(statement: statement)
  }

  func begin(options: StatementEncoder) {
    self.options = options
    resolver.restart()
    skippedKey = false
    if hasMemo {
      matched = 0
    } else {
      matched = -1
      recording.removeAll()
    }
    isEncoding = true
  }

  /// Continues the running encode through the resolver: the keys that matched the memo so far are
  /// recorded and marked as given.
  private func leaveMemo() {
    recording.removeAll()
    for position in 0..<matched {
      let index = memo.indexes[position]
      recording.append(memo.names[position], index)
      if index != 0 { resolver.markGiven(index) }
    }
    matched = -1
  }

  func end() { isEncoding = false }

  /// Stores each property of `value` (through its `encode(to:)`).
  func encodeProperties<T: Encodable>(of value: T) throws {
    try SinkReference.statement(Unretained(self)).encodeProperties(of: value)
  }

  /// Throws for the first parameter given no value.
  func finish() throws {
    if matched >= 0 {
      // The same keys as the last encode that completed: every parameter got one value.
      if matched == memo.count { return }
      leaveMemo()
    }
    try resolver.finish()
    swap(&memo, &recording)
    hasMemo = true
  }

  func store<Value: ParameterBindable>(_ value: Value, forKey key: String) throws {
    guard let index = try parameterIndex(forKey: key) else { return }
    try statement.withObject { try value.bind(to: $0, at: index) }
  }

  /// The index of the parameter named `key`, which must get its value now; `nil` when the statement has
  /// none (a property without a parameter is ignored: a statement may use only some of a type's
  /// properties).
  ///
  /// - Throws: when no encode is running, and ``DatabaseError/duplicateParameter(name:sql:)``.
  @usableFromInline
  func parameterIndex(forKey key: String) throws -> Int32? {
    guard isEncoding else {
      throw DatabaseError.codingFailed("StatementEncoder: an encoding container was used after its encode returned")
    }
    if matched >= 0 {
      if matched < memo.count, memo.isName(key, at: matched) {
        let index = memo.indexes[matched]
        matched &+= 1
        guard index != 0 else {
          skippedKey = true
          return nil
        }
        return index
      }
      leaveMemo()
    }
    let index = try resolver.resolveIfPresent(key)
    recording.append(key, index ?? 0)
    guard let index else {
      skippedKey = true
      return nil
    }
    return index
  }
}

/// Collects the properties as database values by name.
@usableFromInline
final class DictionarySink: ParameterSink {
  let options: StatementEncoder
  let scope = CallbackScope()
  var values: [String: DatabaseValue] = [:]
  var reusedContainer: ReusedContainer?

  init(options: StatementEncoder) { self.options = options }

  /// Stores each property of `value` (through its `encode(to:)`).
  func encodeProperties<T: Encodable>(of value: T) throws {
    try SinkReference.dictionary(Unretained(self)).encodeProperties(of: value)
  }

  /// Whether a `UInt64` or `UInt` above `Int64.max` is stored as the `Int64` with the same bits, as a
  /// bind does on a connection that stores them so (``ValueStorage/unsignedIntegersAsBitPattern``).
  var unsignedIntegersAsBitPattern = false

  func store<Value: ParameterBindable>(_ value: Value, forKey key: String) throws {
    do {
      values[key] = try value.databaseValue()
    } catch let error as DatabaseError where unsignedIntegersAsBitPattern {
      if let value = value as? UInt64 {
        values[key] = .integer(Int64(bitPattern: value))
      } else if let value = value as? UInt, let bits = UInt64(exactly: value) {
        values[key] = .integer(Int64(bitPattern: bits))
      } else {
        throw error
      }
    }
  }
}

/// The `Encoder`. It and its keyed container hold the sink unretained with the encode call's token,
/// checked before every use (the callback-values mechanism, ``CallbackScope``): three words, so passing
/// the encoder as `any Encoder` allocates nothing, and the standard library's copy of the container for
/// every property costs no reference counting. A container kept after its encode returned throws.
private struct ParameterEncoding: Encoder {
  let sink: SinkReference
  let token: CallbackToken
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    // An encoder kept after its encode returned must not reach the sink: its container fails.
    guard token.isActive else {
      return KeyedEncodingContainer(ParameterContainer<Key>(sink: sink, mark: token.scopeMark))
    }
    // The container holds only what is constant for the sink, so the next value with the same keys
    // gets it again, without the metadata lookups and allocation of a new one (ReusedContainer).
    if let reused = sink.reusedContainer?.container(KeyedEncodingContainer<Key>.self, for: Key.self) {
      return reused
    }
    let container = KeyedEncodingContainer(ParameterContainer<Key>(sink: sink, mark: token.scopeMark))
    sink.reusedContainer = ReusedContainer.keep(container, for: Key.self)
    return container
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
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
    NestedKey
  > {
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
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(IgnoredContainer<NestedKey>())
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { PositionalFailure() }
  mutating func superEncoder() -> any Encoder { FailingEncoder() }
  mutating func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder() }
  static var failure: DatabaseError { .codingFailed("StatementEncoder: nested containers are not supported") }
}

/// Writes each property to the parameter of the same name. `nil` optionals write NULL (the default
/// `encodeIfPresent` would skip them, leaving the parameter unbound). Standard types bind directly,
/// without a dynamic cast.
///
/// Made once per sink and `CodingKeys` type and reused from value to value (``ReusedContainer``): it
/// holds the sink unretained and the mark of the sink's scope, so one kept after its encode returned
/// throws instead of binding.
private struct ParameterContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  /// Unretained: see ``ParameterEncoding``. Used only while `token` says an encode call is running.
  let sink: SinkReference
  let token: CallbackScopeMark

  init(sink: SinkReference, mark: CallbackScopeMark) {
    self.sink = sink
    self.token = mark
  }
  var codingPath: [any CodingKey] { [] }

  private static var expired: DatabaseError {
    .callbackValueExpired("a StatementEncoder's keyed container, used after its encode returned")
  }

  @inline(__always)
  private func store<Value: ParameterBindable>(_ value: Value, _ key: Key) throws {
    guard token.isActive else { throw Self.expired }
    try sink.store(value, forKey: key.stringValue)
  }

  @inline(__always)
  private func storeEncodable<Value: Encodable>(_ value: Value, _ key: Key) throws {
    guard token.isActive else { throw Self.expired }
    try sink.storeEncodable(value, forKey: key.stringValue)
  }

  mutating func encodeNil(forKey key: Key) throws { try store(DatabaseValue.null, key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try storeEncodable(value, key)
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: String, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Float, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Int, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try store(value, key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try store(value, key) }

  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
    if let value { try storeEncodable(value, key) } else { try encodeNil(forKey: key) }
  }
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try store(value, key) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try store(value, key) }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(IgnoredContainer<NestedKey>())
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { PositionalFailure() }
  // A super encoder made after the call returned fails on first use, as this container does.
  mutating func superEncoder() -> any Encoder { ParameterEncoding(sink: sink, token: token.currentToken) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    ParameterEncoding(sink: sink, token: token.currentToken)
  }
}
