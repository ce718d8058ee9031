import AmalgamSQLite

/// How hard a WAL checkpoint tries, from never waiting to emptying the log file.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
public enum CheckpointMode: String, Sendable, Hashable, CaseIterable {
  /// Copies as many frames as it can without waiting for readers or writers
  /// (`SQLITE_CHECKPOINT_PASSIVE`). SQLite runs this one automatically after commits.
  case passive
  /// Waits (through the busy timeout) for the writer to finish and for readers to reach the latest
  /// commit, then copies every frame (`SQLITE_CHECKPOINT_FULL`).
  case full
  /// Like ``full``, then waits until no reader uses the log, so the next writer starts it over
  /// (`SQLITE_CHECKPOINT_RESTART`).
  case restart
  /// Like ``restart``, and truncates the log file to zero bytes (`SQLITE_CHECKPOINT_TRUNCATE`).
  case truncate

  var sqliteValue: Int32 {
    switch self {
    case .passive: SQLITE_CHECKPOINT_PASSIVE
    case .full: SQLITE_CHECKPOINT_FULL
    case .restart: SQLITE_CHECKPOINT_RESTART
    case .truncate: SQLITE_CHECKPOINT_TRUNCATE
    }
  }
}

/// What a checkpoint reports: the size of the write-ahead log and how much of it is in the database.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
public struct CheckpointResult: Sendable, Hashable {
  /// The frames in the WAL file, or -1 when the database is not in WAL mode.
  public let logFrameCount: Int
  /// The frames of the WAL file copied into the database, including earlier checkpoints' (at most
  /// ``logFrameCount``), or -1 when the database is not in WAL mode.
  public let checkpointedFrameCount: Int

  /// Creates a result from its counts.
  public init(logFrameCount: Int, checkpointedFrameCount: Int) {
    self.logFrameCount = logFrameCount
    self.checkpointedFrameCount = checkpointedFrameCount
  }

  /// True when every frame of the log is in the database.
  public var isComplete: Bool { logFrameCount == checkpointedFrameCount }
}

/// Whether a connection's checkpoints are left to a WAL replication tool
/// (``WALCheckpointing/leftToReplicator``): set by the ``Configuration`` that opened it, read by every
/// checkpoint that Amalgam's API runs on it.
final class CheckpointOwnership: ConnectionState {
  var leftToReplicator = false

  /// The error for a checkpoint in `mode` on a connection whose checkpoints are left to the tool.
  static func refusal(_ mode: CheckpointMode) -> ConcurrencyError {
    .invalidConfiguration(
      "A checkpoint in \(mode.rawValue) mode would race the replication tool (Litestream) for the "
        + "write-ahead log: walCheckpointing .leftToReplicator leaves every checkpoint to it")
  }
}

extension Database {
  /// Whether this connection's checkpoints are left to a WAL replication tool. Read holding the connection.
  var checkpointsLeftToReplicator: Bool {
    get { connection.existingState(CheckpointOwnership.self)?.leftToReplicator ?? false }
    set { connection.state(CheckpointOwnership.self).leftToReplicator = newValue }
  }

  /// Copies the write-ahead log's committed pages into the database file (`sqlite3_wal_checkpoint_v2`).
  ///
  /// ```swift
  /// let result = try db.checkpoint(.truncate)   // the WAL file is now empty
  /// ```
  ///
  /// - Parameters:
  ///   - mode: how long to wait for other connections; see ``CheckpointMode``.
  ///   - schema: the attached database to checkpoint: `"main"` (the default), `"temp"` or an attached
  ///     database's name.
  /// - Returns: the log's frame counts; -1 and -1 for a database not in WAL mode.
  /// - Throws: ``SQLiteError`` with `SQLITE_BUSY` when a ``CheckpointMode/full``, ``CheckpointMode/restart``
  ///   or ``CheckpointMode/truncate`` checkpoint gave up waiting for other connections (after the busy
  ///   timeout), or when another connection is running a checkpoint; `SQLITE_LOCKED` inside a transaction
  ///   of this connection; ``ConcurrencyError/invalidConfiguration(_:)`` on a connection of a queue, pool
  ///   or read queue whose ``Configuration/walCheckpointing`` is ``WALCheckpointing/leftToReplicator``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/wal_checkpoint_v2.html>
  @discardableResult
  public func checkpoint(_ mode: CheckpointMode = .passive, schema: String = "main") throws -> CheckpointResult {
    var logFrames: Int32 = -1
    var checkpointedFrames: Int32 = -1
    let rc = try connection.withHandle { handle in
      if checkpointsLeftToReplicator { throw CheckpointOwnership.refusal(mode) }
      return sqlite3_wal_checkpoint_v2(handle, schema, mode.sqliteValue, &logFrames, &checkpointedFrames)
    }
    try check(rc)
    return CheckpointResult(logFrameCount: Int(logFrames), checkpointedFrameCount: Int(checkpointedFrames))
  }
}
