import AmalgamSQLite
import Foundation
import Testing

/// The column readers of the C target (`amalgam_column_integer`, `amalgam_column_real` and
/// `amalgam_column_bytes` in Sources/AmalgamSQLite/sqlite3.c) read SQLite's private `Vdbe` and `Mem`
/// structures, where the C API takes two calls and the connection mutex. These tests compare every reader
/// with what `sqlite3_column_type`, `sqlite3_column_int64`, `sqlite3_column_double`,
/// `sqlite3_column_text`/`_blob` and `sqlite3_column_bytes` return for the same column of the same row,
/// over every storage class and the edge values of each: a SQLite update that changes those structures
/// fails here.
@Suite struct ColumnReaderTests {
  // MARK: - Values

  /// A value that `SELECT <expression>` produces, and the storage class SQLite gives it.
  struct Value: Sendable, CustomTestStringConvertible {
    let expression: String
    let type: Int32
    var testDescription: String { expression }
    init(_ expression: String, _ type: Int32) {
      self.expression = expression
      self.type = type
    }
  }

  static let values: [Value] = [
    Value("NULL", SQLITE_NULL),
    Value("0", SQLITE_INTEGER),
    Value("1", SQLITE_INTEGER),
    Value("-1", SQLITE_INTEGER),
    Value("-9223372036854775808", SQLITE_INTEGER),
    Value("9223372036854775807", SQLITE_INTEGER),
    Value("9007199254740991", SQLITE_INTEGER),
    Value("9007199254740993", SQLITE_INTEGER),
    Value("-9007199254740993", SQLITE_INTEGER),
    Value("0.0", SQLITE_FLOAT),
    Value("-0.0", SQLITE_FLOAT),
    Value("1.5", SQLITE_FLOAT),
    Value("9007199254740993.0", SQLITE_FLOAT),
    Value("4.9406564584124654e-324", SQLITE_FLOAT),
    Value("-2.2250738585072009e-308", SQLITE_FLOAT),
    Value("1.7976931348623157e308", SQLITE_FLOAT),
    Value("-1.7976931348623157e308", SQLITE_FLOAT),
    Value("1e999", SQLITE_FLOAT),
    Value("-1e999", SQLITE_FLOAT),
    // NaN: SQLite produces NULL for it.
    Value("1e999 - 1e999", SQLITE_NULL),
    Value("0.0 * 1e999", SQLITE_NULL),
    Value("''", SQLITE_TEXT),
    Value("'text'", SQLITE_TEXT),
    Value("'a' || char(0) || 'b'", SQLITE_TEXT),
    Value("char(0)", SQLITE_TEXT),
    Value("'héllo, 世界 🙂'", SQLITE_TEXT),
    Value("CAST(x'FFFE80C3' AS TEXT)", SQLITE_TEXT),
    Value("hex(zeroblob(60000))", SQLITE_TEXT),
    Value("replace(hex(zeroblob(30000)), '0', 'é')", SQLITE_TEXT),
    Value("x''", SQLITE_BLOB),
    Value("x'00FF80'", SQLITE_BLOB),
    Value("zeroblob(0)", SQLITE_BLOB),
    Value("zeroblob(16)", SQLITE_BLOB),
    Value("zeroblob(100000)", SQLITE_BLOB),
    Value("randomblob(100000)", SQLITE_BLOB),
    Value("CAST('42' AS INTEGER)", SQLITE_INTEGER),
    Value("CAST(' 42abc' AS INTEGER)", SQLITE_INTEGER),
    Value("CAST(3.9 AS INTEGER)", SQLITE_INTEGER),
    Value("CAST(1e300 AS INTEGER)", SQLITE_INTEGER),
    Value("CAST(x'3132' AS INTEGER)", SQLITE_INTEGER),
    Value("CAST('1e3' AS REAL)", SQLITE_FLOAT),
    Value("CAST(9223372036854775807 AS REAL)", SQLITE_FLOAT),
    Value("CAST(42 AS TEXT)", SQLITE_TEXT),
    Value("CAST(-0.0 AS TEXT)", SQLITE_TEXT),
    Value("CAST('abc' AS BLOB)", SQLITE_BLOB),
    Value("CAST('7' AS NUMERIC)", SQLITE_INTEGER),
    Value("CAST('7.5' AS NUMERIC)", SQLITE_FLOAT),
    Value("1.0 * 9223372036854775807", SQLITE_FLOAT),
    Value("1.0 * 3", SQLITE_FLOAT),
    Value("9223372036854775807 + 1", SQLITE_FLOAT),
    Value("'5' + 0", SQLITE_INTEGER),
    Value("'5.5' + 0", SQLITE_FLOAT),
    Value("5 / 0", SQLITE_NULL),
    Value("abs(-9223372036854775807)", SQLITE_INTEGER),
    Value("length('abc')", SQLITE_INTEGER),
    Value("printf('%d,%s', 1, 'a')", SQLITE_TEXT),
    Value("printf('%d', 12)", SQLITE_TEXT),
  ]

