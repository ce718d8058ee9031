import AmalgamSQLite

/// What one capability keeps per connection (its registered callbacks, the SQLite objects it ties to the
/// connection), in a type that the capability's own folder defines. The type is its own key:
/// `connection.state(HookRegistry.self)`. Core stores each capability's state and takes part in closing
/// the connection without knowing any of them, so a folder compiled out by its trait takes its state
/// with it.
///
/// Closing runs in three steps, each over every state: ``connectionWillClose(_:)`` finishes the SQLite
/// objects tied to the connection, ``unregisterCallbacks(_:)`` makes SQLite forget the callbacks, then
/// `sqlite3_close_v2` runs, then ``connectionDidClose()`` releases what SQLite can no longer call.
protocol ConnectionState: AnyObject {
  init()

  /// Before the connection closes: finishes the SQLite objects tied to it (sessions, backups), which
  /// must go before `sqlite3_close_v2`.
  func connectionWillClose(_ handle: OpaquePointer)

  /// Before the connection closes, after every ``connectionWillClose(_:)``: makes SQLite forget every
  /// callback registered through this state, so that none can be called once the handle has become a
  /// zombie kept by live statements (whose finalization can roll back, commit or report a profile event).
  func unregisterCallbacks(_ handle: OpaquePointer)

  /// After `sqlite3_close_v2`: releases the closures that SQLite can no longer call.
  func connectionDidClose()

  /// What this capability knows about an error SQLite reported with `message` (a registration that
  /// explains it), to follow SQLite's message; `nil` when it knows nothing.
  func explanation(ofErrorMessage message: String) -> String?
}

extension ConnectionState {
  func connectionWillClose(_ handle: OpaquePointer) {}
  func unregisterCallbacks(_ handle: OpaquePointer) {}
  func connectionDidClose() {}
  func explanation(ofErrorMessage message: String) -> String? { nil }
}

/// Told about each statement of a connection just before the connection finalizes it, while it is the
/// connection's ``Connection/finalizeListener``: the region recorder of a value observation, which must
/// learn what a statement that the statement cache evicts during a recording read.
protocol StatementFinalizeListener: AnyObject {
  /// `statement` is about to be finalized, on the thread using the connection.
  func statementWillFinalize(_ statement: OpaquePointer)
}

/// Told about each transaction's end by the commit and rollback hooks that every connection carries
/// (see ``Connection/addTransactionListener(_:)``). A class, not a protocol, so that the hooks call each
/// listener through an unretained reference: every listener is a ``ConnectionState`` of the connection
/// (a subclass that conforms), which keeps it as long as it lives. Subclasses override what they need.
class TransactionListener {
  init() {}

  /// A transaction is about to commit on `connection`; `.rollback` turns the commit into a rollback.
  func transactionWillCommit(on connection: Connection) -> CommitDecision { .commit }
  /// A transaction was rolled back on `connection` (also after a refused commit).
  func transactionDidRollback(on connection: Connection) {}
  /// A transaction that ``transactionWillCommit(on:)`` let commit has committed: called outside SQLite's
  /// hooks, once the connection is back in autocommit mode (see ``Connection/finishCommitIfNeeded()``),
  /// so it may use the connection.
  func transactionDidCommit(on connection: Connection) {}
  /// `Database.savepoint` began a savepoint.
  func savepointDidBegin(on connection: Connection) {}
  /// `Database.savepoint` released its savepoint (`rolledBack` false) or rolled back to it and
  /// released it (`rolledBack` true).
  func savepointDidEnd(on connection: Connection, rolledBack: Bool) {}
}

/// What takes the place of a transaction listener removed while the listeners are being told (see
/// ``Connection/removeTransactionListener(_:)``): it does nothing. Sendable: it has no state.
final class RemovedTransactionListener: TransactionListener, @unchecked Sendable {
  static let shared = RemovedTransactionListener()
}

/// The connection handle that a database and its statements share. Statements use it for every call
/// (cached statements hold only the connection, so that the statement cache does not keep the database
/// alive), and it outlives SQLite's handle.
@usableFromInline
final class Connection {
  /// The `sqlite3*` handle; `nil` once closed.
  // Unchecked: only the thread using the connection reads or writes it (see `owner`), and the dynamic
  // exclusivity check would otherwise run on every step.
  @exclusivity(unchecked) @usableFromInline var handle: OpaquePointer?

