import AmalgamSQLite
import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Tells ``ObservationCenter`` when other connections (another queue or pool, another process) may
/// have committed to the database files that the writer has open (the main file and attached ones),
/// and when such a file was deleted or replaced.
///
/// It only wakes the center: the center asks the writer's own `PRAGMA data_version`, which only other
/// connections' commits change, whether a commit happened. A version number is therefore only ever
/// compared with one read on the same connection, and a wake too many costs a `data_version` read on
/// the writer, never a missed commit. The writer's own commits, whose file writes wake the watcher as
/// another process's do, are vouched for by its commit hooks (``OwnCommitCoverage``): a change to the
/// main file seen while the writer commits waits for its next hook, at most ``coverageWait``.
///
/// It wakes on file events (``FileEvents``) for the files, their `-wal` and their `-journal`, and then
/// takes no lock: in rollback-journal mode it compares the file's header (which holds the file change
/// counter) read through SQLite's own file handle, and the files' sizes and times; in WAL mode it reads
/// `PRAGMA data_version` on a connection of its own, which a writer never blocks. A WAL commit
/// writes the `-wal` (the event) before it publishes the new WAL index header (no event), so after an
/// event it looks again a few times over the next 0.5 s. It also ticks every
/// ``Configuration/observationPollInterval`` (at least every second while file events work) and wakes
/// the center at each tick, which covers what file events cannot see (a file system that reports no
/// events, a network file system's remote writers).
///
/// Everything runs on the watcher's own serial queue.
final class ForeignCommitWatcher: @unchecked Sendable {
  // @unchecked Sendable: the `let` constants never change and are Sendable; every other field is only
  // used on `queue`.
  private let queue = DispatchQueue(label: "amalgam.observation.watcher")
  private let interval: Duration
  private let open: @Sendable (String) throws -> Database
  private let currentFiles: @Sendable () -> [WatchedFile]
  private let onPossibleCommit: @Sendable () -> Void
  private let onFileReplaced: @Sendable (String) -> Void
  private let ownCommits: OwnCommitCoverage?
  private var files: [String: FileState] = [:]
  private var events: FileEvents?
  private var tick: (any DispatchSourceTimer)?
  /// The period of `tick`; `nil` while there is no file to watch (a database in memory).
  private var tickPeriod: Duration?
  private var followUp: (any DispatchSourceTimer)?
  private var followUpStep = 0
  private var lastCheck = DispatchTime(uptimeNanoseconds: 0)
  private var isStopped = false
  /// A change to the main file seen while the writer commits, left for one of its next commit hooks to
  /// vouch for (see ``OwnCommitCoverage``): the hooks counted at the look, and when it is reported anyway.
  private var pendingCoverage: (hooks: UInt64, deadline: UInt64)?
  private var coverageTimer: (any DispatchSourceTimer)?

  /// When the watcher looks again after a file event, counted from the event (the last one restarts
  /// the count): a WAL commit publishes its new index header after the write that caused the event,
  /// after an `fsync` in `synchronous = FULL`.
  static let followUpDelays: [Duration] = [1, 3, 10, 30, 100, 300].map { .milliseconds($0) }
  /// The shortest tick while file events work: the watcher wakes at most once a second when the files
  /// do not change.
  static let shortestTickWithEvents: Duration = .seconds(1)
  /// Checks that file events cause are at least this far apart (a burst of events causes one check,
  /// and the follow-ups).
  static let shortestCheckInterval: Duration = .milliseconds(1)
  /// A change to the main file seen within this time of the writer's last commit hook may be its own:
  /// the watcher waits for the writer's next commit hook to vouch for it...
  static let recentOwnCommit: Duration = .milliseconds(50)
  /// ...but reports it if none comes within this time.
  static let coverageWait: Duration = .milliseconds(5)

  /// What the watcher knows of one file.
  private final class FileState {
    let watched: WatchedFile
    /// A connection of the watcher's own: SQLite's handle on the file, for lock-free reads of the
    /// header, and `PRAGMA data_version` in WAL mode.
    var database: Database?
    /// The connection failed and was closed: the first version read on the next one is compared with
    /// nothing, so it counts as a possible commit.
    var reconnected = false
    var signature: Signature?
    var version: Int?

    init(_ watched: WatchedFile) { self.watched = watched }
  }

  /// What changes when a file is committed to, read without any lock.
  private struct Signature: Equatable {
    /// The database header's 100 bytes (the file change counter is at offset 24), or `nil` when
    /// unreadable.
    var header: [UInt8]?
    var database: FileStatus?
    var wal: FileStatus?
  }

