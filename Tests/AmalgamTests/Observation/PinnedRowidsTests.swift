import AmalgamSQLite
import Foundation
import Testing

@testable import Amalgam

/// The schema the analysis is tried on: `t` with an INTEGER PRIMARY KEY and an index on `name`, `a`
/// pointing at `t`, `r` with a plain rowid, `w` WITHOUT ROWID, a view over `t`, an FTS5 table.
private func makeDatabase() throws -> Database {
  let db = try Database()
  #if ENABLE_FTS5
    try db.execute(sql: "CREATE VIRTUAL TABLE ft USING fts5(body)")
  #endif
  try db.batch(
    sql: """
      CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score INT);
      CREATE INDEX t_name ON t(name);
      CREATE TABLE a(id INTEGER PRIMARY KEY, tid INT);
      CREATE TABLE r(x, y);
      CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
      CREATE VIEW tv AS SELECT id, name FROM t;
      INSERT INTO t VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30);
      INSERT INTO a VALUES (1, 2), (2, 3);
      """)
  return db
}

/// What `sql` reads, by `schema.table`: the keys of its pinned rows (`?1` for parameter 1, `5` for a
/// constant), or `*` for every row. `nil` for an opaque statement.
private func reads(_ db: Database, _ sql: String) throws -> [String: String]? {
  let statement = try db.prepare(sql: sql)
  let analysis = RowidAnalysis(statement: statement.sqliteHandle)
  if analysis.isOpaque { return nil }
  var result: [String: String] = [:]
  for read in analysis.reads {
    let keys = read.keys?.map { key in
      switch key {
      case .parameter(let number): "?\(number)"
      case .constant(let value): "\(value)"
      }
    }
    result["\(read.table.schema).\(read.table.name)"] = keys?.joined(separator: " ") ?? "*"
  }
  return result
}

/// The region that running `body` records on `db`.
private func recordedRegion(_ db: Database, _ body: () throws -> Void) throws -> DatabaseRegion {
  try RegionRecorder.record(db, body).1
}

private let t = DatabaseRegion.Table(schema: "main", name: "t")

/// A change of rows `rowids` of table `name` in main, every column.
private func change(_ name: String, rows rowids: Set<Int64>) -> DatabaseRegion {
  var region = DatabaseRegion()
  region.insert(DatabaseRegion.Table(schema: "main", name: name), DatabaseRegion.TableRegion(rowids: rowids))
  return region
}

/// Rowid-level regions, read side: which statements SQLite's bytecode shows reading a table only at
/// rowids pinned by a parameter or a constant, and what a recording makes of them.
@Suite struct PinnedRowidsTests {
  // MARK: The analysis of real programs

  @Test func anIntegerPrimaryKeyEqualToAParameterIsPinned() throws {
    let db = try makeDatabase()
    #expect(try reads(db, "SELECT name FROM t WHERE id = ?") == ["main.t": "?1"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = :id") == ["main.t": "?1"])
    #expect(try reads(db, "SELECT name FROM t WHERE id IS ?") == ["main.t": "?1"])
  }

  @Test func aRowidEqualToAConstantIsPinned() throws {
    let db = try makeDatabase()
    #expect(try reads(db, "SELECT x FROM r WHERE rowid = 5") == ["main.r": "5"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = -5") == ["main.t": "-5"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = 5000000000") == ["main.t": "5000000000"])
  }

  @Test func otherTermsBesideTheRowidKeepThePin() throws {
    let db = try makeDatabase()
    #expect(try reads(db, "SELECT name FROM t WHERE id = ? AND name = 'x'") == ["main.t": "?1"])
    #expect(try reads(db, "SELECT name FROM t WHERE rowid = :x AND score > 3") == ["main.t": "?1"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = ? ORDER BY name") == ["main.t": "?1"])
    #expect(try reads(db, "SELECT count(*) FROM t WHERE id = ?") == ["main.t": "?1"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = ? LIMIT 1") == ["main.t": "?1"])
  }

