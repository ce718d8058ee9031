#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import AmalgamSQLite

/// What SQLite asks of a virtual table's query plan, and the plan the table answers with: the typed
/// form of `sqlite3_index_info` that ``VirtualTableModule/bestIndex(_:)-(VirtualTableIndexInfo)``
/// receives.
///
/// The inputs are copied into Swift values: the WHERE constraints on the table (``constraints``), the
/// ORDER BY terms (``orderBy``), the columns the statement reads (``columnsUsed``) and how the
/// statement uses the rows (``distinct``). The plan is what the method sets: which constraints reach
/// the cursor's `filter` and in which position (``useConstraint(_:argumentIndex:omit:allAtOnce:)``),
/// the cost, the estimated rows, an index number and name for `filter`, whether the rows come in the
/// ORDER BY order, and whether the scan visits at most one row.
///
/// ```swift
/// func bestIndex(_ info: inout VirtualTableIndexInfo) -> VirtualTableModuleBestIndexResult {
///   if let key = info.constraints.first(where: { $0.column == 0 && $0.operator == .equal && $0.isUsable }) {
///     info.useConstraint(key.index, argumentIndex: 0, omit: true)
///     info.indexNumber = 1
///     info.estimatedCost = 1
///     info.estimatedRows = 1
///     info.isUniqueScan = true
///   } else {
///     info.estimatedCost = 1_000_000
///   }
///   return .ok
/// }
/// ```
///
/// ``rightHandValue(of:)`` reads from SQLite during the call: a kept index info returns `nil` after it.
///
/// Related SQLite documentation: <https://sqlite.org/vtab.html#the_xbestindex_method>
public struct VirtualTableIndexInfo {
  /// A constraint operator (`SQLITE_INDEX_CONSTRAINT_*`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_index_constraint_eq.html>
  public enum Operator: Sendable, Hashable {
    /// `=` (and each value of an `IN` list).
    case equal
    /// `>`.
    case greaterThan
    /// `<=`.
    case lessThanOrEqual
    /// `<`.
    case lessThan
    /// `>=`.
    case greaterThanOrEqual
    /// `MATCH`.
    case match
    /// `LIKE`.
    case like
    /// `GLOB`.
    case glob
    /// `REGEXP`.
    case regexp
    /// `!=` or `<>`.
    case notEqual
    /// `IS NOT`.
    case isNot
    /// `IS NOT NULL`.
    case isNotNull
    /// `IS NULL`.
    case isNull
    /// `IS`.
    case `is`
    /// `LIMIT n`: the right-hand value is the limit. Column is meaningless.
    case limit
    /// `OFFSET n`: the right-hand value is the offset. Column is meaningless.
    case offset
    /// A function overloaded by ``VirtualTableModule/findFunction(name:argumentCount:)`` with this
    /// ``VirtualTableFunction/constraintOperator`` (150 or more).
    case function(UInt8)
    /// An operator code this version does not know.
    case other(UInt8)

    init(code: UInt8) {
      switch Int32(code) {
      case SQLITE_INDEX_CONSTRAINT_EQ: self = .equal
      case SQLITE_INDEX_CONSTRAINT_GT: self = .greaterThan
      case SQLITE_INDEX_CONSTRAINT_LE: self = .lessThanOrEqual
      case SQLITE_INDEX_CONSTRAINT_LT: self = .lessThan
      case SQLITE_INDEX_CONSTRAINT_GE: self = .greaterThanOrEqual
      case SQLITE_INDEX_CONSTRAINT_MATCH: self = .match
      case SQLITE_INDEX_CONSTRAINT_LIKE: self = .like
      case SQLITE_INDEX_CONSTRAINT_GLOB: self = .glob
      case SQLITE_INDEX_CONSTRAINT_REGEXP: self = .regexp
      case SQLITE_INDEX_CONSTRAINT_NE: self = .notEqual
      case SQLITE_INDEX_CONSTRAINT_ISNOT: self = .isNot
      case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: self = .isNotNull
      case SQLITE_INDEX_CONSTRAINT_ISNULL: self = .isNull
      case SQLITE_INDEX_CONSTRAINT_IS: self = .is
      case SQLITE_INDEX_CONSTRAINT_LIMIT: self = .limit
      case SQLITE_INDEX_CONSTRAINT_OFFSET: self = .offset
      case SQLITE_INDEX_CONSTRAINT_FUNCTION...255: self = .function(code)
      default: self = .other(code)
      }
    }
  }