  /// - Parameters:
  ///   - interval: the tick, ``Configuration/observationPollInterval``.
  ///   - open: opens a connection of the watcher's own to a database file.
  ///   - files: the database files to watch now; asked again at each ``filesDidChange()``.
  ///   - onPossibleCommit: another connection may have committed to a file. Called on the watcher's
  ///     queue; must return quickly.
  ///   - onFileReplaced: the file at this path was deleted or replaced by another; the watcher stops.
  ///   - ownCommits: what the writer's commit hooks vouch for, so that the changes its own commits
  ///     make to the main file call `onPossibleCommit` seldom; `nil` to report every change.
  init(
    interval: Duration, open: @escaping @Sendable (String) throws -> Database,
    files: @escaping @Sendable () -> [WatchedFile], onPossibleCommit: @escaping @Sendable () -> Void,
    onFileReplaced: @escaping @Sendable (String) -> Void, ownCommits: OwnCommitCoverage? = nil
  ) {
    self.interval = interval
    self.open = open
    self.currentFiles = files
    self.onPossibleCommit = onPossibleCommit
    self.onFileReplaced = onFileReplaced
    self.ownCommits = ownCommits
  }

  /// Reads each file's state before returning, so that a commit made after `start` returns is seen,
  /// then watches.
  func start() {
    queue.sync {
      guard !isStopped else { return }
      update()
    }
  }

  /// The writer's files changed (a database was attached or detached): watch the new list.
  ///
  /// A file new to the watcher is read here for the first time, as the base of later checks, some time
  /// after the writer's closure that attached it returned: another connection's commit made in between
  /// changes nothing the watcher compares, and its file events came before the file was watched. So
  /// once a new file is read and watched, the watcher wakes the center, whose check of the writer's
  /// `PRAGMA data_version` (which then runs after the read) sees such a commit.
  func filesDidChange() {
    queue.async { [self] in
      guard !isStopped, update() else { return }
      pendingCoverage = nil
      onPossibleCommit()
    }
  }

  /// Stops watching and closes the watcher's connections.
  func stop() {
    queue.async { [self] in shutDown() }
  }

  private func shutDown() {
    isStopped = true
    tick?.cancel()
    tick = nil
    followUp?.cancel()
    followUp = nil
    coverageTimer?.cancel()
    coverageTimer = nil
    pendingCoverage = nil
    events?.cancel()
    events = nil
    for file in files.values { try? file.database?.close() }
    files = [:]
  }

  /// Watches the files of ``currentFiles``; a new file's state is read as the base of later checks.
  /// Returns whether a new file is watched (and the watcher still runs).
  @discardableResult
  private func update() -> Bool {
    let watched = currentFiles()
    let paths = Set(watched.map(\.path))
    for (path, file) in files where !paths.contains(path) {
      try? file.database?.close()
      files[path] = nil
    }
    var added = false
    for item in watched where files[item.path] == nil {
      let file = FileState(item)
      files[item.path] = file
      added = true
      if check(file) == .replaced {
        replaced(item.path)
        return false
      }
    }
    // Nothing is opened, and nothing ticks, while there is no file (a database in memory).
    if events == nil, !paths.isEmpty {
      events = FileEvents(queue: queue) { [weak self] _ in self?.fileEvent() }
    }
    events?.watch(paths)
    scheduleTick()
    return added
  }

  /// Ticks every ``interval`` (at least every ``shortestTickWithEvents`` while file events work), or
  /// not at all while there is no file to watch.
  private func scheduleTick() {
    let period: Duration? =
      files.isEmpty
      ? nil : events == nil ? max(interval, .milliseconds(1)) : max(interval, Self.shortestTickWithEvents)
    guard period != tickPeriod else { return }
    tick?.cancel()
    tick = nil
    tickPeriod = period
    guard let period else { return }
    let timer = DispatchSource.makeTimerSource(queue: queue)
    let leeway: DispatchTimeInterval = events == nil ? .milliseconds(10) : .milliseconds(100)
    timer.schedule(deadline: .now() + period.dispatchInterval, repeating: period.dispatchInterval, leeway: leeway)
    timer.setEventHandler { [weak self] in self?.tickFired() }
    tick = timer
    timer.resume()
  }

  private func tickFired() {
    guard !isStopped else { return }
    checkAll()
    // What no file event or header shows (a remote writer on a network file system, a hot journal
    // rolled back to the same change counter) is still seen, within a tick: the writer's data_version
    // says whether anything was committed.
    if !isStopped && !files.isEmpty {
      pendingCoverage = nil
      onPossibleCommit()
    }
  }

