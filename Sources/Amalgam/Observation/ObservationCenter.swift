import AmalgamSQLite
import Dispatch

/// Something that a commit on the writer can concern: a value observation, or a stream of change
/// notifications.
protocol ObservationEntry: AnyObject, Sendable {
  /// The region whose changes concern the entry; `nil` when any change does (not known yet).
  var observedRegion: DatabaseRegion? { get }
  /// A commit changed `changes`, which intersects ``observedRegion``. Called on the writer, right after
  /// the commit and before the next closure: it must return quickly. `generation` counts the commits
  /// reported so far.
  func databaseDidChange(_ changes: DatabaseRegion, generation: UInt64)
  /// The writer was closed: the entry ends (and removes itself). Called on the writer.
  func databaseDidClose()
  /// The observation cannot go on (the database file was replaced): the entry ends with `error` and
  /// removes itself. Called on any thread.
  func observationFailed(_ error: any Error)
}

/// The observations of one ``DatabaseQueue`` or ``DatabasePool``, and the link between them and the
/// writer connection.
///
/// On the writer, after each closure, ``writerClosureDidEnd(_:)`` tells the entries whose region a
/// commit changed. The writer's ``ChangeTracker`` is installed while there are entries, and removed once
/// the last one is gone. Commits made before it was installed, and commits of other connections (which
/// ``ForeignCommitWatcher`` wakes the center for, and the writer's `PRAGMA data_version` confirms),
/// concern every entry.
final class ObservationCenter: @unchecked Sendable {
  // @unchecked Sendable: `state` is guarded by its lock; `tracker`, `lastCommitCount`, `writerDataVersions`,
  // `checkAfterTransaction`, `fileKey`, `fileKeyCount` and `dataVersionChecks` are only used on the
  // writer's serial queue (in writerClosureDidEnd, the tracker's reports and the data_version check, which
  // all run there), and in init, before the center is shared; `ownCommitCoverage` is set in init and only
  // read afterwards. `indexVersion` and `entryCount` are written under the lock and
  // read with relaxed atomics.
  private struct State {
    var entries: [ObjectIdentifier: any ObservationEntry] = [:]
    /// The entries by the tables of their region, so that a commit finds the entries it concerns
    /// without looking at the others (a thousand observations of other tables cost nothing).
    var byTable: [DatabaseRegion.Table: Set<ObjectIdentifier>] = [:]
    /// The entries whose region is unknown, the full database, or has virtual tables (whose shadow
    /// tables are matched by name): checked at every commit.
    var unindexed: Set<ObjectIdentifier> = []
    var indexedTables: [ObjectIdentifier: Set<DatabaseRegion.Table>] = [:]
    /// The regions that restrict some table to columns or rows, for the writer's ``ChangeTracker``.
    var restrictedRegions: [ObjectIdentifier: DatabaseRegion] = [:]
    var generation: UInt64 = 0
    var watcher: ForeignCommitWatcher?
    /// The database files the writer has open (main and attached), which the watcher watches.
    var files: [WatchedFile] = []
    /// A data_version check is scheduled on the writer and has not started: more wakes add nothing.
    var isCheckScheduled = false
    /// Changes whenever the index does, so that a ``InterestCache`` knows when to forget its answers.
    var indexVersion: UInt64 = 0
    /// Where ``indexVersion`` is published, for reading without the lock (see ``InterestCache``).
    let publishedIndexVersion: UnsafeMutablePointer<UInt64>
    /// Where the number of ``entries`` is published, for the writer's look after each closure.
    let publishedEntryCount: UnsafeMutablePointer<UInt64>

    /// Publishes the number of entries, after each change of ``entries``.
    func publishEntryCount() {
      amalgam_store_relaxed(publishedEntryCount, UInt64(entries.count))
    }