  @Test(arguments: values)
  func aValueOfABareSelectReadsAsTheCAPIReadsIt(_ value: Value) throws {
    try withConnection { db in
      try expectReadersMatchSQLite(db, "SELECT \(value.expression)", types: [[value.type]])
    }
  }

  @Test func everyValueInOneRowReadsAsTheCAPIReadsIt() throws {
    try withConnection { db in
      let sql = "SELECT " + Self.values.map(\.expression).joined(separator: ", ")
      try expectReadersMatchSQLite(db, sql, types: [Self.values.map(\.type)])
    }
  }

  /// Text in a UTF-16 database is converted to UTF-8 in its `Mem` when read as UTF-8.
  @Test(arguments: ["UTF-16le", "UTF-16be"])
  func textOfAUTF16DatabaseReadsAsTheCAPIReadsIt(_ encoding: String) throws {
    try withConnection { db in
      try execute(db, "PRAGMA encoding = '\(encoding)'")
      try execute(db, "CREATE TABLE t(x)")
      try execute(db, "INSERT INTO t VALUES ('héllo'), (''), ('a' || char(0) || 'b'), (hex(zeroblob(20000))), (1)")
      let types: [[Int32]] = [[SQLITE_TEXT], [SQLITE_TEXT], [SQLITE_TEXT], [SQLITE_TEXT], [SQLITE_INTEGER]]
      try expectReadersMatchSQLite(db, "SELECT x FROM t ORDER BY rowid", types: types)
      try expectReadersMatchSQLite(db, "SELECT 'héllo 世界', CAST(x'C3A9' AS TEXT)", types: [[SQLITE_TEXT, SQLITE_TEXT]])
    }
  }

  // MARK: - Tables

  /// Columns read from a table, where values go through the record format (small values point into the
  /// page, large ones overflow) and the column's affinity converts them.
  @Test func columnsOfATableReadAsTheCAPIReadsThem() throws {
    try withConnection { db in
      try execute(db, "CREATE TABLE t(i INTEGER, r REAL, x TEXT, b BLOB, n NUMERIC, a)")
      try execute(
        db,
        """
        INSERT INTO t VALUES
          ('42', 1, 42, 'text in a blob column', '3.0', 1.5),
          (' 7 ', '2.5', 2.5, x'00FF', '9223372036854775808', -0.0),
          (9007199254740993.0, 9223372036854775807, -0.0, zeroblob(5), '1e3', 'text'),
          ('abc', '1e999', 'a' || char(0) || 'b', randomblob(5000), 'x', x'01'),
          (NULL, -4.9406564584124654e-324, hex(zeroblob(5000)), x'', '-12', zeroblob(70000)),
          (-9223372036854775808, '', '', NULL, 0.5, '')
        """)
      let types: [[Int32]] = [
        [SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_TEXT, SQLITE_INTEGER, SQLITE_FLOAT],
        [SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_FLOAT, SQLITE_FLOAT],
        [SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_INTEGER, SQLITE_TEXT],
        [SQLITE_TEXT, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_TEXT, SQLITE_BLOB],
        [SQLITE_NULL, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_INTEGER, SQLITE_BLOB],
        [SQLITE_INTEGER, SQLITE_TEXT, SQLITE_TEXT, SQLITE_NULL, SQLITE_FLOAT, SQLITE_TEXT],
      ]
      try expectReadersMatchSQLite(db, "SELECT * FROM t ORDER BY rowid", types: types)
      // The same values through expressions on the columns, and through the rowid.
      try expectReadersMatchSQLite(
        db, "SELECT rowid, 1.0 * i, CAST(r AS INTEGER), x || '', CAST(b AS TEXT), n + 0, typeof(a) FROM t",
        types: nil)
    }
  }

