/// Who runs the checkpoints of the write-ahead log of the connections a ``DatabaseQueue`` or
/// ``DatabasePool`` opens: Amalgam and SQLite, or a replication tool such as Litestream.
///
/// A tool that ships the WAL elsewhere (Litestream copies each new frame to its replica) must see every
/// frame before the log starts over. It holds a read transaction on the database so that SQLite cannot
/// restart the log under it, and it runs the checkpoints itself, after it has copied the frames; it lets
/// go of that read transaction while it checkpoints. A checkpoint by the application can land in that
/// window: once a checkpoint has copied the whole log back, the next commit starts the log over, and the
/// tool has to notice it missed frames. Litestream's documentation asks applications to leave every
/// checkpoint to it. The checkpoint SQLite runs when the last connection closes also deletes the log file
/// while the tool may be stopped.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.walCheckpointing = .leftToReplicator
/// let pool = try DatabasePool(path: path, configuration: configuration)
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/wal.html#ckpt>
public enum WALCheckpointing: Sendable, Hashable, CaseIterable {
  /// SQLite's behaviour: a passive checkpoint after a commit that grows the log past 1000 pages,
  /// ``DatabaseWriter/checkpoint(_:schema:)`` in any mode, and a checkpoint that empties and deletes the
  /// log when the last connection to the database closes.
  case automatic
  /// For a database that a WAL replication tool (Litestream) watches: no automatic checkpoint after
  /// commits (`PRAGMA wal_autocheckpoint = 0`), no checkpoint when a connection closes
  /// (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), and every checkpoint that Amalgam's API runs refuses every
  /// mode with ``ConcurrencyError/invalidConfiguration(_:)``: ``DatabaseWriter/checkpoint(_:schema:)`` and
  /// ``Database/checkpoint(_:schema:)`` on any connection the queue, pool or ``DatabaseReadQueue`` opened
  /// (``Database/removeWALHook()`` leaves automatic checkpoints off there too). SQL that checkpoints,
  /// `PRAGMA wal_checkpoint` or `PRAGMA wal_autocheckpoint = N`, is the caller's: Amalgam runs it as
  /// written, so leave it out. The log grows until the tool checkpoints it:
  /// run the tool whenever the application writes. Keep ``Configuration/busyTimeout`` at a few seconds:
  /// the tool takes the write lock briefly when it checkpoints. With a ``Configuration/key`` (trait
  /// `ENCRYPTION`), opening throws ``ConcurrencyError/invalidConfiguration(_:)``: the tool cannot read an
  /// encrypted database, so it would never checkpoint.
  case leftToReplicator
}