  /// The id of the thread inside SQLite on this connection, or 0. Detects a connection used by two
  /// threads at once (possible only by escaping Swift's `Sendable` checking), which in SQLite's
  /// multi-thread mode would corrupt memory; the second thread gets ``DatabaseError/concurrentUse``.
  @usableFromInline let owner: UnsafeMutablePointer<UInt>

  /// Whether errors report extended result codes (``Database/OpenOptions/extendedResultCodes``).
  let extendedResultCodes: Bool

  /// How dates, JSON and the other types without a storage class of their own are stored
  /// (``Database/valueStorage``). Read only by those types' conversions, never for a number or text.
  // Unchecked: only the thread using the connection reads or writes it.
  @exclusivity(unchecked) var valueStorage: ValueStorage

  /// The callback running now that SQLite restricts (see ``RestrictedCallback``), or `nil`. While it is
  /// set, ``withHandle(_:)`` refuses what the callback may not do: every statement, prepare,
  /// registration and close goes through it.
  // Unchecked: read on every call into SQLite; only the thread using the connection touches it.
  @exclusivity(unchecked) @usableFromInline var restrictedCallback: RestrictedCallback?

  /// How many transactions have committed and rolled back on this connection, counted by the commit
  /// and rollback hooks that every connection carries. `Database.transaction` reads them to tell what
  /// became of a transaction that its body ended.
  @exclusivity(unchecked) var commitCount = 0
  @exclusivity(unchecked) var rollbackCount = 0

  /// Whether a commit hook let a transaction commit whose listeners have not been told it is done
  /// (``finishCommitIfNeeded()``).
  @exclusivity(unchecked) @usableFromInline var commitAwaitsCompletion = false

  /// While above zero, every commit is turned into a rollback, before any listener is asked (see
  /// ``refusingCommits(_:)``).
  // Unchecked, as `transactionListeners`: read by the commit hook on every commit, only by the thread
  // using the connection.
  @exclusivity(unchecked) private var commitRefusals = 0

  /// Told about each statement just before this connection finalizes it, while set (during a region
  /// recording). Nil otherwise, so that finalizing costs one load.
  // Unchecked: only the thread using the connection reads or writes it.
  @exclusivity(unchecked) var finalizeListener: (any StatementFinalizeListener)?

  /// The listeners of transaction ends, in the order they were added, unretained: each is one of
  /// ``states``, which live as long as the connection. Walked by index (``forEachTransactionListener(_:)``),
  /// so that a commit costs no reference counting; a listener removed during a walk leaves
  /// ``RemovedTransactionListener/shared`` in its place until the walk ends, so that the others keep
  /// their indexes.
  @exclusivity(unchecked) private var transactionListeners: [Unretained<TransactionListener>] = []
  /// How many walks of ``transactionListeners`` are under way (a listener can commit again), and whether
  /// a listener was removed during one.
  @exclusivity(unchecked) private var listenerWalks = 0
  @exclusivity(unchecked) private var listenersRemovedDuringWalk = false

  /// The capabilities' per-connection states, by type. They live as long as the connection: statements
  /// keep it alive, so a callback that SQLite makes while finalizing the last statement of a closed
  /// connection (a rollback hook) still finds its state.
  private var states: [ObjectIdentifier: any ConnectionState] = [:]

  /// The message of an error that a callback SQLite gives no way to report a message from (an FTS5
  /// tokenizer returns only a result code) threw, with the code it returned to SQLite. The next error
  /// reported with that primary code carries this message; any error report clears it.
  var pendingCallbackError: (code: Int32, message: String)?

  /// Statements released while another thread held the connection: finalizing one then would run inside
  /// SQLite beside that thread, so it waits here until a thread next claims the connection, the
  /// connection closes, or it goes. Guarded by its lock.
  private let deferredFinalizations = LockedState<[OpaquePointer]>([])

  /// 1 while ``deferredFinalizations`` may hold statements, read with a relaxed atomic load on every
  /// claim so that the common case takes no lock.
  @usableFromInline let hasDeferredFinalizations: UnsafeMutablePointer<UInt64>