  /// One WHERE constraint on the table: `column operator value`.
  public struct Constraint: Sendable, Hashable {
    /// The constraint's position: the index to give ``VirtualTableIndexInfo/useConstraint(_:argumentIndex:omit:allAtOnce:)``.
    public var index: Int
    /// The constrained column (0 is the first declared column, hidden ones included), or -1 for the rowid.
    public var column: Int32
    /// The operator.
    public var `operator`: Operator
    /// False when the constraint's right-hand side depends on a table that this plan would scan
    /// after this one: the plan must not use it.
    public var isUsable: Bool
    /// The collation the comparison uses ("BINARY", "NOCASE", ...; `sqlite3_vtab_collation`).
    public var collation: String
    /// True for `column IN (...)` that the cursor can receive whole, as one argument
    /// (`sqlite3_vtab_in(info, i, -1)`): pass `allAtOnce: true` to use it so.
    public var isINListAvailable: Bool
  }

  /// One ORDER BY term.
  public struct OrderByTerm: Sendable, Hashable {
    /// The column (-1 for the rowid).
    public var column: Int32
    /// True for `DESC`.
    public var descending: Bool

    /// Creates a term.
    public init(column: Int32, descending: Bool) {
      self.column = column
      self.descending = descending
    }
  }

  /// How the statement uses the rows beyond their order (`sqlite3_vtab_distinct`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_distinct.html>
  public enum Distinct: Int32, Sendable {
    /// Rows are needed in the ORDER BY order, all of them (0).
    case ordered = 0
    /// A GROUP BY: rows with equal ORDER BY columns need only be together, in any order (1).
    case grouped = 1
    /// A DISTINCT: rows need only be distinct in the ORDER BY columns, in any order (2).
    case distinct = 2
    /// A DISTINCT with an ORDER BY: distinct rows, ordered (3).
    case distinctOrdered = 3
  }

  /// The WHERE constraints on the table that SQLite could hand to the cursor.
  public let constraints: [Constraint]
  /// The ORDER BY terms, when every one is a column of this table.
  public let orderBy: [OrderByTerm]
  /// The columns the statement reads: bit N for column N, bit 63 for column 63 and beyond.
  public let columnsUsed: UInt64
  /// How the statement uses the rows (`sqlite3_vtab_distinct`).
  public let distinct: Distinct

  /// The 0-based position in the cursor's `filter` arguments of each constraint, or -1 when unused.
  public private(set) var argumentIndexes: [Int]
  /// Whether the cursor fully checks each used constraint, so SQLite need not test it again.
  public private(set) var omitted: [Bool]
  /// Whether each `IN` constraint reaches `filter` as one list.
  public private(set) var inListsAllAtOnce: [Bool]

  /// The plan's cost: roughly the number of disk reads of a full scan. Defaults to a large number.
  public var estimatedCost: Double = 1e99
  /// The number of rows the plan is expected to produce.
  public var estimatedRows: Int64 = 25
  /// A number that `filter` receives as `indexNumber`.
  public var indexNumber: Int32 = 0
  /// A text that `filter` receives as `indexName`.
  public var indexName: String?
  /// Set to true when the cursor returns rows in the ORDER BY order, so SQLite does not sort them.
  public var orderByConsumed = false
  /// Set to true when the plan visits at most one row (`SQLITE_INDEX_SCAN_UNIQUE`).
  public var isUniqueScan = false

  /// SQLite's index info during the call.
  let info: UnsafeMutablePointer<sqlite3_index_info>
  /// The call this index info belongs to.
  let token: CallbackToken

