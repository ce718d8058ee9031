@testable import Amalgam
import Foundation
import Testing

/// A virtual table whose every step can be made to fail: the `USING` argument names the method that throws.
final class FailingModule: VirtualTableModule {
  let failing: String
  required init(database: Database, arguments: [String], create: Bool) throws {
    failing = arguments.count > 3 ? arguments[3] : ""
    if failing == "init" { throw MisuseCallbackError() }
  }
  var declaration: String { failing == "declaration" ? "CREATE TABLE x(" : "CREATE TABLE x(a, b)" }
  func bestIndex(_ indexInfo: inout VirtualTableIndexInfo) throws -> VirtualTableModuleBestIndexResult {
    if failing == "bestIndex" { throw MisuseCallbackError() }
    return .ok
  }
  func openCursor() throws -> any VirtualTableCursor {
    if failing == "open" { throw MisuseCallbackError() }
    return Cursor(failing: failing)
  }

  final class Cursor: VirtualTableCursor {
    let failing: String
    var row: Int64 = 0
    init(failing: String) { self.failing = failing }
    func filter(_ arguments: [DatabaseValue], indexNumber: Int32, indexName: String?) throws {
      if failing == "filter" { throw MisuseCallbackError() }
      row = 1
    }
    func next() throws {
      if failing == "next" { throw MisuseCallbackError() }
      row += 1
    }
    var eof: Bool { row > 3 }
    func rowid() throws -> Int64 { row }
    func column(_ index: Int32) throws -> DatabaseValue {
      if failing == "column" { throw SQLiteError(code: .mismatch, message: "column \(index) failed") }
      return .integer(row)
    }
  }
}

/// A record whose table does not exist.
struct MissingTableRecord: TableRecord {
  static var tableName: String { "missing_records" }
  var id: Int64
  var name: String
}

#if ENABLE_FTS5
  /// A tokenizer that fails to tokenize.
  struct FailingTokenizer: FTS5Tokenizer {
    init(arguments: FTS5TokenizerArguments) throws {
      if arguments.contains("fail-init") { throw MisuseCallbackError() }
    }
    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws { throw MisuseCallbackError() }
  }
#endif

#if ENABLE_SESSION
  /// A changeset that inserts into `ref` a row whose key, 1, is already there.
  func conflictingChangeset() throws -> Changeset {
    let other = try Database()
    try other.execute(sql: "CREATE TABLE ref(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB)")
    let session = try Session(database: other)
    try session.attach()
    try other.execute(sql: "INSERT INTO ref VALUES (1, 'clash', 0, NULL), (7, 'seven', 7, NULL)")
    return try session.changeset()
  }
#endif