  /// Each row of a column without affinity has another storage class: the readers follow the row.
  @Test func aColumnWhoseTypeChangesFromRowToRowReadsAsTheCAPIReadsIt() throws {
    try withConnection { db in
      try execute(db, "CREATE TABLE t(v)")
      try execute(
        db,
        """
        INSERT INTO t VALUES (NULL), (1), (2.5), ('three'), (x'04'), (zeroblob(3)), (-0.0), (''), (x''),
          (9223372036854775807), (hex(zeroblob(40000))), (randomblob(40000)), (1), (NULL)
        """)
      let types: [Int32] = [
        SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_BLOB, SQLITE_FLOAT,
        SQLITE_TEXT, SQLITE_BLOB, SQLITE_INTEGER, SQLITE_TEXT, SQLITE_BLOB, SQLITE_INTEGER, SQLITE_NULL,
      ]
      try expectReadersMatchSQLite(db, "SELECT v FROM t ORDER BY rowid", types: types.map { [$0] })
      try expectReadersMatchSQLite(db, "SELECT v FROM t ORDER BY rowid DESC", types: types.reversed().map { [$0] })
    }
  }

  // MARK: - Bound values

  /// Values bound to parameters reach the row as SQLite copies them (static and transient text and blobs,
  /// a zero-filled blob, a NaN that becomes NULL).
  @Test func boundValuesReadAsTheCAPIReadsThem() throws {
    try withConnection { db in
      try withStatement(db, "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?") { statement in
        let text = "a\u{0}é".utf8.map { CChar(bitPattern: $0) }
        let blob: [UInt8] = [0, 1, 2, 0xFF]
        let transient = unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
        #expect(sqlite3_bind_int64(statement, 1, .min) == SQLITE_OK)
        #expect(sqlite3_bind_double(statement, 2, -0.0) == SQLITE_OK)
        #expect(sqlite3_bind_double(statement, 3, .nan) == SQLITE_OK)
        #expect(sqlite3_bind_double(statement, 4, .leastNonzeroMagnitude) == SQLITE_OK)
        #expect(sqlite3_bind_double(statement, 5, -.infinity) == SQLITE_OK)
        #expect(sqlite3_bind_zeroblob(statement, 6, 1000) == SQLITE_OK)
        #expect(sqlite3_bind_text(statement, 7, "", 0, transient) == SQLITE_OK)
        #expect(sqlite3_bind_null(statement, 10) == SQLITE_OK)
        #expect(sqlite3_bind_int64(statement, 11, .max) == SQLITE_OK)
        try text.withUnsafeBufferPointer { text in
          try blob.withUnsafeBytes { blob in
            // Static: SQLite keeps the pointer while the statement runs; both buffers outlive the step.
            #expect(sqlite3_bind_text(statement, 8, text.baseAddress, Int32(text.count), nil) == SQLITE_OK)
            #expect(sqlite3_bind_blob(statement, 9, blob.baseAddress, Int32(blob.count), nil) == SQLITE_OK)
            try expectRowsMatchSQLite(
              statement,
              types: [
                [
                  SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_NULL, SQLITE_FLOAT, SQLITE_FLOAT, SQLITE_BLOB, SQLITE_TEXT,
                  SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL, SQLITE_INTEGER,
                ]
              ])
          }
        }
      }
    }
  }

  // MARK: - Conversions made by the C API