    mutating func index(_ id: ObjectIdentifier, _ region: DatabaseRegion?) {
      unindex(id)
      if let region, region.hasRestrictions { restrictedRegions[id] = region }
      guard let region, !region.isFullDatabase, region.virtualTables.isEmpty else {
        unindexed.insert(id)
        return
      }
      indexedTables[id] = region.tables
      for table in region.tables { byTable[table, default: []].insert(id) }
    }

    mutating func unindex(_ id: ObjectIdentifier) {
      indexVersion &+= 1
      amalgam_store_relaxed(publishedIndexVersion, indexVersion)
      unindexed.remove(id)
      restrictedRegions[id] = nil
      for table in indexedTables.removeValue(forKey: id) ?? [] {
        byTable[table]?.remove(id)
        if byTable[table]?.isEmpty == true { byTable[table] = nil }
      }
    }
  }

  private let state: LockedState<State>
  /// ``State/publishedIndexVersion``, freed with the center: an ``InterestCache`` whose version equals
  /// the value there holds the index's current answers.
  let indexVersion: UnsafeMutablePointer<UInt64>
  /// How many of the writer's commits the tracker saw, every one counted, reported or not. Written only
  /// by the writer's thread, read anywhere with relaxed atomics: an observation whose region grew
  /// compares it with its value when the fetch started, since a commit to a table that no region held
  /// then was never reported (and did not move ``generation``).
  let commitCount: UnsafeMutablePointer<UInt64>
  /// ``State/publishedEntryCount``, freed with the center.
  private let entryCount: UnsafeMutablePointer<UInt64>
  /// The writer's change tracker while installed: a state of the writer's connection, which keeps it.
  @exclusivity(unchecked) private var tracker: Unretained<ChangeTracker>?
  @exclusivity(unchecked) private var lastCommitCount = 0
  /// The writer's `PRAGMA data_version` of each database file it has open, by file name: only other
  /// connections' commits change them, and they are only compared with values read on the writer.
  @exclusivity(unchecked) private var writerDataVersions: [String: Int] = [:]
  /// A data_version check came while the writer was in a transaction: it runs when the transaction
  /// ends (a commit of another connection made meanwhile must not be forgotten).
  @exclusivity(unchecked) private var checkAfterTransaction = false
  /// The schema-name and btree pointers of the writer's databases at the last look (see
  /// `amalgam_databases_unchanged`), for a look after each closure that allocates nothing when they did
  /// not change; ``fileKeyCount`` of them are set (-1: too many to compare).
  private let fileKey: UnsafeMutablePointer<UnsafeRawPointer?>
  @exclusivity(unchecked) private var fileKeyCount: Int32 = 0
  /// Room for two pointers for each database a connection can have (main, temp and SQLite's maximum of
  /// 125 attached).
  private static let fileKeyCapacity: Int32 = 256
  /// Runs a closure on the writer (the queue's or pool's `async`), after the scheduled ones.
  private let onWriter: @Sendable (@escaping @Sendable (Database) -> Void) -> Void
  /// Opens a connection of the watcher's own to a database file; `nil` to see only the writer's own
  /// commits.
  private let watcherFactory: (@Sendable (String) throws -> Database)?
  private let watchInterval: Duration?
  /// What the writer's own commit hooks tell the watcher (installed on the writer with the watcher): a
  /// state of the writer's connection, set in init before the center is shared (`nil` without a writer).
  private var ownCommitCoverage: OwnCommitCoverage?
  /// How many `PRAGMA data_version` checks the writer made (``checkWriterDataVersions(_:)``). Only used
  /// on the writer's serial queue.
  private(set) var dataVersionChecks = 0