/// Misuse of the capabilities above the core: queues, backup, blobs, serialization, sessions,
/// migrations, records, schema, virtual tables, FTS5, configuration.
enum MisuseFeatureCases {
  static let queues: [MisuseCase] = [
    MisuseCase("Queues", "sync after close", .database("databaseClosed")) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.close()
      try queue.sync { db in try db.execute(sql: "DELETE FROM ref") }
    },
    MisuseCase("Queues", "read after close", .database("databaseClosed")) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.close()
      _ = try queue.read { db in try db.fetchAll(Int.self, sql: "SELECT id FROM ref") }
    },
    MisuseCase("Queues", "transaction after close", .database("databaseClosed")) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.close()
      try queue.transaction { db in try db.execute(sql: "DELETE FROM ref") }
    },
    MisuseCase("Queues", "pool write after close", .database("databaseClosed")) { f in
      let pool = try DatabasePool(path: f.path)
      try pool.close()
      try pool.sync { db in try db.execute(sql: "DELETE FROM ref") }
    },
    MisuseCase("Queues", "pool read after close", .database("databaseClosed")) { f in
      let pool = try DatabasePool(path: f.path)
      try pool.close()
      _ = try pool.read { db in try db.fetchAll(Int.self, sql: "SELECT id FROM ref") }
    },
    MisuseCase("Queues", "read queue after close", .database("databaseClosed")) { f in
      let queue = try DatabaseReadQueue(path: f.path)
      try queue.close()
      _ = try queue.read { db in try db.fetchAll(Int.self, sql: "SELECT id FROM ref") }
    },
    MisuseCase(
      "Queues", "sync inside sync", .other("ConcurrencyError"), mentions: ["from inside one of its own closures"]
    ) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.sync { _ in try queue.sync { db in try db.execute(sql: "DELETE FROM ref") } }
    },
    MisuseCase("Queues", "read inside sync", .other("ConcurrencyError")) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.sync { _ in _ = try queue.read { db in try db.fetchAll(Int.self, sql: "SELECT id FROM ref") } }
    },
    MisuseCase("Queues", "pool write inside pool write", .other("ConcurrencyError")) { f in
      let pool = try DatabasePool(path: f.path)
      try pool.sync { _ in try pool.sync { db in try db.execute(sql: "DELETE FROM ref") } }
    },
    MisuseCase("Queues", "write through a read queue", .sqlite(.readOnly)) { f in
      let queue = try DatabaseReadQueue(path: f.path)
      try queue.read { db in try db.execute(sql: "DELETE FROM ref") }
    },
    MisuseCase("Queues", "pool on an in-memory database", .other("ConcurrencyError"), mentions: ["memory"]) { _ in
      _ = try DatabasePool(path: ":memory:")
    },
    MisuseCase("Queues", "pool with no readers", .other("ConcurrencyError")) { f in
      var configuration = Configuration()
      configuration.maximumReaderCount = 0
      _ = try DatabasePool(path: f.path, configuration: configuration)
    },
    MisuseCase("Queues", "prepareDatabase throws", .other("MisuseCallbackError")) { f in
      var configuration = Configuration()
      configuration.prepareDatabase = { _ in throw MisuseCallbackError() }
      _ = try DatabaseQueue(path: f.path, configuration: configuration)
    },
    MisuseCase("Queues", "queue body throws inside a transaction", .other("MisuseCallbackError")) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.transaction { db in
        try db.execute(sql: "DELETE FROM ref")
        throw MisuseCallbackError()
      }
    },
    MisuseCase("Queues", "read body tries to write", .sqlite(.readOnly)) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.read { db in try db.execute(sql: "DELETE FROM ref") }
    },
  ]

  static let backup: [MisuseCase] = [
    MisuseCase("Backup", "into itself", .sqlite(.error), mentions: ["distinct"]) { f in
      try f.db.backup(to: f.db)
    },
    MisuseCase("Backup", "unknown source schema", .sqlite(.error), mentions: ["nope"]) { f in
      try f.db.backup(to: try Database(), sourceSchema: "nope")
    },
    MisuseCase("Backup", "into a read-only destination", .sqlite(.readOnly)) { f in
      let target = f.file("target.db")
      try Database(path: target).execute(sql: "CREATE TABLE x(y)")
      try f.db.backup(to: try Database(path: target, options: .readOnly))
    },
    MisuseCase("Backup", "progress callback throws", .other("MisuseCallbackError")) { f in
      try f.db.backup(to: try Database(), pagesPerStep: 1) { _ in throw MisuseCallbackError() }
    },
    MisuseCase("Backup", "from a closed database", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.backup(to: try Database())
    },
    MisuseCase("Backup", "into a closed database", .database("databaseClosed")) { f in
      let target = try Database()
      try target.close()
      try f.db.backup(to: target)
    },
    MisuseCase("Backup", "a queue into itself", .other("ConcurrencyError")) { f in
      let queue = try DatabaseQueue(path: f.path)
      try queue.backup(to: queue)
    },
    MisuseCase("Backup", "step after finish", .database("databaseClosed")) { f in
      let backup = try DatabaseBackup(from: f.db, to: try Database())
      try backup.finish()
      _ = try backup.step()
    },
  ]

  static let blobs: [MisuseCase] = [
    MisuseCase("Blob", "no such row", .sqlite(.error), mentions: ["no such rowid"]) { f in
      _ = try f.db.openBlob(table: "t", column: "c", rowid: 99)
    },
    MisuseCase("Blob", "no such table", .sqlite(.error), mentions: ["no such table"]) { f in
      _ = try f.db.openBlob(table: "nope", column: "c", rowid: 1)
    },
    MisuseCase("Blob", "no such column", .sqlite(.error), mentions: ["no such column"]) { f in
      _ = try f.db.openBlob(table: "t", column: "nope", rowid: 1)
    },
    MisuseCase("Blob", "table name with a NUL", .sqlite(.misuse), mentions: ["NUL"]) { f in
      // SQLite would open table "t", cut at the NUL.
      let blob = try f.db.openBlob(table: "t\u{0}nope", column: "c", rowid: 1, writable: true)
      try blob.write([9, 9, 9])
    },
    MisuseCase("Blob", "indexed column for writing", .sqlite(.error), mentions: ["indexed"]) { f in
      _ = try f.db.openBlob(table: "t", column: "b", rowid: 1, writable: true)
    },
    MisuseCase("Blob", "REAL value", .sqlite(.error), mentions: ["value of type real"]) { f in
      _ = try f.db.openBlob(table: "ref", column: "score", rowid: 1)
    },
    MisuseCase("Blob", "read past the end", .sqlite(.error), mentions: ["past the end"]) { f in
      _ = try f.db.openBlob(table: "t", column: "c", rowid: 1).read(count: 4)
    },
    MisuseCase("Blob", "read at a negative offset", .sqlite(.error), mentions: ["offset -1"]) { f in
      _ = try f.db.openBlob(table: "t", column: "c", rowid: 1).read(count: 1, at: -1)
    },
    MisuseCase("Blob", "write past the end", .sqlite(.error), mentions: ["past the end"]) { f in
      try f.db.openBlob(table: "t", column: "c", rowid: 1, writable: true).write([1, 2, 3], at: 1)
    },
    MisuseCase("Blob", "write to a read-only blob", .sqlite(.readOnly), mentions: ["writable"]) { f in
      try f.db.openBlob(table: "t", column: "c", rowid: 1).write([1])
    },
    MisuseCase("Blob", "expired by an update of its row", .sqlite(.abort)) { f in
      let blob = try f.db.openBlob(table: "t", column: "c", rowid: 2)
      try f.db.transaction { db in
        try db.execute(sql: "UPDATE t SET b = 'z' WHERE a = 2")
        _ = try blob.read(count: 1)
      }
    },
    MisuseCase("Blob", "used after its database closed", .database("databaseClosed")) { f in
      let blob = try f.db.openBlob(table: "t", column: "c", rowid: 1)
      try f.db.close()
      _ = try blob.read(count: 1)
    },
    MisuseCase("Blob", "used after close", .database("databaseClosed")) { f in
      let blob = try f.db.openBlob(table: "t", column: "c", rowid: 1)
      try blob.close()
      _ = try blob.read(count: 1)
    },
    MisuseCase("Blob", "reopen on a missing row", .sqlite(.error), mentions: ["no such rowid"]) { f in
      try f.db.openBlob(table: "t", column: "c", rowid: 1).reopen(rowid: 42)
    },
  ]

  static let serialize: [MisuseCase] = [
    MisuseCase("Serialize", "deserialize bytes that are not a database", .sqlite(.notADatabase)) { f in
      let db = try Database()
      try db.deserialize([UInt8](repeating: 0x33, count: 4096))
      _ = try db.prepare(sql: "SELECT * FROM sqlite_schema")
    },
    MisuseCase("Serialize", "deserialize a truncated database", .sqlite(.corrupt)) { f in
      try f.db.execute(sql: "CREATE TEMP TABLE big AS SELECT zeroblob(5000) AS z FROM ref")
      let bytes = try f.db.serialize()
      let db = try Database()
      try db.deserialize(bytes.prefix(4096 + 512))
      _ = try db.prepare(sql: "SELECT count(*) FROM t").allRows()
    },
    MisuseCase("Serialize", "deserialize into an unknown schema", .sqlite(.error)) { f in
      try f.db.deserialize(try f.db.serialize(), schema: "nope")
    },
    MisuseCase("Serialize", "serialize an unknown schema", .sqlite(.error), mentions: ["nope"]) { f in
      _ = try f.db.serialize(schema: "nope")
    },
    MisuseCase("Serialize", "deserialize inside withSerializedBytes", .database("readOnlyCallback")) { f in
      try f.db.withSerializedBytes { bytes in try f.db.deserialize(Array(bytes)) }
    },
    MisuseCase("Serialize", "write past maximumSize", .sqlite(.full)) { f in
      let db = try Database()
      let bytes = try f.db.serialize()
      try db.deserialize(bytes, maximumSize: bytes.count)
      try db.execute(sql: "INSERT INTO t(c) VALUES (zeroblob(100000))")
    },
    MisuseCase("Serialize", "write to read-only bytes", .sqlite(.readOnly)) { f in
      let db = try Database()
      try db.deserialize(try f.db.serialize(), readOnly: true)
      try db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Serialize", "vacuum into an existing file", .sqlite(.error), mentions: ["already exists"]) { f in
      let target = f.file("copy.db")
      try f.db.vacuum(into: target)
      try f.db.vacuum(into: target)
    },
    MisuseCase("Serialize", "vacuum into a missing folder", .sqlite(.cannotOpen)) { f in
      try f.db.vacuum(into: f.file("no/such/dir/copy.db"))
    },
  ]

  #if ENABLE_SESSION
    static let sessions: [MisuseCase] = [
      MisuseCase("Sessions", "operations of a garbage changeset", .sqlite(.corrupt)) { _ in
        _ = try Changeset(uncheckedData: Data([0x54, 0x01, 0x03, 0x00, 0xff, 0xff])).operations()
      },
      MisuseCase("Sessions", "apply a garbage changeset", .sqlite(.corrupt)) { f in
        _ = try f.db.apply(Changeset(uncheckedData: Data(repeating: 0x54, count: 64)))
      },
      MisuseCase(
        "Sessions", "apply a truncated changeset", .sqlite(.corrupt),
        setup: { f in try f.db.execute(sql: "DELETE FROM ref WHERE id = 1") }
      ) { f in
        let data = try conflictingChangeset().data
        _ = try f.db.apply(Changeset(uncheckedData: data.prefix(data.count - 3)))
      },
      MisuseCase("Sessions", "apply a changeset that conflicts", .sqlite(.abort)) { f in
        _ = try f.db.apply(try conflictingChangeset())
      },
      MisuseCase("Sessions", "conflict handler throws", .other("MisuseCallbackError")) { f in
        _ = try f.db.apply(try conflictingChangeset(), tableFilter: nil) { _ in throw MisuseCallbackError() }
      },
      MisuseCase("Sessions", "table filter throws", .other("MisuseCallbackError")) { f in
        _ = try f.db.apply(try conflictingChangeset(), tableFilter: { _ in throw MisuseCallbackError() }) { _ in
          .omit
        }
      },
      MisuseCase("Sessions", "invert a garbage changeset", .sqlite(.corrupt)) { _ in
        _ = try Changeset(uncheckedData: Data([0x54, 0x02, 0x00, 0x12, 0x99])).inverted()
      },
      MisuseCase("Sessions", "changegroup with a garbage changeset", .sqlite(.corrupt)) { _ in
        let group = try Changegroup()
        try group.add(Changeset(uncheckedData: Data([0x54, 0x7f, 0x01])))
      },
      MisuseCase("Sessions", "concatenate a garbage changeset", .sqlite(.corrupt)) { _ in
        _ = try conflictingChangeset().concatenated(with: Changeset(uncheckedData: Data([0x54, 0x7f, 0x01, 0x02])))
      },
      MisuseCase("Sessions", "changeset from a missing file", .other("CocoaError")) { f in
        _ = try Changeset(contentsOfFile: f.file("missing.changeset"))
      },
      MisuseCase("Sessions", "session on a closed database", .database("databaseClosed")) { f in
        try f.db.close()
        _ = try Session(database: f.db)
      },
      MisuseCase("Sessions", "attach after its database closed", .database("databaseClosed")) { f in
        let session = try Session(database: f.db)
        try f.db.close()
        try session.attach("ref")
      },
      MisuseCase("Sessions", "diff against an unknown schema", .sqlite(.schema), mentions: ["nope.ref"]) { f in
        let session = try Session(database: f.db)
        try session.attach("ref")
        try session.diff(fromSchema: "nope", table: "ref")
      },
      MisuseCase("Sessions", "session used after its database closed", .database("databaseClosed")) { f in
        let session = try Session(database: f.db)
        try session.attach()
        try f.db.close()
        _ = try session.changeset()
      },
      MisuseCase("Sessions", "rebaser with garbage rebase data", .sqlite(.corrupt)) { _ in
        let rebaser = try Rebaser()
        try rebaser.configure(Data([0x54, 0x7f, 0x01]))
        _ = try rebaser.rebase(try conflictingChangeset())
      },
    ]
  #else
    static let sessions: [MisuseCase] = []
  #endif

  static let migrations: [MisuseCase] = [
    MisuseCase("Migrations", "duplicate name", .other("MigrationError"), mentions: ["v1"]) { f in
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
      migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE b(x)") }
      try migrator.migrate(f.db)
    },
    MisuseCase("Migrations", "unknown target", .other("MigrationError"), mentions: ["v9"]) { f in
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
      try migrator.migrate(f.db, upTo: "v9")
    },
    MisuseCase("Migrations", "migration throws: rolled back", .other("MigrationError"), mentions: ["broken"]) { f in
      var migrator = DatabaseMigrator()
      migrator.registerMigration("broken") { db in
        try db.execute(sql: "DELETE FROM ref")
        try db.execute(sql: "SELEC 1")
      }
      try migrator.migrate(f.db)
    },
    MisuseCase("Migrations", "migrate inside a transaction", .database("transactionState")) { f in
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
      try f.db.transaction { db in try migrator.migrate(db) }
    },
    MisuseCase("Migrations", "migrate a read-only database", .other("MigrationError")) { f in
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE a(x)") }
      try migrator.migrate(try Database(path: f.path, options: .readOnly))
    },
  ]

  static let recordsAndSchema: [MisuseCase] = [
    MisuseCase("Records", "insert into a missing table", .sqlite(.error), mentions: ["missing_records"]) { f in
      _ = try f.db.insert(MissingTableRecord(id: 1, name: "x"))
    },
    MisuseCase("Records", "literal with a syntax error", .sqlite(.error), mentions: ["syntax error"]) { f in
      let id = 1
      try f.db.execute(literal: "DELETE FROM ref WHER id = \(id)")
    },
    MisuseCase("Records", "fetch a record from a missing table", .sqlite(.error)) { f in
      _ = try f.db.fetchAll(MissingTableRecord.self, sql: "SELECT * FROM missing_records")
    },
    MisuseCase("Schema", "drop a missing table", .sqlite(.error), mentions: ["no such table"]) { f in
      try f.db.drop(table: "missing")
    },
    MisuseCase("Schema", "rename a missing table", .sqlite(.error), mentions: ["no such table"]) { f in
      try f.db.rename(table: "missing", to: "other")
    },
    MisuseCase("Schema", "drop a missing column", .sqlite(.error), mentions: ["no such column"]) { f in
      try f.db.drop(column: "nope", from: "ref")
    },
    MisuseCase("Schema", "rename a column to an existing name", .sqlite(.error), mentions: ["duplicate column"]) { f in
      try f.db.rename(column: "name", in: "ref", to: "score")
    },
    MisuseCase("Schema", "drop a missing index", .sqlite(.error), mentions: ["no such index"]) { f in
      try f.db.drop(index: "nope")
    },
    MisuseCase("Schema", "user version on a read-only database", .sqlite(.readOnly)) { f in
      try Database(path: f.path, options: .readOnly).setUserVersion(7)
    },
    MisuseCase("Schema", "user version of an unknown schema", .sqlite(.error), mentions: ["nope"]) { f in
      try f.db.setUserVersion(3, schema: "nope")
    },
  ]

  static let virtualTables: [MisuseCase] = [
    MisuseCase("Virtual tables", "unknown module", .sqlite(.error), mentions: ["no such module"]) { f in
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING nope")
    },
    MisuseCase("Virtual tables", "module init throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(init)")
    },
    MisuseCase("Virtual tables", "invalid declaration", .sqlite(.error)) { f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(declaration)")
    },
    MisuseCase("Virtual tables", "bestIndex throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(bestIndex)")
      _ = try f.db.prepare(sql: "SELECT * FROM v")
    },
    MisuseCase("Virtual tables", "openCursor throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(open)")
      _ = try f.db.prepare(sql: "SELECT * FROM v").allRows()
    },
    MisuseCase("Virtual tables", "filter throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(filter)")
      _ = try f.db.prepare(sql: "SELECT * FROM v").allRows()
    },
    MisuseCase("Virtual tables", "next throws during an insert", .sqlite(.error), mentions: ["failed on purpose"]) {
      f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(next)")
      try f.db.execute(sql: "INSERT INTO t(b) SELECT a FROM v")
    },
    MisuseCase("Virtual tables", "column throws with its own code", .sqlite(.mismatch), mentions: ["column 0 failed"]) {
      f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing(column)")
      _ = try f.db.prepare(sql: "SELECT a FROM v").allRows()
    },
    MisuseCase(
      "Virtual tables", "write to a read-only virtual table", .sqlite(.error), mentions: ["may not be modified"]
    ) { f in
      try f.db.addModule("failing", type: FailingModule.self)
      try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.v USING failing")
      try f.db.execute(sql: "INSERT INTO v VALUES (1, 2)")
    },
    MisuseCase("Virtual tables", "module name with a NUL", .sqlite(.misuse), mentions: ["NUL"]) { f in
      try f.db.addModule("fail\u{0}ing", type: FailingModule.self)
    },
  ]

  #if ENABLE_FTS5
    static let fts5: [MisuseCase] = [
      MisuseCase(
        "FTS5", "MATCH syntax error", .sqlite(.error), mentions: ["fts5: syntax error"],
        setup: { f in
          try f.db.batch(sql: "CREATE VIRTUAL TABLE docs USING fts5(body); INSERT INTO docs VALUES ('hello world');")
        }
      ) { f in
        _ = try f.db.prepare(sql: "SELECT * FROM docs WHERE docs MATCH 'hello AND'").allRows()
      },
      MisuseCase(
        "FTS5", "unknown column in a query", .sqlite(.error), mentions: ["no such column"],
        setup: { f in
          try f.db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
        }
      ) { f in
        _ = try f.db.prepare(sql: "SELECT * FROM docs WHERE docs MATCH 'title: x'").allRows()
      },
      MisuseCase("FTS5", "unknown tokenizer", .sqlite(.error), mentions: ["tokenize"]) { f in
        try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.docs USING fts5(body, tokenize = 'nope')")
      },
      MisuseCase("FTS5", "tokenizer init throws", .sqlite(.error)) { f in
        try f.db.addTokenizer("failing", type: FailingTokenizer.self)
        try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.docs USING fts5(body, tokenize = 'failing fail-init')")
      },
      MisuseCase("FTS5", "tokenizer throws on insert", .sqlite(.error), mentions: ["failed on purpose"]) { f in
        try f.db.addTokenizer("failing", type: FailingTokenizer.self)
        try f.db.execute(sql: "CREATE VIRTUAL TABLE temp.docs USING fts5(body, tokenize = 'failing')")
        try f.db.execute(sql: "INSERT INTO docs SELECT name FROM ref")
      },
      MisuseCase(
        "FTS5", "auxiliary function throws", .sqlite(.error), mentions: ["failed on purpose"],
        setup: { f in
          try f.db.batch(sql: "CREATE VIRTUAL TABLE docs USING fts5(body); INSERT INTO docs VALUES ('hello world');")
        }
      ) { f in
        try f.db.addAuxiliaryFunction("failing") { _, _, _ in throw MisuseCallbackError() }
        _ = try f.db.prepare(sql: "SELECT failing(docs) FROM docs WHERE docs MATCH 'hello'").allRows()
      },
      MisuseCase("FTS5", "tokenizer name with a NUL", .sqlite(.misuse), mentions: ["NUL"]) { f in
        try f.db.addTokenizer("porter\u{0}x", type: FailingTokenizer.self)
      },
      MisuseCase("FTS5", "auxiliary function name with a NUL", .sqlite(.misuse), mentions: ["NUL"]) { f in
        try f.db.addAuxiliaryFunction("bm25\u{0}x") { _, _, _ in }
      },
      MisuseCase(
        "FTS5", "delete from a contentless table", .sqlite(.error), mentions: ["contentless"],
        setup: { f in
          try f.db.batch(
            sql: "CREATE VIRTUAL TABLE docs USING fts5(body, content=''); INSERT INTO docs VALUES ('a b');")
        }
      ) { f in
        try f.db.execute(sql: "DELETE FROM docs WHERE rowid = 1")
      },
    ]
  #else
    static let fts5: [MisuseCase] = []
  #endif

  static let configuration: [MisuseCase] = {
    var cases: [MisuseCase] = [
      MisuseCase("Configuration", "checkpoint of an unknown schema", .sqlite(.error), mentions: ["nope"]) { f in
        _ = try f.db.checkpoint(schema: "nope")
      },
      MisuseCase("Configuration", "journal mode WAL on a read-only connection", .sqlite(.readOnly)) { f in
        let reader = try Database(path: f.path, options: .readOnly)
        _ = try reader.prepare(sql: "PRAGMA journal_mode = WAL").allRows()
        try reader.execute(sql: "DELETE FROM ref")
      },
    ]
    #if !OMIT_LOAD_EXTENSION
      cases += [
        MisuseCase(
          "Configuration", "load an extension while loading is off", .sqlite(.error), mentions: ["not authorized"]
        ) { f in
          try f.db.loadExtension(path: f.file("nothing.so"))
        },
        MisuseCase("Configuration", "load a file that is not an extension", .sqlite(.error), mentions: ["garbage.so"]) {
          f in
          let path = f.file("garbage.so")
          try Data("not a library".utf8).write(to: URL(fileURLWithPath: path))
          try f.db.enableExtensionLoading(true)
          try f.db.loadExtension(path: path)
        },
        MisuseCase("Configuration", "load_extension() from SQL", .sqlite(.error), mentions: ["not authorized"]) { f in
          try f.db.enableExtensionLoading(true)
          _ = try f.db.prepare(sql: "SELECT load_extension('/tmp/nothing.so')").allRows()
        },
      ]
    #endif
    #if ENABLE_SNAPSHOT
      cases += [
        MisuseCase("Configuration", "snapshot outside WAL mode", .sqlite(.error)) { f in
          try f.db.begin()
          defer { try? f.db.rollback() }
          _ = try f.db.prepare(sql: "SELECT count(*) FROM ref").allRows()
          _ = try f.db.takeSnapshot()
        },
        MisuseCase(
          "Configuration", "snapshot outside a read transaction", .database("transactionState"),
          mentions: ["transaction"]
        ) { f in
          _ = try f.db.prepare(sql: "PRAGMA journal_mode = WAL").allRows()
          _ = try f.db.takeSnapshot()
        },
      ]
    #endif
    return cases
  }()

  static let all: [MisuseCase] =
    queues + backup + blobs + serialize + sessions + migrations + recordsAndSchema + virtualTables + fts5
    + configuration
}
