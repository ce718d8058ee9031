import Amalgam
import Testing

@Suite struct ConfigTests {
  @Test(arguments: DatabaseConfigFlag.allCases)
  func everyFlagCanBeTurnedOnAndOff(flag: DatabaseConfigFlag) throws {
    let db = try Database()
    let original = try db.isEnabled(flag)
    try db.setEnabled(flag, to: !original)
    #expect(try db.isEnabled(flag) == !original)
    try db.setEnabled(flag, to: original)
    #expect(try db.isEnabled(flag) == original)
  }

  @Test func defaultsMatchSQLiteAndTheTraits() throws {
    let db = try Database()
    #expect(try db.isEnabled(.triggers))
    #expect(try db.isEnabled(.views))
    #expect(try db.isEnabled(.trustedSchema))
    #expect(try db.isEnabled(.comments))
    #expect(try db.isEnabled(.defensive) == false)
    #if DEFAULT_FOREIGN_KEYS
      #expect(try db.isEnabled(.foreignKeys))
    #else
      #expect(try db.isEnabled(.foreignKeys) == false)
    #endif
    #if DQS_0
      #expect(try db.isEnabled(.doubleQuotedStringsInDML) == false)
    #else
      #expect(try db.isEnabled(.doubleQuotedStringsInDML))
    #endif
  }

  @Test func foreignKeysFlagEnforcesForeignKeys() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE parent(id INTEGER PRIMARY KEY); CREATE TABLE child(parent_id REFERENCES parent)")
    try db.setEnabled(.foreignKeys, to: true)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA foreign_keys") == 1)
    let error = expectSQLiteError { try db.execute(sql: "INSERT INTO child VALUES (1)") }
    #expect(error?.extendedCode == .constraintForeignKey)
    try db.setEnabled(.foreignKeys, to: false)
    try db.execute(sql: "INSERT INTO child VALUES (1)")
  }

  @Test func triggersFlagStopsTriggersFromFiring() throws {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE t(x); CREATE TABLE log(x);
        CREATE TRIGGER copy AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.x); END;
        """)
    try db.setEnabled(.triggers, to: false)
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM log") == 0)
    try db.setEnabled(.triggers, to: true)
    try db.execute(sql: "INSERT INTO t VALUES (2)")
    #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM log") == 1)
  }

  @Test func viewsFlagForbidsViews() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE t(x); CREATE VIEW v AS SELECT x FROM t")
    try db.setEnabled(.views, to: false)
    let error = expectSQLiteError { _ = try db.prepare(sql: "SELECT * FROM v") }
    #expect(error?.message == "access to view \"v\" prohibited")
  }

  @Test func defensiveFlagRefusesWritableSchema() throws {
    let db = try Database()
    try db.setEnabled(.defensive, to: true)
    try db.execute(sql: "PRAGMA writable_schema = ON")
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA writable_schema") == 0)
    try db.setEnabled(.defensive, to: false)
    try db.execute(sql: "PRAGMA writable_schema = ON")
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA writable_schema") == 1)
  }

  @Test func trustedSchemaAndReverseScanOrderMatchTheirPragmas() throws {
    let db = try Database()
    try db.setEnabled(.trustedSchema, to: false)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA trusted_schema") == 0)
    try db.setEnabled(.reverseScanOrder, to: true)
    #expect(try db.fetchOne(Int.self, sql: "PRAGMA reverse_unordered_selects") == 1)
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
    #expect(try db.prepare(sql: "SELECT x FROM t").column(0, as: Int.self) == [3, 2, 1])
  }

  @Test func doubleQuotedStringFlagAcceptsThemAsLiterals() throws {
    let db = try Database()
    try db.setEnabled(.doubleQuotedStringsInDML, to: false)
    #expect(
      expectSQLiteError { _ = try db.prepare(sql: "SELECT \"hello\"") }?.message
        == "no such column: \"hello\" - should this be a string literal in single-quotes?")
    try db.setEnabled(.doubleQuotedStringsInDML, to: true)
    #expect(try db.fetchOne(String.self, sql: "SELECT \"hello\"") == "hello")
  }

  @Test func commentsFlagRejectsSQLWithComments() throws {
    let db = try Database()
    try db.setEnabled(.comments, to: false)
    let error = expectSQLiteError { _ = try db.prepare(sql: "SELECT 1 /* one */") }
    #expect(error?.code == .error)
    try db.setEnabled(.comments, to: true)
    #expect(try db.fetchOne(Int.self, sql: "SELECT 1 /* one */") == 1)
  }

  @Test func attachWriteFlagAttachesReadOnly() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("other.sqlite").path
      try Database(path: path).execute(sql: "CREATE TABLE t(x)")
      let db = try Database()
      try db.setEnabled(.attachWrite, to: false)
      try db.execute(sql: "ATTACH ? AS other", parameterValues: [path])
      #expect(db.isReadOnly(schema: "other"))
      let error = expectSQLiteError { try db.execute(sql: "INSERT INTO other.t VALUES (1)") }
      #expect(error?.code == .readOnly)
    }
  }

  @Test func floatingPointDigitsControlRealToTextConversion() throws {
    let db = try Database()
    #expect(try db.floatingPointDigits() == 17)
    try db.setFloatingPointDigits(6)
    #expect(try db.floatingPointDigits() == 6)
    #expect(try db.fetchOne(String.self, sql: "SELECT CAST(1.0 / 3 AS TEXT)") == "0.333333")
    #expect(expectSQLiteError { try db.setFloatingPointDigits(3) }?.code == .range)
    #expect(expectSQLiteError { try db.setFloatingPointDigits(24) }?.code == .range)
    #expect(try db.floatingPointDigits() == 6)
  }

  @Test func configOfAClosedDatabaseThrows() throws {
    let db = try Database()
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.isEnabled(.defensive) }
    #expect(throws: DatabaseError.databaseClosed) { try db.setEnabled(.defensive, to: true) }
  }
}
