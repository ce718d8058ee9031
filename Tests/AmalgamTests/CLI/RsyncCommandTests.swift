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
        // Transactions of one row and the running total go on while sqlite3_rsync copies the file. The
        // writer stops at a flag, between transactions: a cancellation could land inside one and throw.
        let stop = Shared(false)
        let writer = Task {
          var n = 2000
          while !stop.current {
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
        stop.withLock { $0 = true }
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

    @Test func rsyncRefusesToCopyAFileOntoItself() async throws {
      try await withTemporaryDirectory { directory in
        let origin = directory.appendingPathComponent("origin.db").path
        try Database(path: origin).execute(sql: "CREATE TABLE t(x)")
        let link = directory.appendingPathComponent("link.db").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: origin)
        let hardLink = directory.appendingPathComponent("hard.db").path
        try FileManager.default.linkItem(atPath: origin, toPath: hardLink)
        for replica in [origin, link, hardLink] {
          let result = try await AmalgamTool.run(["rsync", origin, replica])
          #expect(result.status == 1)
          let expected = replica == origin ? origin : "\(replica) is \(origin)"
          #expect(result.stderr == "amalgam: error: rsync: origin and replica are the same file: \(expected)\n")
        }
      }
    }

    @Test func rsyncNamesAReplicaItCannotAttach() async throws {
      try await withTemporaryDirectory { directory in
        let origin = directory.appendingPathComponent("origin.db").path
        try Database(path: origin).execute(sql: "CREATE TABLE t(x)")
        let notes = directory.appendingPathComponent("notes.txt").path
        try String(repeating: "not a database\n", count: 100).write(toFile: notes, atomically: true, encoding: .utf8)
        let folder = directory.appendingPathComponent("folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let nowhere = directory.appendingPathComponent("missing/replica.db").path
        let cases = [
          (notes, "the replica \(notes) exists and is not a database"),
          (folder, "the replica \(folder) is a directory"),
          (nowhere, "cannot create the replica \(nowhere): there is no directory \(directory.path)/missing"),
        ]
        for (replica, message) in cases {
          let result = try await AmalgamTool.run(["rsync", origin, replica, "-v"])
          #expect(result.status == 1)
          #expect(result.stdout == "")
          #expect(result.stderr == "amalgam: error: rsync: \(message)\n")
          #expect(!result.stderr.contains("%Q"))
        }
        // An empty file is an empty database: the copy goes ahead.
        let empty = directory.appendingPathComponent("empty.db").path
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let copied = try await AmalgamTool.run(["rsync", origin, empty])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(try Database(path: empty).prepare(sql: "SELECT name FROM sqlite_schema").front(String.self) == "t")
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
