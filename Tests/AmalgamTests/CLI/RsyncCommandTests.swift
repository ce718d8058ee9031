import Amalgam
import Foundation
import Testing

/// `amalgam rsync`: SQLite's sqlite3_rsync, built into the tool, copying a database that a
/// ``DatabasePool`` writes to meanwhile.
extension CommandLineToolTests {
  #if ENABLE_DBPAGE_VTAB
    @Test func rsyncCopiesADatabaseThatAPoolWritesMeanwhile() async throws {
      try await withTemporaryDirectory { directory in
        let origin = directory.appendingPathComponent("origin.db").path
        let replica = directory.appendingPathComponent("replica.db").path
        let pool = try DatabasePool(path: origin)
        try await pool.write { db in
          try db.batch(
            sql: """
              CREATE TABLE entry(n INTEGER PRIMARY KEY, amount INTEGER NOT NULL, payload BLOB NOT NULL);
              CREATE TABLE total(id INTEGER PRIMARY KEY, amount INTEGER NOT NULL);
              INSERT INTO total VALUES (1, 0);
              WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 2000)
              INSERT INTO entry SELECT n, n, randomblob(300) FROM k;
              UPDATE total SET amount = (SELECT sum(amount) FROM entry);
              """)
        }
        // Transactions of one row and the running total go on while sqlite3_rsync copies the file.
        let writer = Task {
          var n = 2000
          while !Task.isCancelled {
            n += 1
            let next = n
            try await pool.transaction { db in
              try db.execute(sql: "INSERT INTO entry VALUES (?, ?, randomblob(300))", arguments: [next, next])
              try db.execute(sql: "UPDATE total SET amount = amount + ? WHERE id = 1", arguments: [next])
            }
          }
          return n
        }
        let first = try await AmalgamTool.run(["rsync", origin, replica])
        let second = try await AmalgamTool.run(["rsync", origin, replica, "-v"])
        writer.cancel()
        let written = try await writer.value
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "" && first.stderr == "")
        #expect(second.status == 0, "\(second.stderr)")
        // -v reports the bytes exchanged; the second run sends only the pages that changed.
        #expect(second.stdout.contains("sent ") && second.stdout.contains("total size"), "\(second.stdout)")

        // The replica is one committed state of the origin: rows 1...N, each as the origin has it, and the
        // total of exactly those rows.
        let copy = try Database(path: replica)
        #expect(try copy.prepare(sql: "PRAGMA integrity_check").column(0, as: String.self) == ["ok"])
        let copied = try #require(try copy.prepare(sql: "SELECT max(n) FROM entry").front(Int.self))
        #expect(copied >= 2000 && copied <= written)
        #expect(try copy.prepare(sql: "SELECT count(*) FROM entry").front(Int.self) == copied)
        let balanced = "SELECT (SELECT sum(amount) FROM entry) = (SELECT amount FROM total)"
        #expect(try copy.prepare(sql: balanced).front(Bool.self) == true)
        let rows = """
          SELECT group_concat(n || ':' || amount || ':' || hex(payload), ',')
          FROM (SELECT * FROM entry WHERE n <= ? ORDER BY n)
          """
        let originRows = try await pool.read { db in
          try db.prepare(sql: rows).bind(parameterValues: [copied]).front(String.self)
        }
        #expect(originRows != nil)
        #expect(try copy.prepare(sql: rows).bind(parameterValues: [copied]).front(String.self) == originRows)

        // With the writes stopped, one more run makes the replica equal to the origin.
        let third = try await AmalgamTool.run(["rsync", origin, replica])
        #expect(third.status == 0, "\(third.stderr)")
        let everything = """
          SELECT (SELECT amount FROM total) || '/' || group_concat(n || ':' || amount || ':' || hex(payload), ',')
          FROM (SELECT * FROM entry ORDER BY n)
          """
        let originEverything = try await pool.read { db in try db.prepare(sql: everything).front(String.self) }
        #expect(originEverything != nil)
        #expect(try copy.prepare(sql: everything).front(String.self) == originEverything)
        try copy.close()
        try pool.close()
      }
    }
  #else
    @Test func rsyncNamesTheTraitItNeeds() async throws {
      let result = try await AmalgamTool.run(["rsync", "a.db", "b.db"])
      #expect(result.status == 1)
      #expect(result.stdout == "")
      #expect(result.stderr.contains("ENABLE_DBPAGE_VTAB"))
    }
  #endif

  @Test func rsyncIsInTheUsage() async throws {
    let result = try await AmalgamTool.run(["help"])
    #expect(result.stdout.contains("amalgam rsync ORIGIN REPLICA"))
  }
}
