import AmalgamSQLite

/// A `Codable` type stored as the rows of one table: its properties are the columns, named as its
/// `CodingKeys` say.
///
/// ```swift
/// struct Player: TableRecord {
///   static let tableName = "player"
///   var id: Int64?          // INTEGER PRIMARY KEY: nil lets SQLite choose the rowid
///   var name: String
///   var score: Int
/// }
/// let id = try db.insert(Player(id: nil, name: "Ada", score: 10))
/// var ada = try db.fetch(Player.self, id: id)!
/// ada.score += 5
/// try db.update(ada)
/// let best = try db.fetchAll(Player.self, where: "score > \(10) ORDER BY score DESC")
/// ```
///
/// Writing encodes the value with ``StatementEncoder`` into named parameters (`:name`), so column names
/// must be valid parameter names: letters, digits and underscores. Each write binds the columns the value
/// encodes (synthesized `Codable` encodes every property, `nil` as NULL). A value that encodes a column
/// the values before it left out (an `encode(to:)` that skips `nil`) writes it all the same; one that
/// leaves columns out writes only the others, so an insert gives those their defaults and an update
/// leaves them unchanged. Reading decodes with ``RowDecoder`` from `SELECT *`.
///
/// Upserts, updates, deletes and fetches by key need ``primaryKey`` to list the key's columns; with an
/// empty list they throw ``DatabaseError/recordWithoutPrimaryKey(type:table:)`` (inserts and the fetches
/// that take a condition work).
///
/// A record read or written often can skip `Codable` there, as GRDB's records do: conform it to
/// ``RowConvertible`` as well, and every record fetch builds it with `init(row:)`; implement
/// ``encode(to:)`` and every write binds the columns it gives (see ``PersistenceContainer``).
///
/// Writes and fetches by primary key run statements of the connection's statement cache
/// (``Database/cachedStatement(sql:)``) and leave their values bound until the statement's next use,
/// which binds every parameter again; ``Database/clearStatementCache()`` lets the values go.
///
/// Related SQLite documentation: <https://sqlite.org/lang_insert.html>,
/// <https://sqlite.org/lang_upsert.html>, <https://sqlite.org/lang_update.html>
public protocol TableRecord: Codable {
  /// The table's name.
  static var tableName: String { get }
  /// The columns of the primary key, in order; by default `["id"]`.
  static var primaryKey: [String] { get }

  /// Writes the record's columns, for every insert, upsert, update and delete of the record. By
  /// default every property, through `Encodable` (``PersistenceContainer/encodeProperties(of:)``).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  func encode(to container: inout PersistenceContainer) throws

  /// Builds a record from a row of one of the record fetches (`fetch(_:id:)`, `fetchAll(_:where:)`,
  /// ...). By default `decoder` decodes it; a record that is also ``RowConvertible`` is built with its
  /// `init(row:)` instead.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  init(row: borrowing Row, decoder: RowDecoder) throws
}

extension TableRecord {
  /// `["id"]`.
  public static var primaryKey: [String] { ["id"] }

  /// Writes every property through `Encodable`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  public func encode(to container: inout PersistenceContainer) throws {
    try container.encodeProperties(of: self)
  }

  /// Decodes the record with `decoder`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  public init(row: borrowing Row, decoder: RowDecoder) throws {
    self = try decoder.decode(Self.self, from: row)
  }
}

extension TableRecord where Self: RowConvertible {
  /// Builds the record with its `init(row:)`: the record fetches of a type that is both a
  /// ``TableRecord`` and ``RowConvertible`` skip `Decodable`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/column_blob.html>
  public init(row: borrowing Row, decoder: RowDecoder) throws {
    try self.init(row: row)
  }
}

extension TableRecord {
  /// Binds the record's columns (``encode(to:)``) to `statement`'s named parameters.
  @usableFromInline
  func bindColumns(to statement: Statement, encoder: StatementEncoder) throws {
    try encoder.withSink(of: statement) { sink in
      var container = PersistenceContainer(.statement(Unretained(sink)))
      try encode(to: &container)
      // A column the statement has no parameter for would be lost: the caller writes it another way.
      if sink.skippedKey { throw RecordLayoutMismatch() }
    }
  }

