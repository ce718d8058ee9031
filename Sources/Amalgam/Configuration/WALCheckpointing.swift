/// Who runs the checkpoints that reset the write-ahead log of the connections a ``DatabaseQueue`` or
/// ``DatabasePool`` opens: Amalgam and SQLite, or a replication tool such as Litestream.
///
/// A tool that ships the WAL elsewhere (Litestream copies each new frame to its replica) must see every
/// frame before the log starts over. It holds a read transaction on the database so that SQLite cannot
/// restart the log under it, and it runs the checkpoints that restart or truncate the log itself, after
/// it has copied the frames. An application checkpoint in ``CheckpointMode/restart`` or
/// ``CheckpointMode/truncate`` mode waits for that read transaction (blocking the application's writer
/// for the busy timeout) and fights the tool for the log; so does the checkpoint SQLite runs when the
/// last connection closes, which also deletes the log file while the tool may be stopped.
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
  /// For a database that a WAL replication tool (Litestream) watches: SQLite's passive checkpoints after
  /// commits go on, since they never reset the log, but no connection checkpoints when it closes
  /// (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), and ``DatabaseWriter/checkpoint(_:schema:)`` refuses the
  /// ``CheckpointMode/restart`` and ``CheckpointMode/truncate`` modes with
  /// ``ConcurrencyError/invalidConfiguration(_:)``. Keep ``Configuration/busyTimeout`` at a few seconds:
  /// the tool takes the write lock briefly when it checkpoints.
  case leftToReplicator
}
