#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

extension Data: ParameterBindable, ColumnConvertible {
  /// The bytes as ``DatabaseValue/blob(_:)``. An empty `Data` is stored as an empty blob, not NULL.
  public func databaseValue() -> DatabaseValue { .blob(self) }

  /// Reads BLOB, or the UTF-8 bytes of TEXT (which recovers text that is not valid UTF-8).
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .blob(let data): self = data
    case .text(let text): self = Data(text.utf8)
    default: throw DatabaseError.cannotConvert(databaseValue, to: Data.self)
    }
  }

  /// Copies the bytes of a BLOB or TEXT column straight from SQLite; other storage classes as
  /// ``init(databaseValue:)``.
  @inlinable
  public init(row: borrowing Row, at index: Int32) throws {
    var bytes: UnsafeRawPointer?
    var count: Int32 = 0
    switch amalgam_column_bytes(row.sqliteHandle, index, &bytes, &count) {
    case SQLITE_BLOB, SQLITE_TEXT:
      if let bytes {
        self = Data(bytes: bytes, count: Int(count))
      } else if count == 0 {
        self = Data()
      } else {
        throw SQLiteError(code: .noMemory)
      }
    default: try self.init(databaseValue: row.databaseValue(at: index))
    }
  }
}

extension UUID: ParameterBindable, ColumnConvertible {
  /// The UUID as lower-case text (`"6ba7b810-9dad-11d1-80b4-00c04fd430c8"`), the form SQLite's `uuid()`
  /// returns; `uuid_blob()` converts it to 16 bytes in SQL.
  public func databaseValue() -> DatabaseValue { .text(uuidString.lowercased()) }

  /// Reads TEXT in the usual 36-character form (any case), or a 16-byte BLOB.
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .text(let text):
      guard let uuid = UUID(uuidString: text) else {
        throw DatabaseError.cannotConvert(databaseValue, to: UUID.self, "the text is not a UUID")
      }
      self = uuid
    case .blob(let data):
      guard data.count == 16 else {
        throw DatabaseError.cannotConvert(databaseValue, to: UUID.self, "a UUID blob has 16 bytes")
      }
      let b = [UInt8](data)
      self = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                         b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    default:
      throw DatabaseError.cannotConvert(databaseValue, to: UUID.self)
    }
  }
}

extension URL: ParameterBindable, ColumnConvertible {
  /// The URL's absolute string as TEXT.
  public func databaseValue() -> DatabaseValue { .text(absoluteString) }

  /// Reads TEXT that parses as a URL.
  public init(databaseValue: DatabaseValue) throws {
    guard case .text(let text) = databaseValue, let url = URL(string: text) else {
      throw DatabaseError.cannotConvert(
        databaseValue, to: URL.self, databaseValue.storageClass == "TEXT" ? "the text is not a URL" : nil)
    }
    self = url
  }
}

extension Decimal: ParameterBindable, ColumnConvertible {
  /// The number as TEXT (`"12.345"`), which keeps every digit and works with SQLite's `decimal_*`
  /// functions. (A REAL would round it to a binary fraction.)
  public func databaseValue() -> DatabaseValue { .text(description) }

  /// Reads TEXT holding a decimal number, INTEGER, or REAL.
  public init(databaseValue: DatabaseValue) throws {
    switch databaseValue {
    case .integer(let value): self = Decimal(value)
    case .real(let value): self = Decimal(value)
    case .text(let text):
      guard let value = Decimal(string: text, locale: nil), !value.isNaN else {
        throw DatabaseError.cannotConvert(databaseValue, to: Decimal.self, "the text is not a decimal number")
      }
      self = value
    default: throw DatabaseError.cannotConvert(databaseValue, to: Decimal.self)
    }
  }
}