  /// The record's columns (``encode(to:)``) and their values, stored as `db` stores them: dates in the
  /// encoder's format or else `db`'s (``ValueStorage/dates``), unsigned integers above `Int64.max` by
  /// bit pattern when `db` does (``ValueStorage/unsignedIntegersAsBitPattern``), as a bind on `db` does.
  /// With no `db`, only the columns count (the values of a layout): no value is refused.
  func columnValues(encoder: StatementEncoder, for db: Database?) throws -> [String: DatabaseValue] {
    var encoder = encoder
    if encoder.dateFormat == nil, let db { encoder.dateFormat = db.valueStorage.dates }
    let sink = DictionarySink(options: encoder)
    sink.unsignedIntegersAsBitPattern = db?.valueStorage.unsignedIntegersAsBitPattern ?? true
    var container = PersistenceContainer(.dictionary(Unretained(sink)))
    try encode(to: &container)
    return withExtendedLifetime(sink) { sink.values }
  }
}

/// The SQL that writes one record type, built from the columns its values encode. A class, so that
/// handing it out costs one reference count, not one per string.
///
/// The layout cached for a type starts with the columns of the first value written, and widens when a
/// later value encodes a column that the values before it left out (a record whose `encode(to:)` skips
/// nil properties), so that no value loses a column. A value that encodes other columns than the
/// cached layout's is written with SQL of its own columns (``fresh(_:encoder:)``).
final class RecordLayout: Sendable {
  let columns: [String]
  let insertSQL: String
  /// `nil` when the record type has no primary key.
  let upsertSQL: String?
  /// `nil` when every column is a key column (there is nothing to set), or there is no primary key.
  let updateSQL: String?

  init<R: TableRecord>(_ type: R.Type, columns: [String]) {
    self.columns = columns
    let table = SQLLiteral.quote(identifier: R.tableName)
    let names = columns.map(SQLLiteral.quote(identifier:)).joined(separator: ", ")
    let parameters = columns.map { ":" + $0 }.joined(separator: ", ")
    insertSQL = "INSERT INTO \(table)(\(names)) VALUES (\(parameters))"
    let key = R.primaryKey
    guard !key.isEmpty else {
      upsertSQL = nil
      updateSQL = nil
      return
    }
    let others = columns.filter { !key.contains($0) }
    let conflict = key.map(SQLLiteral.quote(identifier:)).joined(separator: ", ")
    let assignments = others.map {
      "\(SQLLiteral.quote(identifier: $0)) = excluded.\(SQLLiteral.quote(identifier: $0))"
    }
    upsertSQL =
      insertSQL + " ON CONFLICT(\(conflict)) DO "
      + (assignments.isEmpty ? "NOTHING" : "UPDATE SET " + assignments.joined(separator: ", "))
    let keyCondition = RecordLayout.keyCondition(key, named: true)
    updateSQL =
      others.isEmpty
      ? nil
      : "UPDATE \(table) SET \(others.map { "\(SQLLiteral.quote(identifier: $0)) = :\($0)" }.joined(separator: ", ")) WHERE \(keyCondition)"
  }

  /// `"a" = :a AND "b" = :b`, or with `?` parameters.
  static func keyCondition(_ key: [String], named: Bool) -> String {
    key.map { "\(SQLLiteral.quote(identifier: $0)) = \(named ? ":" + $0 : "?")" }.joined(separator: " AND ")
  }

  /// The primary key columns of `R`.
  ///
  /// - Throws: ``DatabaseError/recordWithoutPrimaryKey(type:table:)`` when `R` lists none.
  static func primaryKey<R: TableRecord>(of type: R.Type) throws -> [String] {
    let key = R.primaryKey
    guard !key.isEmpty else { throw missingPrimaryKey(R.self) }
    return key
  }

  /// The error for a write or lookup by primary key of a record type that has none.
  static func missingPrimaryKey<R: TableRecord>(_ type: R.Type) -> DatabaseError {
    .recordWithoutPrimaryKey(type: "\(R.self)", table: R.tableName)
  }

  /// The cached layouts by record type, and the layouts that wider ones replaced: connections remember
  /// layouts unretained, so every layout handed out stays for the life of the process.
  private struct Cache {
    var layouts: [ObjectIdentifier: RecordLayout] = [:]
    var replaced: [RecordLayout] = []
  }

  private static let cache = LockedState(Cache())

