// Workloads 26 and 27 (ENCRYPTION trait): what encryption costs. Both sides run the same Amalgam code on a
// file; the "C" column is an unencrypted file, the "Amalgam" column the same file encrypted with
// ChaCha20-Poly1305, so the ratio is the cost of encrypting. Encryption works per page (4 KiB): a page is
// decrypted when SQLite reads it from the file into its cache and encrypted when it writes it back, so
// these workloads read and write every page of a file, through a cold cache.
import Amalgam
import Foundation

#if ENCRYPTION
  private let rowCount = 100_000
  private let insertCount = 20_000

  /// The two files of workload 26, filled once, and the folder of both workloads' files.
  private struct EncryptionFiles {
    let directory: URL
    let plainPath: String
    let encryptedPath: String

    static let key = EncryptionKey.passphrase("amalgam-bench")

    static func options(encrypted: Bool) -> Database.OpenOptions {
      var options = Database.OpenOptions()
      if encrypted { options.key = key }
      return options
    }

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-bench-\(getpid())")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      plainPath = directory.appendingPathComponent("read-plain.db").path
      encryptedPath = directory.appendingPathComponent("read-encrypted.db").path
      for (path, encrypted) in [(plainPath, false), (encryptedPath, true)] {
        try? FileManager.default.removeItem(atPath: path)
        let db = try Database(path: path, options: Self.options(encrypted: encrypted))
        try db.batch(
          sql: """
            CREATE TABLE note(id INTEGER PRIMARY KEY, a INTEGER, body TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowCount))
            INSERT INTO note SELECT i, i * 7, printf('note %08d with some text', i) FROM n;
            """)
        try db.close()
      }
    }
  }

  private let files = Result(catching: { try EncryptionFiles() })

  /// Opens `path` (a new connection: an empty page cache) and reads every row.
  private func scan(_ path: String, encrypted: Bool) throws -> Int {
    let db = try Database(path: path, options: EncryptionFiles.options(encrypted: encrypted))
    defer { try? db.close() }
    return try db.prepare(sql: "SELECT sum(a) + sum(length(body)) FROM note").front(Int.self) ?? 0
  }

  /// Creates a new file and inserts rows in one transaction, in WAL mode (the pages go to the log at the
  /// commit); returns the file for the verification, which is not timed.
  private func insertRows(encrypted: Bool) throws -> Int {
    let directory = try files.get().directory
    let path = directory.appendingPathComponent("insert-\(encrypted ? "encrypted" : "plain").db").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let db = try Database(path: path, options: EncryptionFiles.options(encrypted: encrypted))
    defer { try? db.close() }
    try db.execute(sql: "PRAGMA journal_mode = WAL")
    try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, a INTEGER, body TEXT)")
    try db.transaction { db in
      let insert = try db.prepare(sql: "INSERT INTO note(a, body) VALUES (?, ?)")
      for index in 0..<insertCount { try insert.bind(index, "note \(index) with some text").execute() }
    }
    return insertCount
  }

  func encryptionWorkloads() -> [Workload] {
    [
      Workload(
        number: 26, name: "encryption: read 100k rows (every page) of a file, cold cache (ChaCha20; ratio to plain)",
        target: 2.0,
        c: { _ in try scan(files.get().plainPath, encrypted: false) },
        amalgam: { _ in try scan(files.get().encryptedPath, encrypted: true) }),
      Workload(
        number: 27, name: "encryption: insert 20k rows into a new file in WAL mode (ChaCha20; ratio to plain)",
        target: 2.0,
        c: { _ in try insertRows(encrypted: false) },
        amalgam: { _ in try insertRows(encrypted: true) }),
    ]
  }
#else
  func encryptionWorkloads() -> [Workload] { [] }
#endif
