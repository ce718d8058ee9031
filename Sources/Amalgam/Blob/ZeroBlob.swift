#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// A parameter value that stores a blob of `count` zero bytes without allocating it
/// (`sqlite3_bind_zeroblob64`): the placeholder that ``Blob`` then fills in chunks.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO file(content) VALUES (?)", parameterValues: [ZeroBlob(count: 10_000_000)])
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
public struct ZeroBlob: ParameterBindable, Sendable, Hashable {
  /// The size in bytes.
  public var count: Int

  /// A blob of `count` zero bytes (none for a negative count).
  public init(count: Int) { self.count = Swift.max(0, count) }

  /// The zero bytes as a blob value (allocates them; binding does not).
  public func databaseValue() -> DatabaseValue {
    .blob(Data(count: count))
  }

  /// Binds the zero blob without allocating it (`sqlite3_bind_zeroblob64`).
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/tooBig`` when `count` exceeds the connection's length
  ///   limit.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func bind(to statement: Statement, at index: Int32) throws {
    try statement.whileOpen {
      try statement.check(sqlite3_bind_zeroblob64(statement.sqliteHandle, index, UInt64(count)))
    }
  }
}
