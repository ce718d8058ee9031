import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Polls a database file for commits made by other connections (another queue or pool, another
/// process): a connection of its own reads `PRAGMA data_version` of the main file and of every attached
/// file, which changes after any other connection's commit, every `interval`. A poll costs one small
/// read of the WAL index or the file header per file, plus a `stat` of the main file, and the timer
/// wakes the process only `1 / interval` times a second.
///
/// A version is only ever compared with one read on the same connection: `data_version` numbers of two
/// connections have nothing in common. Whatever the watcher could not see (a poll that failed, because
/// another process held an exclusive lock longer than the busy timeout or left a hot journal that a
/// read-only connection cannot roll back; a file deleted and created again, or replaced by a rename; a
/// file attached since the last poll) is reported as ``Event/mayHaveChanged`` once a poll succeeds on a
/// new connection: a needless query is allowed, a missed commit is not.
///
/// Everything runs on the watcher's own serial queue.
final class ForeignCommitWatcher: @unchecked Sendable {
  // @unchecked Sendable: `database`, `versions`, `attached`, `identity`, `mustReport`, `isStopped` and
  // `timer` are only used on `queue`.

  /// What a poll found.
  enum Event: Sendable {
    /// A `data_version` changed: some connection, maybe the observed queue's or pool's own, committed.
    case committed
    /// The watcher could not tell (it reconnected after a failure, the file was replaced, a file was
    /// attached): anything may have changed.
    case mayHaveChanged
  }

  /// The device and inode of a file.
  struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
  }

  private let queue = DispatchQueue(label: "amalgam.observation.watcher")
  private let interval: Duration
  private let path: String
  private let open: @Sendable () throws -> Database
  private let attachedFiles: @Sendable () -> [String]
  private let onEvent: @Sendable (Event) -> Void
  private var timer: (any DispatchSourceTimer)?
  private var database: Database?
  /// The last `data_version` of each schema of `database`.
  private var versions: [String: Int] = [:]
  /// The schema name on `database` of each attached file.
  private var attached: [String: String] = [:]
  /// The main file's identity when `database` was opened.
  private var identity: FileIdentity?
  /// Whether the next successful poll reports ``Event/mayHaveChanged``.
  private var mustReport = false
  private var isStopped = false

  /// A watcher of the file at `path`, which `open` opens, and of `attachedFiles()` (the files the
  /// observed connection has attached).
  init(
    interval: Duration, path: String, open: @escaping @Sendable () throws -> Database,
    attachedFiles: @escaping @Sendable () -> [String] = { [] }, onEvent: @escaping @Sendable (Event) -> Void
  ) {
    self.interval = interval
    self.path = path
    self.open = open
    self.attachedFiles = attachedFiles
    self.onEvent = onEvent
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
      disconnect()
    }
  }

  private func poll() {
    do {
      if let identity, identity != Self.identity(of: path) {
        // Deleted and created again, or replaced by a rename: follow the file now at `path`.
        disconnect()
        mustReport = true
      }
      let database = try connection()
      var isNew = false
      for file in attachedFiles() where attached[file] == nil {
        let schema = "watched\(attached.count + 1)"
        // A file that cannot be opened (deleted since) is tried again at the next poll; the others
        // are still watched.
        guard (try? database.execute(sql: "ATTACH DATABASE ? AS \(schema)", parameterValues: [file])) != nil
        else { continue }
        attached[file] = schema
        isNew = true
      }
      var changed = false
      for schema in ["main"] + attached.values {
        let version = try database.cachedStatement(sql: "PRAGMA \(schema).data_version").front(Int.self)
        if let old = versions[schema], old != version { changed = true }
        versions[schema] = version
      }
      if mustReport || isNew {
        mustReport = false
        onEvent(.mayHaveChanged)
      } else if changed {
        onEvent(.committed)
      }
    } catch {
      // The file may be busy (an exclusive lock held longer than the busy timeout), have a hot journal
      // that this read-only connection cannot roll back, or be missing for a moment. The next poll
      // tries again with a new connection, and reports a possible change once it can read.
      disconnect()
      mustReport = true
    }
  }

  /// The watcher's connection, opened if needed.
  private func connection() throws -> Database {
    if let database { return database }
    // The identity before the open: a replacement in between is seen at the next poll.
    identity = Self.identity(of: path)
    let database = try open()
    self.database = database
    return database
  }

  private func disconnect() {
    try? database?.close()
    database = nil
    versions = [:]
    attached = [:]
    identity = nil
  }

  /// The device and inode of the file at `path`, or `nil` when there is none.
  static func identity(of path: String) -> FileIdentity? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return FileIdentity(
      device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(truncatingIfNeeded: status.st_ino))
  }
}

extension Duration {
  /// The duration for Dispatch's timers, to the nanosecond; a duration too long for Dispatch's
  /// nanoseconds (about 292 years) becomes the longest one it can take.
  var dispatchInterval: DispatchTimeInterval {
    let (seconds, attoseconds) = components
    let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return .nanoseconds(seconds < 0 ? Int.min : Int.max) }
    let (total, overflowAgain) = nanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
    guard !overflowAgain else { return .nanoseconds(seconds < 0 ? Int.min : Int.max) }
    return .nanoseconds(Int(clamping: total))
  }
}