  /// The layout of `R`, built from `value` the first time.
  static func of<R: TableRecord>(_ value: R, encoder: StatementEncoder) throws -> RecordLayout {
    if let layout = cache.withLock({ $0.layouts[ObjectIdentifier(R.self)] }) { return layout }
    let layout = try fresh(value, encoder: encoder)
    // The first layout stored for a type stays until a wider one replaces it (two threads may build
    // one at once).
    return cache.withLock { cache in
      if let first = cache.layouts[ObjectIdentifier(R.self)] { return first }
      cache.layouts[ObjectIdentifier(R.self)] = layout
      return layout
    }
  }

  /// The layout of `R` as `database` last used it: a loop over one record type finds it without
  /// taking the process-wide lock or hashing, and without a reference count (the process-wide cache
  /// keeps every layout it hands out).
  static func of<R: TableRecord>(
    _ value: R, encoder: StatementEncoder, in database: Database
  ) throws -> Unretained<RecordLayout> {
    let type = ObjectIdentifier(R.self)
    if let memo = database.recordMemo.layout, memo.type == type { return memo.layout }
    let layout = Unretained(try of(value, encoder: encoder))
    database.recordMemo.layout = (type, layout)
    return layout
  }

  /// Widens the cached layout of `R` to also write `layout`'s columns, when a value encoded columns
  /// that the cached layout lacks, so that the next values with those columns take the cached SQL.
  static func widen<R: TableRecord>(_ type: R.Type, toInclude layout: RecordLayout, in database: Database) {
    // The connection's next write reads the cache again: another connection may have widened it already.
    database.recordMemo.layout = nil
    let type = ObjectIdentifier(R.self)
    let current = cache.withLock { $0.layouts[type] }
    let columns = Set(current?.columns ?? []).union(layout.columns)
    guard columns.count > current?.columns.count ?? 0 else { return }
    let wider = columns.count == layout.columns.count ? layout : RecordLayout(R.self, columns: columns.sorted())
    cache.withLock { cache in
      // Another thread may have replaced it meanwhile: its layout stays (a value that needs more
      // columns still gets SQL of its own, and widens it again).
      guard cache.layouts[type] === current else { return }
      if let current { cache.replaced.append(current) }
      cache.layouts[type] = wider
    }
  }

  /// A layout built from the properties `value` encodes, not cached.
  static func fresh<R: TableRecord>(_ value: R, encoder: StatementEncoder) throws -> RecordLayout {
    RecordLayout(R.self, columns: try value.columnValues(encoder: encoder, for: nil).keys.sorted())
  }
}

/// Thrown while a record binds to the cached SQL of its type when it encodes a column that the SQL
/// has no parameter for: the record is then written with SQL of its own columns.
struct RecordLayoutMismatch: Error {}

/// The SQL that reads, tests and deletes one record type by primary key.
final class KeySQL: Sendable {
  let select: String
  let exists: String
  let delete: String

  init(select: String, exists: String, delete: String) {
    self.select = select
    self.exists = exists
    self.delete = delete
  }

  /// By record type.
  static let cache = LockedState<[ObjectIdentifier: KeySQL]>([:])
}

// MARK: - Writing

extension Database {
  /// The statements ``write(_:encoder:_:)`` runs.
  private enum Write { case insert, upsert, update }

  /// Runs the `kind` statement of `record`'s layout with `record` bound to its named parameters.
  /// Returns false, having run nothing, for an update of a value whose columns are all key columns.
  ///
  /// A value that encodes other columns than the cached layout's gets SQL of its own columns: one that
  /// leaves columns out writes only those it encodes (an insert leaves the others to their defaults),
  /// and one that encodes a column the layout lacks also widens the cached layout, so that no column
  /// is lost, whatever the order in which values come.
  @discardableResult
  private func write<R: TableRecord>(_ record: R, encoder: StatementEncoder, _ kind: Write) throws -> Bool {
    let layout = try RecordLayout.of(record, encoder: encoder, in: self)
    do {
      return try layout.withObject { try run(kind, of: $0, binding: record, encoder: encoder) }
    } catch is RecordLayoutMismatch {
      let own = try RecordLayout.fresh(record, encoder: encoder)
      RecordLayout.widen(R.self, toInclude: own, in: self)
      return try run(kind, of: own, binding: record, encoder: encoder)
    } catch DatabaseError.missingParameter {
      return try run(kind, of: RecordLayout.fresh(record, encoder: encoder), binding: record, encoder: encoder)
    }
  }

