import Dispatch

/// Polls a database file for commits made by other connections (another queue or pool, another
/// process): a connection of its own reads `PRAGMA data_version`, which changes after any other
/// connection's commit, every `interval`. A poll costs one small read of the WAL index or the file
/// header, and the timer wakes the process only `1 / interval` times a second.
///
/// Everything runs on the watcher's own serial queue.
final class ForeignCommitWatcher: @unchecked Sendable {
  // @unchecked Sendable: `database`, `lastVersion`, `isStopped` and `timer` are only used on `queue`.
  private let queue = DispatchQueue(label: "amalgam.observation.watcher")
  private let interval: Duration
  private let open: @Sendable () throws -> Database
  private let onCommit: @Sendable () -> Void
  private var timer: (any DispatchSourceTimer)?
  private var database: Database?
  private var lastVersion: Int?
  private var isStopped = false

  init(interval: Duration, open: @escaping @Sendable () throws -> Database, onCommit: @escaping @Sendable () -> Void) {
    self.interval = interval
    self.open = open
    self.onCommit = onCommit
  }

  /// Reads the first `data_version` before returning, so that a commit made after `start` returns is
  /// seen, then polls every `interval`.
  func start() {
    queue.sync { if !isStopped { poll() } }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    let period = max(interval, .milliseconds(1)).dispatchInterval
    timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(10))
    timer.setEventHandler { [weak self] in self?.poll() }
    queue.sync {
      // A stop that came first (the last observation ended at once) wins. The source is cancelled, then
      // resumed: Dispatch must not release a source that was never resumed.
      if isStopped { timer.cancel() } else { self.timer = timer }
      timer.resume()
    }
  }

  /// Stops polling and closes the watcher's connection.
  func stop() {
    queue.async { [self] in
      isStopped = true
      timer?.cancel()
      timer = nil
      try? database?.close()
      database = nil
    }
  }

  private func poll() {
    do {
      if database == nil { database = try open() }
      guard let database else { return }
      let version = try database.cachedStatement(sql: "PRAGMA data_version").front(Int.self)
      defer { lastVersion = version }
      if let lastVersion, let version, version != lastVersion { onCommit() }
    } catch {
      // The file may be busy or briefly unreadable; the next poll tries again with a new connection.
      try? database?.close()
      database = nil
    }
  }
}

extension Duration {
  /// The duration for Dispatch's timers, to the nanosecond.
  var dispatchInterval: DispatchTimeInterval {
    let (seconds, attoseconds) = components
    return .nanoseconds(Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
  }
}
