#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
import AmalgamSQLite

/// How far an online backup has got: the pages still to copy out of the source's total.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupremaining>
public struct BackupProgress: Sendable, Hashable, CustomStringConvertible {
  /// Pages still to copy (`sqlite3_backup_remaining`).
  public let remainingPageCount: Int
  /// Pages in the source database (`sqlite3_backup_pagecount`).
  public let totalPageCount: Int

  /// Creates a progress value from its counts.
  public init(remainingPageCount: Int, totalPageCount: Int) {
    self.remainingPageCount = remainingPageCount
    self.totalPageCount = totalPageCount
  }

  /// Pages copied so far.
  public var completedPageCount: Int { max(0, totalPageCount - remainingPageCount) }

  /// The part copied, from 0 to 1 (1 for an empty source).
  public var fractionCompleted: Double {
    totalPageCount > 0 ? Double(completedPageCount) / Double(totalPageCount) : 1
  }

  /// True when every page has been copied.
  public var isComplete: Bool { remainingPageCount == 0 }

  /// "copied/total pages".
  public var description: String { "\(completedPageCount)/\(totalPageCount) pages" }
}

/// An online backup in progress: copies one database of a connection into a database of another,
/// a number of pages at a time (`sqlite3_backup`).
///
/// Most code calls ``Database/backup(to:sourceSchema:destinationSchema:pagesPerStep:busyPause:progress:)``,
/// which runs a whole backup. Use this type to decide yourself when each step runs:
///
/// ```swift
/// let backup = try DatabaseBackup(from: source, to: destination)
/// while try !backup.step(pages: 100) {
///   print(backup.progress)        // 100/2048 pages, ...
/// }
/// ```
///
/// Between steps, the source is not locked: other connections may read and write it. When another
/// connection writes the source, SQLite starts the copy over at the next step (``progress`` goes back
/// up); writes through the source connection itself are copied along instead. The destination stays
/// locked by the backup until it finishes. A backup that stops early (``finish()``, or the object's
/// release) rolls the destination back to what it held before: it never holds half a copy.
///
/// The backup keeps both databases open until it is finished or released. Closing either database
/// finishes it first (abandoning an incomplete copy), and the next step throws
/// ``DatabaseError/databaseClosed``. Like a ``Database``, it serves one thread at a time.
///
/// Related SQLite documentation: <https://sqlite.org/backup.html>
///
/// ## Topics
///
/// ### Running a backup
///
/// - ``init(from:schema:to:schema:)``
/// - ``step(pages:)``
/// - ``finish()``
/// - ``progress``
/// - ``isFinished``
public final class DatabaseBackup {
  /// The `sqlite3_backup*`, or `nil` once finished.
  private var handle: OpaquePointer?
  /// The databases, kept open while the backup exists: SQLite does not protect a backup's destination
  /// from being closed under it (it frees the connection that `sqlite3_backup_finish` then reads).
  private let sourceDatabase: Database
  private let destinationDatabase: Database
  private var source: Connection { sourceDatabase.connection }
  private var destination: Connection { destinationDatabase.connection }
  /// Finishes the backup when either connection is closed explicitly (see `BackupCloseObserver`).
  private let closeObserver = BackupCloseObserver()
  /// The progress when the last step returned, kept for reading after the backup has finished.
  private var lastProgress: BackupProgress

  /// Starts a backup of `sourceSchema` of `source` into `destinationSchema` of `destination`
  /// (`sqlite3_backup_init`). Nothing is copied until the first ``step(pages:)``.
  ///
  /// - Parameters:
  ///   - source: the connection to copy from.
  ///   - sourceSchema: `"main"`, `"temp"` or the name of an attached database.
  ///   - destination: the connection to copy into; its database is replaced.
  ///   - destinationSchema: `"main"`, `"temp"` or the name of an attached database.
  /// - Throws: ``SQLiteError`` from the destination connection when SQLite refuses, for example when
  ///   the destination has a read transaction open, when a schema does not exist, or when both are the
  ///   same connection; with ``ResultCode/misuse`` when both are the same file opened by two
  ///   connections (the backup could never finish); ``DatabaseError/databaseClosed`` when either
  ///   database is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupinit>
  public init(
    from source: Database, schema sourceSchema: String = "main", to destination: Database,
    schema destinationSchema: String = "main"
  ) throws {
    self.sourceDatabase = source
    self.destinationDatabase = destination
    let sourceHandle = try source.sqliteHandle
    try Self.refuseSameFile(source, sourceSchema, destination, destinationSchema)
    let destinationBox = destination.connection
    let backup = try destinationBox.withHandle { destinationHandle in
      try source.connection.withHandle { _ in
        sqlite3_backup_init(destinationHandle, destinationSchema, sourceHandle, sourceSchema)
      }
    }
    guard let backup else {
      let destinationHandle = try destination.sqliteHandle
      throw destinationBox.error(sqlite3_errcode(destinationHandle))
    }
    handle = backup
    lastProgress = BackupProgress(remainingPageCount: 0, totalPageCount: 0)
    closeObserver.backup = self
    source.connection.state(BackupRegistry.self).add(closeObserver)
    destination.connection.state(BackupRegistry.self).add(closeObserver)
  }