  init(
    watchInterval: Duration?, watcherFactory: (@Sendable (String) throws -> Database)?,
    onWriter: @escaping @Sendable (@escaping @Sendable (Database) -> Void) -> Void
  ) {
    indexVersion = .allocate(capacity: 1)
    indexVersion.initialize(to: 0)
    commitCount = .allocate(capacity: 1)
    commitCount.initialize(to: 0)
    fileKey = .allocate(capacity: Int(Self.fileKeyCapacity))
    fileKey.initialize(repeating: nil, count: Int(Self.fileKeyCapacity))
    entryCount = .allocate(capacity: 1)
    entryCount.initialize(to: 0)
    state = LockedState(State(publishedIndexVersion: indexVersion, publishedEntryCount: entryCount))
    self.watchInterval = watchInterval
    self.watcherFactory = watcherFactory
    self.onWriter = onWriter
  }

  deinit {
    indexVersion.deallocate()
    commitCount.deallocate()
    fileKey.deallocate()
    entryCount.deallocate()
  }

  /// The writer committed (whether or not the commit concerns an entry): see ``commitCount``.
  func writerDidCommit() {
    amalgam_store_relaxed(commitCount, amalgam_load_relaxed(commitCount) &+ 1)
  }

  /// ``commitCount`` now.
  var commits: UInt64 { amalgam_load_relaxed(commitCount) }

  /// The center of the queue or pool whose writer is `writer`: it hooks itself after each of the
  /// writer's closures, and watches the database files the writer has open (main and attached) for
  /// other connections' commits.
  convenience init(writer: SerializedDatabase, configuration: Configuration) {
    let openWatcher: @Sendable (String) throws -> Database = { path in
      try configuration.openDatabase(path: path, role: .reader)
    }
    let onWriter: @Sendable (@escaping @Sendable (Database) -> Void) -> Void = { [weak writer] body in
      let run: @Sendable (Database) throws -> Void = { db in body(db) }
      writer?.async(run, completion: { _ in })
    }
    self.init(
      watchInterval: configuration.observationPollInterval, watcherFactory: openWatcher, onWriter: onWriter)
    // Other connections' commits change the writer's data_versions from here on; its own never do. The
    // files' identities are read now, while the writer has just opened them.
    try? writer.sync { db in
      guard let handle = db.connection.handle else { return }
      self.ownCommitCoverage = db.connection.state(OwnCommitCoverage.self)
      self.refreshWatchedFiles(handle, force: true)
      self.writerDataVersions = (try? Self.dataVersions(db)) ?? [:]
    }
    writer.observationCenter = self
  }

  /// How many commits were reported to the entries so far.
  var generation: UInt64 { state.withLock { $0.generation } }

  /// Adds `entry`; the writer starts tracking changes after its current closure at the latest.
  func add(_ entry: any ObservationEntry) {
    let region = entry.observedRegion
    let startWatcher = state.withLock { state in
      state.entries[ObjectIdentifier(entry)] = entry
      state.publishEntryCount()
      state.index(ObjectIdentifier(entry), region)
      return state.watcher == nil && watcherFactory != nil && watchInterval != nil
    }
    if startWatcher, let watcherFactory, let watchInterval {
      let watcher = ForeignCommitWatcher(
        interval: watchInterval, open: watcherFactory,
        files: { [weak self] in self?.state.withLock { $0.files } ?? [] },
        onPossibleCommit: { [weak self] in self?.otherConnectionCommitted() },
        onFileReplaced: { [weak self] path in self?.databaseFileReplaced(path) }, ownCommits: ownCommitCoverage)
      let extra = state.withLock { state in
        if state.watcher == nil, !state.entries.isEmpty {
          state.watcher = watcher
          return nil as ForeignCommitWatcher?
        }
        return watcher
      }
      if let extra {
        extra.stop()
      } else {
        watcher.start()
        onWriter { [weak self] db in self?.installOwnCommitCoverage(db) }
      }
    }
    // A closure on the writer installs the tracker at its end, even if no write comes.
    onWriter { _ in }
  }

