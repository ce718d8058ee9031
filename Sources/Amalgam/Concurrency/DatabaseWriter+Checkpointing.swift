/// A writer that opens its connections with a ``Configuration``: ``DatabaseQueue`` and ``DatabasePool``.
protocol ConfiguredWriter {
  var configuration: Configuration { get }
}

extension DatabaseQueue: ConfiguredWriter {}
extension DatabasePool: ConfiguredWriter {}

extension DatabaseWriter {
  /// Throws when the writer's ``Configuration/walCheckpointing`` leaves checkpoints in `mode` to a
  /// replication tool: those that restart or truncate the write-ahead log.
  func checkCheckpointingAllows(_ mode: CheckpointMode) throws {
    guard let writer = self as? any ConfiguredWriter,
      writer.configuration.walCheckpointing == .leftToReplicator,
      mode == .restart || mode == .truncate
    else { return }
    throw ConcurrencyError.invalidConfiguration(
      "A checkpoint in \(mode.rawValue) mode resets the write-ahead log, which walCheckpointing "
        + ".leftToReplicator leaves to the replication tool (Litestream); use .passive or .full")
  }
}
