import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// File controls (`sqlite3_file_control`) on databases in files and in memory.
@Suite struct FileControlTests {
  @Test func persistentWALKeepsTheWALFileAfterClose() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("persist.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "CREATE TABLE t(x)")
      #expect(try db.isWALPersistent() == false)
      try db.setWALPersistent(true)
      #expect(try db.isWALPersistent() == true)
      try db.close()
      #expect(FileManager.default.fileExists(atPath: path + "-wal"))

      let other = try Database(path: path)
      try other.execute(sql: "CREATE TABLE u(x)")
      try other.close()
      #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
  }

  @Test func chunkSizeGrowsTheFileInWholeChunks() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("chunks.sqlite").path
      let db = try Database(path: path)
      try db.setChunkSize(1 << 20)
      try db.execute(sql: "CREATE TABLE t(x)")
      try db.execute(sql: "INSERT INTO t VALUES (randomblob(10000))")
      let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
      #expect(size == 1 << 20)
      try db.setSizeHint(4 << 20)
    }
  }

  @Test func dataVersionChangesWithWritesOfAnyConnection() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("version.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      let first = try db.dataVersion()
      try db.execute(sql: "INSERT INTO t VALUES (1)")
      let second = try db.dataVersion()
      #expect(second != first)
      let other = try Database(path: path)
      try other.execute(sql: "INSERT INTO t VALUES (2)")
      // The pager notices another connection's change when it next reads.
      _ = try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
      #expect(try db.dataVersion() != second)
      #expect(try db.dataVersion(schema: "main") == db.dataVersion())
    }
  }

  @Test func vfsNamePowersafeOverwriteReserveBytesAndMoves() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("facts.sqlite").path
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE t(x)")
      #if ENCRYPTION
        // SQLite3 Multiple Ciphers puts its encryption shim over the default VFS.
        #expect(try db.vfsName() == "multipleciphers-unix/unix")
      #else
        #expect(try db.vfsName() == "unix")
      #endif
      #expect(try db.isPowersafeOverwrite() == true)
      try db.setPowersafeOverwrite(false)
      #expect(try db.isPowersafeOverwrite() == false)
      #expect(try db.reservedBytesPerPage() == 0)
      try db.setReservedBytesPerPage(8)
      try db.execute(sql: "VACUUM")
      #expect(try db.reservedBytesPerPage() == 8)
      #expect(throws: SQLiteError.self) { try db.setReservedBytesPerPage(256) }
      #expect(try db.fileHasMoved() == false)
      try FileManager.default.removeItem(atPath: path)
      #expect(try db.fileHasMoved() == true)
    }
  }

  @Test func anUnknownSchemaThrowsAndSetsTheConnectionsMessage() throws {
    let db = try Database()
    #expect {
      try db.dataVersion(schema: "nowhere")
    } throws: { error in
      let error = error as? SQLiteError
      return error?.code == .error && error?.message == "No open database schema named \"nowhere\""
    }
    #expect(String(cString: sqlite3_errmsg(try db.sqliteHandle)) == "No open database schema named \"nowhere\"")
  }

  @Test func anInMemoryDatabaseHasNoFileForMostControls() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    #expect {
      try db.setWALPersistent(true)
    } throws: { error in
      let error = error as? SQLiteError
      return error?.code == .notFound
        && error?.message == "The file of schema \"main\" does not support SQLITE_FCNTL_PERSIST_WAL"
    }
    // Data versions need no file.
    _ = try db.dataVersion()
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.dataVersion() }
  }

  @Test func anyControlCanBeSentUnsafely() throws {
    try withTemporaryDirectory { directory in
      let db = try Database(path: directory.appendingPathComponent("raw.sqlite").path)
      try db.execute(sql: "CREATE TABLE t(x)")
      var version: UInt32 = 0
      try db.unsafeFileControl(SQLITE_FCNTL_DATA_VERSION, argument: &version)
      #expect(version == (try db.dataVersion()))
    }
  }
}
