/// How ``DatabaseQueue``, ``DatabaseReadQueue`` and ``DatabasePool`` set up each connection they open.
///
/// Every connection gets the same setup: the writer and each reader, including readers a pool opens
/// later. Register SQL functions, collations and tokenizers in ``prepareDatabase``, which runs on every
/// new connection, so that no reader lacks them.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.busyTimeout = 2
/// configuration.maximumReaderCount = 4
/// configuration.prepareDatabase = { db in
///   try db.execute(sql: "PRAGMA cache_size = -8000")
/// }
/// let pool = try DatabasePool(path: path, configuration: configuration)
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html>
public struct Configuration: Sendable {
  /// The journal mode that a writable connection switches to (`PRAGMA journal_mode`), or `nil` to keep
  /// the file's mode. A ``DatabasePool`` always uses ``JournalMode/wal``. Read-only connections never
  /// change the mode: it belongs to the file.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_journal_mode>
  public var journalMode: JournalMode?

  /// How long, in seconds, a connection retries a database locked by another connection before it
  /// fails with `SQLITE_BUSY` (`sqlite3_busy_timeout`). Five seconds by default; zero fails at once. A
  /// negative or NaN timeout makes opening a connection throw (see ``Database/setBusyTimeout(_:)``).
  /// To install a busy handler of your own instead, do it in ``prepareDatabase``, which runs after this.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/busy_timeout.html>
  public var busyTimeout: Double

  /// Whether foreign-key constraints are enforced (`PRAGMA foreign_keys`). On by default.
  ///
  /// Related SQLite documentation: <https://sqlite.org/foreignkeys.html>
  public var foreignKeys: Bool

  /// Opens the writer read-only too: every write fails with `SQLITE_READONLY`. Readers are always
  /// read-only.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/open.html>
  public var readOnly: Bool

  /// The most reader connections a ``DatabasePool`` opens (at least 1; 5 by default). Readers are
  /// opened when needed; a read waits when all of them are busy.
  public var maximumReaderCount: Int

  /// How every connection stores dates, `Codable` values and the other types without a storage class
  /// of their own (see ``ValueStorage``): the writer and every reader use the same, so that what one
  /// writes the others read back. Amalgam's storage by default; ``ValueStorage/feistyDB`` for a
  /// database that FeistyDB wrote.
  public var valueStorage: ValueStorage

  /// Who runs the checkpoints of the write-ahead log: ``WALCheckpointing/automatic`` (SQLite's
  /// behaviour, the default) or ``WALCheckpointing/leftToReplicator`` for a database that Litestream or
  /// another WAL replication tool watches.
  ///
  /// Related SQLite documentation: <https://sqlite.org/wal.html#ckpt>
  public var walCheckpointing: WALCheckpointing = .automatic

  #if ENCRYPTION
    /// The key of an encrypted database, applied to every connection the queue or pool opens before it
    /// reads anything (see ``Database/OpenOptions/key``). Needs the `ENCRYPTION` trait.
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/configuration/config_capi/>
    public var key: EncryptionKey?
    /// The cipher of ``key`` (see ``Database/OpenOptions/cipher``); `nil` is ChaCha20-Poly1305. Needs
    /// the `ENCRYPTION` trait.
    ///
    /// Related SQLite3 Multiple Ciphers documentation:
    /// <https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/>
    public var cipher: Cipher?
  #endif

  /// The prefix of the dispatch queues' labels, which shows in debuggers and crash reports.
  public var label: String

  /// Runs once on every new connection, after the settings above: the place to register SQL functions,
  /// collations, tokenizers and hooks, or to run PRAGMAs. An error it throws fails the open.
  ///
  /// The `Database` it receives must not escape the closure.
  public var prepareDatabase: (@Sendable (Database) throws -> Void)?