  /// Runs the `kind` statement of `layout` with `record` bound; false when `layout` has nothing to
  /// update. (The SQL is read from the layout where it is used, so that passing it costs no reference
  /// count.)
  private func run<R: TableRecord>(
    _ kind: Write, of layout: RecordLayout, binding record: R, encoder: StatementEncoder
  ) throws -> Bool {
    switch kind {
    case .insert: try run(layout.insertSQL, binding: record, encoder: encoder)
    case .upsert:
      guard let sql = layout.upsertSQL else { throw RecordLayout.missingPrimaryKey(R.self) }
      try run(sql, binding: record, encoder: encoder)
    case .update:
      guard let sql = layout.updateSQL else {
        guard !R.primaryKey.isEmpty else { throw RecordLayout.missingPrimaryKey(R.self) }
        return false
      }
      try run(sql, binding: record, encoder: encoder)
    }
    return true
  }

  /// Runs the cached statement for `sql` with `record`'s columns bound.
  ///
  /// The bindings stay until the next write of the same SQL, which binds every parameter again (or
  /// throws for one it misses), as the C API's own loops do; a statement handed out by
  /// ``cachedStatement(sql:)`` comes with its bindings cleared.
  private func run<R: TableRecord>(_ sql: String, binding record: R, encoder: StatementEncoder) throws {
    let statement = try cachedStatementKeepingBindings(sql: sql)
    try statement.whileOpen {
      do {
        try record.bindColumns(to: statement, encoder: encoder)
        try statement.execute()  // resets the statement, also when a step fails
      } catch {
        sqlite3_reset(statement.sqliteHandle)
        throw error
      }
    }
  }

  /// Inserts `record` as a new row and returns its rowid (`INSERT INTO table(columns) VALUES (...)`).
  /// A `nil` `INTEGER PRIMARY KEY` lets SQLite choose the rowid.
  ///
  /// - Throws: ``SQLiteError`` with ``ResultCode/constraint`` when the row breaks a constraint (a
  ///   primary key that exists already: use ``upsert(_:encoder:)`` to replace it).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_insert.html>
  @discardableResult
  public func insert<R: TableRecord>(_ record: R, encoder: StatementEncoder = StatementEncoder()) throws -> Int64 {
    try write(record, encoder: encoder, .insert)
    return lastInsertRowid
  }

  /// Inserts `record` and returns it as stored: with the rowid SQLite chose for a `nil`
  /// `INTEGER PRIMARY KEY`, and the defaults of the columns it left out. GRDB's `insertAndFetch`.
  ///
  /// ```swift
  /// let ada = try db.insertAndFetch(Player(id: nil, name: "Ada", score: 10))
  /// // ada.id is the new row's id
  /// ```
  ///
  /// The row is read back by its primary key when the record gives every key column a value, and by
  /// its rowid otherwise (a rowid table whose key SQLite chose).
  ///
  /// - Throws: as ``insert(_:encoder:)``, and the errors of decoding the row.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_insert.html>,
  /// <https://sqlite.org/c3ref/last_insert_rowid.html>
  public func insertAndFetch<R: TableRecord>(
    _ record: R, encoder: StatementEncoder = StatementEncoder(), decoder: RowDecoder = RowDecoder()
  ) throws -> R {
    let rowid = try insert(record, encoder: encoder)
    let values = try record.columnValues(encoder: encoder, for: self)
    let key = R.primaryKey.map { values[$0] ?? .null }
    let stored: R?
    if !key.isEmpty && !key.contains(.null) {
      stored = try fetch(R.self, key: key, decoder: decoder)
    } else {
      let sql = "SELECT * FROM \(SQLLiteral.quote(identifier: R.tableName)) WHERE rowid = ?"
      stored = try fetchRecord(R.self, sql: sql, arguments: [rowid], decoder: decoder)
    }
    // Only a trigger that deletes the row as it is inserted leaves nothing to read.
    guard let stored else { throw DatabaseError.recordNotFound(table: R.tableName, key: ["rowid": .integer(rowid)]) }
    return stored
  }

  /// Inserts `record`, or updates the row with its primary key when there is one
  /// (`INSERT ... ON CONFLICT(primary key) DO UPDATE SET ...`). The primary key needs a UNIQUE or
  /// PRIMARY KEY constraint on exactly its columns.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_upsert.html>
  public func upsert<R: TableRecord>(_ record: R, encoder: StatementEncoder = StatementEncoder()) throws {
    try write(record, encoder: encoder, .upsert)
  }

