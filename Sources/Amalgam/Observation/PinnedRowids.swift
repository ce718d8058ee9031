import AmalgamSQLite

/// What one program of a statement reads, table by table: the tables it reads only at rowids pinned by
/// a bound parameter or an integer constant (`SELECT name FROM t WHERE id = ?`, `WHERE rowid = 5`), and
/// the tables it reads at all rows.
///
/// Made by `amalgam_analyze_rowids` from the statement's bytecode, which errs one way only: a table is
/// pinned when every row of it that the program reads is found by `OP_SeekRowid` with such a key. Rows
/// found through an index, a scan, an `IN` list or a key read from another table (the inner table of a
/// join), WITHOUT ROWID tables and virtual tables are all rows. A program with an instruction the
/// analysis does not follow (a trigger's subprogram, nested SQL, a schema change) is opaque: what it
/// reads is not known table by table.
///
/// Valid for the program it was made from: SQLite replaces a statement's program when it prepares the
/// statement again (after a schema change).
struct RowidAnalysis: Sendable {
  /// Where a pinned rowid comes from.
  enum Key: Hashable, Sendable {
    /// The bound parameter of this number (1-based), read at each execution.
    case parameter(Int32)
    /// An integer constant of the SQL.
    case constant(Int64)
  }

  /// A table the program reads, and the keys of the rows it reads (`nil`: every row).
  struct Read: Hashable, Sendable {
    var table: DatabaseRegion.Table
    var keys: [Key]?
  }

  /// Whether what the program reads is not known table by table.
  var isOpaque: Bool
  /// The tables the program reads through btree cursors (none when opaque).
  var reads: [Read]

  /// The analysis of the program `statement` runs now. Opaque when memory runs out.
  init(statement: OpaquePointer) {
    guard let analysis = amalgam_analyze_rowids(statement) else {
      self.init(isOpaque: true, reads: [])
      return
    }
    defer { amalgam_rowid_analysis_free(analysis) }
    let result = analysis.pointee
    guard result.isOpaque == 0 else {
      self.init(isOpaque: true, reads: [])
      return
    }
    var reads: [Read] = []
    for index in 0..<Int(result.tableCount) {
      let table = result.tables[index]
      guard let schema = table.schema, let name = table.name else {
        self.init(isOpaque: true, reads: [])
        return
      }
      reads.append(
        Read(
          table: DatabaseRegion.Table(schema: String(cString: schema), name: String(cString: name)),
          keys: table.isPinned != 0 ? [] : nil))
    }
    for index in 0..<Int(result.pinCount) {
      let pin = result.pins[index]
      let key: Key = pin.parameter > 0 ? .parameter(pin.parameter) : .constant(pin.constant)
      let table = Int(pin.table)
      guard reads.indices.contains(table), reads[table].keys?.contains(key) == false else { continue }
      reads[table].keys?.append(key)
    }
    self.init(isOpaque: false, reads: reads)
  }

  init(isOpaque: Bool, reads: [Read]) {
    self.isOpaque = isOpaque
    self.reads = reads
  }

  /// The rowids that an execution of `statement` with its current bindings reads of the pinned table
  /// `read`: the constants, and each bound parameter that `OP_SeekRowid` turns into a rowid (an integer,
  /// or text or a real that NUMERIC affinity makes an integer exactly; a parameter bound to NULL or to
  /// `'x'` finds no row and adds none).
  static func rowids(of keys: [Key], boundIn statement: OpaquePointer) -> Set<Int64>? {
    var rowids = Set<Int64>(minimumCapacity: keys.count)
    for key in keys {
      switch key {
      case .constant(let value):
        rowids.insert(value)
      case .parameter(let number):
        var rowid: Int64 = 0
        switch amalgam_bound_rowid(statement, number, &rowid) {
        case 1: rowids.insert(rowid)
        case 0: break
        default: return nil
        }
      }
    }
    return rowids
  }
}

/// The rows that statement executions read, table by table, gathered while SQLite starts each one
/// (`SQLITE_TRACE_STMT`, relayed by `amalgam_statement_relay` to the trace callback registered before,
/// if any): the rowid side of a recorded region.
///
/// Every execution that starts on the connection while gathering is seen, whatever runs it (a
/// ``Statement``, `Database.execute`, `sqlite3_exec` on the raw handle, a virtual table's own
/// statements). A table is then read at some rowids only if every execution that read it pinned it; the
/// rows are those its pins named with that execution's bindings. The gathering is void, and every table
/// read at all rows, when an execution's program is opaque, when another trace callback replaced the
/// relay meanwhile (executions may have been missed), or when a schema changed or was reloaded (an
/// execution that SQLite prepared again after `SQLITE_SCHEMA` is not reported a second time).
///
/// The analysis of each statement's program is made once and kept until SQLite prepares the statement
/// again: it is identified by the statement, its SQL, its program's address and length, its re-prepare
/// count and the schemas' fingerprint.
///
/// Used only on the thread using the connection; the relay calls back on that thread, inside a step.
final class PinnedRowids {
  /// What a gathering saw: for each table read, its rowids (`nil`: every row).
  struct Reads: Equatable {
    var tables: [DatabaseRegion.Table: Set<Int64>?] = [:]
    /// Whether an execution read something that is not known table by table.
    var isVoid = false

    /// Adds what one execution read.
    mutating func add(_ table: DatabaseRegion.Table, _ rowids: Set<Int64>?) {
      guard let rowids else {
        tables[table] = .some(nil)
        return
      }
      if let held = tables[table] {
        if let held { tables[table] = held.union(rowids) }
      } else {
        tables[table] = rowids
      }
    }

