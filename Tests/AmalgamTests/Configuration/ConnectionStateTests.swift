import Amalgam
import Foundation
import Testing

/// Connection state, memory, URI parameters, statement metadata and the function extras of issue 17.
@Suite struct ConnectionStateTests {
  @Test func transactionStateFollowsReadsAndWrites() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x)")
    #expect(try db.transactionState() == .none)
    try db.execute(sql: "BEGIN")
    #expect(try db.transactionState() == .none)  // BEGIN DEFERRED takes no lock yet
    _ = try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self)
    #expect(try db.transactionState(schema: "main") == .read)
    try db.execute(sql: "INSERT INTO t VALUES (1)")
    #expect(try db.transactionState() == .write)
    #expect(try db.transactionState(schema: "temp") == .none)
    try db.execute(sql: "COMMIT")
    #expect(try db.transactionState() == .none)
    #expect(throws: SQLiteError.self) { try db.transactionState(schema: "nowhere") }
  }

  @Test func schemaNamesListAttachedDatabases() throws {
    let db = try Database()
    #expect(db.schemaNames == ["main", "temp"])
    try db.execute(sql: "ATTACH ':memory:' AS aux")
    #expect(db.schemaNames == ["main", "temp", "aux"])
    try db.close()
    #expect(db.schemaNames == [])
  }

  @Test func flushingAndReleasingMemoryKeepTheData() throws {
    try withTemporaryDirectory { directory in
      let db = try Database(path: directory.appendingPathComponent("flush.sqlite").path)
      try db.execute(sql: "CREATE TABLE t(x)")
      try db.execute(sql: "BEGIN")
      try db.execute(
        sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
          + "INSERT INTO t SELECT randomblob(100) FROM n")
      try db.flushCache()
      try db.releaseMemory()
      try db.execute(sql: "COMMIT")
      #expect(try db.prepare(sql: "SELECT count(*) FROM t").front(Int.self) == 200)
    }
  }

  @Test func heapLimitsRoundTripAndRandomBytesDiffer() {
    let soft = SQLite.softHeapLimit
    let hard = SQLite.hardHeapLimit
    defer {
      SQLite.softHeapLimit = soft
      SQLite.hardHeapLimit = hard
    }
    SQLite.softHeapLimit = 512 * 1024 * 1024
    #expect(SQLite.softHeapLimit == 512 * 1024 * 1024)
    SQLite.hardHeapLimit = 1024 * 1024 * 1024
    #expect(SQLite.hardHeapLimit == 1024 * 1024 * 1024)
    SQLite.hardHeapLimit = -5
    #expect(SQLite.hardHeapLimit == 0)
    let a = SQLite.randomBytes(count: 32)
    let b = SQLite.randomBytes(count: 32)
    #expect(a.count == 32 && a != b)
    #expect(SQLite.randomBytes(count: -1).isEmpty)
    #expect(SQLite.releaseMemory(1 << 20) >= 0)
  }

  @Test func uriParametersAreRead() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("uri.sqlite").path
      let db = try Database(path: "file:\(path)?cache=private&fast=yes&size=42&flag", options: .init(uri: true))
      #expect(db.uriParameter("cache") == "private")
      #expect(db.uriParameter("flag") == "")
      #expect(db.uriParameter("missing") == nil)
      #expect(db.uriBoolean("fast", default: false))
      #expect(!db.uriBoolean("missing", default: false))
      #expect(db.uriInteger("size", default: 0) == 42)
      #expect(db.uriInteger("cache", default: 7) == 7)
      #expect(db.uriParameterNames() == ["cache", "fast", "size", "flag"])
    }
  }

  #if ENABLE_COLUMN_METADATA
    @Test func columnOriginsNameTheTableColumn() throws {
      let db = try Database()
      try db.execute(
        sql: "CREATE TABLE person(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL COLLATE NOCASE)")
      let statement = try db.prepare(sql: "SELECT name AS who, 1, id FROM person")
      #expect(try statement.columnOrigin(at: 0) == ColumnOrigin(schema: "main", table: "person", column: "name"))
      #expect(try statement.columnOrigin(at: 1) == nil)
      #expect(try statement.columnOrigin(at: 2)?.column == "id")
      #expect(throws: DatabaseError.columnIndexOutOfRange(index: 3, count: 3)) { try statement.columnOrigin(at: 3) }

      let name = try db.columnMetadata(table: "person", column: "name")
      #expect(name.declaredType == "TEXT" && name.collation == "NOCASE" && name.isNotNull && !name.isPrimaryKey)
      let id = try db.columnMetadata(table: "person", column: "id", schema: "main")
      #expect(id.isPrimaryKey && id.isAutoincrement)
      #expect(throws: SQLiteError.self) { try db.columnMetadata(table: "person", column: "age") }
    }
  #endif

  @Test func aStatementCanBeExplainedInPlace() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
    let statement = try db.prepare(sql: "SELECT x FROM t WHERE id = ?")
    #expect(statement.explainMode == .none)
    try statement.setExplainMode(.queryPlan)
    #expect(statement.explainMode == .queryPlan)
    let plan = try statement.bind(parameterValues: [1]).allRows().map { "\($0.last ?? .null)" }
    #expect(plan.contains { $0.contains("USING INTEGER PRIMARY KEY") })
    try statement.setExplainMode(.none)
    #expect(try statement.bind(parameterValues: [1]).allRows().isEmpty)
    #expect(try db.prepare(sql: "EXPLAIN SELECT 1").explainMode == .explain)
  }

  @Test func functionsCacheWorkPerConstantArgument() throws {
    final class Compiled {
      nonisolated(unsafe) static var built = 0
      let prefix: String
      init(_ prefix: String) {
        self.prefix = prefix
        Compiled.built += 1
      }
    }
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x TEXT)")
    try db.batch(sql: "INSERT INTO t VALUES ('apple'), ('apricot'), ('banana'), ('avocado')")
    try db.addFunction("starts", arity: 2) { arguments, context in
      let compiled =
        try context.auxiliaryData(forArgument: 0) as? Compiled ?? Compiled(arguments.value(at: 0, as: String.self))
      context.setAuxiliaryData(compiled, forArgument: 0)
      context.setResult(.integer((arguments.text(at: 1) ?? "").hasPrefix(compiled.prefix) ? 1 : 0))
    }
    Compiled.built = 0
    #expect(try db.prepare(sql: "SELECT count(*) FROM t WHERE starts('ap', x)").front(Int.self) == 2)
    #expect(Compiled.built == 1, "the compiled argument is reused across rows")
  }

  @Test func argumentsTellBoundParametersAndNumericValues() throws {
    let db = try Database()
    var seen: [String] = []
    try db.addFunction("inspect", arity: 2) { arguments, context in
      seen.append(
        "\(arguments.isBoundParameter(at: 0)) \(arguments.isBoundParameter(at: 1)) \(arguments.numericValue(at: 1))")
      context.setResult(.null)
    }
    _ = try db.prepare(sql: "SELECT inspect(?, ' 12 ')").bind(parameterValues: [1]).front(Int.self)
    _ = try db.prepare(sql: "SELECT inspect(1, '2.5')").front(Int.self)
    _ = try db.prepare(sql: "SELECT inspect(1, 'abc')").front(Int.self)
    #expect(seen == ["true false 12", "false false 2.5", "false false 'abc'"])
  }

  @Test func collationsAreRegisteredOnDemand() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(x TEXT)")
    try db.batch(sql: "INSERT INTO t VALUES ('a'), ('c'), ('b')")
    var asked: [String] = []
    try db.setCollationNeededHandler { [weak db] name in
      asked.append(name)
      if name == "reverse" { try? db?.addCollation("reverse") { left, right in right.compare(left) } }
    }
    #expect(
      try db.prepare(sql: "SELECT x FROM t ORDER BY x COLLATE reverse").column(0, as: String.self) == ["c", "b", "a"])
    #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT x FROM t ORDER BY x COLLATE unknown") }
    #expect(asked == ["reverse", "unknown"])
    try db.removeCollationNeededHandler()
    #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT x FROM t ORDER BY x COLLATE other") }
    #expect(asked == ["reverse", "unknown"])
  }
}
