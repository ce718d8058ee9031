import Amalgam
import Foundation
import Testing

/// A player read by column position.
private struct PositionalPlayer: RowConvertible, Equatable {
  var id: Int64
  var name: String
  init(id: Int64, name: String) { (self.id, self.name) = (id, name) }
  init(row: borrowing Row) throws {
    id = try row.value(at: 0)
    name = try row.value(at: 1)
  }
}

/// A player decoded by column name, with a date stored as a Julian day number.
private struct NamedPlayer: Decodable, Equatable {
  var id: Int64
  var name: String
  var score: Int?
  var joined: Date?
}

private let julian = RowDecoder(dateFormat: .julianDay)
/// 2440588.5 as a Julian day is one day after the Unix epoch.
private let dayAfterEpoch = Date(timeIntervalSince1970: 86_400)

/// Creates the players' database file at `path`.
private func makePlayers(at path: String) throws {
  let db = try Database(path: path)
  try db.batch(
    sql: """
      PRAGMA journal_mode = WAL;
      CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER, joined REAL);
      INSERT INTO player VALUES (1, 'Ada', 30, 2440588.5), (2, 'Grace', NULL, NULL), (3, 'Linus', 10, NULL);
      """)
  try db.close()
}

/// Runs every `DatabaseReader` fetch through `reader` and checks what it returns.
private func expectEveryFetch(_ reader: some DatabaseReader, sourceLocation: SourceLocation = #_sourceLocation) throws {
  // The first column of the first row, or nil for NULL and for no row.
  #expect(
    try reader.fetchOne(Int.self, sql: "SELECT score FROM player WHERE id = ?", arguments: [1]) == 30,
    sourceLocation: sourceLocation)
  #expect(
    try reader.fetchOne(Int.self, sql: "SELECT score FROM player WHERE id = 2") == nil, sourceLocation: sourceLocation)
  #expect(
    try reader.fetchOne(Int.self, sql: "SELECT score FROM player WHERE id = 9") == nil, sourceLocation: sourceLocation)
  // A value that must exist.
  #expect(
    try reader.fetchValue(String.self, sql: "SELECT name FROM player WHERE id = :id", arguments: ["id": 3]) == "Linus",
    sourceLocation: sourceLocation)
  #expect(throws: DatabaseError.noRow(sql: "SELECT name FROM player WHERE id = 9"), sourceLocation: sourceLocation) {
    try reader.fetchValue(String.self, sql: "SELECT name FROM player WHERE id = 9")
  }
  // The first column of every row.
  #expect(
    try reader.fetchAll(String.self, sql: "SELECT name FROM player WHERE id >= ? ORDER BY id", arguments: [2])
      == ["Grace", "Linus"], sourceLocation: sourceLocation)
  // Whole rows, copied out.
  let rows = try reader.fetchRows(sql: "SELECT id, score FROM player ORDER BY id")
  #expect(rows.map(\.values) == [[1, 30], [2, nil], [3, 10]], sourceLocation: sourceLocation)
  #expect(rows.first?.columnNames == ["id", "score"], sourceLocation: sourceLocation)
  #expect(
    try reader.fetchRow(sql: "SELECT name, score FROM player WHERE id = ?", arguments: [3])?.values == ["Linus", 10],
    sourceLocation: sourceLocation)
  #expect(try reader.fetchRow(sql: "SELECT name FROM player WHERE id = 9") == nil, sourceLocation: sourceLocation)
  // RowConvertible values.
  #expect(
    try reader.fetchAll(PositionalPlayer.self, sql: "SELECT id, name FROM player WHERE score IS NOT NULL ORDER BY id")
      == [PositionalPlayer(id: 1, name: "Ada"), PositionalPlayer(id: 3, name: "Linus")], sourceLocation: sourceLocation)
  #expect(
    try reader.fetchOne(PositionalPlayer.self, sql: "SELECT id, name FROM player WHERE id = ?", arguments: [2])
      == PositionalPlayer(id: 2, name: "Grace"), sourceLocation: sourceLocation)
  #expect(
    try reader.fetchOne(PositionalPlayer.self, sql: "SELECT id, name FROM player WHERE id = 9") == nil,
    sourceLocation: sourceLocation)
  // Decodable values, with the decoder given: a Julian day reads as the day after the epoch, where the
  // default decoder would read the number as Unix time.
  let decoded = try reader.fetchAll(NamedPlayer.self, sql: "SELECT * FROM player ORDER BY id", decoder: julian)
  #expect(decoded.map(\.name) == ["Ada", "Grace", "Linus"], sourceLocation: sourceLocation)
  #expect(decoded.map(\.score) == [30, nil, 10], sourceLocation: sourceLocation)
  #expect(decoded.first?.joined == dayAfterEpoch, sourceLocation: sourceLocation)
  let ada = try reader.fetchOne(
    NamedPlayer.self, sql: "SELECT * FROM player WHERE id = ?", arguments: [1], decoder: julian)
  #expect(ada?.joined == dayAfterEpoch, sourceLocation: sourceLocation)
  let unix = try reader.fetchOne(NamedPlayer.self, sql: "SELECT * FROM player WHERE id = 1")
  #expect(unix?.joined == Date(timeIntervalSince1970: 2_440_588.5), sourceLocation: sourceLocation)
  #expect(
    try reader.fetchOne(NamedPlayer.self, sql: "SELECT * FROM player WHERE id = 9") == nil,
    sourceLocation: sourceLocation)
  // SQL literals carry their values as arguments.
  let minimum = 20
  #expect(
    try reader.fetchOne(String.self, literal: "SELECT name FROM player WHERE score > \(minimum)") == "Ada",
    sourceLocation: sourceLocation)
  #expect(
    try reader.fetchAll(
      Int64.self, literal: "SELECT id FROM player WHERE score < \(minimum) OR score IS NULL ORDER BY id")
      == [2, 3], sourceLocation: sourceLocation)
  let name = "Ada"
  let literal = try reader.fetchAll(
    NamedPlayer.self, literal: "SELECT * FROM player WHERE name = \(name)", decoder: julian)
  #expect(
    literal == [NamedPlayer(id: 1, name: "Ada", score: 30, joined: dayAfterEpoch)], sourceLocation: sourceLocation)
  let literalDefault: [NamedPlayer] = try reader.fetchAll(literal: "SELECT * FROM player WHERE id = \(3)")
  #expect(literalDefault.map(\.name) == ["Linus"], sourceLocation: sourceLocation)
  // Errors reach the caller: SQLite's for bad SQL, the conversion's for a wrong type.
  #expect(throws: SQLiteError.self, sourceLocation: sourceLocation) {
    try reader.fetchAll(Int.self, sql: "SELECT nope FROM player")
  }
  #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) {
    try reader.fetchAll(Int.self, sql: "SELECT name FROM player")
  }
}