  private func fileEvent() {
    guard !isStopped else { return }
    followUpStep = 0
    let now = DispatchTime.now()
    if now.uptimeNanoseconds >= lastCheck.uptimeNanoseconds + UInt64(Self.shortestCheckInterval.nanosecondsClamped) {
      checkAll()
      scheduleFollowUp(after: Self.followUpDelays[0])
    } else {
      scheduleFollowUp(after: Self.shortestCheckInterval)
    }
  }

  private func scheduleFollowUp(after delay: Duration) {
    guard !isStopped else { return }
    if followUp == nil {
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.setEventHandler { [weak self] in self?.followUpFired() }
      timer.schedule(deadline: .now() + delay.dispatchInterval, leeway: .microseconds(500))
      followUp = timer
      timer.resume()
    } else {
      followUp?.schedule(deadline: .now() + delay.dispatchInterval, leeway: .microseconds(500))
    }
  }

  private func followUpFired() {
    guard !isStopped else { return }
    checkAll()
    followUpStep += 1
    if followUpStep < Self.followUpDelays.count {
      scheduleFollowUp(after: Self.followUpDelays[followUpStep] - Self.followUpDelays[followUpStep - 1])
    }
  }

  private func checkAll() {
    lastCheck = .now()
    var possibleCommit = false
    var onlyMain = true
    let mainPath = ownCommits?.mainPath
    for (path, file) in files {
      switch check(file) {
      case .replaced:
        replaced(path)
        return
      case .possibleCommit:
        possibleCommit = true
        if path != mainPath { onlyMain = false }
      case .unchanged: break
      }
    }
    settle(possibleCommit: possibleCommit, mayBeOwn: onlyMain && mainPath != nil)
  }

  /// Reports a possible commit, unless it is a change to the main file seen while the writer commits:
  /// that one waits (at most ``coverageWait``) for a commit hook of the writer's that comes after this
  /// look, which either finds another connection's commit and schedules the check itself, or shows
  /// that there was none before it (see ``OwnCommitCoverage``). Also settles the change left waiting
  /// by an earlier look.
  private func settle(possibleCommit: Bool, mayBeOwn: Bool) {
    guard let ownCommits else {
      if possibleCommit { onPossibleCommit() }
      return
    }
    // The hooks are counted after the files were read: one counted later came after this look.
    amalgam_fence()
    let hooks = ownCommits.coveringHooks
    let now = DispatchTime.now().uptimeNanoseconds
    var deadline: UInt64?
    if let pending = pendingCoverage {
      pendingCoverage = nil
      if hooks == pending.hooks {
        if now >= pending.deadline || (possibleCommit && !mayBeOwn) {
          onPossibleCommit()
          return
        }
        deadline = pending.deadline
      }
    }
    if possibleCommit {
      let sinceHook = now &- ownCommits.lastCoveringHook
      guard mayBeOwn, sinceHook < UInt64(Self.recentOwnCommit.nanosecondsClamped) else {
        onPossibleCommit()
        return
      }
      deadline = deadline ?? now + UInt64(Self.coverageWait.nanosecondsClamped)
    }
    guard let deadline else { return }
    pendingCoverage = (hooks, deadline)
    // Looks again at the deadline, whatever the file events do.
    let timer = coverageTimer ?? DispatchSource.makeTimerSource(queue: queue)
    if coverageTimer == nil {
      timer.setEventHandler { [weak self] in
        guard let self, !isStopped, pendingCoverage != nil else { return }
        checkAll()
      }
      coverageTimer = timer
      timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(500))
      timer.resume()
    } else {
      timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(500))
    }
  }

  private enum Outcome { case unchanged, possibleCommit, replaced }

  /// Compares the file with what the last check saw. The first check of a file only records it.
  private func check(_ file: FileState) -> Outcome {
    let path = file.watched.path
    let status = FileStatus.of(path)
    if let identity = file.watched.identity, status?.identity != identity { return .replaced }
    let header = readHeader(file)
    let signature = Signature(header: header, database: status, wal: FileStatus.of(path + "-wal"))
    let isFirst = file.signature == nil
    var possibleCommit = !isFirst && (signature != file.signature || header == nil)
    file.signature = signature
    // In WAL mode (format byte 2 at offset 18) a commit changes no header: ask the connection, which
    // reads the WAL index without waiting for any writer.
    if header.map({ $0[18] == 2 }) ?? true {
      switch readVersion(file) {
      case .read(let version):
        if let old = file.version {
          if old != version { possibleCommit = true }
        } else if file.reconnected {
          possibleCommit = true
        }
        file.reconnected = false
        file.version = version
      case .busy:
        break
      case .failed:
        if !isFirst { possibleCommit = true }
      }
    }
    return possibleCommit ? .possibleCommit : .unchanged
  }

  private func replaced(_ path: String) {
    shutDown()
    onFileReplaced(path)
  }

  private func connection(_ file: FileState) throws -> Database {
    if let database = file.database { return database }
    let database = try open(file.watched.path)
    // The watcher never waits for a lock: a busy file is looked at again later.
    try database.setBusyTimeout(0)
    file.database = database
    return database
  }

  /// The database header (100 bytes) read through the watcher connection's own file handle: a plain
  /// read of the file, which takes no lock (and opens no descriptor of Amalgam's, whose closing would
  /// release the process's locks on the file).
  private func readHeader(_ file: FileState) -> [UInt8]? {
    guard let database = try? connection(file), let handle = try? database.sqliteHandle else { return nil }
    var pointer: UnsafeMutablePointer<sqlite3_file>?
    guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
      let pointer, let read = pointer.pointee.pMethods?.pointee.xRead
    else { return nil }
    var header = [UInt8](repeating: 0, count: 100)
    let rc = header.withUnsafeMutableBytes { read(pointer, $0.baseAddress, 100, 0) }
    // A file shorter than its header (a new, empty database) reads as zeros: SQLITE_IOERR_SHORT_READ.
    guard rc == SQLITE_OK || rc == SQLITE_IOERR | (2 << 8) else { return nil }
    return header
  }

  private enum VersionRead {
    case read(Int)
    case busy
    case failed
  }

  private func readVersion(_ file: FileState) -> VersionRead {
    do {
      let database = try connection(file)
      guard let version = try database.cachedStatement(sql: "PRAGMA data_version").front(Int.self) else {
        return .failed
      }
      return .read(version)
    } catch let error as SQLiteError where error.code == .busy || error.code == .locked {
      return .busy
    } catch {
      // A hot journal that the read-only connection cannot roll back, an I/O error, a file it cannot
      // open: start over with a new connection, whose numbers are compared with nothing of this one's.
      try? file.database?.close()
      file.database = nil
      file.version = nil
      file.reconnected = true
      return .failed
    }
  }
}