  /// How often, at most, observations look for commits made by other connections (another queue or
  /// pool, another process) to the database files that the writer has open (main and attached), or
  /// `nil` to see only this queue's or pool's own commits. File events (inotify on Linux, `DispatchSource`
  /// on Apple platforms) show such commits within milliseconds; the poll is the fallback, every 200 ms
  /// by default where file events do not exist, and no more than once a second where they do. Only
  /// while observations are running. An interval longer than Dispatch's timers take (about 292 years)
  /// means the longest they can. See <doc:ObservingTheDatabase>.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_data_version>
  public var observationPollInterval: Duration? = .milliseconds(200)

  /// Creates a configuration; the defaults keep the journal mode, wait up to 5 s for locks, enforce
  /// foreign keys, allow 5 readers, and store values Amalgam's way.
  public init(
    journalMode: JournalMode? = nil, busyTimeout: Double = 5, foreignKeys: Bool = true,
    readOnly: Bool = false, maximumReaderCount: Int = 5, valueStorage: ValueStorage = .amalgam,
    label: String = "Amalgam", prepareDatabase: (@Sendable (Database) throws -> Void)? = nil
  ) {
    self.journalMode = journalMode
    self.busyTimeout = busyTimeout
    self.foreignKeys = foreignKeys
    self.readOnly = readOnly
    self.maximumReaderCount = maximumReaderCount
    self.valueStorage = valueStorage
    self.label = label
    self.prepareDatabase = prepareDatabase
  }
}

/// SQLite's journal modes (`PRAGMA journal_mode`).
///
/// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_journal_mode>
public enum JournalMode: String, Sendable, Hashable, CaseIterable {
  /// The rollback journal is deleted at the end of each transaction (SQLite's default).
  case delete
  /// The rollback journal is truncated to zero bytes instead of deleted.
  case truncate
  /// The rollback journal's header is zeroed instead of the file deleted.
  case persist
  /// The rollback journal is kept in memory.
  case memory
  /// Write-ahead log: readers do not block the writer and the writer does not block readers.
  /// Needed for concurrent reads (``DatabasePool``, ``DatabaseReadQueue``).
  case wal
  /// No rollback journal: a crash or an error in a transaction can corrupt the database.
  case off
}

extension Configuration {
  /// Whether a connection is opened for writing (the queue's or pool's writer) or only for reading.
  enum Role {
    case writer
    case reader
  }

  /// Opens and sets up one connection.
  func openDatabase(path: String, role: Role) throws -> Database {
    let readOnly = role == .reader || self.readOnly
    var options = readOnly ? Database.OpenOptions.readOnly : .default
    options.valueStorage = valueStorage
    #if ENCRYPTION
      // Litestream reads the file with its own SQLite, which has no key: it replicates nothing, and no
      // checkpoint ever runs.
      if key != nil && walCheckpointing == .leftToReplicator {
        throw ConcurrencyError.invalidConfiguration(
          "walCheckpointing .leftToReplicator leaves checkpoints to a replication tool (Litestream), which "
            + "cannot read an encrypted database: the write-ahead log would grow without end. Replicate an "
            + "encrypted database with amalgam rsync, a backup or changesets")
      }
      options.key = key
      options.cipher = cipher
      options.keyCheckBusyTimeout = busyTimeout
    #endif
    let db = try Database(path: path, options: options)
    #if ENCRYPTION
      db.encryption.keyIsShared = true
    #endif
    try db.setBusyTimeout(busyTimeout)
    if !readOnly, let journalMode {
      let actual = try db.prepare(sql: "PRAGMA journal_mode = \(journalMode.rawValue)").front(String.self)
      if actual?.lowercased() != journalMode.rawValue {
        throw ConcurrencyError.journalModeNotApplied(requested: journalMode.rawValue, actual: actual ?? "unknown")
      }
    }
    try db.execute(sql: "PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
    if walCheckpointing == .leftToReplicator {
      try db.setEnabled(.noCheckpointOnClose, to: true)
      try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
      db.checkpointsLeftToReplicator = true
    }
    try prepareDatabase?(db)
    return db
  }
}
