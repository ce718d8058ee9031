#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Which columns of a row one value of a join is decoded from.
enum ColumnScope {
  /// The columns at these positions, by their own names.
  case range(Range<Int>)
  /// The columns whose names start with this prefix, by the rest of their names.
  case prefix(String)
}

extension Row {
  /// Decodes `type` from the columns in `columns` only: for a join whose tables share column names.
  ///
  /// ```swift
  /// // SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamID
  /// let pairs = try db.fetchAll(sql: sql) { row in
  ///   (try row.decode(Player.self, columns: 0..<3), try row.decode(Team.self, columns: 3..<5))
  /// }
  /// ```
  ///
  /// - Throws: ``DatabaseError/columnIndexOutOfRange(index:count:)`` when the range leaves the row,
  ///   and the errors of ``RowDecoder``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  public func decode<T: Decodable>(
    _ type: T.Type = T.self, columns: Range<Int>, using decoder: RowDecoder = RowDecoder()
  ) throws -> T {
    guard columns.lowerBound >= 0, columns.upperBound <= count else {
      // The first position of the range that is not a column of the row.
      let outside = columns.lowerBound < 0 ? columns.lowerBound : max(columns.lowerBound, count)
      throw DatabaseError.columnIndexOutOfRange(index: outside, count: count)
    }
    return try T(from: ScopedDecoding(row: self, scope: .range(columns), options: decoder))
  }

  /// Decodes `type` from the columns whose names start with `prefix`, each property reading the column
  /// named `prefix + property`: for a join that names its columns `AS "team.name"`.
  ///
  /// ```swift
  /// // SELECT p.id, p.name, t.id AS "team.id", t.name AS "team.name" FROM player p JOIN team t ...
  /// let team = try row.decode(Team.self, prefix: "team.")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_name.html>
  public func decode<T: Decodable>(
    _ type: T.Type = T.self, prefix: String, using decoder: RowDecoder = RowDecoder()
  ) throws -> T {
    try T(from: ScopedDecoding(row: self, scope: .prefix(prefix), options: decoder))
  }
}

extension Row {
  /// Decodes `type` from the columns that table `table` put in the row: for `SELECT a.*, b.* FROM a
  /// JOIN b ...`, where column counts written by hand would break when a migration adds a column.
  ///
  /// ```swift
  /// // SELECT player.*, team.* FROM player JOIN team ON team.id = player.teamID
  /// let pairs = try db.fetchAll(sql: sql) { row in
  ///   (try row.decode(Player.self, table: "player"), try row.decode(Team.self, table: "team"))
  /// }
  /// ```
  ///
  /// The columns are the ``columnRange(ofTable:occurrence:)``: consecutive columns read from the table
  /// (`sqlite3_column_table_name`), matched without regard to ASCII case. A table joined to itself
  /// (`SELECT a.*, b.* FROM person a JOIN person b ...`) puts two runs in the row: `occurrence` 1 is the
  /// second. Needs the `ENABLE_COLUMN_METADATA` trait (on by default).
  ///
  /// - Throws: ``DatabaseError/noSuchColumn(name:available:)`` (named `table.*`) when no such run of
  ///   columns is in the row, and the errors of ``RowDecoder``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_database_name.html>
  public func decode<T: Decodable>(
    _ type: T.Type = T.self, table: String, occurrence: Int = 0, using decoder: RowDecoder = RowDecoder()
  ) throws -> T {
    try decode(type, columns: columnRange(ofTable: table, occurrence: occurrence), using: decoder)
  }

  /// The positions of the consecutive columns of the row read from table `table`, the `occurrence`-th
  /// such run (0 is the first): what ``decode(_:table:occurrence:using:)`` decodes from. A column
  /// computed by an expression belongs to no table and ends a run.
  ///
  /// - Throws: ``DatabaseError/noSuchColumn(name:available:)`` (named `table.*`, listing the runs the row
  ///   has) when there is no such run; ``SQLiteError`` with `SQLITE_MISUSE` without the
  ///   `ENABLE_COLUMN_METADATA` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_database_name.html>
  public func columnRange(ofTable table: String, occurrence: Int = 0) throws -> Range<Int> {
    var runs: [(table: String, range: Range<Int>)] = []
    for index in 0..<count {
      guard let origin = try statement.columnOrigin(at: index) else { continue }
      if let last = runs.last, last.range.upperBound == index, last.table.caseInsensitiveASCIIEquals(origin.table) {
        runs[runs.count - 1].range = last.range.lowerBound..<(index + 1)
      } else {
        runs.append((origin.table, index..<(index + 1)))
      }
    }
    let matching = runs.filter { $0.table.caseInsensitiveASCIIEquals(table) }
    guard occurrence >= 0 && occurrence < matching.count else {
      throw DatabaseError.noSuchColumn(name: "\(table).*", available: runs.map { "\($0.table).*" })
    }
    return matching[occurrence].range
  }
}

