#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// How a ``JSONColumn`` is stored.
///
/// Related SQLite documentation: <https://sqlite.org/json1.html#jsonb>
public enum JSONStorage: Sendable, Hashable {
  /// JSON text (`TEXT`), readable by people and by every `json_*` function.
  case text
  /// JSONB (`BLOB`), SQLite's binary JSON: the `json_*` functions read it without parsing text.
  case jsonb
}

/// Any `Codable` value stored in one column as JSON: text, or SQLite's binary JSONB. Opt-in: wrap the
/// value where you bind it, or make a record's property a `JSONColumn`.
///
/// ```swift
/// struct Profile: Codable { var tags: Set<String>; var address: Address }
/// try db.execute(sql: "INSERT INTO user(id, profile) VALUES (?, ?)",
///                parameterValues: [1, JSONColumn(profile)])
/// let tags = try db.fetchAll(String.self, sql: "SELECT value FROM user, json_each(user.profile, '$.tags')")
/// let stored = try db.fetchValue(JSONColumn<Profile>.self, sql: "SELECT profile FROM user").value
///
/// struct User: TableRecord { static let tableName = "user"; var id: Int64; var profile: JSONColumn<Profile> }
/// ```
///
/// Reading accepts either form: TEXT is parsed as JSON text, a BLOB is read as JSONB (converted by
/// SQLite's `json()` on the row's own connection). Values are decoded with `JSONDecoder` at its default
/// settings, and encoded canonically: `JSONEncoder` with sorted keys (`.sortedKeys`), so that one value
/// always gives the same bytes. A dictionary or a type's properties would otherwise come out in an
/// order that changes from run to run, and then `WHERE doc = ?`, a UNIQUE constraint and a session's
/// changeset would see a value saved again unchanged as a different one. (A `Set` is an array in JSON,
/// in its own iteration order, which also changes from run to run: where the bytes matter, store a
/// sorted array.) A record's other properties map to columns as before: only properties of this type
/// change how they are stored.
///
/// Related SQLite documentation: <https://sqlite.org/json1.html>
public struct JSONColumn<Value: Codable>: ParameterBindable, ColumnConvertible, Codable {
  /// The value.
  public var value: Value
  /// How the value is written: ``JSONStorage/text`` unless asked otherwise. A value read from the
  /// database keeps the storage it was read from.
  public var storage: JSONStorage

  /// Wraps `value`, to be stored as JSON text or as JSONB.
  public init(_ value: Value, storage: JSONStorage = .text) {
    self.value = value
    self.storage = storage
  }

  /// The value's JSON text, with the keys of every object sorted: the same value always gives the
  /// same text.
  public func jsonText() throws -> String {
    do {
      return String(decoding: try canonicalJSONEncoder().encode(value), as: UTF8.self)
    } catch {
      throw DatabaseError.codingFailed("Cannot encode \(Value.self) as JSON: \(error)")
    }
  }

  /// The stored value: JSON text, or JSONB made by SQLite's `jsonb()` on a private in-memory
  /// connection (binding to a statement uses the statement's own connection instead).
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html#jsonb>
  public func databaseValue() throws -> DatabaseValue {
    let text = DatabaseValue.text(try jsonText())
    guard storage == .jsonb else { return text }
    return try withPrivateConnection { try convertJSON(text, function: "jsonb", handle: $0) }
  }

  /// Binds the JSON text, or the JSONB that SQLite's `jsonb()` makes of it on the statement's connection.
  ///
  /// Related SQLite documentation: <https://sqlite.org/json1.html#jsonb>
  public func bind(to statement: Statement, at index: Int32) throws {
    let text = DatabaseValue.text(try jsonText())
    switch storage {
    case .text:
      try text.bind(to: statement, at: index)
    case .jsonb:
      let blob = try statement.connection.withHandle { try convertJSON(text, function: "jsonb", handle: $0) }
      try blob.bind(to: statement, at: index)
    }
  }