  init(_ info: UnsafeMutablePointer<sqlite3_index_info>, token: CallbackToken) {
    self.info = info
    self.token = token
    let count = Int(info.pointee.nConstraint)
    var constraints: [Constraint] = []
    constraints.reserveCapacity(count)
    for index in 0..<count {
      let constraint = info.pointee.aConstraint[index]
      let collation = sqlite3_vtab_collation(info, Int32(index)).map { String(cString: $0) } ?? "BINARY"
      constraints.append(
        Constraint(
          index: index, column: constraint.iColumn, operator: Operator(code: constraint.op),
          isUsable: constraint.usable != 0, collation: collation,
          isINListAvailable: sqlite3_vtab_in(info, Int32(index), -1) != 0))
    }
    self.constraints = constraints
    orderBy = (0..<Int(info.pointee.nOrderBy)).map { index in
      let term = info.pointee.aOrderBy[index]
      return OrderByTerm(column: term.iColumn, descending: term.desc != 0)
    }
    columnsUsed = info.pointee.colUsed
    distinct = Distinct(rawValue: sqlite3_vtab_distinct(info)) ?? .ordered
    argumentIndexes = Array(repeating: -1, count: count)
    omitted = Array(repeating: false, count: count)
    inListsAllAtOnce = Array(repeating: false, count: count)
  }

  /// True when the statement reads column `column` (0-based), according to ``columnsUsed``.
  public func isColumnUsed(_ column: Int32) -> Bool {
    guard column >= 0 else { return true }
    return columnsUsed & (1 << UInt64(Swift.min(column, 63))) != 0
  }

  /// Uses constraint `constraintIndex` in the plan: its right-hand value reaches the cursor's
  /// `filter` as argument `argumentIndex` (0-based; give the used constraints the positions 0, 1, 2...
  /// without gaps). With `omit`, SQLite trusts the cursor to check it and does not test it again (it
  /// may test anyway). With `allAtOnce`, an `IN` constraint (``Constraint/isINListAvailable``)
  /// reaches `filter` as one value whose members ``FunctionArguments/inListValues(at:)`` reads, in one
  /// `filter` call instead of one per member.
  ///
  /// An index out of range is ignored.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_in.html>
  public mutating func useConstraint(
    _ constraintIndex: Int, argumentIndex: Int, omit: Bool = false, allAtOnce: Bool = false
  ) {
    guard constraintIndex >= 0 && constraintIndex < argumentIndexes.count, argumentIndex >= 0 else { return }
    argumentIndexes[constraintIndex] = argumentIndex
    omitted[constraintIndex] = omit
    inListsAllAtOnce[constraintIndex] = allAtOnce
  }

  /// The right-hand value of constraint `constraintIndex` when SQLite knows it while planning (a
  /// literal, not a parameter or a column; `sqlite3_vtab_rhs_value`), else `nil`. Also `nil` once
  /// ``VirtualTableModule/bestIndex(_:)-(VirtualTableIndexInfo)`` has returned.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/vtab_rhs_value.html>
  public func rightHandValue(of constraintIndex: Int) -> DatabaseValue? {
    guard token.isActive, constraintIndex >= 0 && constraintIndex < constraints.count else { return nil }
    var value: OpaquePointer?
    guard sqlite3_vtab_rhs_value(info, Int32(constraintIndex), &value) == SQLITE_OK, let value else { return nil }
    // Out of memory converting it: as if SQLite did not know it, which only makes the plan less informed.
    return DatabaseValue.copied(value)
  }