  init(handle: OpaquePointer, extendedResultCodes: Bool, valueStorage: ValueStorage) {
    self.handle = handle
    self.extendedResultCodes = extendedResultCodes
    self.valueStorage = valueStorage
    owner = .allocate(capacity: 1)
    owner.initialize(to: 0)
    hasDeferredFinalizations = .allocate(capacity: 1)
    hasDeferredFinalizations.initialize(to: 0)
  }

  deinit {
    // Nothing else references the connection now, so no other thread can be inside SQLite on it.
    finalizeDeferredStatements()
    // The database went while another thread held the connection (see `Database.deinit`): close it now.
    if let handle { _ = close(handle) }
    owner.deallocate()
    hasDeferredFinalizations.deallocate()
  }

  /// Finalizes a statement (`sqlite3_finalize`) holding the connection; if another thread holds it, the
  /// statement is finalized later, by the next thread that claims the connection (or when it closes).
  func finalize(_ statement: OpaquePointer) {
    let claim = amalgam_claim(owner)
    guard claim >= 0 else {
      deferredFinalizations.withLock { $0.append(statement) }
      amalgam_store_relaxed(hasDeferredFinalizations, 1)
      return
    }
    finalizeListener?.statementWillFinalize(statement)
    sqlite3_finalize(statement)
    if claim > 0 { amalgam_release(owner) }
  }

  /// Finalizes the statements whose finalization ``finalize(_:)`` deferred. Called holding the connection.
  @usableFromInline
  func finalizeDeferredStatements() {
    amalgam_store_relaxed(hasDeferredFinalizations, 0)
    let statements = deferredFinalizations.withLock { pending in
      defer { pending = [] }
      return pending
    }
    for statement in statements {
      finalizeListener?.statementWillFinalize(statement)
      sqlite3_finalize(statement)
    }
  }

  /// The state of type `State` kept for this connection, made on first use.
  func state<State: ConnectionState>(_ type: State.Type) -> State {
    let key = ObjectIdentifier(type)
    if let state = states[key] {
      // The dictionary holds each state under its own type's identifier.
      return unsafeDowncast(state, to: State.self)
    }
    let state = State()
    states[key] = state
    return state
  }

  /// The state of type `State`, if one was made.
  func existingState<State: ConnectionState>(_ type: State.Type) -> State? {
    states[ObjectIdentifier(type)].map { unsafeDowncast($0, to: State.self) }
  }

  /// Closes the handle: every state finishes its SQLite objects and unregisters its callbacks, then
  /// `sqlite3_close_v2` runs; the states release their closures once it has succeeded.
  func close(_ handle: OpaquePointer) -> Int32 {
    finalizeDeferredStatements()
    let states = Array(states.values)
    for state in states { state.connectionWillClose(handle) }
    for state in states { state.unregisterCallbacks(handle) }
    let rc = sqlite3_close_v2(handle)
    guard rc == SQLITE_OK else { return rc }
    self.handle = nil
    for state in states { state.connectionDidClose() }
    transactionListeners.removeAll()
    return rc
  }

  /// Adds the connection's state of type `type` to the listeners the commit and rollback hooks tell (once: adding
  /// it again does nothing).
  func addTransactionListener<Listener: TransactionListener & ConnectionState>(_ type: Listener.Type) {
    // The listener is the connection's own state of that type, which lives as long as the connection.
    let listener = state(type)
    guard !transactionListeners.contains(where: { $0.opaque == Unretained(listener).opaque }) else { return }
    transactionListeners.append(Unretained(listener))
  }

  /// Removes `listener` from those the commit and rollback hooks tell.
  func removeTransactionListener(_ listener: TransactionListener) {
    guard let index = transactionListeners.firstIndex(where: { $0.opaque == Unretained(listener).opaque }) else {
      return
    }
    if listenerWalks > 0 {
      transactionListeners[index] = Unretained(RemovedTransactionListener.shared)
      listenersRemovedDuringWalk = true
    } else {
      transactionListeners.remove(at: index)
    }
  }