  /// Reads JSON text, or JSONB converted on a private in-memory connection. (Reading from a row converts
  /// JSONB on the row's own connection.)
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .blob:
      let text = try withPrivateConnection { try convertJSON(databaseValue, function: "json", handle: $0) }
      try self.init(json: text, storage: .jsonb)
    default:
      try self.init(json: databaseValue, storage: .text)
    }
  }

  /// Reads JSON text, or JSONB converted by SQLite on the row's connection.
  public init(row: borrowing Row, at index: Int32) throws {
    let stored = try row.databaseValue(at: index)
    if case .blob = stored {
      let text = try row.statement.connection.withHandle { try convertJSON(stored, function: "json", handle: $0) }
      try self.init(json: text, storage: .jsonb)
    } else {
      try self.init(json: stored, storage: .text)
    }
  }

  private init(json: DatabaseValue, storage: JSONStorage) throws {
    guard case .text(let text) = json else {
      throw DatabaseError.cannotConvert(json, to: JSONColumn<Value>.self, "JSON is stored as TEXT or as a JSONB BLOB")
    }
    do {
      self.init(try JSONDecoder().decode(Value.self, from: Data(text.utf8)), storage: storage)
    } catch {
      throw DatabaseError.conversionFailed(
        column: nil, type: "\(Value.self)", found: json.summary, reason: "the JSON does not decode: \(error)")
    }
  }

  /// Decodes the value itself (as when the enclosing type is read from JSON elsewhere).
  public init(from decoder: any Decoder) throws {
    self.init(try Value(from: decoder))
  }

  /// Encodes the value itself.
  public func encode(to encoder: any Encoder) throws {
    try value.encode(to: encoder)
  }
}

extension JSONColumn: Equatable where Value: Equatable {}
extension JSONColumn: Hashable where Value: Hashable {}
extension JSONColumn: Sendable where Value: Sendable {}

/// An in-memory connection for converting between JSON text and JSONB where no other connection is at
/// hand, opened on first use and kept for the life of the process.
private let privateConnection = LockedState<OpaquePointer?>(nil)

/// Runs `body` with the private connection, holding its lock.
private func withPrivateConnection<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
  try privateConnection.withLock { handle in
    if handle == nil {
      var opened: OpaquePointer?
      let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY | SQLITE_OPEN_NOMUTEX
      let rc = sqlite3_open_v2(":memory:", &opened, flags, nil)
      guard rc == SQLITE_OK, let opened else {
        sqlite3_close(opened)
        throw SQLiteError(code: ResultCode(rawValue: rc), message: "Cannot open a connection to convert JSONB")
      }
      handle = opened
    }
    guard let handle else { throw SQLiteError(code: .cannotOpen, message: "Cannot open a connection to convert JSONB") }
    return try body(handle)
  }
}

/// Runs SQLite's `json(?)` or `jsonb(?)` on `value` over the connection `handle`.
private func convertJSON(_ value: DatabaseValue, function: String, handle: OpaquePointer) throws -> DatabaseValue {
  var statement: OpaquePointer?
  let sql = "SELECT \(function)(?)"
  var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
  defer { sqlite3_finalize(statement) }
  guard rc == SQLITE_OK, let statement else { throw SQLiteError(resultCode: rc, connection: handle, sql: sql) }
  switch value {
  case .text(let text):
    rc = bindText(text, handle: statement, index: 1)
  case .blob(let data):
    rc = data.withUnsafeBytes { bytes in
      sqlite3_bind_blob64(statement, 1, bytes.baseAddress, UInt64(bytes.count), transientDestructor)
    }
  default:
    rc = sqlite3_bind_null(statement, 1)
  }
  guard rc == SQLITE_OK else { throw SQLiteError(resultCode: rc, connection: handle, sql: sql) }
  rc = sqlite3_step(statement)
  guard rc == SQLITE_ROW else { throw SQLiteError(resultCode: rc, connection: handle, sql: sql) }
  let count = Int(sqlite3_column_bytes(statement, 0))
  switch sqlite3_column_type(statement, 0) {
  case SQLITE_BLOB:
    guard let bytes = sqlite3_column_blob(statement, 0), count > 0 else { return .blob(Data()) }
    return .blob(Data(bytes: bytes, count: count))
  case SQLITE_TEXT:
    guard let text = String.validatingUTF8(sqlite3_column_text(statement, 0), count: count) else {
      throw DatabaseError.codingFailed("SQLite's \(function)() returned text that is not UTF-8")
    }
    return .text(text)
  default:
    return .null
  }
}
