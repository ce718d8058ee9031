import Amalgam
import Foundation
import Testing

// MARK: - generate_series in Swift

/// `generate_series(start, stop, step)` as a Swift table-valued function, with the results of SQLite's
/// C `series` extension: start is required, stop defaults to 4294967295, step to 1 (0 counts as 1), a
/// negative step counts down from start to stop. Value constraints and LIMIT are left to SQLite.
final class SwiftSeries: EponymousVirtualTableModule {
  required init(database: Database, arguments: [String]) {}

  var declaration: String { "CREATE TABLE x(value, start HIDDEN, stop HIDDEN, step HIDDEN)" }
  var options: Database.VirtualTableModuleOptions { [.innocuous] }

  func bestIndex(_ info: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
    var mask: Int32 = 0
    var positions: [Int32: Int] = [:]
    for constraint in info.constraints where (1...3).contains(constraint.column) && constraint.operator == .equal {
      guard constraint.isUsable else { return .constraint }
      mask |= 1 << (constraint.column - 1)
      positions[constraint.column] = constraint.index
    }
    guard mask & 1 != 0 else {
      throw SQLiteError(code: .error, message: "first argument to generate_series() missing or unusable")
    }
    var argument = 0
    for column: Int32 in 1...3 {
      if let index = positions[column] {
        info.useConstraint(index, argumentIndex: argument, omit: true)
        argument += 1
      }
    }
    info.indexNumber = mask
    info.estimatedCost = mask & 2 != 0 ? 1 : 1e6
    info.estimatedRows = 1000
    return .ok
  }

  func openCursor() -> any VirtualTableCursor { Cursor() }

  final class Cursor: VirtualTableCursor {
    var start: Int64 = 0
    var stop: Int64 = 0
    var step: Int64 = 1
    var value: Int64 = 0
    var magnitude: UInt64 = 1
    var descending = false
    var remaining: UInt64 = 0
    var done = true

    func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) throws {
      done = true
      for index in arguments.indices where arguments.isNull(at: index) { return }
      var argument = 0
      func next(_ bit: Int32, default value: Int64) -> Int64 {
        guard indexNumber & bit != 0 else { return value }
        defer { argument += 1 }
        return arguments.int64(at: argument)
      }
      start = next(1, default: 0)
      stop = next(2, default: 0xffff_ffff)
      step = next(4, default: 1)
      if step == 0 { step = 1 }
      descending = step < 0
      magnitude = step.magnitude
      if descending ? start < stop : start > stop { return }
      let span = descending ? UInt64(bitPattern: start &- stop) : UInt64(bitPattern: stop &- start)
      remaining = span / magnitude
      value = start
      done = false
    }

    func next() {
      if remaining == 0 {
        done = true
        return
      }
      remaining -= 1
      value = descending ? value &- Int64(bitPattern: magnitude) : value &+ Int64(bitPattern: magnitude)
    }

    var eof: Bool { done }
    func rowid() -> Int64 { value }

    func column(_ index: Int32, context: FunctionContext) {
      switch index {
      case 1: context.setResult(.integer(start))
      case 2: context.setResult(.integer(stop))
      case 3: context.setResult(.integer(step))
      default: context.setResult(.integer(value))
      }
    }
  }
}

// MARK: - A writable key-value table

/// The rows of a key-value table, kept outside the table so that tests can read what the cursor did.
final class KeyValueStore {
  struct Entry: Equatable {
    var key: String
    var value: DatabaseValue
  }

  var entries: [Int64: Entry] = [:]
  var nextRowid: Int64 = 1
  /// Rows the cursors produced, filter calls made, value columns read (counting only real reads).
  var rowsProduced = 0
  var filterCalls = 0
  var valueReads = 0
  /// Calls of the transaction methods, in order.
  var events: [String] = []
  /// The contents at the start of the transaction, and of each savepoint.
  var transactionStart: [Int64: Entry]?
  var savepoints: [Int32: [Int64: Entry]] = [:]