    /// The pinned tables and their rowids.
    var pinned: [DatabaseRegion.Table: Set<Int64>] {
      tables.compactMapValues { $0 }
    }
  }

  /// An analysis and what identifies the program it was made from.
  private struct Cached {
    var sql: ContiguousArray<CChar>
    var reprepareCount: Int32
    var program: UnsafeRawPointer?
    var instructionCount: Int32
    var fingerprint: UInt64
    var analysis: RowidAnalysis

    func isValid(for statement: OpaquePointer, fingerprint: UInt64) -> Bool {
      var count: Int32 = 0
      guard self.fingerprint == fingerprint,
        amalgam_statement_program(statement, &count) == program, count == instructionCount,
        sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0) == reprepareCount,
        let text = sqlite3_sql(statement)
      else { return false }
      return isCopy(sql, of: text)
    }
  }

  /// The C relay, at a stable address while installed.
  private let relay: UnsafeMutablePointer<amalgam_statement_relay>
  private var isRelaying = false
  /// What each gathering under way saw, innermost last (gatherings nest as recordings do).
  private var gatherings: [Reads] = []
  /// The schemas' fingerprint when the outermost gathering began.
  private var startFingerprint: UInt64 = 0
  private var handle: OpaquePointer?
  private var cache: [OpaquePointer: Cached] = [:]

  init() {
    relay = .allocate(capacity: 1)
    relay.initialize(to: amalgam_statement_relay())
  }

  deinit {
    relay.deinitialize(count: 1)
    relay.deallocate()
  }

  /// Starts gathering on `handle`: every execution that starts from now on counts until the matching
  /// ``end()``.
  func begin(_ handle: OpaquePointer) {
    if gatherings.isEmpty {
      self.handle = handle
      startFingerprint = amalgam_schema_fingerprint(handle)
      relay.pointee.onStatement = { context, statement in
        guard let context, let statement else { return }
        Unretained<PinnedRowids>(opaque: context).withObject { $0.statementDidStart(statement) }
      }
      // The relay refers to this object without retaining it: the connection's state keeps it alive,
      // and ``end()`` or ``stop(_:)`` removes the relay before it goes.
      relay.pointee.context = Unretained(self).opaque
      isRelaying = amalgam_statement_relay_install(handle, relay) != 0
    }
    gatherings.append(Reads(isVoid: !isRelaying))
  }

  /// Ends the innermost gathering and returns what it saw.
  func end() -> Reads {
    guard var reads = gatherings.popLast() else { return Reads(isVoid: true) }
    guard gatherings.isEmpty, let handle else { return reads }
    if isRelaying, amalgam_statement_relay_remove(handle, relay) == 0 { reads.isVoid = true }
    isRelaying = false
    if amalgam_schema_fingerprint(handle) != startFingerprint { reads.isVoid = true }
    self.handle = nil
    prune(handle)
    return reads
  }

  /// Stops relaying on `handle`, before the connection closes.
  func stop(_ handle: OpaquePointer) {
    if isRelaying { _ = amalgam_statement_relay_remove(handle, relay) }
    isRelaying = false
    for index in gatherings.indices { gatherings[index].isVoid = true }
    self.handle = nil
    cache = [:]
  }

  /// One execution of `statement` starts: adds what it reads to every gathering under way.
  private func statementDidStart(_ statement: OpaquePointer) {
    guard !gatherings.isEmpty else { return }
    let analysis = analysis(of: statement)
    if analysis.isOpaque {
      for index in gatherings.indices { gatherings[index].isVoid = true }
      return
    }
    for read in analysis.reads {
      let rowids = read.keys.flatMap { RowidAnalysis.rowids(of: $0, boundIn: statement) }
      for index in gatherings.indices { gatherings[index].add(read.table, rowids) }
    }
  }

  /// The analysis of `statement`'s current program, from the cache when it is still valid.
  private func analysis(of statement: OpaquePointer) -> RowidAnalysis {
    let fingerprint = handle.map { amalgam_schema_fingerprint($0) } ?? 0
    if let cached = cache[statement], cached.isValid(for: statement, fingerprint: fingerprint) {
      return cached.analysis
    }
    let analysis = RowidAnalysis(statement: statement)
    guard let sql = sqlite3_sql(statement) else { return analysis }
    var count: Int32 = 0
    let program = amalgam_statement_program(statement, &count)
    cache[statement] = Cached(
      sql: copyCString(sql), reprepareCount: sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0),
      program: program, instructionCount: count, fingerprint: fingerprint, analysis: analysis)
    return analysis
  }

  /// Forgets the analyses of finalized statements once they outnumber the live ones.
  private func prune(_ handle: OpaquePointer) {
    guard cache.count > 32 else { return }
    var live: Set<OpaquePointer> = []
    var statement = sqlite3_next_stmt(handle, nil)
    while let current = statement {
      live.insert(current)
      statement = sqlite3_next_stmt(handle, current)
    }
    guard cache.count > 2 * live.count + 16 else { return }
    cache = cache.filter { live.contains($0.key) }
  }
}

extension DatabaseRegion {
  /// This region with each of `pinned`'s tables that it holds restricted to those rowids (its columns
  /// kept). A table that the region holds at some rowids already keeps the union.
  func restrictingRows(_ pinned: [Table: Set<Int64>]) -> DatabaseRegion {
    guard !isFullDatabase, !pinned.isEmpty else { return self }
    var restrictions = self.restrictions
    for (table, rowids) in pinned where tables.contains(table) {
      var part = restrictions[table] ?? .whole
      part.rowids = part.rowids.map { $0.union(rowids) } ?? rowids
      restrictions[table] = part
    }
    return DatabaseRegion(tables: tables, virtualTables: virtualTables, restrictions: restrictions)
  }
}
