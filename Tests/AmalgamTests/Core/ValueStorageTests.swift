import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// A `Codable` type stored as JSON by declaring the two protocols and nothing more, as in FeistyDB.
private struct Note: Codable, Equatable, ColumnConvertible, ParameterBindable {
  var title: String
  var tags: [String]
  var pinned: Bool
  var due: Date
}

@Suite("Value storage: a connection's choice of how dates and the other types are stored")
struct ValueStorageTests {
  /// 2023-11-14 22:13:20.123 UTC.
  private let date = Date(timeIntervalSince1970: 1_700_000_000.123)

  /// The value `value` is stored as when bound on `db`, and its `typeof`.
  private func stored(_ value: any ParameterBindable, in db: Database) throws -> (DatabaseValue, String) {
    let statement = try db.prepare(sql: "SELECT ?1, typeof(?1)").bind(parameterValues: [value])
    let row = try #require(try statement.step())
    return (try row[0], try row.value(at: 1))
  }

  @Test func theDefaultStorageIsAmalgamsISO8601Text() throws {
    let db = try Database()
    #expect(db.valueStorage == .amalgam)
    #expect(db.valueStorage.dates == .iso8601)
    let (value, type) = try stored(date, in: db)
    #expect(type == "text")
    #expect(value == .text("2023-11-14 22:13:20.123"))
  }

