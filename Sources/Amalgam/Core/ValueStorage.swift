/// How a connection stores the Swift types that SQLite has no storage class of its own for, for
/// writing and reading both: dates, unsigned 64-bit integers above `Int64.max`, and relative URLs.
///
/// The default, ``amalgam``, is Amalgam's own storage: dates as ISO-8601 text. To open a database that
/// FeistyDB wrote, and to go on writing it the way FeistyDB reads it, choose ``feistyDB``:
///
/// ```swift
/// let db = try Database(path: path, options: Database.OpenOptions(valueStorage: .feistyDB))
/// let created: Date = try db.prepare(sql: "SELECT created FROM note").front()
/// ```
///
/// The choice belongs to the connection: set it when opening (``Database/OpenOptions/valueStorage``,
/// or ``Configuration/valueStorage`` for every connection a queue or pool opens), or later with
/// ``Database/valueStorage``. It applies where a value is bound to a statement or read from a row of
/// one, `Codable` records and ``RowDecoder``/``StatementEncoder`` included (unless they name a date
/// format of their own). A value converted on its own has no connection and uses Amalgam's storage,
/// unless the call names a format (`date.databaseValue(format:)`): ``ParameterBindable/databaseValue()``,
/// ``ColumnConvertible/init(databaseValue:)``, an SQL function's arguments and results, and the values
/// interpolated in an ``SQLLiteral``, which it converts when it is made.
///
/// Reading stays tolerant where the stored form says what it is: TEXT is read as a date whatever
/// ``dates`` says. A `Codable` type stored as JSON needs no choice: it is written as JSON text and
/// read from TEXT, or from a BLOB of JSON as FeistyDB writes it.
///
/// Related SQLite documentation: <https://sqlite.org/datatype3.html>
public struct ValueStorage: Sendable, Hashable {
  /// How a `Date` is written, and how a number (INTEGER or REAL) is read as one.
  /// Default: ``DatabaseDateFormat/iso8601``.
  public var dates: DatabaseDateFormat

  /// Whether a `UInt64` or `UInt` above `Int64.max` is stored as the `Int64` with the same bits
  /// (FeistyDB's storage), and a negative INTEGER read back as such. Off by default: such a value
  /// throws ``DatabaseError/unrepresentableValue(type:value:reason:)`` when bound, and a negative
  /// INTEGER is not an unsigned number, so that the stored value means what SQL sees.
  public var unsignedIntegersAsBitPattern: Bool

  /// Whether a `URL` without a scheme (a relative reference such as `"a/b"`) is written and read, as
  /// FeistyDB does. Off by default: such a URL throws when bound, and such text when read, because
  /// `URL(string:)` can read it back as a different URL than the one that was stored.
  public var relativeURLs: Bool

  /// Creates a storage choice; the defaults are Amalgam's storage, ``amalgam``.
  public init(
    dates: DatabaseDateFormat = .iso8601, unsignedIntegersAsBitPattern: Bool = false, relativeURLs: Bool = false
  ) {
    self.dates = dates
    self.unsignedIntegersAsBitPattern = unsignedIntegersAsBitPattern
    self.relativeURLs = relativeURLs
  }

  /// Amalgam's storage (the default): dates as ISO-8601 text in UTC, unsigned integers only up to
  /// `Int64.max`, absolute URLs only.
  public static let amalgam = ValueStorage()

  /// FeistyDB's storage, for every type where it differs from Amalgam's: dates as REAL seconds since
  /// 2001-01-01 (``DatabaseDateFormat/timeIntervalSinceReferenceDate``), `UInt64` and `UInt` as the
  /// bits of an `Int64`, and relative URLs allowed. The other types (integers, `Double`, `Float`,
  /// `Bool`, `String`, `Data`, `UUID` as lower-case text, `URL` as its absolute string) are stored
  /// alike by both, and a `Codable` value's JSON is read in either's form.
  public static let feistyDB = ValueStorage(
    dates: .timeIntervalSinceReferenceDate, unsignedIntegersAsBitPattern: true, relativeURLs: true)
}
