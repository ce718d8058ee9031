/// A writer that opens its connections with a ``Configuration``: ``DatabaseQueue`` and ``DatabasePool``.
protocol ConfiguredWriter {
  var configuration: Configuration { get }
}

extension DatabaseQueue: ConfiguredWriter {}
extension DatabasePool: ConfiguredWriter {}

extension DatabaseWriter {
  /// Throws when the writer's ``Configuration/walCheckpointing`` leaves checkpoints to a replication tool.
  func checkCheckpointingAllows(_ mode: CheckpointMode) throws {
    guard let writer = self as? any ConfiguredWriter,
      writer.configuration.walCheckpointing == .leftToReplicator
    else { return }
    throw CheckpointOwnership.refusal(mode)
  }
}