  @Test func eachDateFormatIsStoredAsItSaysAndReadsBackTheSameDate() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(d)")
    let expected: [(DatabaseDateFormat, String, DatabaseValue)] = [
      (.iso8601, "text", .text("2023-11-14 22:13:20.123")),
      (.unixTime, "real", .real(1_700_000_000.123)),
      (.timeIntervalSinceReferenceDate, "real", .real(date.timeIntervalSinceReferenceDate)),
      (.julianDay, "real", .real(1_700_000_000.123 / 86_400 + 2_440_587.5)),
    ]
    for (format, type, value) in expected {
      db.valueStorage.dates = format
      try db.execute(sql: "DELETE FROM t")
      try db.execute(sql: "INSERT INTO t(d) VALUES (?)", parameterValues: [date])
      let row = try #require(try db.prepare(sql: "SELECT d, typeof(d) FROM t").step())
      #expect(try row.value(at: 1) == type, "\(format)")
      #expect(try row[0] == value, "\(format)")
      let back: Date = try row.value(at: 0)
      // ISO-8601 text and Julian days keep the millisecond; the two kinds of seconds are exact.
      #expect(abs(back.timeIntervalSince(date)) < 0.000_5, "\(format) read back \(back)")
    }
  }

  @Test func secondsSinceTheReferenceDateReadBackExactly() throws {
    let db = try Database(path: ":memory:", options: Database.OpenOptions(valueStorage: .feistyDB))
    let dates = [date, Date(timeIntervalSinceReferenceDate: 0.1), Date(timeIntervalSinceReferenceDate: -1e9 + 0.3)]
    for date in dates {
      let back: Date = try db.prepare(sql: "SELECT ?").bind(parameterValues: [date]).front()
      #expect(back == date)
    }
  }

  @Test func numbersAreReadAsTheConnectionsFormatAndTextWhateverTheFormat() throws {
    let db = try Database()
    let sql = "SELECT 722000000.5, '2023-11-14 22:13:20.123', 2460262.5"
    db.valueStorage.dates = .timeIntervalSinceReferenceDate
    var row = try #require(try db.prepare(sql: sql).step())
    #expect(try row.value(at: 0, as: Date.self) == Date(timeIntervalSinceReferenceDate: 722_000_000.5))
    #expect(try row.value(at: 1, as: Date.self) == date)
    db.valueStorage.dates = .unixTime
    row = try #require(try db.prepare(sql: sql).step())
    #expect(try row.value(at: 0, as: Date.self) == Date(timeIntervalSince1970: 722_000_000.5))
    #expect(try row.value(at: 1, as: Date.self) == date)
    db.valueStorage.dates = .julianDay
    row = try #require(try db.prepare(sql: sql).step())
    // Julian day 2460262.5 is 2023-11-14 00:00 UTC.
    #expect(try row.value(at: 2, as: Date.self) == Date(timeIntervalSince1970: 1_699_920_000))
    #expect(try row.value(at: 1, as: Date.self) == date)
  }

  @Test func aChangedStorageAppliesToCachedStatements() throws {
    let db = try Database()
    let sql = "SELECT typeof(?)"
    #expect(try db.cachedStatement(sql: sql).bind(parameterValues: [date]).front(String.self) == "text")
    db.valueStorage = .feistyDB
    #expect(try db.cachedStatement(sql: sql).bind(parameterValues: [date]).front(String.self) == "real")
  }

  @Test func everyConnectionOfAQueueAndAPoolUsesTheConfiguredStorage() throws {
    try withTemporaryDirectory { directory in
      var configuration = Configuration()
      configuration.valueStorage = .feistyDB
      let stamp = Date(timeIntervalSinceReferenceDate: 722_000_000.25)
      let queuePath = directory.appendingPathComponent("queue.sqlite").path
      let queue = try DatabaseQueue(path: queuePath, configuration: configuration)
      try queue.sync { db in
        try db.execute(sql: "CREATE TABLE t(d)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [stamp])
      }
      let queueRaw = try queue.read { db in try db.prepare(sql: "SELECT d FROM t").front(DatabaseValue.self) }
      #expect(queueRaw == .real(722_000_000.25))

      let poolPath = directory.appendingPathComponent("pool.sqlite").path
      let pool = try DatabasePool(path: poolPath, configuration: configuration)
      try pool.sync { db in
        try db.execute(sql: "CREATE TABLE t(d)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [stamp])
      }
      // A reader connection, opened by the pool, reads the REAL as seconds since 2001.
      let read = try pool.read { db in
        (db.valueStorage, try db.prepare(sql: "SELECT d FROM t").front(Date.self))
      }
      #expect(read.0 == .feistyDB)
      #expect(read.1 == stamp)
      let reader = try DatabaseReadQueue(path: poolPath, configuration: configuration)
      #expect(try reader.read { db in try db.prepare(sql: "SELECT d FROM t").front(Date.self) } == stamp)
    }
  }

  @Test func codableRecordsAndTheEncoderFollowTheConnectionUnlessTheyNameAFormat() throws {
    struct Event: Codable, Equatable { var id: Int64; var at: Date }
    let db = try Database(path: ":memory:", options: Database.OpenOptions(valueStorage: .feistyDB))
    try db.execute(sql: "CREATE TABLE event(id INTEGER PRIMARY KEY, at)")
    let event = Event(id: 1, at: Date(timeIntervalSinceReferenceDate: 722_000_000.5))
    try db.prepare(sql: "INSERT INTO event VALUES (:id, :at)").bind(event).execute()
    #expect(try db.prepare(sql: "SELECT at FROM event").front(DatabaseValue.self) == .real(722_000_000.5))
    #expect(try db.prepare(sql: "SELECT * FROM event").decodeFirst(Event.self) == event)
    // A format named by the encoder or decoder wins over the connection's.
    try db.execute(sql: "DELETE FROM event")
    try db.prepare(sql: "INSERT INTO event VALUES (:id, :at)")
      .bind(event, using: StatementEncoder(dateFormat: .unixTime)).execute()
    #expect(try db.prepare(sql: "SELECT at FROM event").front(DatabaseValue.self) == .real(1_700_307_200.5))
    let decoded = try db.prepare(sql: "SELECT * FROM event").decodeFirst(
      Event.self, using: RowDecoder(dateFormat: .unixTime))
    #expect(decoded == event)
  }

  @Test func unsignedIntegersAboveInt64MaxNeedTheBitPatternStorage() throws {
    let db = try Database()
    #expect(throws: DatabaseError.self) { try stored(UInt64.max, in: db) }
    #expect(throws: DatabaseError.self) { try db.prepare(sql: "SELECT -1").front(UInt64.self) }
    // Below Int64.max nothing changes.
    #expect(try stored(UInt64(Int64.max), in: db).0 == .integer(Int64.max))
    db.valueStorage = .feistyDB
    #expect(try stored(UInt64.max, in: db) == (.integer(-1), "integer"))
    #expect(try stored(UInt(Int64.max) + 2, in: db).0 == .integer(Int64.min + 1))
    #expect(try db.prepare(sql: "SELECT -1").front(UInt64.self) == UInt64.max)
    #expect(try db.prepare(sql: "SELECT -2").front(UInt.self) == UInt.max - 1)
    // Narrower types still check their range.
    #expect(throws: DatabaseError.self) { try db.prepare(sql: "SELECT -1").front(UInt32.self) }
  }

  @Test func relativeURLsNeedFeistyDBsStorage() throws {
    let db = try Database()
    let relative = try #require(URL(string: "notes/today.txt"))
    #expect(throws: DatabaseError.self) { try stored(relative, in: db) }
    #expect(throws: DatabaseError.self) { try db.prepare(sql: "SELECT 'notes/today.txt'").front(URL.self) }
    db.valueStorage.relativeURLs = true
    #expect(try stored(relative, in: db) == (.text("notes/today.txt"), "text"))
    #expect(try db.prepare(sql: "SELECT 'notes/today.txt'").front(URL.self) == relative)
  }

  /// Writes a database file the way FeistyDB writes one, through SQLite's C API with FeistyDB's own
  /// bind calls (its ParameterBindable conformances), so that no Amalgam writer is involved.
  private func writeFeistyDBFile(at path: String) throws {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
      let handle
    else { throw DatabaseError.message("cannot open \(path)") }
    defer { sqlite3_close_v2(handle) }
    let create = """
      CREATE TABLE item(
        created, id, note, thumbnail, link, relative, i8, i16, i32, i64, u8, u16, u32, u64, big, f, d, b, s)
      """
    guard sqlite3_exec(handle, create, nil, nil, nil) == SQLITE_OK else {
      throw DatabaseError.message(String(cString: sqlite3_errmsg(handle)))
    }
    var statement: OpaquePointer?
    let insert = "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    guard sqlite3_prepare_v2(handle, insert, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw DatabaseError.message(String(cString: sqlite3_errmsg(handle)))
    }
    defer { sqlite3_finalize(statement) }
    let transient = unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
    // Date: sqlite3_bind_double(timeIntervalSinceReferenceDate).
    sqlite3_bind_double(statement, 1, 722_000_000.125)
    // UUID: sqlite3_bind_text(uuidString.lowercased()).
    sqlite3_bind_text(statement, 2, "6ba7b810-9dad-11d1-80b4-00c04fd430c8", -1, transient)
    // Encodable: sqlite3_bind_blob(JSONEncoder().encode(self)), keys in the encoder's own order, the
    // Date inside as JSONEncoder's default, seconds since 2001.
    let json = Array(#"{"title":"Groceries","pinned":true,"due":722000000.5,"tags":["milk","eggs"]}"#.utf8)
    sqlite3_bind_blob(statement, 3, json, Int32(json.count), transient)
    // Data: sqlite3_bind_blob.
    let bytes: [UInt8] = [0x00, 0xFF, 0x10, 0x80]
    sqlite3_bind_blob(statement, 4, bytes, Int32(bytes.count), transient)
    // URL: sqlite3_bind_text(absoluteString), relative ones included.
    sqlite3_bind_text(statement, 5, "https://example.com/a%20b?q=1", -1, transient)
    sqlite3_bind_text(statement, 6, "notes/today.txt", -1, transient)
    // Integers: sqlite3_bind_int64, unsigned ones by their bit pattern.
    sqlite3_bind_int64(statement, 7, -128)
    sqlite3_bind_int64(statement, 8, -32_768)
    sqlite3_bind_int64(statement, 9, Int64(Int32.min))
    sqlite3_bind_int64(statement, 10, Int64.min)
    sqlite3_bind_int64(statement, 11, 255)
    sqlite3_bind_int64(statement, 12, 65_535)
    sqlite3_bind_int64(statement, 13, Int64(UInt32.max))
    sqlite3_bind_int64(statement, 14, Int64(bitPattern: UInt64.max))
    sqlite3_bind_int64(statement, 15, Int64(bitPattern: 1 << 63 | 12_345))
    // Float: sqlite3_bind_double(Double(self)); Double; Bool: sqlite3_bind_int64(self ? 1 : 0); String.
    sqlite3_bind_double(statement, 16, Double(Float(0.1)))
    sqlite3_bind_double(statement, 17, 0.1)
    sqlite3_bind_int64(statement, 18, 1)
    sqlite3_bind_text(statement, 19, "héllo", -1, transient)
    guard sqlite3_step(statement) == SQLITE_DONE else {
      throw DatabaseError.message(String(cString: sqlite3_errmsg(handle)))
    }
  }

  @Test func aDatabaseFileWrittenByFeistyDBReadsBackEqual() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("feisty.sqlite").path
      try writeFeistyDBFile(at: path)
      let db = try Database(path: path, options: Database.OpenOptions(valueStorage: .feistyDB))
      let types = try db.prepare(sql: "SELECT typeof(created), typeof(id), typeof(note) FROM item").step()
      #expect(try types?.values() == [.text("real"), .text("text"), .text("blob")])
      let row = try #require(try db.prepare(sql: "SELECT * FROM item").step())
      #expect(try row.value(named: "created") == Date(timeIntervalSinceReferenceDate: 722_000_000.125))
      #expect(try row.value(named: "id") == UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))
      let note = Note(
        title: "Groceries", tags: ["milk", "eggs"], pinned: true,
        due: Date(timeIntervalSinceReferenceDate: 722_000_000.5))
      #expect(try row.value(named: "note") == note)
      #expect(try row.value(named: "thumbnail") == Data([0x00, 0xFF, 0x10, 0x80]))
      #expect(try row.value(named: "link") == URL(string: "https://example.com/a%20b?q=1"))
      #expect(try row.value(named: "relative") == URL(string: "notes/today.txt"))
      #expect(try row.value(named: "i8") == Int8.min)
      #expect(try row.value(named: "i16") == Int16.min)
      #expect(try row.value(named: "i32") == Int32.min)
      #expect(try row.value(named: "i64") == Int64.min)
      #expect(try row.value(named: "u8") == UInt8.max)
      #expect(try row.value(named: "u16") == UInt16.max)
      #expect(try row.value(named: "u32") == UInt32.max)
      #expect(try row.value(named: "u64") == UInt64.max)
      #expect(try row.value(named: "big") == UInt(1) << 63 | 12_345)
      #expect(try row.value(named: "f") == Float(0.1))
      #expect(try row.value(named: "d") == 0.1)
      #expect(try row.value(named: "b") == true)
      #expect(try row.value(named: "s") == "héllo")

      // Written back through Amalgam with FeistyDB's storage, each value is stored as FeistyDB stored it.
      try db.execute(sql: "CREATE TABLE copy AS SELECT * FROM item WHERE 0")
      try db.execute(
        sql:
          "INSERT INTO copy(created, id, thumbnail, link, relative, u64, big, f, b) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        parameterValues: [
          Date(timeIntervalSinceReferenceDate: 722_000_000.125),
          UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"),
          Data([0x00, 0xFF, 0x10, 0x80]), URL(string: "https://example.com/a%20b?q=1"), URL(string: "notes/today.txt"),
          UInt64.max, UInt(1) << 63 | 12_345, Float(0.1), true,
        ])
      let same = try db.prepare(
        sql: """
          SELECT count(*) FROM item JOIN copy USING (created, id, thumbnail, link, relative, u64, big, f, b)
          WHERE typeof(copy.created) = 'real'
          """
      ).front(Int.self)
      #expect(same == 1)
    }
  }

  @Test func withAmalgamsStorageAFeistyDBDateIsReadAsUnixTime() throws {
    // The reason to choose FeistyDB's storage: the same REAL means another instant in Unix time.
    let db = try Database()
    let read: Date = try db.prepare(sql: "SELECT 722000000.125").front()
    #expect(read == Date(timeIntervalSince1970: 722_000_000.125))
    #expect(read != Date(timeIntervalSinceReferenceDate: 722_000_000.125))
  }
}