/// A database file that the writer has open, and its identity when the writer opened it.
struct WatchedFile: Hashable, Sendable {
  var path: String
  /// The file's device and inode numbers when the writer opened it; `nil` when unknown.
  var identity: FileIdentity?
}

/// A file's device and inode numbers: another file at the same path has others (the writer keeps the
/// old file open, so its inode number cannot be reused meanwhile).
struct FileIdentity: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
}

/// What `stat` says of a file, enough to see that it was written.
struct FileStatus: Hashable, Sendable {
  var identity: FileIdentity
  var size: Int64
  var modifiedSeconds: Int
  var modifiedNanoseconds: Int

  /// The status of the file at `path`, or `nil` when there is none.
  static func of(_ path: String) -> FileStatus? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    #if canImport(Darwin)
      let modified = status.st_mtimespec
    #else
      let modified = status.st_mtim
    #endif
    return FileStatus(
      identity: FileIdentity(
        device: UInt64(truncatingIfNeeded: status.st_dev), inode: UInt64(truncatingIfNeeded: status.st_ino)),
      size: Int64(status.st_size), modifiedSeconds: Int(modified.tv_sec),
      modifiedNanoseconds: Int(modified.tv_nsec))
  }
}

extension Duration {
  /// The duration for Dispatch's timers, to the nanosecond. Saturating: a duration longer than an
  /// `Int` of nanoseconds holds (about 292 years) is that longest one, which Dispatch treats as
  /// forever, and a negative one is at most that long ago.
  var dispatchInterval: DispatchTimeInterval {
    .nanoseconds(nanosecondsClamped)
  }

  /// The duration in nanoseconds, clamped to `Int`'s range.
  var nanosecondsClamped: Int {
    let (seconds, attoseconds) = components
    let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? Int.min : Int.max }
    let (total, overflowAgain) = nanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflowAgain { return nanoseconds < 0 ? Int.min : Int.max }
    return Int(clamping: total)
  }
}

