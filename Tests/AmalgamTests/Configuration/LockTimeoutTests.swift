#if ENABLE_SETLK_TIMEOUT
  import Amalgam
  import Foundation
  import Testing

  /// `Database.setLockTimeout` (trait ENABLE_SETLK_TIMEOUT): blocking locks on WAL databases.
  @Suite struct LockTimeoutTests {
    @Test func everyTimeoutIsAccepted() throws {
      let db = try Database()
      try db.setLockTimeout(2)
      try db.setLockTimeout(0.0001)
      try db.setLockTimeout(0)
      try db.setLockTimeout(-3)
      try db.setLockTimeout(.nan)
      try db.setLockTimeout(.infinity, blockOnConnect: true)
      try db.setLockTimeout(1e12)
      try db.close()
      #expect(throws: DatabaseError.databaseClosed) { try db.setLockTimeout(1) }
    }

    @Test func aWALWriterInTheSameProcessStillGetsBusyAtOnce() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("locks.sqlite").path
        let holder = try Database(path: path)
        try holder.execute(sql: "PRAGMA journal_mode = WAL")
        try holder.execute(sql: "CREATE TABLE t(x)")
        let waiter = try Database(path: path)
        try waiter.setLockTimeout(3)
        try holder.execute(sql: "BEGIN IMMEDIATE")
        let start = Date()
        // SQLite's unix VFS tracks the locks of its own process itself: no kernel lock to block on.
        #expect(throws: SQLiteError.self) { try waiter.execute(sql: "BEGIN IMMEDIATE") }
        #expect(Date().timeIntervalSince(start) < 2)
        try holder.execute(sql: "COMMIT")
        try waiter.execute(sql: "BEGIN IMMEDIATE")
        try waiter.execute(sql: "COMMIT")
      }
    }

    /// Another process (SQLite's shell, run by the amalgam tool) holds the WAL write lock until the test
    /// lets it go. On Linux a lock timeout alone does not wait; with the busy timeout as well, the writer
    /// gets the lock once the other process commits.
    @Test func aWriterInAnotherProcessIsWaitedForThroughTheBusyTimeout() throws {
      let executable = try CommandLineToolTests.AmalgamTool.executableURL()
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("shared.sqlite").path
        let locked = directory.appendingPathComponent("locked").path
        let release = directory.appendingPathComponent("release").path
        let waiter = try Database(path: path)
        try waiter.execute(sql: "PRAGMA journal_mode = WAL")
        try waiter.execute(sql: "CREATE TABLE t(x)")
        try waiter.setLockTimeout(30)

        // The shell takes the write lock, says so, and commits only once the test creates `release`.
        let script = directory.appendingPathComponent("hold.sql")
        try Data(
          """
          BEGIN IMMEDIATE;
          INSERT INTO t VALUES (1);
          .shell touch '\(locked)'
          .shell i=0; while [ ! -f '\(release)' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
          COMMIT;

          """.utf8
        ).write(to: script)
        let holder = Process()
        holder.executableURL = executable
        holder.arguments = ["shell", path]
        holder.standardInput = try FileHandle(forReadingFrom: script)
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer {
          _ = FileManager.default.createFile(atPath: release, contents: nil)
          holder.waitUntilExit()
        }
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: locked) { usleep(50_000) }
        try #require(FileManager.default.fileExists(atPath: locked), "the shell did not take the lock")

        // SQLite's unix VFS does not implement blocking locks (its lock call is a placeholder that does
        // not wait): with no busy timeout the writer fails at once, as documented on setLockTimeout.
        #expect {
          try waiter.execute(sql: "BEGIN IMMEDIATE")
        } throws: { error in
          (error as? SQLiteError)?.code == .busy
        }
        // The busy timeout, set first because it also sets the lock timeout, makes it wait for the lock.
        try waiter.setBusyTimeout(30)
        try waiter.setLockTimeout(30)
        let releaser = Thread {
          usleep(200_000)
          _ = FileManager.default.createFile(atPath: release, contents: nil)
        }
        releaser.start()
        try waiter.execute(sql: "BEGIN IMMEDIATE")
        try waiter.execute(sql: "INSERT INTO t VALUES (2)")
        try waiter.execute(sql: "COMMIT")
        #expect(
          try waiter.prepare(sql: "SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)").front(String.self)
            == "1,2")
      }
    }
  }
#endif