  @Test func listsRangesAndComputedKeysReadEveryRow() throws {
    let db = try makeDatabase()
    // An IN list (and an OR of equalities, which SQLite makes one) is read through an ephemeral table
    // whose keys the analysis does not follow.
    #expect(try reads(db, "SELECT name FROM t WHERE id IN (1, 2)") == ["main.t": "*"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = ?1 OR id = ?2") == ["main.t": "*"])
    #expect(try reads(db, "SELECT name FROM t WHERE id > 5") == ["main.t": "*"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = ? + 1") == ["main.t": "*"])
    // A text constant would be converted by affinity: not followed.
    #expect(try reads(db, "SELECT name FROM t WHERE id = '5'") == ["main.t": "*"])
  }

  @Test func theInnerTableOfAJoinReadsEveryRow() throws {
    let db = try makeDatabase()
    #expect(try reads(db, "SELECT t.name FROM a JOIN t ON t.id = a.tid") == ["main.a": "*", "main.t": "*"])
    // The outer table pinned, the inner one sought with a key read from it.
    #expect(
      try reads(db, "SELECT a.id, t.name FROM a LEFT JOIN t ON t.id = a.tid WHERE a.id = ?")
        == ["main.a": "?1", "main.t": "*"])
    // Both pinned by their own parameters.
    #expect(
      try reads(db, "SELECT t.name FROM t, a WHERE t.id = ? AND a.id = ?")
        == ["main.t": "?1", "main.a": "?2"])
  }

  @Test func aSelfJoinWithOneCursorUnpinnedReadsEveryRow() throws {
    let db = try makeDatabase()
    #expect(
      try reads(db, "SELECT x.name, y.name FROM t x JOIN t y ON y.id = x.score WHERE x.id = ?")
        == ["main.t": "*"])
  }

  @Test func subqueriesViewsAndCompoundsArePinnedPerCursor() throws {
    let db = try makeDatabase()
    #expect(
      try reads(db, "SELECT name FROM t WHERE id = (SELECT tid FROM a WHERE id = ?)")
        == ["main.a": "?1", "main.t": "*"])
    #expect(
      try reads(db, "SELECT name, (SELECT count(*) FROM a) FROM t WHERE id = ?")
        == ["main.t": "?1", "main.a": "*"])
    #expect(try reads(db, "SELECT name FROM tv WHERE id = ?") == ["main.t": "?1"])
    #expect(
      try reads(db, "SELECT name FROM t WHERE id = ? UNION SELECT name FROM t WHERE id = ?")
        == ["main.t": "?1 ?2"])
    #expect(try reads(db, "SELECT name FROM t WHERE id = ?1 UNION ALL SELECT name FROM t") == ["main.t": "*"])
    #expect(
      try reads(db, "WITH c AS MATERIALIZED (SELECT * FROM t WHERE id = ?) SELECT name FROM c")
        == ["main.t": "?1"])
    #expect(try reads(db, "SELECT name, row_number() OVER () FROM t WHERE id = ?") == ["main.t": "?1"])
  }

  @Test func indexesCountsWithoutRowidTablesAndWritesReadEveryRow() throws {
    let db = try makeDatabase()
    #expect(try reads(db, "SELECT id FROM t WHERE name = ?") == ["main.t": "*"])
    #expect(try reads(db, "SELECT count(*) FROM t") == ["main.t": "*"])
    #expect(try reads(db, "SELECT v FROM w WHERE k = ?") == ["main.w": "*"])
    #expect(try reads(db, "UPDATE t SET name = 'x' WHERE id = ?") == ["main.t": "*"])
  }

  #if ENABLE_FTS5
    @Test func aVirtualTableIsNoBtreeOfTheStatement() throws {
      let db = try makeDatabase()
      // The module reads its shadow tables through statements of its own, analysed when they run.
      #expect(try reads(db, "SELECT body FROM ft WHERE rowid = ?") == [:])
    }
  #endif

  @Test func aTriggerProgramMakesAStatementOpaque() throws {
    let db = try makeDatabase()
    try db.execute(sql: "CREATE TRIGGER tu AFTER UPDATE ON t BEGIN UPDATE a SET tid = 0 WHERE id = 1; END")
    #expect(try reads(db, "UPDATE t SET name = 'x' WHERE id = ?") == nil)
  }

  @Test func theRowidsOfAnExecutionFollowTheCurrentBindings() throws {
    let db = try makeDatabase()
    let statement = try db.prepare(sql: "SELECT name FROM t WHERE id = ?")
    let keys: [RowidAnalysis.Key] = [.parameter(1), .constant(9)]
    let handle = statement.sqliteHandle
    try statement.bind(value: 1, toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [1, 9])
    try statement.bind(value: 2, toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [2, 9])
    // As OP_SeekRowid converts them: text and reals that are integers exactly find that row, other
    // values find none.
    try statement.bind(value: "7", toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [7, 9])
    try statement.bind(value: 7.0, toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [7, 9])
    try statement.bind(value: 7.5, toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [9])
    try statement.bind(value: "x", toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [9])
    try statement.bind(value: nil, toParameter: 1)
    #expect(RowidAnalysis.rowids(of: keys, boundIn: handle) == [9])
    #expect(RowidAnalysis.rowids(of: [.parameter(2)], boundIn: handle) == nil)
  }

  // MARK: Recordings

  @Test func aRecordingPinsTheRowsItsStatementsRead() throws {
    let db = try makeDatabase()
    let region = try recordedRegion(db) {
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = ?").bind(value: 1, toParameter: 1).front(String.self)
    }
    #expect(region.region(of: t)?.rowids == [1])
    #expect(!region.intersects(change("t", rows: [2])))
    #expect(region.intersects(change("t", rows: [1])))
    #expect(region.intersects(DatabaseRegion(tables: ["t"])))
  }

  @Test func aStatementReboundInALoopPinsEveryRowItRead() throws {
    let db = try makeDatabase()
    let statement = try db.prepare(sql: "SELECT name FROM t WHERE id = ?")
    let region = try recordedRegion(db) {
      for id in [1, 3, 5] {
        _ = try statement.bind(value: id, toParameter: 1).front(String.self)
      }
    }
    #expect(region.region(of: t)?.rowids == [1, 3, 5])
    // Prepared before the recording: its region is learnt once, and still pinned by its new bindings.
    let again = try recordedRegion(db) { _ = try statement.bind(value: 2, toParameter: 1).front(String.self) }
    #expect(again.region(of: t)?.rowids == [2])
  }

  @Test func aTableAlsoReadAtEveryRowIsWhole() throws {
    let db = try makeDatabase()
    let region = try recordedRegion(db) {
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 1").front(String.self)
      _ = try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
    }
    #expect(region.region(of: t)?.rowids == nil)
    #expect(region.intersects(change("t", rows: [2])))
  }

  @Test func aStatementRunOnTheRawHandleIsSeenToo() throws {
    let db = try makeDatabase()
    let pinned = try recordedRegion(db) {
      try db.connection.withHandle { handle in
        #expect(sqlite3_exec(handle, "SELECT name FROM t WHERE id = 2", nil, nil, nil) == SQLITE_OK)
      }
    }
    #expect(pinned.region(of: t)?.rowids == [2])
    // A scan run on the raw handle beside a pinned read makes the table whole.
    let whole = try recordedRegion(db) {
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 1").front(String.self)
      try db.connection.withHandle { handle in
        #expect(sqlite3_exec(handle, "SELECT name FROM t", nil, nil, nil) == SQLITE_OK)
      }
    }
    #expect(whole.region(of: t)?.rowids == nil)
  }

  @Test func aSchemaChangeDuringTheRecordingLeavesEveryTableWhole() throws {
    let db = try makeDatabase()
    let region = try recordedRegion(db) {
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 1").front(String.self)
      try db.execute(sql: "CREATE TABLE extra(x)")
    }
    #expect(region.region(of: t)?.rowids == nil)
  }

  @Test func aStatementPreparedAgainAfterASchemaChangeIsAnalysedAgain() throws {
    let db = try makeDatabase()
    let statement = try db.prepare(sql: "SELECT name FROM t WHERE id = ?")
    try statement.bind(value: 1, toParameter: 1)
    let before = try recordedRegion(db) { _ = try statement.front(String.self) }
    #expect(before.region(of: t)?.rowids == [1])
    // The same SQL now reads a WITHOUT ROWID table through its primary key's index: every row.
    try db.batch(
      sql: """
        DROP VIEW tv;
        DROP TABLE t;
        CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT) WITHOUT ROWID;
        """)
    let after = try recordedRegion(db) { _ = try statement.front(String.self) }
    #expect(after.contains(table: "t"))
    #expect(after.region(of: t)?.rowids == nil)
  }

  @Test func aSchemaChangedByAnotherConnectionLeavesTheRecordingThatNoticedItWhole() throws {
    try withTemporaryDirectory { (directory: URL) throws -> Void in
      let path = directory.appendingPathComponent("schema.sqlite").path
      let db = try Database(path: path)
      try db.batch(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'one')")
      let statement = try db.prepare(sql: "SELECT name FROM t WHERE id = 1")
      let first = try recordedRegion(db) { _ = try statement.front(String.self) }
      #expect(first.region(of: t)?.rowids == [1])
      // SQLite sees the other connection's change inside the step, once the execution started: it
      // prepares the statement again and runs it without reporting it a second time.
      let other = try Database(path: path)
      try other.execute(sql: "CREATE TABLE u(x)")
      var name: String?
      let noticing = try recordedRegion(db) { name = try statement.front(String.self) }
      #expect(name == "one")
      #expect(noticing.region(of: t)?.rowids == nil)
      let next = try recordedRegion(db) { _ = try statement.front(String.self) }
      #expect(next.region(of: t)?.rowids == [1])
    }
  }

  @Test func anOpaqueStatementLeavesEveryTableWhole() throws {
    let db = try makeDatabase()
    try db.execute(sql: "CREATE TEMP TRIGGER ta AFTER UPDATE ON a BEGIN SELECT 1; END")
    let region = try recordedRegion(db) {
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 1").front(String.self)
      try db.execute(sql: "UPDATE a SET tid = 1 WHERE id = 1")
    }
    #expect(region.region(of: t)?.rowids == nil)
  }

  @Test func theUsersTraceHandlerKeepsItsEventsDuringARecording() throws {
    let db = try makeDatabase()
    let events = Shared<[String]>([])
    try db.setTraceHandler(for: .statement) { event in
      // The recorder's own queries (of the schema) are not traced: only this test's show.
      if case .statement(let sql, _) = event { events.withLock { $0.append(sql) } }
    }
    let region = try recordedRegion(db) {
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 3").front(String.self)
    }
    #expect(region.region(of: t)?.rowids == [3])
    _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 2").front(String.self)
    #expect(events.current == ["SELECT name FROM t WHERE id = 3", "SELECT name FROM t WHERE id = 2"])
  }

  @Test func aTraceHandlerRegisteredDuringARecordingLeavesEveryTableWholeAndStays() throws {
    let db = try makeDatabase()
    let events = Shared(0)
    let region = try recordedRegion(db) {
      try db.setTraceHandler(for: .statement) { event in
        if case .statement(let sql, _) = event, sql.hasPrefix("SELECT name FROM t") { events.withLock { $0 += 1 } }
      }
      _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 3").front(String.self)
    }
    #expect(region.region(of: t)?.rowids == nil)
    _ = try db.prepare(sql: "SELECT name FROM t WHERE id = 2").front(String.self)
    #expect(events.current == 2)
  }
}