/// What the writer's own commits tell ``ForeignCommitWatcher``, so that they cost no `PRAGMA
/// data_version` check on the writer, though their file writes wake the watcher as another process's do.
///
/// A state of the writer's connection, installed as a ``TransactionListener`` (only when the main
/// database is a file: a database in memory has no watcher to tell). At each commit hook it compares
/// the main file's pager data version (`SQLITE_FCNTL_DATA_VERSION`, no I/O) with what the writer's own
/// commits since the last hook explain: the pager adds one at each of its own commits, and one each
/// time a transaction finds that another connection changed the file. A difference means another
/// connection committed, and schedules the usual check on the writer.
///
/// A hook that writes the main file holds its write lock, and the transaction began by looking at the
/// file under that lock (a WAL write needs the newest snapshot; in rollback-journal mode, no other
/// connection commits while the writer holds its shared lock). Another connection's commit that was on
/// the file before the hook therefore either showed at this hook's comparison or at an earlier one:
/// once such a hook has counted itself (``coveringHooks``), the watcher needs no check for what it saw
/// before (a commit seen after the hook counted is newer than the hook, which it must wait for again).
final class OwnCommitCoverage: TransactionListener, ConnectionState, @unchecked Sendable {
  // @unchecked Sendable: `coveringHookCount` and `lastHookTime` are atomics written only by the writer's
  // thread; `expectedVersion` and `onOtherConnectionChange` are only used on the writer's thread (the
  // commit hook, and `install`, which runs on the writer); `mainPath` is guarded by its lock.
  private let coveringHookCount: UnsafeMutablePointer<UInt64>
  private let lastHookTime: UnsafeMutablePointer<UInt64>
  private let mainPathState = LockedState<String?>(nil)
  /// The main file's pager data version that the writer's own commits explain; `nil` when unknown (the
  /// next hook then schedules a check).
  private var expectedVersion: UInt32?
  /// A hook counted on its commit, which has not been reported done (nor rolled back) yet.
  private var awaitsCommit = false
  private var onOtherConnectionChange: (() -> Void)?

  override init() {
    coveringHookCount = .allocate(capacity: 1)
    coveringHookCount.initialize(to: 0)
    lastHookTime = .allocate(capacity: 1)
    lastHookTime.initialize(to: 0)
  }

  deinit {
    coveringHookCount.deallocate()
    lastHookTime.deallocate()
  }

  /// Listens to the writer's commits (again); call on the writer. The first hook after it compares with
  /// nothing, and so schedules a check.
  func install(on connection: Connection, onOtherConnectionChange: @escaping () -> Void) {
    guard let handle = connection.handle else { return }
    expectedVersion = nil
    self.onOtherConnectionChange = onOtherConnectionChange
    let main = sqlite3_db_filename(handle, "main").flatMap { $0.pointee == 0 ? nil : String(cString: $0) }
    mainPathState.withLock { $0 = main }
    if main != nil { connection.addTransactionListener(OwnCommitCoverage.self) }
  }

  /// The writer's main database file, once installed (`nil` for a database in memory).
  var mainPath: String? { mainPathState.withLock { $0 } }

  /// How many commit hooks that wrote the main file have compared the data versions so far.
  var coveringHooks: UInt64 { amalgam_load_acquire(coveringHookCount) }

  /// When the last of ``coveringHooks`` counted itself (`DispatchTime` nanoseconds).
  var lastCoveringHook: UInt64 { amalgam_load_relaxed(lastHookTime) }

  override func transactionWillCommit(on connection: Connection) -> CommitDecision {
    guard let handle = connection.handle else { return .commit }
    var version: UInt32 = 0
    guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else {
      expectedVersion = nil
      onOtherConnectionChange?()
      return .commit
    }
    if version != expectedVersion { onOtherConnectionChange?() }
    let writesMain = sqlite3_txn_state(handle, "main") == SQLITE_TXN_WRITE
    expectedVersion = writesMain ? version &+ 1 : version
    awaitsCommit = writesMain
    if writesMain {
      amalgam_store_relaxed(lastHookTime, DispatchTime.now().uptimeNanoseconds)
      amalgam_store_release(coveringHookCount, amalgam_load_relaxed(coveringHookCount) &+ 1)
    }
    return .commit
  }

  override func transactionDidCommit(on connection: Connection) { awaitsCommit = false }

  /// A transaction whose commit hook counted on its commit rolled back instead: the version is unknown
  /// until the next hook, which checks (were it still expected one higher, another connection's commit
  /// found later would make up the difference unseen).
  override func transactionDidRollback(on connection: Connection) {
    if awaitsCommit { expectedVersion = nil }
    awaitsCommit = false
  }
}
