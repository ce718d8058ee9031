import AmalgamSQLite

/// Finds a statement's parameters by name without asking SQLite each time.
///
/// SQLite's `sqlite3_bind_parameter_index` compares the name against every parameter and needs a C
/// string; binding by name row after row would convert and search on every call. The names are read
/// once. Names usually arrive in the statement's order (a `Codable` type's properties, a literal list
/// of pairs), so the caller passes the parameter after the last one it found as a hint, which costs
/// one comparison when right; any other order costs one hash. Immutable, so that a lookup touches no
/// shared state.
@usableFromInline
final class ParameterLookup {
  /// Parameter `i`'s full name (`":id"`) at `i - 1`; `nil` for `?`.
  private let names: [String?]
  /// The name without its prefix at `i - 1` when that bare name resolves to parameter `i`, else `nil`.
  private let bareNames: [String?]
  /// Every accepted spelling (full names, and bare names) to its 1-based index.
  private let table: [String: Int32]

  init(statement: OpaquePointer, count: Int) {
    var names: [String?] = []
    names.reserveCapacity(count)
    var table: [String: Int32] = [:]
    for index in 0..<count {
      let name = sqlite3_bind_parameter_name(statement, Int32(index + 1)).map { String(cString: $0) }
      names.append(name)
      // SQLite's own lookup returns the first parameter of a name: keep the first.
      if let name, table[name] == nil { table[name] = Int32(index + 1) }
    }
    // A bare name means `:name`, then `@name`, then `$name`: whichever the statement has first in
    // that order of prefixes.
    for prefix in [":", "@", "$"] {
      for (index, name) in names.enumerated() {
        guard let name, name.hasPrefix(prefix) else { continue }
        let bare = String(name.dropFirst())
        if !bare.isEmpty, table[bare] == nil { table[bare] = Int32(index + 1) }
      }
    }
    self.bareNames = names.enumerated().map { index, name in
      guard let bare = name.map({ String($0.dropFirst()) }), table[bare] == Int32(index + 1) else { return nil }
      return bare
    }
    self.names = names
    self.table = table
  }

  /// The 1-based index of `name`, or `nil` when no parameter has it. `hint` is the 1-based index to
  /// try first: pass the index found last plus one.
  @inline(__always)
  func index(of name: String, hint: Int32) -> Int32? {
    let position = Int(hint) - 1
    // Bare names first: a `Codable` key or a dictionary key usually comes without its prefix.
    if position >= 0, position < names.count, bareNames[position] == name || names[position] == name {
      return hint
    }
    return hashedIndex(of: name)
  }

  private func hashedIndex(of name: String) -> Int32? { table[name] }
}

/// The names of a complete bind by name, in the order given, with the parameter each one resolved to.
///
/// A call site binds the same names in the same order every time (a list of pairs, a record's keys), so
/// the statement remembers the last list that bound every parameter exactly once: the next bind that
/// gives the same names in the same order compares each name with the remembered one (equal literals
/// compare in a few instructions) instead of resolving it, and needs no duplicate or missing check.
/// Parameter names come from the SQL text, which a re-prepare keeps, so the indexes stay right for the
/// statement's life.
@usableFromInline
struct NamedBinding {
  @usableFromInline var names: [String] = []
  @usableFromInline var indexes: [Int32] = []

  @usableFromInline init() {}

  /// The number of names remembered.
  @inlinable var count: Int { names.count }

  /// The parameter of the name at `position`, if that name is `name`.
  @inlinable @inline(__always)
  func index(at position: Int, ifNamed name: String) -> Int32? {
    guard position < names.count, names[position] == name else { return nil }
    return indexes[position]
  }

  /// True when the name at `position` (which must be below ``count``) is `name`.
  @inlinable @inline(__always)
  func isName(_ name: String, at position: Int) -> Bool { names[position] == name }

  /// Appends a name and the parameter it resolved to.
  @usableFromInline
  mutating func append(_ name: String, _ index: Int32) {
    names.append(name)
    indexes.append(index)
  }

  /// Forgets every name, keeping the storage.
  mutating func removeAll() {
    names.removeAll(keepingCapacity: true)
    indexes.removeAll(keepingCapacity: true)
  }
}

