#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Where a ``TableRecord`` writes its columns: each `encode(_:forKey:)` gives one column its value.
///
/// A record's ``TableRecord/encode(to:)`` receives one for each insert, upsert, update or delete, and
/// for finding its columns. By default the record writes every property through ``StatementEncoder``
/// (``encodeProperties(of:)``); a record written often can write its columns itself, which skips
/// `Encodable`'s per-property dispatch:
///
/// ```swift
/// struct Player: TableRecord, RowConvertible {
///   static let tableName = "player"
///   var id: Int64
///   var name: String
///   var score: Int
///
///   func encode(to container: inout PersistenceContainer) throws {
///     try container.encode(id, forKey: "id")
///     try container.encode(name, forKey: "name")
///     try container.encode(score, forKey: "score")
///   }
///   init(row: borrowing Row) throws {
///     id = try row.value(named: "id")
///     name = try row.value(named: "name")
///     score = try row.value(named: "score")
///   }
/// }
/// ```
///
/// Write columns under the names of the table's columns; `nil` writes NULL. A value that skips a column
/// other values write does not lose it in those values (see ``TableRecord``), but writing every column
/// every time keeps to one cached statement. The container is valid during the `encode(to:)` call only:
/// it is not copyable, so it cannot be kept.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
public struct PersistenceContainer: ~Copyable {
  /// The statement's parameters, or a dictionary of values while the record's columns are collected.
  /// Unretained: the container lives only during the record's `encode(to:)`, while its maker holds the
  /// sink (and the container cannot be copied out of that call).
  @usableFromInline let target: SinkReference

  init(_ target: SinkReference) { self.target = target }

  /// Gives the column named `column` the value `value` (`nil` for NULL). A `Date` is written in the
  /// encoder's ``StatementEncoder/dateFormat``, or when that is `nil` in the connection's
  /// (``ValueStorage/dates``).
  ///
  /// - Throws: ``DatabaseError/duplicateParameter(name:sql:)`` when the column was given a value
  ///   already, and the errors of binding `value` (text that is not valid UTF-8, a number out of range).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable
  public mutating func encode<Value: ParameterBindable>(_ value: Value, forKey column: String) throws {
    if Value.self == Date.self || Value.self == Date?.self {
      try encodeDate(value, forKey: column)
    } else if case .statement(let sink) = target {
      // Inlined into the record's `encode(to:)`, so that the value binds through its own type's code:
      // only the parameter lookup is a call.
      guard let index = try sink.withObject({ try $0.parameterIndex(forKey: column) }) else { return }
      try sink.withObject { sink in
        try sink.statement.withObject { try value.bind(to: $0, at: index) }
      }
    } else {
      try target.store(value, forKey: column)
    }
  }

  /// A `Date` (or `Date?`) in the encoder's format, or bound as itself (in its connection's format)
  /// when the encoder names none; a nil one is NULL.
  @usableFromInline
  func encodeDate<Value: ParameterBindable>(_ value: Value, forKey column: String) throws {
    guard let format = target.options.dateFormat else { return try target.store(value, forKey: column) }
    // `as? Date` unwraps an optional date.
    let stored = try (value as? Date).map { try $0.databaseValue(format: format) } ?? .null
    try target.store(stored, forKey: column)
  }

  /// Gives the column named `column` a value of any `Encodable` type that is not ``ParameterBindable``:
  /// enums and wrappers store their single value, other values JSON text, as ``StatementEncoder`` does.
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html>
  @_disfavoredOverload
  public mutating func encode<Value: Encodable>(_ value: Value, forKey column: String) throws {
    try target.storeEncodable(value, forKey: column)
  }

  /// Writes every property of `value` as a column through its `Encodable` conformance, as
  /// ``StatementEncoder`` does: the default ``TableRecord/encode(to:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public mutating func encodeProperties<Value: Encodable>(of value: Value) throws {
    try target.encodeProperties(of: value)
  }
}