  /// Calls `body` with each transaction listener there is when the walk starts, in order, without
  /// retaining them or the list: a listener added meanwhile waits for the next walk, one removed
  /// meanwhile is not called any more.
  @inline(__always)
  private func forEachTransactionListener(_ body: (TransactionListener) -> Void) {
    let count = transactionListeners.count
    guard count > 0 else { return }
    listenerWalks += 1
    var index = 0
    // Closing the connection empties the list.
    while index < count, index < transactionListeners.count {
      transactionListeners[index].withObject(body)
      index += 1
    }
    listenerWalks -= 1
    if listenerWalks == 0, listenersRemovedDuringWalk {
      listenersRemovedDuringWalk = false
      transactionListeners.removeAll { $0.opaque == Unretained(RemovedTransactionListener.shared).opaque }
    }
  }

  /// Tells the listeners that the transactions committed since the last call are done, once the
  /// connection is back in autocommit mode. Called where a commit can have completed: when a statement
  /// finishes (`SQLITE_DONE`), after `Database.batch`, and after each closure of a queue or pool.
  @inlinable @inline(__always)
  func finishCommitIfNeeded() {
    if commitAwaitsCompletion { completeCommit() }
  }

  @usableFromInline
  func completeCommit() {
    // Not from inside a callback that SQLite restricts: the next statement after it reports the commit.
    guard restrictedCallback == nil, let handle, sqlite3_get_autocommit(handle) != 0 else { return }
    commitAwaitsCompletion = false
    forEachTransactionListener { $0.transactionDidCommit(on: self) }
  }

  /// Tells the listeners that `Database.savepoint` began a savepoint.
  func savepointDidBegin() {
    forEachTransactionListener { $0.savepointDidBegin(on: self) }
  }

  /// Tells the listeners that `Database.savepoint` ended its savepoint.
  func savepointDidEnd(rolledBack: Bool) {
    forEachTransactionListener { $0.savepointDidEnd(on: self, rolledBack: rolledBack) }
  }

  /// Runs `body` with every commit on this connection turned into a rollback (the commit fails with
  /// ``ResultCode/constraintCommitHook``); the transaction listeners are not asked meanwhile.
  func refusingCommits<R>(_ body: () throws -> R) rethrows -> R {
    commitRefusals += 1
    defer { commitRefusals -= 1 }
    return try body()
  }

  /// The error SQLite reports for `rc` on this connection.
  func error(_ rc: Int32, sql: String? = nil) -> SQLiteError {
    var error = SQLiteError(resultCode: rc, connection: handle, sql: sql, extendedCodes: extendedResultCodes)
    if rc & 0xff == SQLITE_ERROR,
      let explanation = states.values.lazy.compactMap({
        $0.explanation(ofErrorMessage: error.message)
      }).first
    {
      error = SQLiteError(
        code: error.extendedCode, message: "\(error.message): \(explanation)", sql: error.sql, offset: error.offset)
    }
    guard let pending = pendingCallbackError else { return error }
    pendingCallbackError = nil
    guard pending.code & 0xff == rc & 0xff else { return error }
    // SQLite's own message is kept when it says more than the code's description ("error in tokenizer
    // constructor"); the callback's message follows it.
    let message =
      error.message == String(cString: sqlite3_errstr(rc & 0xff))
      ? pending.message : "\(error.message): \(pending.message)"
    return SQLiteError(code: error.extendedCode, message: message, sql: error.sql, offset: error.offset)
  }

  /// Runs `body` holding the connection for the calling thread: another thread that tries to use it
  /// meanwhile gets ``DatabaseError/concurrentUse``. Everything that reads the connection's state or calls
  /// into SQLite with its handle or statements does so inside, so that no check is separated from the use
  /// it guards (a handle read before the claim could be closed by another thread before the call).
  ///
  /// - Throws: ``DatabaseError/concurrentUse`` when another thread holds the connection.
  @inlinable @inline(__always)
  func holding<T>(_ body: () throws -> T) throws -> T {
    let claim = amalgam_claim(owner)
    if claim < 0 { throw DatabaseError.concurrentUse }
    defer { if claim > 0 { amalgam_release(owner) } }
    if claim > 0, amalgam_load_relaxed(hasDeferredFinalizations) != 0 { finalizeDeferredStatements() }
    return try body()
  }