  /// Removes `entry`; once none is left, the writer stops tracking and the watcher stops.
  func remove(_ entry: any ObservationEntry) {
    let (wasLast, watcher) = state.withLock { state -> (Bool, ForeignCommitWatcher?) in
      state.unindex(ObjectIdentifier(entry))
      let removed = state.entries.removeValue(forKey: ObjectIdentifier(entry)) != nil
      state.publishEntryCount()
      guard removed, state.entries.isEmpty else { return (false, nil) }
      defer { state.watcher = nil }
      return (true, state.watcher)
    }
    watcher?.stop()
    if wasLast { onWriter { _ in } }
  }

  var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

  /// Called on the writer after each closure: reports the closure's commits, and installs or removes
  /// the change tracker.
  func writerClosureDidEnd(_ db: Database) {
    unowned(unsafe) let connection = db.connection
    guard let handle = connection.handle else {
      tracker = nil
      let entries = state.withLock { Array($0.entries.values) }
      for entry in entries { entry.databaseDidClose() }
      return
    }
    connection.finishCommitIfNeeded()
    if checkAfterTransaction, db.isInAutocommitMode { checkWriterDataVersions(db) }
    let commitCount = connection.commitCount
    defer { lastCommitCount = commitCount }
    // Published by add and remove before they schedule a closure on the writer, which then sees it.
    let hasEntries = amalgam_load_relaxed(entryCount) != 0
    if hasEntries, watchInterval != nil { refreshWatchedFiles(handle, force: false) }
    if let tracker {
      guard !hasEntries else {
        tracker.withObject { updateDetailPlans($0, handle) }
        return
      }
      tracker.withObject { tracker in
        tracker.commitSink = nil
        tracker.uninstallIfUnused(connection, handle)
      }
      self.tracker = nil
      RegionRecorder.stopListening(on: connection)
    } else if hasEntries {
      // Commits made while no tracker was installed changed unknown tables.
      if commitCount != lastCommitCount { report(.fullDatabase) }
      let tracker = ChangeTracker.installed(on: connection, handle)
      tracker.commitSink = self
      self.tracker = Unretained(tracker)
      updateDetailPlans(tracker, handle)
    }
  }

  /// Has the tracker make its column and rowid plans again if the index or the schema changed.
  private func updateDetailPlans(_ tracker: ChangeTracker, _ handle: OpaquePointer) {
    let version = amalgam_load_relaxed(indexVersion)
    guard tracker.plansMayChange(version: version) else { return }
    tracker.updateDetailPlans(handle, reads: restrictedReads, version: version)
  }

  /// What the entries read of the tables that some of them read restricted to columns or rows: for each
  /// such table, the union of the restricted reads (the entries that read it whole intersect any change
  /// of it anyway).
  private func restrictedReads() -> [DatabaseRegion.Table: DatabaseRegion.TableRegion] {
    state.withLock { state in
      var reads: [DatabaseRegion.Table: DatabaseRegion.TableRegion] = [:]
      for region in state.restrictedRegions.values {
        for (table, read) in region.restrictions {
          reads[table] = reads[table].map { $0.union(read) } ?? read
        }
      }
      return reads
    }
  }

  /// Indexes `entry` under its new region; returns the generation then.
  func regionDidChange(_ entry: any ObservationEntry, _ region: DatabaseRegion) -> UInt64 {
    let generation = state.withLock { state in
      if state.entries[ObjectIdentifier(entry)] != nil { state.index(ObjectIdentifier(entry), region) }
      return state.generation
    }
    // A closure on the writer makes the tracker's plans for the new columns at its end, before the
    // writes that come after the new value (until then, such tables change as a whole).
    if region.hasRestrictions { onWriter { _ in } }
    return generation
  }

  /// What ``concerns(_:of:cache:)`` found for each table number of a ``ChangeTracker``, valid while
  /// the index keeps its version: a commit to a table that no observation reads costs no hashing, and
  /// no lock once the answer is known.
  struct InterestCache {
    var version = UInt64.max
    /// The answer for every table, when it does not depend on the table (no entry, or an entry whose
    /// region is not indexed by table).
    var everyTable: Bool?
    var known: [Bool?] = []

