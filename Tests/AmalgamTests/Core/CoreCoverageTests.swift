import Amalgam
import Foundation
import Testing

/// A row type read with `init(row:)`, for the fetches that take an ``SQLLiteral``.
private struct Player: RowConvertible, Equatable {
  var name: String
  var score: Int
  init(name: String, score: Int) {
    self.name = name
    self.score = score
  }
  init(row: borrowing Row) throws {
    name = try row.value(named: "name")
    score = try row.value(named: "score")
  }
}

private func players() throws -> Database {
  let db = try Database()
  try db.batch(
    sql: """
      CREATE TABLE player(name TEXT, score INTEGER);
      INSERT INTO player VALUES ('Ada', 10), ('Grace', 20), ('Linus', 30);
      """)
  return db
}

/// Public conveniences of Core and Records that the rest of the suite reaches only through others, and
/// the errors of conversions that a wrong value reaches.
@Suite struct CoreCoverageTests {
  // MARK: Binding

  @Test func bindingOneValueByPositionBindsTheOnlyParameter() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT ? * 2")
    // A value that is not Encodable: for an Encodable one, `bind(_:)` would also name the Codable form.
    #expect(try statement.bind(DatabaseValue.integer(21)).column(0, as: Int.self) == [42])
    // One value for a statement with two parameters is refused before anything is bound.
    let two = try db.prepare(sql: "SELECT ?, ?")
    #expect(throws: DatabaseError.parameterCountMismatch(expected: 2, provided: 1, sql: "SELECT ?, ?")) {
      try two.bind(DatabaseValue.text("only"))
    }
  }

  @Test func bindingOneNamedPairResolvesItThenReusesTheRememberedParameter() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT :n + 1")
    #expect(try statement.bind(named: ("n", 1)).column(0, as: Int.self) == [2])
    // The same name again takes the remembered parameter; the value is the new one.
    #expect(try statement.bind(named: ("n", 41)).column(0, as: Int.self) == [42])
    #expect(try statement.bind(named: (":n", 99)).column(0, as: Int.self) == [100])
    // Another name is resolved in full, and an unknown one is refused.
    #expect(throws: DatabaseError.noSuchParameter(name: "m", sql: "SELECT :n + 1")) {
      try statement.bind(named: ("m", 1))
    }
  }

  @Test func namedStatementArgumentsBindByName() throws {
    let db = try players()
    let arguments = StatementArguments(named: [(key: ":name", value: "Grace"), (key: "bonus", value: 5)])
    let score = try db.fetchOne(
      Int.self, sql: "SELECT score + :bonus FROM player WHERE name = :name", arguments: arguments)
    #expect(score == 25)
    let missing = StatementArguments(named: [(key: "name", value: "Grace")])
    #expect(
      throws: DatabaseError.missingParameter(
        name: ":bonus", sql: "SELECT score + :bonus FROM player WHERE name = :name")
    ) {
      try db.fetchOne(Int.self, sql: "SELECT score + :bonus FROM player WHERE name = :name", arguments: missing)
    }
  }

  // MARK: Literals

  @Test func literalFetchesOfRowConvertibleTypesBindTheInterpolatedValues() throws {
    let db = try players()
    let minimum = 15
    #expect(
      try db.fetchAll(Player.self, literal: "SELECT name, score FROM player WHERE score > \(minimum) ORDER BY score")
        == [Player(name: "Grace", score: 20), Player(name: "Linus", score: 30)])
    #expect(
      try db.fetchOne(Player.self, literal: "SELECT name, score FROM player WHERE name = \("Ada")")
        == Player(name: "Ada", score: 10))
    #expect(try db.fetchOne(Player.self, literal: "SELECT name, score FROM player WHERE name = \("Nobody")") == nil)
    // A literal that also holds a parameter of its own is refused, as for every other fetch.
    #expect(throws: DatabaseError.self) {
      try db.fetchAll(Player.self, literal: "SELECT name, score FROM player WHERE score > \(minimum) OR name = ?")
    }
  }

  @Test func literalDescriptionShowsTheSQLAndItsValues() {
    let optionalPresent: (any ParameterBindable)? = 7
    let optionalMissing: (any ParameterBindable)? = nil
    let literal: SQLLiteral = "SELECT \(optionalPresent), \(optionalMissing), \("x")"
    #expect(literal.sql == "SELECT ?, ?, ?")
    #expect(literal.arguments == [.integer(7), .null, .text("x")])
    #expect(literal.description == "SELECT ?, ?, ? with 7, NULL, 'x'")
    let plain: SQLLiteral = "SELECT 1"
    #expect(plain.description == "SELECT 1")
  }

  // MARK: Conversions

  @Test func functionArgumentsConvertToEveryIntegerWidthAndRefuseWhatDoesNotFit() throws {
    let db = try Database()
    try db.addFunction("i16") { (value: Int16) in Int64(value) }
    try db.addFunction("i32") { (value: Int32) in Int64(value) }
    try db.addFunction("u") { (value: UInt) in Int64(value) }
    try db.addFunction("u8") { (value: UInt8) in Int64(value) }
    try db.addFunction("u16") { (value: UInt16) in Int64(value) }
    try db.addFunction("u32") { (value: UInt32) in Int64(value) }
    try db.addFunction("u64") { (value: UInt64) in String(value) }
    let row = try db.fetchAll(
      sql: "SELECT i16(-32768), i32(2147483647), u(7), u8(255), u16(65535), u32(4294967295), u64(9223372036854775807)"
    ) { row in try row.values() }
    #expect(
      row == [
        [
          .integer(-32_768), .integer(2_147_483_647), .integer(7), .integer(255), .integer(65_535),
          .integer(4_294_967_295),
          .text("9223372036854775807"),
        ]
      ])
    // Out of range or negative for an unsigned width: the function fails with the conversion's message.
    for (call, type) in [
      ("i16(40000)", "Int16"), ("i32(3000000000)", "Int32"), ("u(-1)", "UInt"), ("u8(256)", "UInt8"),
      ("u16(-5)", "UInt16"), ("u32(4294967296)", "UInt32"), ("u64(-1)", "UInt64"),
    ] {
      let error = expectSQLiteError { try db.execute(sql: "SELECT \(call)") }
      #expect(error?.code == .mismatch)
      #expect(error?.message.contains(type) == true, "\(call): \(String(describing: error?.message))")
    }
  }

  @Test func anEmptyBlobArgumentReadsAsAnEmptyBlobNotNull() throws {
    let db = try Database()
    try db.addFunction("describe", arity: 1) { arguments, context in
      context.setResult(.text(arguments[0] == .blob(Data()) ? "empty blob" : "\(arguments[0])"))
    }
    #expect(try db.fetchOne(String.self, sql: "SELECT describe(x'')") == "empty blob")
    #expect(try db.fetchOne(String.self, sql: "SELECT describe(NULL)") == "NULL")
  }

  @Test func bytesAndUUIDRefuseNumbers() throws {
    let db = try Database()
    let bytes = #expect(throws: DatabaseError.self) { try db.fetchOne([UInt8].self, sql: "SELECT 5") }
    guard case .conversionFailed(_, let bytesType, _, let bytesReason) = bytes else {
      Issue.record("expected conversionFailed, got \(String(describing: bytes))")
      return
    }
    #expect(bytesType == "Array<UInt8>")
    #expect(bytesReason == "a INTEGER value cannot be read as Array<UInt8>")
    let uuid = #expect(throws: DatabaseError.self) { try db.fetchOne(UUID.self, sql: "SELECT 1.5") }
    guard case .conversionFailed(_, let uuidType, _, let uuidReason) = uuid else {
      Issue.record("expected conversionFailed, got \(String(describing: uuid))")
      return
    }
    #expect(uuidType == "UUID")
    #expect(uuidReason == "a REAL value cannot be read as UUID")
    // Text and blobs still read.
    #expect(try db.fetchOne([UInt8].self, sql: "SELECT 'ab'") == [0x61, 0x62])
  }

  @Test func iso8601RefusesADateBeforeYearZeroThatOtherFormatsStore() throws {
    // About 248 BC: inside the range of SQLite's date functions, outside the years 0000-9999 of ISO 8601 text.
    let date = Date(timeIntervalSince1970: -70_000_000_000)
    #expect(try date.databaseValue(format: .unixTime) == .real(-70_000_000_000))
    let error = #expect(throws: DatabaseError.self) { try date.databaseValue(format: .iso8601) }
    guard case .unrepresentableValue(let type, _, let reason) = error else {
      Issue.record("expected unrepresentableValue, got \(String(describing: error))")
      return
    }
    #expect(type == "Date")
    #expect(reason == "SQLite's date functions handle the years 0000 to 9999 only")
  }

  // MARK: Descriptions

  @Test func replacedDatabaseFileErrorSaysToOpenTheDatabaseAgain() {
    let error = DatabaseError.databaseFileReplaced(path: "/tmp/app.sqlite")
    #expect(error.description.hasPrefix("The database file /tmp/app.sqlite was deleted or replaced"))
    #expect(error.description.hasSuffix("open the database again to see the new one"))
    #expect(error.localizedDescription == error.description)
  }

  @Test func backupProgressDescribesCopiedAndTotalPages() {
    let progress = BackupProgress(remainingPageCount: 3, totalPageCount: 10)
    #expect(progress.description == "7/10 pages")
    #expect(progress.completedPageCount == 7)
    #expect(!progress.isComplete)
  }

  // MARK: Schema and migrations

  @Test func tableDefinitionTakesAPrebuiltColumn() throws {
    let db = try Database()
    var table = try TableDefinition("item")
    table.column(ColumnDefinition("id", .integer, primaryKey: .ascending))
    table.column(ColumnDefinition("label", .text, notNull: true, defaultValue: .text("none")))
    try db.create(table)
    try db.execute(sql: "INSERT INTO item(id) VALUES (1)")
    #expect(try db.fetchOne(String.self, sql: "SELECT label FROM item WHERE id = 1") == "none")
    #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO item(id, label) VALUES (2, NULL)") }
  }

  @Test func migratorListsItsMigrationsInTheOrderTheyRun() throws {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
    migrator.registerMigration("v2") { db in try db.execute(sql: "CREATE TABLE b(x)") }
    #expect(migrator.migrations == ["v1", "v2"])
  }
}

/// A function's result subtype, set by one function and read by another.
@Suite struct ResultSubtypeTests {
  @Test func aSubtypeSetByOneFunctionIsReadByTheNext() throws {
    let db = try Database()
    try db.addFunction("tagged", arity: 1, flags: [.deterministic, .resultSubtype]) { arguments, context in
      context.setResult(arguments[0])
      try context.setResultSubtype(42)
    }
    try db.addFunction("subtype_of", arity: 1, flags: [.deterministic, .subtype]) { arguments, context in
      context.setResult(.integer(Int64(arguments.subtype(at: 0))))
    }
    #expect(try db.fetchOne(Int.self, sql: "SELECT subtype_of(tagged('x'))") == 42)
    #expect(try db.fetchOne(Int.self, sql: "SELECT subtype_of('x')") == 0)
    // Without the flag, the subtype is refused.
    try db.addFunction("untagged", arity: 0) { _, context in try context.setResultSubtype(42) }
    let error = expectSQLiteError { try db.execute(sql: "SELECT untagged()") }
    #expect(error?.code == .misuse)
  }
}