  /// Writes every column of `record` to the row with its primary key (`UPDATE table SET ... WHERE key`).
  ///
  /// ```swift
  /// ada.score += 5
  /// try db.update(ada)
  /// ```
  ///
  /// - Throws: ``DatabaseError/recordNotFound(table:key:)`` when no row has that key (the row was
  ///   deleted, or the record never inserted), as GRDB's `update` does; ``updateIfExists(_:encoder:)``
  ///   returns false instead.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_update.html>
  public func update<R: TableRecord>(_ record: R, encoder: StatementEncoder = StatementEncoder()) throws {
    guard try updateIfExists(record, encoder: encoder) else { throw try recordNotFound(record, encoder: encoder) }
  }

  /// Writes every column of `record` to the row with its primary key, and returns false when no row has
  /// that key: the form of ``update(_:encoder:)`` for a row that may be gone.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_update.html>
  @discardableResult
  public func updateIfExists<R: TableRecord>(_ record: R, encoder: StatementEncoder = StatementEncoder()) throws
    -> Bool
  {
    let before = totalChanges
    // A layout of key columns only cannot tell, by binding, whether the value has more: build its own.
    let hasNothingToSet = try RecordLayout.of(record, encoder: encoder, in: self).withObject {
      $0.updateSQL == nil
    }
    let wrote: Bool
    if hasNothingToSet {
      let own = try RecordLayout.fresh(record, encoder: encoder)
      RecordLayout.widen(R.self, toInclude: own, in: self)
      wrote = try run(.update, of: own, binding: record, encoder: encoder)
    } else {
      wrote = try write(record, encoder: encoder, .update)
    }
    // Only key columns: there is nothing to set; say whether the row exists.
    guard wrote else { return try exists(R.self, key: primaryKeyValues(of: record, encoder: encoder)) }
    return totalChanges > before
  }

  /// Writes the given columns of `record` to the row with its primary key. An empty `columns` writes
  /// nothing and checks that the row exists.
  ///
  /// - Throws: ``DatabaseError/recordNotFound(table:key:)`` when no row has that key;
  ///   ``DatabaseError/noSuchColumn(name:available:)`` for a name the record does not encode.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_update.html>
  public func update<R: TableRecord>(
    _ record: R, columns: [String], encoder: StatementEncoder = StatementEncoder()
  ) throws {
    guard try updateIfExists(record, columns: columns, encoder: encoder) else {
      throw try recordNotFound(record, encoder: encoder)
    }
  }

  /// Writes the given columns of `record` to the row with its primary key, and returns false when no
  /// row has that key. An empty `columns` writes nothing and returns whether the row exists.
  ///
  /// - Throws: ``DatabaseError/noSuchColumn(name:available:)`` for a name the record does not encode.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_update.html>
  @discardableResult
  public func updateIfExists<R: TableRecord>(
    _ record: R, columns: [String], encoder: StatementEncoder = StatementEncoder()
  ) throws -> Bool {
    let key = try RecordLayout.primaryKey(of: R.self)
    let values = try record.columnValues(encoder: encoder, for: self)
    let keyValues = try key.map { name in
      guard let value = values[name] else {
        throw DatabaseError.noSuchColumn(name: name, available: values.keys.sorted())
      }
      return value
    }
    let assigned = columns.filter { !key.contains($0) }
    guard !assigned.isEmpty else { return try exists(R.self, key: keyValues) }
    var arguments: [(any ParameterBindable)?] = []
    for name in assigned {
      guard let value = values[name] else {
        throw DatabaseError.noSuchColumn(name: name, available: values.keys.sorted())
      }
      arguments.append(value)
    }
    arguments += keyValues as [(any ParameterBindable)?]
    let sql =
      "UPDATE \(SQLLiteral.quote(identifier: R.tableName)) SET "
      + assigned.map { "\(SQLLiteral.quote(identifier: $0)) = ?" }.joined(separator: ", ")
      + " WHERE \(RecordLayout.keyCondition(key, named: false))"
    let before = totalChanges
    try withStatement(sql: sql, arguments: StatementArguments(arguments)) { try $0.execute() }
    return totalChanges > before
  }

  /// The error for an update of `record` that found no row with its primary key.
  private func recordNotFound<R: TableRecord>(_ record: R, encoder: StatementEncoder) throws -> DatabaseError {
    let key = try RecordLayout.primaryKey(of: R.self)
    let values = try record.columnValues(encoder: encoder, for: self)
    return .recordNotFound(table: R.tableName, key: values.filter { key.contains($0.key) })
  }