  deinit {
    // Abandons an unfinished backup: SQLite rolls the destination back.
    if let handle {
      source.existingState(BackupRegistry.self)?.remove(closeObserver)
      destination.existingState(BackupRegistry.self)?.remove(closeObserver)
      sqlite3_backup_finish(handle)
    }
  }

  /// Copies up to `pages` pages (`sqlite3_backup_step`); a negative number copies all that remain.
  ///
  /// - Returns: `true` when the backup is complete (and committed to the destination), `false` when
  ///   pages remain.
  /// - Throws: ``SQLiteError`` with ``ResultCode/busy`` or ``ResultCode/locked`` when a lock kept this
  ///   step from running: the backup is intact and the step may be tried again later. Other errors
  ///   (``ResultCode/readOnly``, ``ResultCode/noMemory``, I/O errors, a page size the destination
  ///   cannot take) are final: call ``finish()``. ``DatabaseError/databaseClosed`` once either
  ///   database, or this backup, is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupstep>
  @discardableResult
  public func step(pages: Int = -1) throws -> Bool {
    guard let handle else { throw DatabaseError.databaseClosed }
    let count = Int32(clamping: pages < 0 ? -1 : max(pages, 1))
    let rc = try destination.withHandle { _ in
      try source.withHandle { _ in sqlite3_backup_step(handle, count) }
    }
    lastProgress = BackupProgress(
      remainingPageCount: Int(sqlite3_backup_remaining(handle)), totalPageCount: Int(sqlite3_backup_pagecount(handle)))
    switch rc {
    case SQLITE_DONE:
      try finish()
      return true
    case SQLITE_OK:
      return false
    default:
      throw backupError(rc)
    }
  }

  /// Pages remaining and in total, as of the last ``step(pages:)``. Before the first step SQLite does
  /// not know them yet: both are 0.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupremaining>
  public var progress: BackupProgress { lastProgress }

  /// True once the backup has completed or been finished.
  public var isFinished: Bool { handle == nil }

  /// Ends the backup and frees its resources (`sqlite3_backup_finish`). If it had not completed, the
  /// destination is rolled back to its content before the backup. Calling it again does nothing.
  ///
  /// - Throws: ``SQLiteError`` for an error that ended an earlier step (for example an I/O error), as
  ///   SQLite reports it once more here.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/backup_finish.html#sqlite3backupfinish>
  public func finish() throws {
    guard let handle else { return }
    self.handle = nil
    source.existingState(BackupRegistry.self)?.remove(closeObserver)
    destination.existingState(BackupRegistry.self)?.remove(closeObserver)
    let rc = sqlite3_backup_finish(handle)
    guard rc == SQLITE_OK else { throw backupError(rc) }
  }

  /// Called when the source or destination closes: finishes the backup first (abandoning it if it
  /// is not complete), so that SQLite never reads a closed connection.
  fileprivate func connectionWillClose() {
    try? finish()
  }

  /// Throws when the source and destination are one file opened twice: the backup would wait for
  /// its own read lock forever (the destination's writer needs the source's shared lock gone).
  private static func refuseSameFile(
    _ source: Database, _ sourceSchema: String, _ destination: Database, _ destinationSchema: String
  ) throws {
    // One connection for both: SQLite refuses it with its own message.
    guard source !== destination, let sourcePath = source.filename(schema: sourceSchema),
      let destinationPath = destination.filename(schema: destinationSchema)
    else { return }
    var sourceStatus = stat()
    var destinationStatus = stat()
    let sameFile =
      if stat(sourcePath, &sourceStatus) == 0, stat(destinationPath, &destinationStatus) == 0 {
        sourceStatus.st_dev == destinationStatus.st_dev && sourceStatus.st_ino == destinationStatus.st_ino
      } else {
        sourcePath == destinationPath
      }
    if sameFile {
      throw SQLiteError(
        code: .misuse,
        message: "Cannot back up \"\(sourcePath)\" onto itself: the source and the destination are the same file")
    }
  }

