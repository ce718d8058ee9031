import AmalgamSQLite

/// The registration slots of the per-connection hooks, the keys of ``HookRegistry/slots``. SQLite keeps
/// one callback per slot, so registering again replaces the previous closure, and removing the entry
/// releases it.
enum HookSlot: Hashable {
  case update
  /// Shared with sessions: see `Database.isPreUpdateHookInUse`.
  case preUpdate
  case authorizer
  case trace
  case progress
  case busy
  case wal
  case collationNeeded

  /// The restriction SQLite places on the slot's callback: all but the trace callback, the WAL hook and
  /// the collation-needed handler must not use their connection; the collation-needed handler runs
  /// while SQLite prepares a statement, so it may only read (and register collations).
  var restriction: RestrictedCallback? {
    switch self {
    case .update: .updateHook
    case .preUpdate: .preUpdateHook
    case .authorizer: .authorizer
    case .progress: .progressHandler
    case .busy: .busyHandler
    case .collationNeeded: .collationNeeded
    case .trace, .wal: nil
    }
  }
}

/// An object in a hook slot that must release SQLite objects tied to the connection (such as the
/// sessions that hold the pre-update slot) before ``Database/close()`` closes it.
protocol ConnectionCloseObserver: AnyObject {
  func connectionWillClose()
}

/// The hooks and handlers registered on a connection: the objects SQLite holds raw pointers to (hook
/// and handler closures registered without a destructor), by slot.
final class HookRegistry: ConnectionState {
  /// The object registered in each slot. Replacing an entry releases the old object.
  var slots: [HookSlot: AnyObject] = [:]

  /// The `SQLITE_TRACE_*` mask of the trace handler in ``slots``, 0 for none.
  var traceMask: UInt32 = 0

  init() {}

  func connectionWillClose(_ handle: OpaquePointer) {
    for case let observer as any ConnectionCloseObserver in slots.values {
      observer.connectionWillClose()
    }
  }

  /// Unregisters every hook and handler. The trace handler keeps only the close event, which
  /// `sqlite3_close_v2` reports before it returns.
  func unregisterCallbacks(_ handle: OpaquePointer) {
    for (slot, object) in slots {
      switch slot {
      case .update: sqlite3_update_hook(handle, nil, nil)
      case .preUpdate:
        #if ENABLE_PREUPDATE_HOOK
          sqlite3_preupdate_hook(handle, nil, nil)
        #endif
      case .authorizer: sqlite3_set_authorizer(handle, nil, nil)
      case .trace:
        let close = traceMask & UInt32(SQLITE_TRACE_CLOSE)
        if close != 0 {
          sqlite3_trace_v2(handle, close, traceCallback, Unretained(object).opaque)
        } else {
          sqlite3_trace_v2(handle, 0, nil, nil)
        }
      case .progress:
        #if !OMIT_PROGRESS_CALLBACK
          sqlite3_progress_handler(handle, 0, nil, nil)
        #endif
      case .busy: sqlite3_busy_handler(handle, nil, nil)
      case .wal: sqlite3_wal_hook(handle, nil, nil)
      case .collationNeeded: sqlite3_collation_needed(handle, nil, nil)
      }
    }
  }

  func connectionDidClose() {
    slots.removeAll()
    traceMask = 0
  }
}

/// The user's commit and rollback hooks (``Database/setCommitHook(_:)``,
/// ``Database/setRollbackHook(_:)``), told by the transaction hooks that every connection carries.
final class UserTransactionHooks: TransactionListener, ConnectionState {
  var commitHook: (() -> CommitDecision)?
  var rollbackHook: (() -> Void)?

  override init() {}

  override func transactionWillCommit(on connection: Connection) -> CommitDecision {
    commitHook.map { hook in connection.restricting(.commitHook, hook) } ?? .commit
  }

  override func transactionDidRollback(on connection: Connection) {
    if let hook = rollbackHook { connection.restricting(.rollbackHook, hook) }
  }

  func connectionDidClose() {
    commitHook = nil
    rollbackHook = nil
  }
}

extension RestrictedCallback {
  static let busyHandler = RestrictedCallback("busy handler", may: .nothing)
  static let commitHook = RestrictedCallback("commit hook", may: .nothing)
  static let rollbackHook = RestrictedCallback("rollback hook", may: .nothing)
  static let updateHook = RestrictedCallback("update hook", may: .nothing)
  static let preUpdateHook = RestrictedCallback("pre-update hook", may: .nothing)
  static let authorizer = RestrictedCallback("authorizer", may: .nothing)
  static let progressHandler = RestrictedCallback("progress handler", may: .nothing)
  static let collationNeeded = RestrictedCallback(
    "collation-needed handler", may: .readOnlyQueries(reason: whilePreparing))
}