  /// Writes the columns whose values differ between `old` and `new` to the row with `new`'s primary
  /// key, and returns true. When nothing differs, runs no SQL and returns false.
  ///
  /// ```swift
  /// var player = try db.fetch(Player.self, id: 1)!
  /// let old = player
  /// player.score += 1
  /// try db.updateChanges(from: old, to: player)  // UPDATE "player" SET "score" = ? WHERE "id" = ?
  /// ```
  ///
  /// - Throws: ``DatabaseError/recordNotFound(table:key:)`` when something differs and no row has the
  ///   key, as GRDB's `updateChanges` does; ``DatabaseError/primaryKeyChanged(table:old:new:)`` when the
  ///   two records' primary keys differ (the changes of one row cannot be written to another).
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_update.html>
  @discardableResult
  public func updateChanges<R: TableRecord>(
    from old: R, to new: R, encoder: StatementEncoder = StatementEncoder()
  ) throws -> Bool {
    let key = try RecordLayout.primaryKey(of: R.self)
    let before = try old.columnValues(encoder: encoder, for: self)
    let after = try new.columnValues(encoder: encoder, for: self)
    // The update finds its row by `new`'s key: with another key in `old`, it would write `old`'s changes
    // to another row and leave `old`'s row as it was.
    if key.contains(where: { before[$0] != after[$0] }) {
      throw DatabaseError.primaryKeyChanged(
        table: R.tableName, old: before.filter { key.contains($0.key) }, new: after.filter { key.contains($0.key) })
    }
    let changed = after.keys.sorted().filter { before[$0] != after[$0] }
    guard !changed.isEmpty else { return false }
    try update(new, columns: changed, encoder: encoder)
    return true
  }

  /// Deletes the row with `record`'s primary key; returns false when there was none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_delete.html>
  @discardableResult
  public func delete<R: TableRecord>(_ record: R, encoder: StatementEncoder = StatementEncoder()) throws -> Bool {
    try delete(R.self, key: primaryKeyValues(of: record, encoder: encoder))
  }

  /// The values of `record`'s primary key columns, in ``TableRecord/primaryKey`` order.
  private func primaryKeyValues<R: TableRecord>(of record: R, encoder: StatementEncoder) throws
    -> [(any ParameterBindable)?]
  {
    let key = try RecordLayout.primaryKey(of: R.self)
    let values = try record.columnValues(encoder: encoder, for: self)
    return try key.map { name in
      guard let value = values[name] else {
        throw DatabaseError.noSuchColumn(name: name, available: values.keys.sorted())
      }
      return value
    }
  }
}

// MARK: - By primary key

extension Database {
  /// The SQL of the lookups by primary key of `R`, built once per type.
  private func keySQL<R: TableRecord>(_ type: R.Type) throws -> KeySQL {
    try unretainedKeySQL(R.self).object
  }

  /// ``keySQL(_:)`` without a reference count, as this connection last used it.
  private func unretainedKeySQL<R: TableRecord>(_ type: R.Type) throws -> Unretained<KeySQL> {
    let id = ObjectIdentifier(R.self)
    if let memo = recordMemo.keySQL, memo.type == id { return memo.sql }
    let sql = Unretained(try sharedKeySQL(R.self))
    recordMemo.keySQL = (id, sql)
    return sql
  }

  /// The SQL of the lookups by primary key of `R`, from the process-wide cache.
  ///
  /// - Throws: ``DatabaseError/recordWithoutPrimaryKey(type:table:)`` when `R` has no primary key (a
  ///   type without one is never cached, so each lookup asks again).
  private func sharedKeySQL<R: TableRecord>(_ type: R.Type) throws -> KeySQL {
    if let sql = KeySQL.cache.withLock({ $0[ObjectIdentifier(R.self)] }) { return sql }
    let table = SQLLiteral.quote(identifier: R.tableName)
    let condition = RecordLayout.keyCondition(try RecordLayout.primaryKey(of: R.self), named: false)
    let sql = KeySQL(
      select: "SELECT * FROM \(table) WHERE \(condition)", exists: "SELECT 1 FROM \(table) WHERE \(condition)",
      delete: "DELETE FROM \(table) WHERE \(condition)")
    // The first one stored for a type stays for the life of the process: connections remember it
    // unretained.
    return KeySQL.cache.withLock { cache in
      if let first = cache[ObjectIdentifier(R.self)] { return first }
      cache[ObjectIdentifier(R.self)] = sql
      return sql
    }
  }

