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

  /// Workloads 26 and 27's connections, one to a plain file and one to an encrypted file, opened once:
  /// opening an encrypted file derives the key (PBKDF2), a cost per connection that
  /// `--encryption-open-cost` reports, not per page.
  private struct EncryptionFiles {
    let plain: Database
    let encrypted: Database

    static let key = EncryptionKey.passphrase("amalgam-bench")

    static func options(encrypted: Bool) -> Database.OpenOptions {
      var options = Database.OpenOptions()
      if encrypted { options.key = key }
      return options
    }

    static func makeDirectory() throws -> URL {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("amalgam-bench-\(getpid())")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      return directory
    }

    init() throws {
      let directory = try Self.makeDirectory()
      var connections: [Database] = []
      for encrypted in [false, true] {
        let path = directory.appendingPathComponent(encrypted ? "encrypted.db" : "plain.db").path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let db = try Database(path: path, options: Self.options(encrypted: encrypted))
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.batch(
          sql: """
            CREATE TABLE note(id INTEGER PRIMARY KEY, a INTEGER, body TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowCount))
            INSERT INTO note SELECT i, i * 7, printf('note %08d with some text', i) FROM n;
            CREATE TABLE inserted(id INTEGER PRIMARY KEY, a INTEGER, body TEXT);
            """)
        _ = try db.checkpoint(.truncate)
        connections.append(db)
      }
      plain = connections[0]
      encrypted = connections[1]
    }
  }

  /// Unchecked: the benchmark runs on one thread.
  nonisolated(unsafe) private let files = Result(catching: { try EncryptionFiles() })

  /// Empties the connection's page cache, then reads every row: every page is read from the file (the
  /// operating system's cache) and, on the encrypted file, decrypted.
  private func scan(_ db: Database) throws -> Int {
    try db.execute(sql: "PRAGMA shrink_memory")
    return try db.prepare(sql: "SELECT sum(a) + sum(length(body)) FROM note").front(Int.self) ?? 0
  }

  /// Inserts rows in one transaction: at the commit every new page goes to the log, encrypted on the
  /// encrypted file. The table is emptied before each run, untimed.
  private func insertRows(_ db: Database) throws -> Int {
    try db.transaction { db in
      let insert = try db.prepare(sql: "INSERT INTO inserted(a, body) VALUES (?, ?)")
      for index in 0..<insertCount { try insert.bind(index, "note \(index) with some text").execute() }
    }
    return insertCount
  }

  func encryptionWorkloads() -> [Workload] {
    [
      Workload(
        number: 26, name: "encryption: read 100k rows, every page from the file (ChaCha20; ratio to plain)",
        // About 15 µs more per 4 KiB page on a 2-core x86_64: the cipher's cost, which the bench cannot lower.
        target: 2.5,
        prepareRun: { _ in _ = try files.get() },  // the files are made once, untimed
        c: { _ in try scan(files.get().plain) },
        amalgam: { _ in try scan(files.get().encrypted) }),
      Workload(
        number: 27, name: "encryption: insert 20k rows in one transaction, WAL mode (ChaCha20; ratio to plain)",
        target: 1.5,
        prepareRun: { _ in
          for db in try [files.get().plain, files.get().encrypted] {
            try db.execute(sql: "DELETE FROM inserted")
            _ = try db.checkpoint(.truncate)
          }
        },
        c: { _ in try insertRows(files.get().plain) },
        amalgam: { _ in try insertRows(files.get().encrypted) }),
    ]
  }

  /// `--encryption-open-cost`: the median time to open a connection to an encrypted file and read its
  /// schema (the key derivation), and the same for the plain file, over `count` opens.
  func measureEncryptionOpenCost(count: Int) throws -> String {
    _ = try files.get()
    let directory = try EncryptionFiles.makeDirectory()
    var lines: [String] = []
    for encrypted in [false, true] {
      let path = directory.appendingPathComponent(encrypted ? "encrypted.db" : "plain.db").path
      var times: [Double] = []
      for _ in 0..<count {
        let start = DispatchTime.now().uptimeNanoseconds
        let db = try Database(path: path, options: EncryptionFiles.options(encrypted: encrypted))
        _ = try db.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        try db.close()
      }
      times.sort()
      lines.append(
        "open and read the schema, \(encrypted ? "ChaCha20 (PBKDF2-SHA256, 64,007 iterations)" : "plain"): "
          + String(format: "median %.3f ms over %d opens", times[times.count / 2], count))
    }
    return lines.joined(separator: "\n")
  }
#else
  func encryptionWorkloads() -> [Workload] { [] }
#endif