@Suite struct DatabaseReaderFetchTests {
  @Test func everyFetchRunsThroughADatabaseQueue() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("queue.sqlite").path
      try makePlayers(at: path)
      let queue = try DatabaseQueue(path: path)
      try expectEveryFetch(queue)
      try queue.close()
      #expect(throws: (any Error).self) { try queue.fetchOne(Int.self, sql: "SELECT 1") }
    }
  }

  @Test func everyFetchRunsThroughADatabasePool() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("pool.sqlite").path
      try makePlayers(at: path)
      let pool = try DatabasePool(path: path)
      try expectEveryFetch(pool)
      try pool.close()
      #expect(throws: (any Error).self) { try pool.fetchRows(sql: "SELECT 1") }
    }
  }

  @Test func everyFetchRunsThroughADatabaseReadQueue() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("reader.sqlite").path
      try makePlayers(at: path)
      let reader = try DatabaseReadQueue(path: path)
      try expectEveryFetch(reader)
      try reader.close()
      #expect(throws: (any Error).self) { try reader.fetchRow(sql: "SELECT 1") }
    }
  }

  @Test func aReadQueueFetchesWhatTheWriterCommitted() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("live.sqlite").path
      try makePlayers(at: path)
      let writer = try DatabaseQueue(path: path)
      let reader = try DatabaseReadQueue(path: path)
      #expect(try reader.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 3)
      try writer.sync { db in try db.execute(literal: "INSERT INTO player(id, name) VALUES (\(4), \("Barbara"))") }
      #expect(try reader.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 4)
      #expect(
        try reader.fetchOne(PositionalPlayer.self, sql: "SELECT id, name FROM player WHERE id = 4")?.name == "Barbara")
      // The fetches only read: a write through them fails.
      #expect(throws: SQLiteError.self) { try reader.fetchRows(sql: "DELETE FROM player RETURNING id") }
      #expect(throws: SQLiteError.self) { try writer.fetchRows(sql: "DELETE FROM player RETURNING id") }
      #expect(try writer.fetchValue(Int.self, sql: "SELECT count(*) FROM player") == 4)
      try reader.close()
      try writer.close()
    }
  }
}