  /// The record whose single-column primary key is `id`, or `nil`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  @inlinable
  public func fetch<R: TableRecord>(
    _ type: R.Type, id: some ParameterBindable, decoder: RowDecoder = RowDecoder()
  ) throws -> R? {
    // Inlined, so that the key binds and the record is built through their own types' code. The key
    // stays bound until the next lookup, which binds it again (see `run(_:binding:encoder:)`).
    let statement = try keyLookupStatement(R.self)
    return try statement.whileOpen {
      defer { sqlite3_reset(statement.sqliteHandle) }
      try id.bind(to: statement, at: 1)
      guard let row = try statement.step() else { return nil }
      return try R(row: row, decoder: decoder)
    }
  }

  /// The cached `SELECT` by primary key of `R`, for a single-column key.
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` when the key has more
  ///   than one column.
  @usableFromInline
  func keyLookupStatement<R: TableRecord>(_ type: R.Type) throws -> Statement {
    let statement = try unretainedKeySQL(R.self).withObject {
      try cachedStatementKeepingBindings(sql: $0.select)
    }
    guard statement.parameterCount == 1 else { throw statement.parameterCountMismatch(1) }
    return statement
  }

  /// The record whose primary key has the given values (in ``TableRecord/primaryKey`` order), or `nil`.
  ///
  /// ```swift
  /// let membership = try db.fetch(Membership.self, key: [teamID, playerID])
  /// ```
  ///
  /// - Throws: ``DatabaseError/parameterCountMismatch(expected:provided:sql:)`` when the number of
  ///   values differs from the number of key columns.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func fetch<R: TableRecord>(
    _ type: R.Type, key: [(any ParameterBindable)?], decoder: RowDecoder = RowDecoder()
  ) throws -> R? {
    return try fetchRecord(R.self, sql: keySQL(R.self).select, arguments: StatementArguments(key), decoder: decoder)
  }

  /// True when a row has the single-column primary key `id`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func exists<R: TableRecord>(_ type: R.Type, id: some ParameterBindable) throws -> Bool {
    try exists(type, key: [id])
  }

  /// True when a row has the primary key values `key`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func exists<R: TableRecord>(_ type: R.Type, key: [(any ParameterBindable)?]) throws -> Bool {
    return try fetchOne(Int.self, sql: keySQL(R.self).exists, arguments: StatementArguments(key)) != nil
  }

  /// Deletes the row with the single-column primary key `id`; returns false when there was none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_delete.html>
  @discardableResult
  public func delete<R: TableRecord>(_ type: R.Type, id: some ParameterBindable) throws -> Bool {
    try delete(type, key: [id])
  }

  /// Deletes the row with the primary key values `key`; returns false when there was none.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_delete.html>
  @discardableResult
  public func delete<R: TableRecord>(_ type: R.Type, key: [(any ParameterBindable)?]) throws -> Bool {
    let before = totalChanges
    try withStatement(sql: keySQL(R.self).delete, arguments: StatementArguments(key)) { try $0.execute() }
    return totalChanges > before
  }
}

// MARK: - Filtering

extension Database {
  /// Every row of `sql` as a record (``TableRecord/init(row:decoder:)``).
  private func fetchRecords<R: TableRecord>(
    _ type: R.Type, sql: String, arguments: StatementArguments = [], decoder: RowDecoder
  ) throws -> [R] {
    try withStatement(sql: sql, arguments: arguments) { statement in
      var records: [R] = []
      try statement.results { row in records.append(try R(row: row, decoder: decoder)) }
      return records
    }
  }

  /// The first row of `sql` as a record (``TableRecord/init(row:decoder:)``), or `nil`.
  private func fetchRecord<R: TableRecord>(
    _ type: R.Type, sql: String, arguments: StatementArguments, decoder: RowDecoder
  ) throws -> R? {
    try withStatement(sql: sql, arguments: arguments) { statement in
      guard let row = try statement.step() else { return nil }
      return try R(row: row, decoder: decoder)
    }
  }

  /// `SELECT * FROM table` plus ` WHERE condition` when there is one.
  private func selectSQL<R: TableRecord>(_ type: R.Type, _ what: String, where condition: String?) -> String {
    let base = "SELECT \(what) FROM \(SQLLiteral.quote(identifier: R.tableName))"
    return condition.map { base + " WHERE " + $0 } ?? base
  }