    /// The answer for the tables numbered `numbers`, or `nil` when one of them was never asked about.
    func answer(_ numbers: [Int]) -> Bool? {
      if let everyTable { return everyTable }
      var complete = true
      for number in numbers {
        guard number < known.count, let concerned = known[number] else {
          complete = false
          continue
        }
        if concerned { return true }
      }
      return complete ? false : nil
    }
  }

  /// Whether an entry may read one of the tables numbered `numbers` (in `tables`).
  ///
  /// The index's version is read without the lock: a version older than the latest only means a commit
  /// is judged as if it came before an entry was added, removed or changed region, which the order of
  /// the writer's closures makes true (an entry's first fetch is scheduled on the writer after it is
  /// indexed, and the writer then sees the new version).
  func concerns(_ numbers: [Int], of tables: [DatabaseRegion.Table], cache: inout InterestCache) -> Bool {
    if cache.version == amalgam_load_relaxed(indexVersion), let answer = cache.answer(numbers) {
      return answer
    }
    return state.withLock { state in
      if cache.version != state.indexVersion { cache = InterestCache(version: state.indexVersion) }
      if state.entries.isEmpty || !state.unindexed.isEmpty {
        cache.everyTable = !state.entries.isEmpty
        return !state.entries.isEmpty
      }
      for number in numbers {
        if number < cache.known.count, let known = cache.known[number] {
          if known { return true }
          continue
        }
        let concerned = state.byTable[tables[number]] != nil
        if number >= cache.known.count { cache.known += Array(repeating: nil, count: number + 1 - cache.known.count) }
        cache.known[number] = concerned
        if concerned { return true }
      }
      return false
    }
  }

  /// Tells the entries whose region `changes` intersects.
  func report(_ changes: DatabaseRegion) {
    // The whole database: the schema may have changed, and with it the tables a statement reads.
    if changes.isFullDatabase { RegionRecorder.schemaMayHaveChanged() }
    let (entries, generation) = state.withLock { state -> ([any ObservationEntry], UInt64) in
      state.generation += 1
      guard !state.entries.isEmpty else { return ([], state.generation) }
      if changes.isFullDatabase { return (Array(state.entries.values), state.generation) }
      var found: [any ObservationEntry] = []
      for id in state.unindexed { if let entry = state.entries[id] { found.append(entry) } }
      var seen: Set<ObjectIdentifier> = []
      for table in changes.tables {
        guard let ids = state.byTable[table] else { continue }
        for id in ids where changes.tables.count == 1 || seen.insert(id).inserted {
          if let entry = state.entries[id] { found.append(entry) }
        }
      }
      return (found, state.generation)
    }
    for entry in entries where entry.observedRegion.map({ $0.intersects(changes) }) ?? true {
      entry.databaseDidChange(changes, generation: generation)
    }
  }

  /// The watcher saw that another connection may have committed (or the writer itself: the watcher
  /// cannot tell). The writer's `PRAGMA data_version` tells, since only other connections' commits
  /// change it. Checked on the writer, so that the report stays in order with the writer's own; wakes
  /// that come before the scheduled check starts add nothing.
  private func otherConnectionCommitted() {
    let schedule = state.withLock { state in
      defer { state.isCheckScheduled = true }
      return !state.isCheckScheduled
    }
    if schedule { onWriter { [weak self] db in self?.checkWriterDataVersions(db) } }
  }