  /// How long busy or locked steps are tried again: the longer of the two connections' busy timeouts
  /// (`PRAGMA busy_timeout`, which is 0 when none is set or a busy handler replaced it), in seconds.
  func busyRetryBudget() -> Double {
    func timeout(_ database: Database) -> Double {
      let milliseconds =
        (try? database.connection.runningOwnStatements {
          try database.prepare(sql: "PRAGMA busy_timeout").front(Int.self)
        }) ?? 0
      return Double(milliseconds) / 1000
    }
    return max(timeout(sourceDatabase), timeout(destinationDatabase))
  }

  /// The error for a step's or finish's result code. SQLite keeps a backup's error in the backup, not
  /// always in the destination connection: use the connection's message only when it is about this code.
  private func backupError(_ rc: Int32) -> SQLiteError {
    if let connection = destination.handle, sqlite3_errcode(connection) & 0xff == rc & 0xff {
      return destination.error(rc)
    }
    return SQLiteError(code: ResultCode(rawValue: rc))
  }

  /// Runs the backup to the end in steps of `pagesPerStep`, reporting progress after each, and
  /// retrying a busy or locked step after `busyPause` within the busy retry budget. Stops early, rolling the destination back, when
  /// `shouldContinue` answers `false`, when the calling task is cancelled, or when the source
  /// connection is interrupted.
  func run(
    pagesPerStep: Int, busyPause: Double, sourceDatabase: Database,
    shouldContinue: (BackupProgress) throws -> Bool
  ) throws {
    // An interrupt left pending from before the backup (SQLite clears it only when a statement starts)
    // is not a request to stop this one.
    let interruptedBefore = sourceDatabase.isInterrupted
    var busy = BusyRetry()
    do {
      while true {
        if Task.isCancelled { throw CancellationError() }
        if !interruptedBefore && sourceDatabase.isInterrupted { throw SQLiteError(code: .interrupt) }
        let done: Bool
        do {
          done = try step(pages: pagesPerStep)
          busy.reset()
        } catch let error as SQLiteError where error.code == .busy || error.code == .locked {
          try busy.retry(after: error, backup: self)
          pause(busyPause)
          continue
        }
        if done {
          _ = try shouldContinue(progress)
          return
        }
        guard try shouldContinue(progress) else { throw CancellationError() }
      }
    } catch {
      try? finish()
      throw error
    }
  }
}

/// The busy or locked steps of a backup in a row, tried again until the backup's busy retry budget
/// (``DatabaseBackup/busyRetryBudget()``) has passed since the first of them; then the last error ends
/// the backup. SQLite's own busy handling inside a step counts towards the budget.
struct BusyRetry {
  private var firstBusy: ContinuousClock.Instant?
  private var budget: Double?

  /// A step went through: the next busy step starts a new wait.
  mutating func reset() {
    firstBusy = nil
  }

  /// Returns when the step that failed with `error` may be tried again, or throws `error` once the
  /// budget is spent.
  mutating func retry(after error: SQLiteError, backup: DatabaseBackup) throws {
    let now = ContinuousClock.now
    let first = firstBusy ?? now
    firstBusy = first
    let budget = self.budget ?? backup.busyRetryBudget()
    self.budget = budget
    let waited = now - first
    let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
    guard seconds < budget else { throw error }
  }
}

/// Blocks the calling thread for `seconds` (at most about an hour; nothing for NaN or less than 0).
func pause(_ seconds: Double) {
  guard seconds > 0 else { return }
  usleep(UInt32(min(seconds, 4000) * 1_000_000))
}

/// Registered on both connections of a backup (in their `BackupRegistry`) while it runs, so that
/// ``Database/close()`` of either finishes the backup before SQLite closes the connection. Holds the
/// backup weakly: the backup holds the databases, which hold this observer.
final class BackupCloseObserver {
  weak var backup: DatabaseBackup?
}

/// The backups running on a connection, as source or destination: closing the connection finishes them.
final class BackupRegistry: ConnectionState {
  private var observers: [ObjectIdentifier: BackupCloseObserver] = [:]

  init() {}

  func add(_ observer: BackupCloseObserver) { observers[ObjectIdentifier(observer)] = observer }
  func remove(_ observer: BackupCloseObserver) { observers[ObjectIdentifier(observer)] = nil }

  func connectionWillClose(_ handle: OpaquePointer) {
    for observer in Array(observers.values) { observer.backup?.connectionWillClose() }
  }
}