// The change side of rowid-level regions needs the pre-update hook (without it, tables change whole).
#if ENABLE_PREUPDATE_HOOK
  /// An observation of `SELECT name FROM t WHERE id = 1`'s name (bound as a parameter) on `queue`, counting
  /// its fetches.
  private func observeRowOne(_ queue: DatabaseQueue, fetches: Shared<Int>) -> Collector<String?> {
    Collector(
      queue.observe { db in
        fetches.withLock { $0 += 1 }
        // A cached statement: SQLite prepares this one again after a schema change.
        return try db.cachedStatement(sql: "SELECT name FROM t WHERE id = ?").bind(value: 1, toParameter: 1)
          .front(String.self)
      })
  }

  /// Observations of a row named by its rowid, end to end: the commits that change other rows of the
  /// table run no query, the ones that change the row (whichever way) do.
  /// The name column of the table `t` these tests observe: with a UNIQUE index, the pre-update hook
  /// sees the inserts too (REPLACE may delete another row); without one, the update hook alone reports
  /// inserts and deletes.
  private let nameColumns = ["name TEXT UNIQUE", "name TEXT"]

  @Suite struct RowidObservationTests {
    private func makeQueue(_ name: String = "name TEXT UNIQUE") throws -> DatabaseQueue {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, \(name));
            INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');
            """)
      }
      return queue
    }

    @Test(arguments: nameColumns) func aChangeOfAnotherRowRunsNoQueryAndAChangeOfTheRowDoes(name: String) async throws {
      let queue = try makeQueue(name)
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      for name in ["deux", "dos", "zwei"] {
        try queue.sync { db in try db.execute(sql: "UPDATE t SET name = ? WHERE id = 2", parameterValues: [name]) }
      }
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (4, 'four')") }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET name = 'uno' WHERE id = 1") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == ["one", "uno"])
      #expect(fetches.current == 2)
    }

    @Test(arguments: nameColumns) func deletingTheRowRunsTheQuery(name: String) async throws {
      let queue = try makeQueue(name)
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "DELETE FROM t WHERE id = 1") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == ["one", nil])
    }

    @Test func aReplaceThatDeletesTheRowRunsTheQuery() async throws {
      let queue = try makeQueue()
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      // The new row 9 takes row 1's name: REPLACE deletes row 1.
      try queue.sync { db in try db.execute(sql: "INSERT OR REPLACE INTO t VALUES (9, 'one')") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == ["one", nil])
    }

    @Test(arguments: nameColumns) func anUpdateThatMovesAnotherRowToTheRowidRunsTheQuery(name: String) async throws {
      let queue = try makeQueue(name)
      try queue.sync { db in try db.execute(sql: "DELETE FROM t WHERE id = 1") }
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "UPDATE t SET id = 1 WHERE id = 2") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == [nil, "two"])
    }

    @Test(arguments: nameColumns) func insertsAndDeletesOfOtherRowsRunNoQuery(name: String) async throws {
      let queue = try makeQueue(name)
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in
        try db.transaction { db in
          let insert = try db.prepare(sql: "INSERT INTO t(name) VALUES (?)")
          for index in 0..<100 { try insert.bind(value: "row \(index)", toParameter: 1).execute() }
        }
      }
      try queue.sync { db in try db.execute(sql: "DELETE FROM t WHERE id > 1") }
      try queue.sync { db in try db.execute(sql: "INSERT OR REPLACE INTO t VALUES (2, 'two')") }
      // REPLACE of the row itself (a rowid conflict): the update hook reports the insert of rowid 1.
      try queue.sync { db in try db.execute(sql: "REPLACE INTO t VALUES (1, 'uno')") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == ["one", "uno"])
      #expect(fetches.current == 2)
    }

    @Test func aPlainInsertThatReplacesTheRowThroughAConstraintRunsTheQuery() async throws {
      let queue = try makeQueue("name TEXT UNIQUE ON CONFLICT REPLACE")
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (9, 'one')") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == ["one", nil])
    }

    @Test func aReplaceThroughAUniqueIndexMadeAfterTheObservationStartedRunsTheQuery() async throws {
      let queue = try makeQueue("name TEXT")
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (4, 'four')") }
      try queue.sync { db in try db.execute(sql: "CREATE UNIQUE INDEX t_name ON t(name)") }
      #expect(await collector.waitFor(count: 2))
      try queue.sync { db in try db.execute(sql: "INSERT OR REPLACE INTO t VALUES (9, 'one')") }
      #expect(await collector.waitFor(count: 3))
      #expect(collector.current == ["one", "one", nil])
    }

    @Test func aReplaceMadeByATriggerOrAStatementPreparedBeforeTheObservationRunsTheQuery() async throws {
      let queue = try makeQueue()
      try queue.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE log(name TEXT);
            CREATE TRIGGER log_names AFTER INSERT ON log BEGIN
              INSERT OR REPLACE INTO t(name) VALUES (NEW.name);
            END;
            """)
      }
      try queue.sync { db in _ = try db.cachedStatement(sql: "REPLACE INTO t(name) VALUES (?)") }
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "INSERT INTO log VALUES ('one')") }
      #expect(await collector.waitFor(count: 2))
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1, 'eins')") }
      #expect(await collector.waitFor(count: 3))
      try queue.sync { db in
        try db.cachedStatement(sql: "REPLACE INTO t(name) VALUES (?)").bind(value: "eins", toParameter: 1).execute()
      }
      #expect(await collector.waitFor(count: 4))
      #expect(collector.current == ["one", nil, "eins", nil])
    }

    @Test(arguments: nameColumns) func aForeignKeyCascadeThatDeletesTheRowRunsTheQuery(name: String) async throws {
      let queue = try makeQueue(name)
      try queue.sync { db in
        try db.batch(
          sql: """
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            INSERT INTO parent VALUES (1), (2);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent ON DELETE CASCADE, \(name));
            INSERT INTO child VALUES (1, 1, 'one'), (2, 2, 'two');
            """)
      }
      let fetches = Shared(0)
      let collector = Collector(
        queue.observe { db in
          fetches.withLock { $0 += 1 }
          return try db.cachedStatement(sql: "SELECT name FROM child WHERE id = ?").bind(value: 1, toParameter: 1)
            .front(String.self)
        })
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "DELETE FROM parent WHERE id = 2") }
      try queue.sync { db in try db.execute(sql: "DELETE FROM parent WHERE id = 1") }
      #expect(await collector.waitFor(count: 2))
      #expect(collector.current == ["one", nil])
      #expect(fetches.current == 2)
    }

    @Test func theTransactionsAfterOneThatChangedTheTableAsAWholeAreTrackedRowByRowAgain() async throws {
      // A UNIQUE index: the pre-update hook sees the inserts, until the table changes as a whole.
      let queue = try makeQueue()
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      /// Inserts more rows than the tracker follows one by one, then throws when `rollingBack`.
      func insertMany(_ prefix: String, rollingBack: Bool) throws {
        try queue.sync { db in
          try db.transaction { db in
            let insert = try db.prepare(sql: "INSERT INTO t(name) VALUES (?)")
            for index in 0..<5_000 { try insert.bind(value: "\(prefix) \(index)", toParameter: 1).execute() }
            // REPLACE deletes row 1 once the table already changed as a whole.
            if !rollingBack { try db.execute(sql: "INSERT OR REPLACE INTO t(name) VALUES ('one')") }
            if rollingBack { throw TestError(id: 1) }
          }
        }
      }
      try insertMany("row", rollingBack: false)
      #expect(await collector.waitFor(count: 2))
      // The next transactions change other rows: no query runs.
      try queue.sync { db in try db.execute(sql: "INSERT INTO t(name) VALUES ('four')") }
      #expect(throws: TestError(id: 1)) { try insertMany("other", rollingBack: true) }
      try queue.sync { db in try db.execute(sql: "INSERT OR REPLACE INTO t(name) VALUES ('four')") }
      try queue.sync { db in try db.execute(sql: "INSERT INTO t VALUES (1, 'uno')") }
      #expect(await collector.waitFor(count: 3))
      #expect(collector.current == ["one", nil, "uno"])
      #expect(fetches.current == 3)
    }

    @Test func theRegionStaysRightAfterASchemaChangePreparesTheStatementAgain() async throws {
      let queue = try makeQueue()
      let fetches = Shared(0)
      let collector = observeRowOne(queue, fetches: fetches)
      defer { collector.task.cancel() }
      #expect(await collector.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "ALTER TABLE t ADD COLUMN extra") }
      #expect(await collector.waitFor(count: 2))
      let before = fetches.current
      try queue.sync { db in try db.execute(sql: "UPDATE t SET name = 'deux' WHERE id = 2") }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET name = 'uno' WHERE id = 1") }
      #expect(await collector.waitFor(count: 3))
      #expect(collector.current == ["one", "one", "uno"])
      #expect(fetches.current == before + 1)
    }
  }
#endif