extension Database {
  /// Every row turned into a value by `transform`, which reads the current row (and must not keep it):
  /// for joins decoded into several values, or any mapping that the other fetches do not cover.
  ///
  /// ```swift
  /// let pairs = try db.fetchAll(sql: "SELECT player.*, team.* FROM player JOIN team ON ...") { row in
  ///   (try row.decode(Player.self, columns: 0..<3), try row.decode(Team.self, columns: 3..<5))
  /// }
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T>(
    sql: String, arguments: StatementArguments = [], _ transform: (borrowing Row) throws -> T
  ) throws -> [T] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var values: [T] = []
      while let row = try statement.step() { values.append(try transform(row)) }
      return values
    }
  }

  /// See ``fetchAll(sql:arguments:_:)``; the SQL and its values come from an ``SQLLiteral``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/step.html>
  public func fetchAll<T>(literal: SQLLiteral, _ transform: (borrowing Row) throws -> T) throws -> [T] {
    try fetchAll(sql: literal.sql, arguments: literal.statementArguments(), transform)
  }
}

/// A decoder over some of a row's columns.
private struct ScopedDecoding: Decoder {
  let row: Row
  let scope: ColumnScope
  let options: RowDecoder
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(ScopedKeyedContainer<Key>(row: row, scope: scope, options: options))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DatabaseError.codingFailed("Decoding part of a row needs a keyed type (a struct or class)")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw DatabaseError.codingFailed("Decoding part of a row needs a keyed type (a struct or class)")
  }
}

private struct ScopedKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let row: Row
  let scope: ColumnScope
  let options: RowDecoder
  var codingPath: [any CodingKey] { [] }

  /// The columns of the scope with the names properties know them by.
  private var columns: [(index: Int, name: String)] {
    let names = row.statement.columnNames
    switch scope {
    case .range(let range):
      return range.map { ($0, names[$0]) }
    case .prefix(let prefix):
      return names.indices.compactMap { index in
        names[index].hasPrefix(prefix) ? (index, String(names[index].dropFirst(prefix.count))) : nil
      }
    }
  }

  var allKeys: [Key] { columns.compactMap { Key(stringValue: $0.name) } }

  private func index(of key: Key) -> Int? {
    let names = row.statement.columnNames
    let name = key.stringValue
    switch scope {
    case .range(let range):
      return range.first { names[$0] == name } ?? range.first { names[$0].caseInsensitiveASCIIEquals(name) }
    case .prefix(let prefix):
      let full = prefix + name
      return names.firstIndex(of: full) ?? names.firstIndex { $0.caseInsensitiveASCIIEquals(full) }
    }
  }

  private func requireIndex(of key: Key) throws -> Int {
    guard let index = index(of: key) else {
      throw DatabaseError.noSuchColumn(name: key.stringValue, available: columns.map(\.name))
    }
    return index
  }

  func contains(_ key: Key) -> Bool { index(of: key) != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    try row.isNull(at: requireIndex(of: key))
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let index = try requireIndex(of: key)
    if options.dateFormat == nil || T.self != Date.self, let convertible = T.self as? any ColumnConvertible.Type,
      let value = try row.value(at: index, as: convertible) as? T
    {
      return value
    }
    return try options.decodeValue(type, from: row[index], column: row.columnLabel(index))
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw DatabaseError.codingFailed("Column \"\(key.stringValue)\": nested containers are not supported")
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw DatabaseError.codingFailed("Column \"\(key.stringValue)\": nested containers are not supported")
  }

  func superDecoder() throws -> any Decoder { ScopedDecoding(row: row, scope: scope, options: options) }
  func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }
}
