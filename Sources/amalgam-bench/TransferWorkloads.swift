import Amalgam
import AmalgamSQLite
import Foundation

/// Workloads 140 and 141 (issue 14, numbered apart from other issues' workloads): an online backup of a ~100 MB database and chunked reads of a 10 MB
/// blob, through SQLite's C API and through Amalgam. Their databases are built on first use, so that
/// `--only` without them costs nothing.
final class TransferFixture {
  static let backupRowCount = 25_000  // rows of 4000 bytes: about 100 MB
  static let blobSize = 10 * 1024 * 1024
  static let chunkSize = 64 * 1024
  static let pagesPerStep = 1024

  private var storage: (directory: URL, source: Database, destination: Database)?
  private var blobStorage: Database?

  /// An in-memory database whose table `file` holds one 10 MB blob at rowid 1.
  func blobDatabase() throws -> Database {
    if let blobStorage { return blobStorage }
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE file(id INTEGER PRIMARY KEY, content BLOB);
        INSERT INTO file VALUES (1, randomblob(\(Self.blobSize)));
        """)
    blobStorage = db
    return db
  }

  /// The ~100 MB source (a file, in the page cache after the warm-up) and the in-memory destination.
  func databases() throws -> (source: Database, destination: Database) {
    if let storage { return (storage.source, storage.destination) }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let source = try Database(path: directory.appendingPathComponent("source.db").path)
    try source.batch(
      sql: """
        PRAGMA journal_mode = OFF;
        CREATE TABLE payload(id INTEGER PRIMARY KEY, data BLOB);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.backupRowCount))
        INSERT INTO payload SELECT i, randomblob(4000) FROM n;
        """)
    let destination = try Database()
    storage = (directory, source, destination)
    return (source, destination)
  }

  deinit {
    if let storage { try? FileManager.default.removeItem(at: storage.directory) }
  }
}

func transferWorkloads() -> [Workload] {
  let fixture = TransferFixture()
  /// A checksum of the copy: its page count and a sample of its rows.
  func backupChecksum(_ destination: Database) throws -> Int {
    let pages = try destination.prepare(sql: "PRAGMA page_count").front(Int.self) ?? 0
    let sample =
      try destination.prepare(sql: "SELECT sum(length(data)) FROM payload WHERE id % 1000 = 0").front(Int.self) ?? 0
    return pages &+ sample
  }
  return [
    Workload(
      number: 21, name: "backup of a 100 MB database, 1024 pages per step", target: 1.10,
      prepareRun: { _ in _ = try fixture.databases() },
      c: { _ in
        let (source, destination) = try fixture.databases()
        let sourceHandle = try source.sqliteHandle
        let destinationHandle = try destination.sqliteHandle
        guard let backup = sqlite3_backup_init(destinationHandle, "main", sourceHandle, "main") else {
          throw BenchmarkFailure(description: String(cString: sqlite3_errmsg(destinationHandle)))
        }
        var rc = SQLITE_OK
        repeat {
          rc = sqlite3_backup_step(backup, Int32(TransferFixture.pagesPerStep))
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        try checkC(sqlite3_backup_finish(backup), destinationHandle)
        try checkC(rc, destinationHandle, SQLITE_DONE)
        return try backupChecksum(destination)
      },
      amalgam: { _ in
        let (source, destination) = try fixture.databases()
        try source.backup(to: destination, pagesPerStep: TransferFixture.pagesPerStep)
        return try backupChecksum(destination)
      }),
    Workload(
      number: 22, name: "read a 10 MB blob in 64 KB chunks", target: 1.10,
      prepareRun: { _ in _ = try fixture.blobDatabase() },
      c: { _ in
        let source = try fixture.blobDatabase()
        let handle = try source.sqliteHandle
        var blob: OpaquePointer?
        try checkC(sqlite3_blob_open(handle, "main", "file", "content", 1, 0, &blob), handle)
        defer { sqlite3_blob_close(blob) }
        let size = Int(sqlite3_blob_bytes(blob))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: TransferFixture.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var sum = 0
        for offset in stride(from: 0, to: size, by: TransferFixture.chunkSize) {
          let count = min(TransferFixture.chunkSize, size - offset)
          try checkC(sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset)), handle)
          sum &+= Int(buffer[0]) &+ Int(buffer[count - 1])
        }
        return sum &+ size
      },
      amalgam: { _ in
        let source = try fixture.blobDatabase()
        let blob = try source.openBlob(table: "file", column: "content", rowid: 1)
        let size = blob.count
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: TransferFixture.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var sum = 0
        for offset in stride(from: 0, to: size, by: TransferFixture.chunkSize) {
          let count = min(TransferFixture.chunkSize, size - offset)
          try blob.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), at: offset)
          sum &+= Int(buffer[0]) &+ Int(buffer[count - 1])
        }
        try blob.close()
        return sum &+ size
      }),
  ]
}