/// The set of parameter indexes bound so far: a bit mask for up to 64 parameters, a `Set` beyond.
struct ParameterSet {
  private var bits: UInt64 = 0
  private var large: Set<Int32>?
  /// How many distinct indexes were inserted.
  private(set) var count = 0

  init(count: Int) {
    if count > 64 { large = [] }
  }

  /// Inserts `index` (1-based); false if it was already there.
  @inline(__always)
  mutating func insert(_ index: Int32) -> Bool {
    if large != nil {
      guard large?.insert(index).inserted == true else { return false }
    } else {
      let bit = UInt64(1) << UInt64(truncatingIfNeeded: index - 1)
      guard bits & bit == 0 else { return false }
      bits |= bit
    }
    count += 1
    return true
  }

  /// Empties the set, keeping a large set's storage.
  mutating func removeAll() {
    bits = 0
    count = 0
    if large != nil { large?.removeAll(keepingCapacity: true) }
  }

  func contains(_ index: Int32) -> Bool {
    if let large { return large.contains(index) }
    return bits & (UInt64(1) << UInt64(truncatingIfNeeded: index - 1)) != 0
  }
}

/// Binding by name, one value after another: finds each name's parameter, rejects a parameter given two
/// values, and at the end a parameter given none. Every way of binding by name goes through it.
@usableFromInline
struct NamedParameterResolver {
  /// Unretained: the resolver's user holds the statement (a statement's encoder sink keeps a
  /// resolver, and a reference would make a cycle).
  let unretainedStatement: Unretained<Statement>
  /// The statement, for the error paths.
  private var statement: Statement { unretainedStatement.object }
  let lookup: ParameterLookup
  private(set) var bound: ParameterSet
  /// The parameter after the last one found: names usually come in the statement's order.
  private var hint: Int32 = 1

  @usableFromInline
  init(statement: Statement) {
    self.unretainedStatement = Unretained(statement)
    self.lookup = statement.parameterLookup
    self.bound = ParameterSet(count: statement.parameterCount)
  }

  /// Forgets which parameters were given values, for the next set of values.
  mutating func restart() {
    bound.removeAll()  // in place: no copy of the set
    hint = 1
  }

  /// The 1-based index of the parameter named `name` (with or without its prefix), or `nil` if the
  /// statement has none.
  ///
  /// - Throws: ``DatabaseError/duplicateParameter(name:sql:)`` if it was already given a value.
  @inline(__always)
  mutating func resolveIfPresent(_ name: String) throws -> Int32? {
    guard let index = lookup.index(of: name, hint: hint) else { return nil }
    guard bound.insert(index) else { throw DatabaseError.duplicateParameter(name: name, sql: statement.sql) }
    hint = index &+ 1
    return index
  }

  /// Records that the parameter at `index` (1-based) was given a value found without ``resolve(_:)``.
  mutating func markGiven(_ index: Int32) {
    _ = bound.insert(index)
    hint = index &+ 1
  }

  /// The 1-based index of the parameter named `name`.
  ///
  /// - Throws: ``DatabaseError/noSuchParameter(name:sql:)`` or ``DatabaseError/duplicateParameter(name:sql:)``.
  @usableFromInline
  mutating func resolve(_ name: String) throws -> Int32 {
    guard let index = try resolveIfPresent(name) else {
      throw DatabaseError.noSuchParameter(name: name, sql: statement.sql)
    }
    return index
  }

  /// Throws ``DatabaseError/missingParameter(name:sql:)`` (or ``DatabaseError/unnamedParameter(index:sql:)``)
  /// for the first parameter given no value. (Mutating, so that calling it on a resolver stored in a
  /// class reads the resolver in place rather than a copy of it.)
  @usableFromInline
  mutating func finish() throws {
    let count = unretainedStatement.withObject { $0.parameterCount }
    guard bound.count != count else { return }
    for index in 1...count where !bound.contains(Int32(index)) {
      guard let name = statement.parameterName(at: index) else {
        throw DatabaseError.unnamedParameter(index: index, sql: statement.sql)
      }
      throw DatabaseError.missingParameter(name: name, sql: statement.sql)
    }
  }
}