  /// Runs `body` with the open handle, holding the connection for the calling thread.
  ///
  /// - Throws: ``DatabaseError/databaseClosed``, ``DatabaseError/concurrentUse``, or
  ///   ``DatabaseError/reentrantCall(callback:)`` from inside a callback that must not use the connection.
  @inlinable
  func withHandle<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
    try holding {
      guard let handle else { throw DatabaseError.databaseClosed }
      if let restrictedCallback { try restrictedCallback.checkUse() }
      return try body(handle)
    }
  }

  /// ``withHandle(_:)`` for preparing (`statement` nil) or running `statement`, which a callback that
  /// SQLite calls while preparing may do when `statement` is a read-only query (see
  /// ``RestrictedCallback/Permission/readOnlyQueries(reason:)``).
  @inlinable
  func withHandle<T>(running statement: OpaquePointer?, _ body: (OpaquePointer) throws -> T) throws -> T {
    try holding {
      guard let handle else { throw DatabaseError.databaseClosed }
      if let restrictedCallback { try restrictedCallback.check(statement) }
      return try body(handle)
    }
  }

  /// Runs `body` holding the open connection, with no callback restriction checked: for calls on a
  /// statement that are not running it (binding, resetting), which any callback may make.
  ///
  /// - Throws: ``DatabaseError/databaseClosed`` or ``DatabaseError/concurrentUse``.
  @inlinable @inline(__always)
  func holdingOpen<T>(_ body: () throws -> T) throws -> T {
    try holding {
      if handle == nil { throw DatabaseError.databaseClosed }
      return try body()
    }
  }

  /// Runs a callback that SQLite restricts: calls into the connection that it may not make fail while
  /// `body` runs.
  @inline(__always)
  func restricting<R>(_ callback: RestrictedCallback, _ body: () throws -> R) rethrows -> R {
    let previous = restrictedCallback
    restrictedCallback = callback
    defer { restrictedCallback = previous }
    return try body()
  }

  /// Runs `body`, whose statements are the library's own bookkeeping on the user's connection (which
  /// tables are virtual, a table's columns, a file's data version): the user's trace handler hears
  /// nothing of them (no statement, profile or row event, also when a statement prepared here is reset
  /// later) and the user's authorizer is not asked about them, as SQLite does for the statements it runs
  /// itself. `body` runs none of the user's code.
  func runningOwnStatements<T>(_ body: () throws -> T) rethrows -> T {
    guard let handle else { return try body() }
    return try Amalgam.runningOwnStatements(on: handle, body)
  }

  /// Installs the commit and rollback hooks that every connection carries: they count commits and
  /// rollbacks, and tell the transaction listeners. SQLite gets the connection as user data without a
  /// reference: statements keep the connection alive until SQLite has finished with the handle, so the
  /// hooks never outlive it.
  func installTransactionHooks(_ handle: OpaquePointer) {
    sqlite3_commit_hook(
      handle,
      { userData in
        guard let userData else { return 0 }
        return Unretained<Connection>(opaque: userData).withObject { connection in
          let decision = connection.commitDecision()
          if decision == .commit {
            connection.commitCount += 1
            connection.commitAwaitsCompletion = true
          }
          return decision == .commit ? 0 : 1
        }
      }, Unretained(self).opaque)
    sqlite3_rollback_hook(
      handle,
      { userData in
        guard let userData else { return }
        Unretained<Connection>(opaque: userData).withObject { connection in
          connection.rollbackCount += 1
          connection.commitAwaitsCompletion = false
          connection.forEachTransactionListener { $0.transactionDidRollback(on: connection) }
        }
      }, Unretained(self).opaque)
  }

  /// Whether the transaction committing now may: not while commits are refused, nor when a listener
  /// says `.rollback` (the listeners after it are not asked).
  private func commitDecision() -> CommitDecision {
    if commitRefusals > 0 { return .rollback }
    var decision = CommitDecision.commit
    forEachTransactionListener { listener in
      // The listeners after one that refuses are not asked.
      if decision == .commit { decision = listener.transactionWillCommit(on: self) }
    }
    return decision
  }
}

/// ``Connection/runningOwnStatements(_:)`` on the open handle `handle`, for code that holds only the handle.
func runningOwnStatements<T>(on handle: OpaquePointer, _ body: () throws -> T) rethrows -> T {
  let taken = amalgam_own_statements_begin(handle)
  defer { amalgam_own_statements_end(handle, taken) }
  return try body()
}
