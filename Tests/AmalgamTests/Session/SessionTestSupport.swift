#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// The schema of the session tests: a table with a primary key, a child table with a foreign key, a
  /// table with a unique column.
  let sessionSchema = """
    CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, note TEXT);
    CREATE TABLE tag(id INTEGER PRIMARY KEY, item INTEGER REFERENCES item(id), label TEXT UNIQUE);
    """

  /// An in-memory database with ``sessionSchema`` and a few rows.
  func makeSessionDatabase(foreignKeys: Bool = false) throws -> Database {
    let db = try Database()
    // Explicit either way: the DEFAULT_FOREIGN_KEYS trait turns enforcement on by default.
    try db.execute(sql: "PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
    try db.batch(sql: sessionSchema)
    try db.batch(
      sql: """
        INSERT INTO item VALUES (1, 'pen', 1.5, NULL), (2, 'ink', 4.0, 'blue'), (3, 'pad', 2.25, NULL);
        INSERT INTO tag VALUES (1, 1, 'office'), (2, 2, 'refill');
        """)
    return db
  }

  /// Every row of every user table, in primary-key order, keyed by table name: two databases with the
  /// same contents compare equal.
  func sessionContents(_ db: Database) throws -> [String: [[DatabaseValue]]] {
    let tables = try db.prepare(
      sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).column(0, as: String.self)
    var contents: [String: [[DatabaseValue]]] = [:]
    for table in tables {
      contents[table] = try db.prepare(sql: "SELECT * FROM \"\(table)\" ORDER BY 1").allRows()
    }
    return contents
  }

  /// Records what `changes` does to `db` (every table) and returns the changeset.
  func recordChangeset(_ db: Database, _ changes: String) throws -> Changeset {
    let session = try Session(database: db)
    try session.attach()
    try db.batch(sql: changes)
    return try session.changeset()
  }

  /// A small deterministic random generator, so that the corrupt-input tests are reproducible.
  struct SessionTestRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }
#endif