  var contents: [String: DatabaseValue] {
    Dictionary(uniqueKeysWithValues: entries.values.map { ($0.key, $0.value) })
  }

  func rowid(of key: String) -> Int64? {
    entries.first { $0.value.key == key }?.key
  }

  func resetCounters() {
    rowsProduced = 0
    filterCalls = 0
    valueReads = 0
  }
}

/// `CREATE VIRTUAL TABLE kv USING keyvalue(id=N)`: columns `key TEXT`, `value`. Plans push `key = ?`,
/// `key IN (...)` (all at once), `LIMIT` and `ORDER BY key` down into the cursor.
final class KeyValueTable: UpdatableVirtualTableModule, TransactionalVirtualTableModule {
  let store: KeyValueStore

  required init(database: Database, arguments: [String], create: Bool) throws {
    store = try TestObjects.shared.object(arguments, as: KeyValueStore.self)
  }

  var declaration: String { "CREATE TABLE x(key TEXT, value)" }
  var options: Database.VirtualTableModuleOptions { [.constraintSupport] }

  // Plan bits: 1 key =, 2 key IN all at once, 4 LIMIT, 8 ORDER BY key consumed, 16 descending.
  func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
    var plan: Int32 = 0
    var argument = 0
    if let key = info.constraints.first(where: { $0.column == 0 && $0.operator == .equal && $0.isUsable }) {
      if key.isINListAvailable {
        info.useConstraint(key.index, argumentIndex: argument, omit: true, allAtOnce: true)
        plan |= 2
      } else {
        info.useConstraint(key.index, argumentIndex: argument, omit: true)
        plan |= 1
        info.isUniqueScan = true
      }
      argument += 1
    }
    if let limit = info.constraints.first(where: { $0.operator == .limit && $0.isUsable }) {
      info.useConstraint(limit.index, argumentIndex: argument, omit: true)
      plan |= 4
      argument += 1
    }
    if info.orderBy.count == 1, info.orderBy[0].column == 0 {
      info.orderByConsumed = true
      plan |= info.orderBy[0].descending ? 24 : 8
    }
    info.indexNumber = plan
    info.estimatedCost = plan & 3 != 0 ? 10 : Double(max(store.entries.count, 1) * 10)
    info.estimatedRows = plan & 1 != 0 ? 1 : Int64(store.entries.count)
    return .ok
  }

  func openCursor() -> any VirtualTableCursor { Cursor(store: store) }

  func insert(rowid: Int64?, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws -> Int64 {
    let key = try values.value(at: 0, as: String.self)
    if let existing = store.rowid(of: key) {
      guard onConflict == .replace else {
        throw SQLiteError(code: .constraint, message: "UNIQUE constraint failed: kv.key (\(key))")
      }
      store.entries[existing] = nil
    }
    let newRowid = rowid ?? store.nextRowid
    store.nextRowid = max(store.nextRowid, newRowid + 1)
    store.entries[newRowid] = .init(key: key, value: values[1])
    return newRowid
  }

  func update(rowid: Int64, newRowid: Int64, values: FunctionArguments, onConflict: VirtualTableConflictMode) throws {
    guard let old = store.entries[rowid] else { return }
    let key = try values.value(at: 0, as: String.self)
    let value = values.isUnchanged(at: 1) ? old.value : values[1]
    store.entries[rowid] = nil
    store.entries[newRowid] = .init(key: key, value: value)
    store.nextRowid = max(store.nextRowid, newRowid + 1)
  }

  func delete(rowid: Int64, onConflict: VirtualTableConflictMode) throws {
    store.entries[rowid] = nil
  }

  func begin() {
    store.events.append("begin")
    store.transactionStart = store.entries
  }
  func sync() { store.events.append("sync") }
  func commit() {
    store.events.append("commit")
    store.transactionStart = nil
    store.savepoints = [:]
  }
  func rollback() {
    store.events.append("rollback")
    if let start = store.transactionStart { store.entries = start }
    store.transactionStart = nil
    store.savepoints = [:]
  }
  func savepoint(_ level: Int32) {
    store.events.append("savepoint \(level)")
    store.savepoints[level] = store.entries
  }
  func release(_ level: Int32) {
    store.events.append("release \(level)")
    store.savepoints = store.savepoints.filter { $0.key < level }
  }
  func rollback(to level: Int32) {
    store.events.append("rollbackTo \(level)")
    if let saved = store.savepoints[level] { store.entries = saved }
    store.savepoints = store.savepoints.filter { $0.key <= level }
  }

  final class Cursor: VirtualTableCursor {
    let store: KeyValueStore
    var rows: [(rowid: Int64, entry: KeyValueStore.Entry)] = []
    var position = 0

    init(store: KeyValueStore) { self.store = store }

    func filter(_ arguments: FunctionArguments, indexNumber: Int32, indexName: String?) throws {
      store.filterCalls += 1
      var argument = 0
      var keys: Set<String>?
      if indexNumber & 1 != 0 {
        keys = [arguments.text(at: argument) ?? ""]
        argument += 1
      } else if indexNumber & 2 != 0 {
        keys = Set(
          try arguments.inListValues(at: argument).compactMap { value -> String? in
            if case .text(let text) = value { return text }
            return nil
          })
        argument += 1
      }
      var limit = Int.max
      if indexNumber & 4 != 0 {
        limit = max(0, Int(arguments.int64(at: argument)))
      }
      var selected: [(rowid: Int64, entry: KeyValueStore.Entry)]
      if let keys {
        selected = store.entries.filter { keys.contains($0.value.key) }.map { ($0.key, $0.value) }
      } else {
        selected = store.entries.map { ($0.key, $0.value) }
      }
      selected.sort { indexNumber & 16 != 0 ? $0.entry.key > $1.entry.key : $0.entry.key < $1.entry.key }
      rows = Array(selected.prefix(limit))
      position = 0
      if !rows.isEmpty { store.rowsProduced += 1 }
    }

    func next() {
      position += 1
      if position < rows.count { store.rowsProduced += 1 }
    }

    var eof: Bool { position >= rows.count }
    func rowid() -> Int64 { rows[position].rowid }

    func column(_ index: Int32, context: FunctionContext) {
      let entry = rows[position].entry
      if index == 0 {
        context.setResult(.text(entry.key))
      } else if !context.isUnchangedColumn {
        store.valueReads += 1
        context.setResult(entry.value)
      }
    }
  }
}