  /// Every record of the table.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func fetchAll<R: TableRecord>(_ type: R.Type, decoder: RowDecoder = RowDecoder()) throws -> [R] {
    try fetchRecords(R.self, sql: selectSQL(R.self, "*", where: nil), decoder: decoder)
  }

  /// The records matching a `WHERE` condition whose interpolated values are bound parameters. The
  /// condition may go on with `ORDER BY` and `LIMIT`.
  ///
  /// ```swift
  /// let strong = try db.fetchAll(Player.self, where: "score >= \(minimum) ORDER BY score DESC")
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func fetchAll<R: TableRecord>(
    _ type: R.Type, where condition: SQLLiteral, decoder: RowDecoder = RowDecoder()
  ) throws -> [R] {
    try fetchRecords(
      R.self, sql: selectSQL(R.self, "*", where: condition.sql), arguments: condition.statementArguments(),
      decoder: decoder)
  }

  /// The records matching a `WHERE` condition with `?` or named parameters and their values.
  ///
  /// ```swift
  /// let strong = try db.fetchAll(Player.self, where: "score >= ?", arguments: [100])
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func fetchAll<R: TableRecord>(
    _ type: R.Type, where condition: String, arguments: StatementArguments, decoder: RowDecoder = RowDecoder()
  ) throws -> [R] {
    try fetchRecords(R.self, sql: selectSQL(R.self, "*", where: condition), arguments: arguments, decoder: decoder)
  }

  /// The first record matching a `WHERE` condition whose interpolated values are bound parameters, or
  /// `nil`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func fetchOne<R: TableRecord>(
    _ type: R.Type, where condition: SQLLiteral, decoder: RowDecoder = RowDecoder()
  ) throws -> R? {
    try fetchRecord(
      R.self, sql: selectSQL(R.self, "*", where: condition.sql), arguments: condition.statementArguments(),
      decoder: decoder)
  }

  /// The first record matching a `WHERE` condition with parameters and their values, or `nil`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_select.html>
  public func fetchOne<R: TableRecord>(
    _ type: R.Type, where condition: String, arguments: StatementArguments, decoder: RowDecoder = RowDecoder()
  ) throws -> R? {
    try fetchRecord(R.self, sql: selectSQL(R.self, "*", where: condition), arguments: arguments, decoder: decoder)
  }

  /// The number of rows in the record's table.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_aggfunc.html#count>
  public func count<R: TableRecord>(_ type: R.Type) throws -> Int {
    try fetchValue(Int.self, sql: selectSQL(R.self, "count(*)", where: nil))
  }

  /// The number of rows matching a `WHERE` condition whose interpolated values are bound parameters.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_aggfunc.html#count>
  public func count<R: TableRecord>(_ type: R.Type, where condition: SQLLiteral) throws -> Int {
    try fetchValue(
      Int.self, sql: selectSQL(R.self, "count(*)", where: condition.sql), arguments: condition.statementArguments())
  }

  /// The number of rows matching a `WHERE` condition with parameters and their values.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_aggfunc.html#count>
  public func count<R: TableRecord>(
    _ type: R.Type, where condition: String, arguments: StatementArguments
  ) throws -> Int {
    try fetchValue(Int.self, sql: selectSQL(R.self, "count(*)", where: condition), arguments: arguments)
  }

  /// Deletes the rows matching a `WHERE` condition whose interpolated values are bound parameters, and
  /// returns how many were deleted.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_delete.html>
  @discardableResult
  public func deleteAll<R: TableRecord>(_ type: R.Type, where condition: SQLLiteral) throws -> Int {
    let sql = "DELETE FROM \(SQLLiteral.quote(identifier: R.tableName)) WHERE \(condition.sql)"
    try withStatement(sql: sql, arguments: condition.statementArguments()) { try $0.execute() }
    return changes
  }
}

/// The record SQL a connection used last, by record type: a loop over one record type (insert, then
/// fetch by key) finds its SQL without the process-wide cache's lock and hashing. A `Database` is used
/// by one thread at a time, so this needs no lock.
struct RecordMemo {
  /// Unretained: the process-wide caches keep every layout and key SQL they hand out, for good.
  var layout: (type: ObjectIdentifier, layout: Unretained<RecordLayout>)?
  var keySQL: (type: ObjectIdentifier, sql: Unretained<KeySQL>)?
}