  /// After `sqlite3_column_text`, `_blob`, `_int64` or `_double` has converted a column (a number gets a
  /// text form, text gets a blob flag), the readers still read what the C API reads.
  @Test func aColumnTheCAPIConvertedReadsAsTheCAPIReadsIt() throws {
    try withConnection { db in
      let sql = "SELECT " + Self.values.map(\.expression).joined(separator: ", ")
      let conversions: [(String, (OpaquePointer?, Int32) -> Void)] = [
        ("text", { _ = sqlite3_column_text($0, $1) }),
        ("blob", { _ = sqlite3_column_blob($0, $1) }),
        ("bytes", { _ = sqlite3_column_bytes($0, $1) }),
        ("int64", { _ = sqlite3_column_int64($0, $1) }),
        ("double", { _ = sqlite3_column_double($0, $1) }),
        ("text16", { _ = sqlite3_column_text16($0, $1) }),
      ]
      for (name, convert) in conversions {
        try withStatement(db, sql) { statement in
          try #require(sqlite3_step(statement) == SQLITE_ROW)
          for column in 0..<sqlite3_column_count(statement) {
            convert(statement, column)
            let reference = sqliteReading(statement, column)
            #expect(
              readersReading(statement, column) == reference,
              "after sqlite3_column_\(name): \(Self.values[Int(column)].expression)")
          }
        }
      }
    }
  }

  // MARK: - No row, no column

  /// Without a current row (before the first step, after the last, after a reset, for a statement with no
  /// columns, without a statement) and for a column out of range, every reader reads NULL, as the C API.
  @Test func aColumnWithoutARowOrOutOfRangeReadsAsNull() throws {
    try withConnection { db in
      try execute(db, "CREATE TABLE t(x)")
      try execute(db, "INSERT INTO t VALUES (1)")
      try withStatement(db, "SELECT x, 'two' FROM t") { statement in
        expectNull(statement, "before the first step")
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        #expect(readersReading(statement, 0) == sqliteReading(statement, 0))
        #expect(readersReading(statement, 0).integer == 1)
        for column: Int32 in [-1, 2, 3, .max, .min] {
          expectNull(statement, "out of range", columns: [column])
        }
        try #require(sqlite3_step(statement) == SQLITE_DONE)
        expectNull(statement, "after the last row")
        try #require(sqlite3_reset(statement) == SQLITE_OK)
        expectNull(statement, "after a reset")
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        #expect(readersReading(statement, 1) == sqliteReading(statement, 1))
        #expect(readersReading(statement, 1).bytes == Data("two".utf8))
      }
      try withStatement(db, "INSERT INTO t VALUES (2)") { statement in
        #expect(sqlite3_column_count(statement) == 0)
        try #require(sqlite3_step(statement) == SQLITE_DONE)
        expectNull(statement, "a statement without columns", columns: [0, 1])
      }
      expectNull(nil, "no statement", columns: [0, 1])
    }
  }

  private func expectNull(
    _ statement: OpaquePointer?, _ state: String, columns: [Int32] = [0, 1],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for column in columns {
      let reading = readersReading(statement, column)
      #expect(reading == sqliteReading(statement, column), "\(state), column \(column)", sourceLocation: sourceLocation)
      #expect(reading == .null, "\(state), column \(column)", sourceLocation: sourceLocation)
    }
  }
}

// MARK: - Readings

extension ColumnReaderTests {
  /// What the three readers, or the C API, say about one column.
  struct Reading: Equatable {
    var integerType: Int32
    var integer: Int64
    var realType: Int32
    /// The bit pattern, so that -0.0 differs from 0.0.
    var realBits: UInt64
    var bytesType: Int32
    /// The bytes of TEXT or BLOB, nil when the pointer is NULL.
    var bytes: Data?
    /// The byte count of TEXT or BLOB; -1 when not written.
    var count: Int32

    /// A NULL column: no value, no bytes.
    static let null = Reading(
      integerType: SQLITE_NULL, integer: 0, realType: SQLITE_NULL, realBits: 0, bytesType: SQLITE_NULL, bytes: nil,
      count: -1)
  }

  /// The readers' view of `column`: integer, then real, then bytes (the first of them that converts).
  func readersReading(_ statement: OpaquePointer?, _ column: Int32) -> Reading {
    let integer = amalgam_column_integer(statement, column)
    let real = amalgam_column_real(statement, column)
    var pointer: UnsafeRawPointer?
    var count: Int32 = -1
    let bytesType = amalgam_column_bytes(statement, column, &pointer, &count)
    return Reading(
      integerType: integer.type, integer: integer.value, realType: real.type, realBits: real.value.bitPattern,
      bytesType: bytesType, bytes: pointer.map { Data(bytes: $0, count: Int(count)) }, count: count)
  }