  /// Calls `body` with SQLite's own `sqlite3_index_info` of this call: the escape hatch for a field
  /// this type does not cover, and the form FeistyDB's `bestIndex(_ indexInfo: inout sqlite3_index_info)`
  /// works on.
  ///
  /// ```swift
  /// try info.withUnsafeRawIndexInfo { raw in raw.pointee.idxFlags |= SQLITE_INDEX_SCAN_HEX }
  /// ```
  ///
  /// The struct holds the plan as set so far (``useConstraint(_:argumentIndex:omit:allAtOnce:)``, the
  /// cost, the index number and name...), and what `body` writes to it becomes the plan: the typed
  /// properties read it back when `body` returns. The pointer is valid only during `body`, itself only
  /// during ``VirtualTableModule/bestIndex(_:)-(VirtualTableIndexInfo)``: do not keep it. A string that
  /// `body` puts in `idxStr` is copied when it returns.
  ///
  /// SQLite's fields and this type's: `aConstraint[i]` is `constraints[i]` (`iColumn` is
  /// ``Constraint/column``, `op` ``Constraint/operator``, `usable` ``Constraint/isUsable``); `aOrderBy`
  /// is ``orderBy``; `aConstraintUsage[i].argvIndex` (1-based) and `.omit` are what
  /// ``useConstraint(_:argumentIndex:omit:allAtOnce:)`` sets (``argumentIndexes`` counts from 0);
  /// `idxNum` is ``indexNumber``, `idxStr` ``indexName``,
  /// `orderByConsumed` ``orderByConsumed``, `estimatedCost` ``estimatedCost``, `estimatedRows`
  /// ``estimatedRows``, `idxFlags & SQLITE_INDEX_SCAN_UNIQUE` ``isUniqueScan`` and `colUsed`
  /// ``columnsUsed``.
  ///
  /// - Throws: ``DatabaseError/callbackValueExpired(_:)`` after the call; whatever `body` throws.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/index_info.html>
  public mutating func withUnsafeRawIndexInfo<R>(
    _ body: (UnsafeMutablePointer<sqlite3_index_info>) throws -> R
  ) throws -> R {
    try token.check("the sqlite3_index_info of a bestIndex call")
    apply()
    defer { readBack() }
    return try body(info)
  }

  /// Reads the plan back from SQLite's index info, after code wrote to it directly.
  private mutating func readBack() {
    for index in 0..<argumentIndexes.count {
      let usage = info.pointee.aConstraintUsage[index]
      argumentIndexes[index] = Int(usage.argvIndex) - 1
      omitted[index] = usage.omit != 0
    }
    estimatedCost = info.pointee.estimatedCost
    estimatedRows = info.pointee.estimatedRows
    indexNumber = info.pointee.idxNum
    indexName = info.pointee.idxStr.map { String(cString: $0) }
    orderByConsumed = info.pointee.orderByConsumed != 0
    isUniqueScan = info.pointee.idxFlags & SQLITE_INDEX_SCAN_UNIQUE != 0
  }

  /// Writes the plan into SQLite's index info (during the call). Safe to repeat: a name written
  /// before is freed when it is replaced.
  func apply() {
    for index in 0..<argumentIndexes.count {
      let usage = info.pointee.aConstraintUsage.advanced(by: index)
      let argument = argumentIndexes[index]
      usage.pointee.argvIndex = argument >= 0 ? Int32(clamping: argument + 1) : 0
      usage.pointee.omit = omitted[index] ? 1 : 0
      if inListsAllAtOnce[index] && argument >= 0 {
        _ = sqlite3_vtab_in(info, Int32(index), 1)
      }
    }
    info.pointee.estimatedCost = estimatedCost
    info.pointee.estimatedRows = estimatedRows
    info.pointee.idxNum = indexNumber
    let previousName = info.pointee.needToFreeIdxStr != 0 ? info.pointee.idxStr : nil
    info.pointee.idxStr = indexName.flatMap(sqliteCopy)
    info.pointee.needToFreeIdxStr = info.pointee.idxStr == nil ? 0 : 1
    if let previousName { sqlite3_free(previousName) }
    info.pointee.orderByConsumed = orderByConsumed ? 1 : 0
    if isUniqueScan {
      info.pointee.idxFlags |= SQLITE_INDEX_SCAN_UNIQUE
    } else {
      info.pointee.idxFlags &= ~SQLITE_INDEX_SCAN_UNIQUE
    }
  }
}

/// A copy of `text` in memory from `sqlite3_malloc`, NUL-terminated, for SQLite to free with
/// `sqlite3_free` (error messages, `idxStr`); `nil` when out of memory.
func sqliteCopy(_ text: String) -> UnsafeMutablePointer<CChar>? {
  var text = text
  return text.withUTF8 { bytes in
    guard let memory = sqlite3_malloc64(UInt64(bytes.count + 1)) else { return nil }
    let chars = memory.bindMemory(to: CChar.self, capacity: bytes.count + 1)
    bytes.withMemoryRebound(to: CChar.self) { source in
      if let base = source.baseAddress { chars.update(from: base, count: source.count) }
    }
    chars[bytes.count] = 0
    return chars
  }
}