  /// Reports a change when another connection committed since the last check, once the writer's
  /// transaction, if any, has ended: a report during the transaction would run the queries before the
  /// commit, and the check would be lost if it were not done later.
  private func checkWriterDataVersions(_ db: Database) {
    dataVersionChecks += 1
    state.withLock { $0.isCheckScheduled = false }
    guard db.isInAutocommitMode else {
      checkAfterTransaction = true
      return
    }
    checkAfterTransaction = false
    if let handle = db.connection.handle { refreshWatchedFiles(handle, force: true) }
    let versions: [String: Int]
    do {
      versions = try Self.dataVersions(db)
    } catch let error as SQLiteError where error.code == .busy || error.code == .locked {
      // Another connection holds a file longer than the busy timeout: nothing is compared, and the
      // next wake (the file events of its commit, or the watcher's tick) looks again.
      return
    } catch {
      // Cannot tell: report, and compare with the versions known before at the next check.
      report(.fullDatabase)
      return
    }
    defer { writerDataVersions = versions }
    if versions != writerDataVersions { report(.fullDatabase) }
  }

  /// Lets the writer's commit hooks vouch for its own commits to the watcher (see
  /// ``OwnCommitCoverage``); a hook that finds another connection's commit schedules the check.
  private func installOwnCommitCoverage(_ db: Database) {
    ownCommitCoverage?.install(on: db.connection) { [weak self] in self?.otherConnectionCommitted() }
  }

  /// `PRAGMA data_version` of each of the connection's schemas with a file, by file name (queries of the
  /// library's own, which neither the user's trace handler nor authorizer hears of).
  private static func dataVersions(_ db: Database) throws -> [String: Int] {
    var versions: [String: Int] = [:]
    for schema in db.schemaNames {
      guard let file = db.filename(schema: schema) else { continue }
      let quoted = "\"" + schema.replacing("\"", with: "\"\"") + "\""
      versions[file] = try db.connection.runningOwnStatements {
        try db.cachedStatement(sql: "PRAGMA \(quoted).data_version").front(Int.self)
      }
    }
    return versions
  }

  /// Looks at which database files the writer has open (main and attached; `temp` and in-memory ones
  /// left out) and tells the watcher when they changed. Unless `force`, a look that finds the same
  /// schema-name and btree pointers as the last one stops there, allocating nothing: ATTACH and DETACH
  /// change them (the look forced at each data_version check catches a reused address).
  private func refreshWatchedFiles(_ handle: OpaquePointer, force: Bool) {
    let unchanged = amalgam_databases_unchanged(handle, fileKey, Self.fileKeyCapacity, &fileKeyCount) != 0
    if unchanged && !force { return }
    var paths: [String] = []
    var index: Int32 = 0
    while let name = sqlite3_db_name(handle, index) {
      if index != 1, let file = sqlite3_db_filename(handle, name), file.pointee != 0 {
        let path = String(cString: file)
        if !paths.contains(path) { paths.append(path) }
      }
      index += 1
    }
    let watcher = state.withLock { state -> ForeignCommitWatcher? in
      guard state.files.map(\.path) != paths else { return nil }
      // A file already watched keeps the identity it had when first seen: the one the writer opened.
      let known = Dictionary(state.files.map { ($0.path, $0.identity) }, uniquingKeysWith: { first, _ in first })
      state.files = paths.map { path in
        WatchedFile(path: path, identity: known[path] ?? FileStatus.of(path)?.identity)
      }
      return state.watcher
    }
    watcher?.filesDidChange()
  }

  /// The file at `path` is not the one the writer opened any more (deleted, or replaced by a rename or
  /// a new file): the writer and the readers still see the old one, so every observation ends with
  /// ``DatabaseError/databaseFileReplaced(path:)``. The watcher stopped: an observation started later
  /// starts another, which finds the file replaced at once (it compares with the identity first seen),
  /// and ends the same way.
  private func databaseFileReplaced(_ path: String) {
    let (entries, watcher) = state.withLock { state in
      defer { state.watcher = nil }
      return (Array(state.entries.values), state.watcher)
    }
    watcher?.stop()
    for entry in entries { entry.observationFailed(DatabaseError.databaseFileReplaced(path: path)) }
  }
}
