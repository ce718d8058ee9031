/// Brings a database's schema up to date by running named migrations, each at most once.
///
/// Register migrations in the order they must run, then migrate the database when the app opens it.
/// Each migration is recorded by name once applied, so a migration is never run twice, and
/// migrations added later (by another branch of the code, say) run when they are first seen:
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("create authors") { db in
///   try db.execute(sql: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// migrator.registerMigration("create books") { db in
///   try db.execute(sql: """
///     CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT,
///                       authorID INTEGER REFERENCES author(id) ON DELETE CASCADE)
///     """)
/// }
/// let queue = try DatabaseQueue(path: path)
/// try migrator.migrate(queue)             // or try await migrator.migrate(queue), or migrate(db)
/// ```
///
/// **Transactions.** By default each migration runs in its own `BEGIN IMMEDIATE` transaction, together
/// with the row that records it: a migration that throws is rolled back, the ones before it stay, and
/// the error (a ``MigrationError``) names it. With ``TransactionMode/single`` all pending migrations run
/// in one transaction instead, so a failure leaves the database as it was before `migrate`. A migration
/// must not end that transaction itself: its `COMMIT` is refused and rolled back, and the migration fails
/// with ``DatabaseError/transactionEndedInBody(_:)`` without being recorded. Because the
/// check for an applied migration runs inside that write transaction, two connections or processes
/// migrating one file at once apply each migration exactly once (give the connections a busy timeout,
/// as ``Configuration`` does by default, so that one waits for the other).
///
/// **Foreign keys.** When the connection enforces foreign keys (`PRAGMA foreign_keys`), their checks
/// are deferred while a migration runs (`PRAGMA defer_foreign_keys`), so tables can be filled in any
/// order, then `PRAGMA foreign_key_check` runs before the commit: a row left without its parent fails
/// the migration with ``MigrationError/foreignKeyViolations(migration:violations:)``, naming the table
/// and rowid. A migration registered with ``ForeignKeyChecks/disabled`` runs with foreign keys off,
/// as the 12-step procedure for changing a table's definition requires, and is checked the same way
/// before its commit.
///
/// **Recording.** By default applied migrations are recorded in the table `amalgam_migrations`
/// (one `identifier` column). ``Versioning/userVersion`` records them in `PRAGMA user_version` instead,
/// for databases that already number their versions that way.
///
/// The migrator was named after GRDB's `DatabaseMigrator`, which is what Swift developers already know
/// for this job; its methods (`registerMigration`, `migrate(_:upTo:)`, `appliedMigrations`,
/// `completedMigrations`, `hasBeenSuperseded`, `eraseDatabaseOnSchemaChange`) behave as they expect.
///
/// Related SQLite documentation: <https://sqlite.org/lang_altertable.html#otheralter>
///
/// ## Topics
///
/// ### Creating a migrator
///
/// - ``init(versioning:transactionMode:)``
/// - ``Versioning``
/// - ``TransactionMode``
/// - ``eraseDatabaseOnSchemaChange``
///
/// ### Registering migrations
///
/// - ``registerMigration(_:foreignKeyChecks:migrate:)``
/// - ``ForeignKeyChecks``
/// - ``migrations``
///
/// ### Migrating
///
/// - ``migrate(_:)-(Database)``
/// - ``migrate(_:upTo:)-(Database,_)``
///
/// Each of these also takes a ``DatabaseQueue`` or ``DatabasePool`` (any ``DatabaseWriter``), blocking or
/// with `await`; the reading ones take any ``DatabaseReader``.
///
/// ### Reading the state of a database
///
/// - ``appliedMigrations(_:)-(Database)``
/// - ``appliedIdentifiers(_:)-(Database)``
/// - ``completedMigrations(_:)-(Database)``
/// - ``hasCompletedMigrations(_:)-(Database)``
/// - ``hasBeenSuperseded(_:)-(Database)``
public struct DatabaseMigrator: Sendable {
  /// Where the migrator records which migrations are applied.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public enum Versioning: Sendable, Hashable {
    /// A table with one row per applied migration, holding its name in a column `identifier` (created
    /// when first needed). Migrations merged from two branches work: each is known by name.
    /// A table that GRDB created (`grdb_migrations`) has the same shape and can be continued.
    case table(named: String)
    /// `PRAGMA user_version` holds the number of applied migrations: the first `user_version`
    /// registered migrations count as applied. A database already numbered this way (by SQift, Squeal,
    /// Restructure or hand-written code) continues from its number, provided the first migrations
    /// registered reproduce its versions 1, 2, ... in order.
    case userVersion

    /// The table `amalgam_migrations`.
    public static let defaultTable = Versioning.table(named: "amalgam_migrations")
  }

  /// Whether pending migrations commit one by one or together.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public enum TransactionMode: Sendable, Hashable {
    /// Each migration commits in its own transaction; a failure keeps the migrations before it.
    case perMigration
    /// All pending migrations commit in one transaction; a failure keeps none of them. If one of them
    /// asks for ``ForeignKeyChecks/disabled``, foreign keys are off for the whole transaction (SQLite
    /// cannot change `PRAGMA foreign_keys` inside one); every migration is still checked with
    /// `PRAGMA foreign_key_check` when it ends.
    case single
  }

  /// How a migration treats foreign-key constraints while it runs.
  ///
  /// Related SQLite documentation: <https://sqlite.org/foreignkeys.html>
  public enum ForeignKeyChecks: Sendable, Hashable {
    /// Checked at the end of the migration (`PRAGMA defer_foreign_keys`), then verified with
    /// `PRAGMA foreign_key_check` before the commit.
    case deferred
    /// Off while the migration runs (`PRAGMA foreign_keys = OFF` before its transaction begins), as
    /// the 12-step procedure of <https://sqlite.org/lang_altertable.html#otheralter> needs to rebuild a
    /// table; verified with `PRAGMA foreign_key_check` before the commit, and turned back on after.
    case disabled
  }

  /// One registered migration.
  struct Migration: Sendable {
    var name: String
    var foreignKeyChecks: ForeignKeyChecks
    var body: @Sendable (Database) throws -> Void
  }

  /// Where applied migrations are recorded.
  public let versioning: Versioning
  /// Whether pending migrations commit one by one or together.
  public let transactionMode: TransactionMode

  /// During development: when a migration already applied was changed since (the schema it produces
  /// differs from the database's), or the database has migrations this migrator does not know, erase
  /// the database and migrate it from scratch. Off by default; never turn it on for data users keep.
  ///
  /// The check runs the applied migrations on an empty in-memory database and compares both schemas
  /// (`sqlite_schema`), so migrations must not depend on state outside the database they receive. The
  /// erase uses `SQLITE_DBCONFIG_RESET_DATABASE` and `VACUUM`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigresetdatabase>
  public var eraseDatabaseOnSchemaChange = false

  private var registered: [Migration] = []
  private var duplicateName: String?

  /// Creates a migrator with no migrations.
  ///
  /// - Parameters:
  ///   - versioning: where applied migrations are recorded; the table `amalgam_migrations` by default.
  ///   - transactionMode: one transaction per migration (the default) or one for all.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public init(versioning: Versioning = .defaultTable, transactionMode: TransactionMode = .perMigration) {
    self.versioning = versioning
    self.transactionMode = transactionMode
  }

  /// The names of the registered migrations, in the order they run.
  public var migrations: [String] { registered.map(\.name) }

  /// Registers a migration, to run after those registered before it.
  ///
  /// ```swift
  /// migrator.registerMigration("add email") { db in
  ///   try db.execute(sql: "ALTER TABLE author ADD COLUMN email TEXT")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: the migration's unique name, recorded once it is applied. Never rename a migration
  ///     that has shipped: it would run again.
  ///   - foreignKeyChecks: ``ForeignKeyChecks/deferred`` (the default) or ``ForeignKeyChecks/disabled``
  ///     for migrations that rebuild tables.
  ///   - migrate: the migration's work, run in a transaction on the database being migrated.
  ///
  /// Registering a name twice makes every later `migrate` throw ``MigrationError/duplicateMigration(_:)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_altertable.html>
  public mutating func registerMigration(
    _ name: String, foreignKeyChecks: ForeignKeyChecks = .deferred,
    migrate: @escaping @Sendable (Database) throws -> Void
  ) {
    if duplicateName == nil && registered.contains(where: { $0.name == name }) { duplicateName = name }
    registered.append(Migration(name: name, foreignKeyChecks: foreignKeyChecks, body: migrate))
  }

  // MARK: - Migrating a Database

  /// Applies every registered migration that is not applied yet, in order.
  ///
  /// - Throws: ``MigrationError`` naming the migration that failed, and
  ///   ``DatabaseError/transactionState(_:)`` when a transaction is open on `db`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func migrate(_ db: Database) throws {
    try migrate(db, upToIndex: registered.count - 1)
  }

  /// Applies the registered migrations up to and including `target` that are not applied yet.
  ///
  /// - Throws: ``MigrationError/unknownMigration(_:)`` when no migration is named `target`,
  ///   ``MigrationError/migratedBeyondTarget(target:applied:)`` when later ones are already applied,
  ///   and ``MigrationError`` naming the migration that failed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func migrate(_ db: Database, upTo target: String) throws {
    guard let index = registered.firstIndex(where: { $0.name == target }) else {
      throw MigrationError.unknownMigration(target)
    }
    let beyond = try appliedMigrations(db).filter { name in
      registered[(index + 1)...].contains { $0.name == name }
    }
    if !beyond.isEmpty { throw MigrationError.migratedBeyondTarget(target: target, applied: beyond) }
    try migrate(db, upToIndex: index)
  }

  // MARK: - Reading a Database

  /// The names of the registered migrations that are applied to `db`, in registration order.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func appliedMigrations(_ db: Database) throws -> [String] {
    let applied = try appliedState(db)
    return registered.enumerated().filter { applied.contains(index: $0.offset, name: $0.element.name) }
      .map(\.element.name)
  }

  /// Every name recorded as applied in `db`, including names this migrator does not register. With
  /// ``Versioning/userVersion`` these are the registered names up to `user_version` (the unknown ones
  /// have no names; see ``hasBeenSuperseded(_:)-(Database)``).
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
    switch try appliedState(db) {
    case .names(let names): return names
    case .count(let count): return Set(registered.prefix(count).map(\.name))
    }
  }

  /// The names of the registered migrations that are complete in `db`: applied, with every migration
  /// registered before them applied too. A migration merged from another branch may be applied while
  /// one before it is not; it is applied but not complete.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func completedMigrations(_ db: Database) throws -> [String] {
    let applied = try appliedState(db)
    var names: [String] = []
    for (index, migration) in registered.enumerated() {
      guard applied.contains(index: index, name: migration.name) else { break }
      names.append(migration.name)
    }
    return names
  }

  /// True when every registered migration is applied to `db`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func hasCompletedMigrations(_ db: Database) throws -> Bool {
    try completedMigrations(db).count == registered.count
  }

  /// True when `db` was migrated by a newer version of the app: it has applied migrations that this
  /// migrator does not register (or, with ``Versioning/userVersion``, a `user_version` greater than the
  /// number of registered migrations).
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func hasBeenSuperseded(_ db: Database) throws -> Bool {
    switch try appliedState(db) {
    case .names(let names):
      let known = Set(registered.map(\.name))
      return names.contains { !known.contains($0) }
    case .count(let count):
      return count > registered.count
    }
  }

  // MARK: - Implementation

  /// What a database records as applied.
  private enum AppliedState {
    case names(Set<String>)
    case count(Int)

    func contains(index: Int, name: String) -> Bool {
      switch self {
      case .names(let names): names.contains(name)
      case .count(let count): index < count
      }
    }
  }

  private func appliedState(_ db: Database) throws -> AppliedState {
    switch versioning {
    case .userVersion:
      return .count(Int(try db.userVersion))
    case .table(let table):
      guard try db.tableExists(table) else { return .names([]) }
      let names = try db.prepare(sql: "SELECT identifier FROM \(quoteIdentifier(table))").column(0, as: String.self)
      return .names(Set(names))
    }
  }

  private func migrate(_ db: Database, upToIndex last: Int) throws {
    if let duplicateName { throw MigrationError.duplicateMigration(duplicateName) }
    guard db.isInAutocommitMode else {
      throw DatabaseError.transactionState("Migrations need a connection outside any transaction")
    }
    if eraseDatabaseOnSchemaChange, try needsErase(db) { try erase(db) }
    guard last >= 0 else { return }
    // Applied migrations stay applied: skip them without a write transaction, so that an up-to-date
    // database (even a read-only one) migrates without writing. Pending ones are checked again inside
    // their transaction, since another connection may apply them first.
    let applied = try appliedState(db)
    let migrations = registered[...last].enumerated().filter {
      !applied.contains(index: $0.offset, name: $0.element.name)
    }
    guard !migrations.isEmpty else { return }
    let foreignKeysOn = try db.prepare(sql: "PRAGMA foreign_keys").front(Bool.self) ?? false
    switch transactionMode {
    case .perMigration:
      for (index, migration) in migrations {
        try naming(migration.name) {
          try inTransaction(
            db, foreignKeysOn: foreignKeysOn, disablingForeignKeys: migration.foreignKeyChecks == .disabled
          ) {
            try apply(migration, at: index, to: db, checkingForeignKeys: foreignKeysOn)
          }
        }
      }
    case .single:
      let disabling = migrations.contains { $0.element.foreignKeyChecks == .disabled }
      // A failure outside any one migration (the commit) is reported under the last one.
      try naming(migrations.last?.element.name ?? "") {
        try inTransaction(db, foreignKeysOn: foreignKeysOn, disablingForeignKeys: disabling) {
          for (index, migration) in migrations {
            try apply(migration, at: index, to: db, checkingForeignKeys: foreignKeysOn)
          }
        }
      }
    }
  }

  /// Runs `body`, reporting an error that names no migration (BEGIN or COMMIT failed, the database is
  /// busy) as a failure of the migration called `name`.
  private func naming(_ name: String, _ body: () throws -> Void) throws {
    do {
      try body()
    } catch let error as MigrationError {
      throw error
    } catch {
      throw MigrationError.migrationFailed(migration: name, error: error)
    }
  }

  /// Runs `body` in a `BEGIN IMMEDIATE` transaction, foreign keys turned off around it when asked (a
  /// no-op inside a transaction, hence before `BEGIN`) and deferred inside it otherwise.
  private func inTransaction(
    _ db: Database, foreignKeysOn: Bool, disablingForeignKeys: Bool, _ body: () throws -> Void
  ) throws {
    let turnOff = foreignKeysOn && disablingForeignKeys
    if turnOff { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
    defer { if turnOff { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
    try db.transaction(.immediate) { db in
      if case .table(let table) = versioning {
        try db.execute(
          sql: "CREATE TABLE IF NOT EXISTS \(quoteIdentifier(table))(identifier TEXT NOT NULL PRIMARY KEY)")
      }
      if foreignKeysOn && !turnOff { try db.execute(sql: "PRAGMA defer_foreign_keys = ON") }
      try body()
    }
  }

  /// Runs one migration unless it is applied, and records it; inside a transaction.
  private func apply(_ migration: Migration, at index: Int, to db: Database, checkingForeignKeys: Bool) throws {
    // Read inside the write transaction: another connection may have applied it since `migrate` began.
    guard !(try appliedState(db).contains(index: index, name: migration.name)) else { return }
    do {
      try runBody(of: migration, on: db)
      switch versioning {
      case .userVersion:
        try db.setUserVersion(Int32(clamping: index + 1))
      case .table(let table):
        try db.execute(
          sql: "INSERT INTO \(quoteIdentifier(table))(identifier) VALUES (?)", parameterValues: [migration.name])
      }
    } catch {
      throw MigrationError.migrationFailed(migration: migration.name, error: error)
    }
    if checkingForeignKeys {
      let violations = try db.foreignKeyViolations()
      if !violations.isEmpty {
        throw MigrationError.foreignKeyViolations(migration: migration.name, violations: violations)
      }
    }
  }

  /// Runs the body of `migration` inside the migrator's transaction, which the body must not end.
  ///
  /// While the body runs, every commit is refused (the connection's commit hook answers
  /// ``CommitDecision/rollback``): a `COMMIT` or `END` in the body fails with
  /// ``ResultCode/constraintCommitHook`` and rolls the transaction back, so nothing the migration did
  /// becomes durable. However the body ended the transaction (`COMMIT`, `END`, `ROLLBACK`, even if it
  /// then began another and went on, or threw), the migration fails with
  /// ``DatabaseError/transactionEndedInBody(_:)``, as ``Database/transaction(_:_:)`` does, and is not
  /// recorded; a transaction the body began is rolled back with the migrator's.
  private func runBody(of migration: Migration, on db: Database) throws {
    let connection = db.connection
    let mark = TransactionMark(connection)
    let userHook = connection.commitHook
    connection.commitHook = { .rollback }
    defer { connection.commitHook = userHook }
    var bodyError: (any Error)?
    do {
      try migration.body(db)
    } catch {
      bodyError = error
    }
    // Reported before the body's own error: the transaction ended is what explains the rest.
    if let outcome = mark.outcomeIfEnded(autocommit: db.isInAutocommitMode) {
      throw DatabaseError.transactionEndedInBody(
        TransactionEndedInBody(scope: "migration transaction", outcome: outcome))
    }
    if let bodyError { throw bodyError }
  }

  /// True when the database holds migrations this migrator does not know, or when the applied
  /// migrations, replayed on an empty database, produce another schema.
  private func needsErase(_ db: Database) throws -> Bool {
    if try hasBeenSuperseded(db) { return true }
    let applied = Set(try appliedMigrations(db))
    if applied.isEmpty { return false }
    let reference = try Database()
    try reference.execute(sql: "PRAGMA foreign_keys = OFF")
    for migration in registered where applied.contains(migration.name) {
      do {
        try reference.transaction(.immediate) { db in try migration.body(db) }
      } catch {
        throw MigrationError.migrationFailed(migration: migration.name, error: error)
      }
    }
    return try schemaSignature(db) != schemaSignature(reference)
  }

  /// The main schema's definitions, less SQLite's own objects and the migrations table.
  private func schemaSignature(_ db: Database) throws -> [[DatabaseValue]] {
    var excluded = ""
    if case .table(let table) = versioning { excluded = table }
    return try db.prepare(
      sql: """
        SELECT type, name, tbl_name, sql FROM main.sqlite_schema
        WHERE name NOT GLOB 'sqlite_*' AND name <> ? ORDER BY type, name
        """
    ).bind(parameterValues: [excluded]).allRows()
  }

  /// Empties the database: every table, index, view and trigger, and the header's user version.
  private func erase(_ db: Database) throws {
    try db.setEnabled(.resetDatabase, to: true)
    defer { try? db.setEnabled(.resetDatabase, to: false) }
    try db.execute(sql: "VACUUM")
  }
}

// MARK: - Writers and readers

extension DatabaseMigrator {
  /// Applies every pending migration on the writer's connection, blocking until done. See
  /// ``migrate(_:)-(Database)``.
  ///
  /// ```swift
  /// try migrator.migrate(queue)
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func migrate(_ writer: some DatabaseWriter) throws {
    try writer.sync { db in try migrate(db) }
  }

  /// Applies the pending migrations up to and including `target`, blocking until done. See
  /// ``migrate(_:upTo:)-(Database,_)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/lang_transaction.html>
  public func migrate(_ writer: some DatabaseWriter, upTo target: String) throws {
    try writer.sync { db in try migrate(db, upTo: target) }
  }

  /// Applies every pending migration without blocking the calling task. Cancelling the task
  /// interrupts the running migration, which is rolled back.
  ///
  /// ```swift
  /// try await migrator.migrate(pool)
  /// ```
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public func migrate(_ writer: some DatabaseWriter) async throws {
    try await writer.write { db in try self.migrate(db) }
  }

  /// Applies the pending migrations up to and including `target` without blocking the calling task.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/interrupt.html>
  public func migrate(_ writer: some DatabaseWriter, upTo target: String) async throws {
    try await writer.write { db in try self.migrate(db, upTo: target) }
  }

  /// The registered migrations applied to the database, in order. See
  /// ``appliedMigrations(_:)-(Database)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func appliedMigrations(_ reader: some DatabaseReader) throws -> [String] {
    try reader.read { db in try appliedMigrations(db) }
  }

  /// Every name recorded as applied. See ``appliedIdentifiers(_:)-(Database)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func appliedIdentifiers(_ reader: some DatabaseReader) throws -> Set<String> {
    try reader.read { db in try appliedIdentifiers(db) }
  }

  /// The registered migrations that are complete. See ``completedMigrations(_:)-(Database)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func completedMigrations(_ reader: some DatabaseReader) throws -> [String] {
    try reader.read { db in try completedMigrations(db) }
  }

  /// True when every registered migration is applied. See ``hasCompletedMigrations(_:)-(Database)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func hasCompletedMigrations(_ reader: some DatabaseReader) throws -> Bool {
    try reader.read { db in try hasCompletedMigrations(db) }
  }

  /// True when the database has migrations this migrator does not know. See
  /// ``hasBeenSuperseded(_:)-(Database)``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func hasBeenSuperseded(_ reader: some DatabaseReader) throws -> Bool {
    try reader.read { db in try hasBeenSuperseded(db) }
  }

  /// The registered migrations applied to the database, without blocking the calling task.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func appliedMigrations(_ reader: some DatabaseReader) async throws -> [String] {
    try await reader.read { db in try self.appliedMigrations(db) }
  }

  /// Every name recorded as applied, without blocking the calling task.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func appliedIdentifiers(_ reader: some DatabaseReader) async throws -> Set<String> {
    try await reader.read { db in try self.appliedIdentifiers(db) }
  }

  /// The registered migrations that are complete, without blocking the calling task.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func completedMigrations(_ reader: some DatabaseReader) async throws -> [String] {
    try await reader.read { db in try self.completedMigrations(db) }
  }

  /// True when every registered migration is applied, without blocking the calling task.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func hasCompletedMigrations(_ reader: some DatabaseReader) async throws -> Bool {
    try await reader.read { db in try self.hasCompletedMigrations(db) }
  }

  /// True when the database has migrations this migrator does not know, without blocking the task.
  ///
  /// Related SQLite documentation: <https://sqlite.org/pragma.html#pragma_user_version>
  public func hasBeenSuperseded(_ reader: some DatabaseReader) async throws -> Bool {
    try await reader.read { db in try self.hasBeenSuperseded(db) }
  }
}