// MARK: - Lifetimes

/// Counts the tables and cursors of ``CountedTable`` that exist, and records calls.
final class LifetimeLog {
  var tablesCreated = 0
  var tablesReleased = 0
  var cursorsOpened = 0
  var cursorsReleased = 0
  var destroyed = 0
  var creates = 0
  var connects = 0
  weak var lastTable: CountedTable?
}

/// A regular module whose instances report their lifetime to a ``LifetimeLog`` (`USING counted(id=N)`).
final class CountedTable: VirtualTableModule {
  let log: LifetimeLog

  required init(database: Database, arguments: [String], create: Bool) throws {
    log = try TestObjects.shared.object(arguments, as: LifetimeLog.self)
    log.tablesCreated += 1
    if create { log.creates += 1 } else { log.connects += 1 }
    log.lastTable = self
  }

  deinit { log.tablesReleased += 1 }

  var declaration: String { "CREATE TABLE x(n)" }
  func destroy() { log.destroyed += 1 }
  func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult { .ok }
  func openCursor() -> any VirtualTableCursor { Cursor(log: log) }

  final class Cursor: VirtualTableCursor {
    let log: LifetimeLog
    var n: Int64 = 0
    init(log: LifetimeLog) {
      self.log = log
      log.cursorsOpened += 1
    }
    deinit { log.cursorsReleased += 1 }
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) { n = 1 }
    func next() { n += 1 }
    var eof: Bool { n > 3 }
    func rowid() -> Int64 { n }
    func column(_ index: Int32) -> DatabaseValue { .integer(n) }
  }
}