  /// The C API's view of `column`, in the readers' terms: the integer of an INTEGER, the double of an
  /// INTEGER or REAL, the bytes of a TEXT or BLOB, zero and nothing otherwise.
  func sqliteReading(_ statement: OpaquePointer?, _ column: Int32) -> Reading {
    let type = sqlite3_column_type(statement, column)
    let integer = type == SQLITE_INTEGER ? sqlite3_column_int64(statement, column) : 0
    let real = type == SQLITE_INTEGER || type == SQLITE_FLOAT ? sqlite3_column_double(statement, column) : 0
    var bytes: Data?
    var count: Int32 = -1
    if type == SQLITE_TEXT || type == SQLITE_BLOB {
      let pointer =
        type == SQLITE_TEXT
        ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
      count = sqlite3_column_bytes(statement, column)
      bytes = pointer.map { Data(bytes: $0, count: Int(count)) }
    }
    return Reading(
      integerType: type, integer: integer, realType: type, realBits: real.bitPattern, bytesType: type, bytes: bytes,
      count: count)
  }

  /// Steps through every row of `sql`; checks that each has the storage classes of `types` (when given)
  /// and that the readers read every column as the C API does, both before the C API has touched the
  /// column and after it converted it.
  func expectReadersMatchSQLite(
    _ db: OpaquePointer, _ sql: String, types: [[Int32]]?, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    try withStatement(db, sql, sourceLocation: sourceLocation) { statement in
      try expectRowsMatchSQLite(statement, types: types, sourceLocation: sourceLocation)
    }
  }

  /// As `expectReadersMatchSQLite(_:_:types:)`, for a prepared (and bound) statement.
  func expectRowsMatchSQLite(
    _ statement: OpaquePointer, types: [[Int32]]?, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let sql = String(cString: sqlite3_sql(statement))
    var row = 0
    while true {
      let result = sqlite3_step(statement)
      if result == SQLITE_DONE { break }
      try #require(result == SQLITE_ROW, "\(sql): step returned \(result)", sourceLocation: sourceLocation)
      let count = sqlite3_column_count(statement)
      for column in 0..<count {
        let fresh = readersReading(statement, column)
        let reference = sqliteReading(statement, column)
        let again = readersReading(statement, column)
        let place = "\(sql): row \(row), column \(column)"
        #expect(fresh == reference, "\(place), read first", sourceLocation: sourceLocation)
        #expect(again == reference, "\(place), read after the C API", sourceLocation: sourceLocation)
        if let types, row < types.count, Int(column) < types[row].count {
          #expect(
            reference.integerType == types[row][Int(column)], "\(place): storage class", sourceLocation: sourceLocation)
        }
      }
      row += 1
    }
    if let types {
      #expect(row == types.count, "\(sql): rows", sourceLocation: sourceLocation)
    }
  }
}

// MARK: - The C API

extension ColumnReaderTests {
  /// Runs `body` with a new in-memory connection opened through the C API, closed afterwards.
  func withConnection(_ body: (OpaquePointer) throws -> Void) throws {
    var connection: OpaquePointer?
    let opened = sqlite3_open_v2(":memory:", &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
    defer { sqlite3_close_v2(connection) }
    try #require(opened == SQLITE_OK)
    try body(try #require(connection))
  }

  /// Runs `body` with `sql` prepared on `db`, finalized afterwards.
  func withStatement(
    _ db: OpaquePointer, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (OpaquePointer) throws -> Void
  ) throws {
    var statement: OpaquePointer?
    let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    try #require(
      prepared == SQLITE_OK, "\(sql): \(String(cString: sqlite3_errmsg(db)))", sourceLocation: sourceLocation)
    try body(try #require(statement, sourceLocation: sourceLocation))
  }

  /// Runs `sql` to its end on `db`.
  func execute(_ db: OpaquePointer, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try withStatement(db, sql, sourceLocation: sourceLocation) { statement in
      let result = sqlite3_step(statement)
      try #require(
        result == SQLITE_DONE || result == SQLITE_ROW, "\(sql): \(String(cString: sqlite3_errmsg(db)))",
        sourceLocation: sourceLocation)
    }
  }
}
