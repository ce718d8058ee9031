import AmalgamSQLite
import Foundation
import Testing

@testable import Amalgam

// Column- and rowid-level changes come from the pre-update hook: without it, tables change whole.
#if ENABLE_PREUPDATE_HOOK

  /// An observation of `sql`'s single integer on `queue`, counting its fetches.
  private func observe(_ queue: DatabaseQueue, _ sql: String, fetches: Shared<Int>) -> Collector<Int> {
    Collector(
      queue.observe { db in
        fetches.withLock { $0 += 1 }
        return try db.prepare(sql: sql).front(Int.self) ?? -1
      })
  }

  private let schema = """
    CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER);
    INSERT INTO t(a, b) VALUES (1, 10), (2, 20), (3, 30);
    """

  #if ENABLE_SESSION
    /// A session kept between the closures of a queue.
    private final class SessionHolder: @unchecked Sendable {
      // @unchecked Sendable: only used inside the queue's closures, one at a time.
      var session: Session?
    }
  #endif

  /// Records what a ``TransactionObserver`` is told.
  private final class Recorder: TransactionObserver {
    let observedRegion: DatabaseRegion
    var events: [DatabaseEvent] = []
    var commits: [DatabaseRegion] = []

    init(_ region: DatabaseRegion) {
      observedRegion = region
    }

    func databaseDidChange(_ event: DatabaseEvent) { events.append(event) }
    func databaseDidCommit(changes: DatabaseRegion) { commits.append(changes) }
  }

  /// Observations refetch after a commit that changed a column they read (or the set of rows of a table
  /// they read), not after updates of other columns; where SQLite does not say which columns changed, a
  /// change counts as every column.
  @Suite struct ColumnRegionTests {
    @Test func anUpdateOfAnUnreadColumnRunsNoQueryAndAnUpdateOfAReadColumnDoes() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.batch(sql: schema) }
      let fetches = Shared(0)
      let sums = observe(queue, "SELECT sum(a) FROM t", fetches: fetches)
      defer { sums.task.cancel() }
      #expect(await sums.waitFor(count: 1))
      let before = fetches.current
      for value in 0..<5 {
        try queue.sync { db in try db.execute(sql: "UPDATE t SET b = \(value)") }
      }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = a + 1 WHERE id = 1") }
      #expect(await sums.waitFor(count: 2))
      #expect(sums.current == [6, 7])
      #expect(fetches.current == before + 1)
    }

    @Test func anUpdateThatSetsTheSameValuesRunsNoQuery() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.batch(sql: schema) }
      let fetches = Shared(0)
      let sums = observe(queue, "SELECT sum(a) FROM t", fetches: fetches)
      defer { sums.task.cancel() }
      #expect(await sums.waitFor(count: 1))
      let before = fetches.current
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = a") }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 2 WHERE id = 2") }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 5 WHERE id = 2") }
      #expect(await sums.waitFor(count: 2))
      #expect(sums.current == [6, 9])
      #expect(fetches.current == before + 1)
    }

    @Test func aDeclaredColumnRegionIsRefetchedOnlyForItsColumns() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.batch(sql: schema) }
      let fetches = Shared(0)
      let sums = Collector(
        queue.observe { db in
          fetches.withLock { $0 += 1 }
          return try db.prepare(sql: "SELECT sum(a) FROM t").front(Int.self) ?? -1
        }.tracking(DatabaseRegion(table: "T", columns: ["A"])))
      defer { sums.task.cancel() }
      #expect(await sums.waitFor(count: 1))
      let before = fetches.current
      try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 0") }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 0 WHERE id = 3") }
      #expect(await sums.waitFor(count: 2))
      #expect(sums.current == [6, 3])
      #expect(fetches.current == before + 1)
    }

    @Test func countIsRefetchedByInsertsAndDeletesButNotByUpdates() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.batch(sql: schema) }
      let fetches = Shared(0)
      let counts = observe(queue, "SELECT count(*) FROM t", fetches: fetches)
      defer { counts.task.cancel() }
      #expect(await counts.waitFor(count: 1))
      let before = fetches.current
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = a + 1, b = b + 1") }
      try queue.sync { db in try db.execute(sql: "INSERT INTO t(a, b) VALUES (4, 40)") }
      #expect(await counts.waitFor(count: 2))
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 0") }
      try queue.sync { db in try db.execute(sql: "DELETE FROM t WHERE id = 1") }
      #expect(await counts.waitFor(count: 3))
      #expect(counts.current == [3, 4, 3])
      #expect(fetches.current == before + 2)
    }

    @Test func aRegionOfSomeRowidsIsRefetchedOnlyWhenOneOfItsRowsChanges() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE u(id INTEGER PRIMARY KEY, k TEXT UNIQUE, a INTEGER);
            INSERT INTO u(k, a) VALUES ('x', 1), ('y', 2), ('z', 3);
            """)
      }
      var firstRow = DatabaseRegion()
      firstRow.insert(
        DatabaseRegion.Table(schema: "main", name: "u"), DatabaseRegion.TableRegion(columns: ["a"], rowids: [1]))
      let fetches = Shared(0)
      let values = Collector(
        queue.observe { db in
          fetches.withLock { $0 += 1 }
          return try db.prepare(sql: "SELECT coalesce(sum(a), 0) FROM u WHERE id = 1").front(Int.self) ?? -1
        }.tracking(firstRow))
      defer { values.task.cancel() }
      #expect(await values.waitFor(count: 1))
      let before = fetches.current
      // Other rows: no query.
      try queue.sync { db in try db.execute(sql: "UPDATE u SET a = 20 WHERE id = 2") }
      try queue.sync { db in try db.execute(sql: "INSERT INTO u(k, a) VALUES ('w', 4)") }
      try queue.sync { db in try db.execute(sql: "DELETE FROM u WHERE id = 3") }
      try queue.sync { db in try db.execute(sql: "UPDATE u SET a = 10 WHERE id = 1") }
      #expect(await values.waitFor(count: 2))
      #expect(fetches.current == before + 1)
      // A row deleted by REPLACE conflict resolution, which the update hook does not report.
      try queue.sync { db in try db.execute(sql: "UPDATE OR REPLACE u SET k = 'x' WHERE id = 2") }
      #expect(await values.waitFor(count: 3))
      // A row moved to the rowid.
      try queue.sync { db in try db.execute(sql: "UPDATE u SET id = 1 WHERE id = 2") }
      #expect(await values.waitFor(count: 4))
      #expect(values.current == [1, 10, 0, 20])
      #expect(fetches.current == before + 3)
    }

    @Test func anUpdateThroughATriggerOfAReadColumnRunsTheQuery() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(sql: schema)
        try db.batch(
          sql: """
            CREATE TABLE log(id INTEGER PRIMARY KEY, n INTEGER, other INTEGER);
            INSERT INTO log(n, other) VALUES (0, 0);
            CREATE TRIGGER counting AFTER UPDATE OF b ON t BEGIN UPDATE log SET n = n + 1; END;
            CREATE TRIGGER other AFTER UPDATE OF a ON t BEGIN UPDATE log SET other = other + 1; END;
            """)
      }
      let fetches = Shared(0)
      let counts = observe(queue, "SELECT n FROM log", fetches: fetches)
      defer { counts.task.cancel() }
      #expect(await counts.waitFor(count: 1))
      let before = fetches.current
      // The trigger changes log.other, which the query does not read.
      try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 7 WHERE id = 1") }
      try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 7 WHERE id = 1") }
      #expect(await counts.waitFor(count: 2))
      #expect(counts.current == [0, 1])
      #expect(fetches.current == before + 1)
    }

    @Test func aRowDeletedByReplaceConflictResolutionRunsTheQuery() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE u(id INTEGER PRIMARY KEY, k TEXT UNIQUE, a INTEGER);
            INSERT INTO u(k, a) VALUES ('x', 1), ('y', 2);
            """)
      }
      let fetches = Shared(0)
      let sums = observe(queue, "SELECT sum(a) FROM u", fetches: fetches)
      defer { sums.task.cancel() }
      #expect(await sums.waitFor(count: 1))
      // Changes only k, which the query does not read, but deletes the row that had 'x'.
      try queue.sync { db in try db.execute(sql: "UPDATE OR REPLACE u SET k = 'x' WHERE id = 2") }
      #expect(await sums.waitFor(count: 2))
      #expect(sums.current == [3, 2])
    }

    @Test func anUpdateThatChangesTheRowidRunsTheQuery() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(sql: schema)
        try db.batch(sql: "CREATE TABLE r(a INTEGER); INSERT INTO r(a) VALUES (1), (2);")
      }
      let fetches = Shared(0)
      let primaryKeys = observe(queue, "SELECT max(id) FROM t", fetches: fetches)
      let rowids = observe(queue, "SELECT max(rowid) FROM r", fetches: fetches)
      let counts = observe(queue, "SELECT count(*) FROM t WHERE id > 50", fetches: fetches)
      defer {
        primaryKeys.task.cancel()
        rowids.task.cancel()
        counts.task.cancel()
      }
      #expect(await primaryKeys.waitFor(count: 1))
      #expect(await rowids.waitFor(count: 1))
      #expect(await counts.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "UPDATE t SET id = 100 WHERE id = 1") }
      try queue.sync { db in try db.execute(sql: "UPDATE r SET rowid = 100 WHERE rowid = 1") }
      #expect(await primaryKeys.waitFor(count: 2))
      #expect(await rowids.waitFor(count: 2))
      #expect(await counts.waitFor(count: 2))
      #expect(primaryKeys.current == [3, 100])
      #expect(rowids.current == [2, 100])
      #expect(counts.current == [0, 1])
    }

    @Test func aTransactionOfSeveralStatementsRunsTheQueriesOfTheColumnsItChanged() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(sql: schema)
        try db.batch(
          sql: "CREATE TABLE v(id INTEGER PRIMARY KEY, x INTEGER, y INTEGER); INSERT INTO v VALUES (1, 1, 1);")
      }
      let fetchesOfA = Shared(0)
      let fetchesOfX = Shared(0)
      let sumsOfA = observe(queue, "SELECT sum(a) FROM t", fetches: fetchesOfA)
      let sumsOfX = observe(queue, "SELECT sum(x) FROM v", fetches: fetchesOfX)
      defer {
        sumsOfA.task.cancel()
        sumsOfX.task.cancel()
      }
      #expect(await sumsOfA.waitFor(count: 1))
      #expect(await sumsOfX.waitFor(count: 1))
      let (beforeA, beforeX) = (fetchesOfA.current, fetchesOfX.current)
      try queue.sync { db in
        try db.transaction { db in
          try db.execute(sql: "UPDATE t SET b = 0")
          try db.execute(sql: "UPDATE v SET y = 5")
          try db.execute(sql: "UPDATE v SET x = 5")
        }
      }
      #expect(await sumsOfX.waitFor(count: 2))
      try queue.sync { db in
        try db.transaction { db in
          try db.execute(sql: "UPDATE v SET y = 6")
          try db.execute(sql: "SAVEPOINT s")
          try db.execute(sql: "UPDATE t SET b = 1")
          try db.execute(sql: "UPDATE t SET a = 9 WHERE id = 1")
          try db.execute(sql: "RELEASE s")
        }
      }
      #expect(await sumsOfA.waitFor(count: 2))
      #expect(sumsOfA.current == [6, 14])
      #expect(sumsOfX.current == [1, 5])
      #expect(fetchesOfA.current == beforeA + 1)
      #expect(fetchesOfX.current == beforeX + 1)
    }

    @Test func aWithoutRowidTableIsChangedAsAWhole() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE w(k TEXT PRIMARY KEY, a INTEGER, b INTEGER) WITHOUT ROWID;
            INSERT INTO w VALUES ('p', 1, 1), ('q', 2, 2);
            """)
      }
      let fetches = Shared(0)
      let sums = observe(queue, "SELECT sum(a) FROM w", fetches: fetches)
      defer { sums.task.cancel() }
      #expect(await sums.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "UPDATE w SET a = 10 WHERE k = 'p'") }
      #expect(await sums.waitFor(count: 2))
      // SQLite's update hook does not report WITHOUT ROWID rows: an update of another column counts too.
      try queue.sync { db in try db.execute(sql: "UPDATE w SET b = 10 WHERE k = 'p'") }
      #expect(await sums.waitFor(count: 3))
      #expect(sums.current == [3, 12, 12])
    }

    @Test func aTableWithGeneratedColumnsIsChangedAsAWhole() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in
        try db.batch(
          sql: """
            CREATE TABLE g(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER,
              twice INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL, kept INTEGER GENERATED ALWAYS AS (a + 1) STORED);
            INSERT INTO g(a, b) VALUES (1, 1);
            """)
      }
      let fetches = Shared(0)
      let twice = observe(queue, "SELECT twice FROM g", fetches: fetches)
      let kept = observe(queue, "SELECT kept FROM g", fetches: fetches)
      defer {
        twice.task.cancel()
        kept.task.cancel()
      }
      #expect(await twice.waitFor(count: 1))
      #expect(await kept.waitFor(count: 1))
      try queue.sync { db in try db.execute(sql: "UPDATE g SET a = 5") }
      #expect(await twice.waitFor(count: 2))
      #expect(await kept.waitFor(count: 2))
      #expect(twice.current == [2, 10])
      #expect(kept.current == [2, 6])
    }

    #if ENABLE_FTS5
      @Test func anUpdateOfAnFTS5TableRunsTheQuery() async throws {
        let queue = try DatabaseQueue()
        try queue.sync { db in
          try db.execute(sql: "CREATE VIRTUAL TABLE doc USING fts5(title, body)")
          try db.execute(sql: "INSERT INTO doc(title, body) VALUES ('a', 'swift')")
        }
        let fetches = Shared(0)
        let counts = observe(queue, "SELECT count(*) FROM doc WHERE body MATCH 'sqlite'", fetches: fetches)
        defer { counts.task.cancel() }
        #expect(await counts.waitFor(count: 1))
        try queue.sync { db in try db.execute(sql: "UPDATE doc SET body = 'sqlite' WHERE title = 'a'") }
        #expect(await counts.waitFor(count: 2))
        #expect(counts.current == [0, 1])
      }
    #endif

    @Test func transactionObserversKeepTheirRowEventsAndAreToldOfWholeTables() async throws {
      let queue = try DatabaseQueue()
      try queue.sync { db in try db.batch(sql: schema) }
      let fetches = Shared(0)
      let sums = observe(queue, "SELECT sum(a) FROM t", fetches: fetches)
      defer { sums.task.cancel() }
      #expect(await sums.waitFor(count: 1))
      let recorder = Recorder(DatabaseRegion(tables: ["t"]))
      try queue.sync { db in
        try db.add(transactionObserver: recorder)
        try db.execute(sql: "UPDATE t SET b = 0 WHERE id = 2")
        try db.execute(sql: "INSERT INTO t(a, b) VALUES (4, 40)")
        try db.execute(sql: "DELETE FROM t WHERE id = 1")
      }
      #expect(await eventually { sums.current.last == 9 })
      try queue.sync { _ in
        #expect(recorder.events.map(\.operation) == [.update, .insert, .delete])
        #expect(recorder.events.map(\.rowid) == [2, 4, 1])
        #expect(recorder.commits == Array(repeating: DatabaseRegion(tables: ["t"]), count: 3))
      }
      #expect(sums.current.first == 6)
    }

    #if ENABLE_SESSION
      @Test func aSessionOnTheWriterRecordsWhileObservationsFallBackToWholeTables() async throws {
        let queue = try DatabaseQueue()
        try queue.sync { db in try db.batch(sql: schema) }
        let fetches = Shared(0)
        let sums = observe(queue, "SELECT sum(a) FROM t", fetches: fetches)
        defer { sums.task.cancel() }
        #expect(await sums.waitFor(count: 1))
        // An update makes the observation listen to the pre-update slot, which the session then takes.
        try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 9 WHERE id = 1") }
        try queue.sync { db in #expect(PreUpdateDispatcher.existing(on: db.connection)?.listener != nil) }
        let holder = SessionHolder()
        try queue.sync { db in
          let session = try Session(database: db)
          try session.attach("t")
          holder.session = session
        }
        try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 10 WHERE id = 1") }
        #expect(await sums.waitFor(count: 2))
        // While the session holds the pre-update slot, an update of any column counts.
        try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 10 WHERE id = 1") }
        #expect(await sums.waitFor(count: 3))
        let recorded = try queue.sync { _ in try holder.session?.changeset().operations().count }
        #expect(recorded == 1)
        // Once the session is gone, the observation is column-level again.
        try queue.sync { _ in holder.session = nil }
        let before = fetches.current
        try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 11 WHERE id = 1") }
        try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 11 WHERE id = 1") }
        #expect(await sums.waitFor(count: 4))
        #expect(sums.current == [6, 15, 15, 16])
        #expect(fetches.current == before + 1)
      }
    #endif

    #if ENABLE_PREUPDATE_HOOK
      @Test func theUserPreUpdateHookKeepsWorkingWhileObservationsRun() async throws {
        let queue = try DatabaseQueue()
        try queue.sync { db in try db.batch(sql: schema) }
        let seen = Shared<[String]>([])
        // Set before the observation starts, and kept after it stops.
        try queue.sync { db in
          #expect(
            db.setPreUpdateHook { event in
              let old = (try? event.oldValue(at: 2)).map { "\($0)" } ?? "-"
              let new = (try? event.newValue(at: 2)).map { "\($0)" } ?? "-"
              seen.withLock { $0.append("\(event.operation) \(event.tableName) \(old) \(new)") }
            })
        }
        let fetches = Shared(0)
        let sums = observe(queue, "SELECT sum(a) FROM t", fetches: fetches)
        #expect(await sums.waitFor(count: 1))
        let before = fetches.current
        try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 11 WHERE id = 1") }
        try queue.sync { db in try db.execute(sql: "UPDATE t SET a = 11 WHERE id = 1") }
        #expect(await sums.waitFor(count: 2))
        #expect(sums.current == [6, 16])
        #expect(fetches.current == before + 1)
        sums.task.cancel()
        #expect(await eventually { queue.observationCenter.isEmpty })
        try queue.sync { _ in }
        try queue.sync { db in try db.execute(sql: "UPDATE t SET b = 12 WHERE id = 1") }
        #expect(seen.current == ["update t 10 11", "update t 11 11", "update t 11 12"])
        // Without the user's hook, a session may take the slot again.
        try queue.sync { db in
          db.removePreUpdateHook()
          #expect(throws: Never.self) { _ = try Session(database: db) }
        }
      }
    #endif
  }
#endif
