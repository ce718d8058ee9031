import Amalgam
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An error that a misuse case's own callback throws, to check that it reaches the caller.
struct MisuseCallbackError: Error, CustomStringConvertible {
  var description: String { "the callback failed on purpose" }
}

/// The first value of the first row of `sql`, as `T`.
func misuseValue<T: ColumnConvertible>(_ db: Database, _ sql: String, as type: T.Type = T.self) throws -> T {
  guard let row = try db.prepare(sql: sql).step() else { throw DatabaseError.noRow(sql: sql) }
  return try row.value(at: 0, as: T.self)
}

/// Misuse of the core: SQL text, parameters, columns, conversions, limits, closed databases, statements
/// that outlive their database, transactions, constraints, files.
enum MisuseCoreCases {
  static let sql: [MisuseCase] = [
    MisuseCase("SQL", "syntax error", .sqlite(.error), mentions: ["syntax error", "SELEC"]) { f in
      _ = try f.db.prepare(sql: "SELEC 1")
    },
    MisuseCase("SQL", "no such table", .sqlite(.error), mentions: ["no such table", "missing"]) { f in
      _ = try f.db.prepare(sql: "SELECT * FROM missing")
    },
    MisuseCase("SQL", "no such column", .sqlite(.error), mentions: ["no such column", "nope"]) { f in
      _ = try f.db.prepare(sql: "SELECT nope FROM ref")
    },
    MisuseCase("SQL", "no such function", .sqlite(.error), mentions: ["no such function", "frobnicate"]) { f in
      _ = try f.db.prepare(sql: "SELECT frobnicate(1)")
    },
    MisuseCase("SQL", "wrong number of arguments to a built-in function", .sqlite(.error), mentions: ["substr"]) { f in
      _ = try f.db.prepare(sql: "SELECT substr()")
    },
    MisuseCase("SQL", "incomplete statement", .sqlite(.error), mentions: ["incomplete input"]) { f in
      _ = try f.db.prepare(sql: "SELECT * FROM ref WHERE")
    },
    MisuseCase("SQL", "unterminated string", .sqlite(.error), mentions: ["unrecognized token"]) { f in
      _ = try f.db.prepare(sql: "SELECT 'abc")
    },
    MisuseCase("SQL", "empty SQL", .database("emptyStatement")) { f in
      _ = try f.db.prepare(sql: "")
    },
    MisuseCase("SQL", "only a comment", .database("emptyStatement"), mentions: ["no SQL statement"]) { f in
      _ = try f.db.prepare(sql: "  -- nothing here\n")
    },
    MisuseCase("SQL", "two statements where one is expected", .database("multipleStatements"), mentions: ["batch"]) {
      f in
      _ = try f.db.prepare(sql: "SELECT 1; DELETE FROM ref")
    },
    MisuseCase("SQL", "execute with two statements", .database("multipleStatements")) { f in
      try f.db.execute(sql: "DELETE FROM ref; SELECT 1")
    },
    MisuseCase("SQL", "embedded NUL in prepared SQL", .database("nulCharacterInSQL"), mentions: ["NUL"]) { f in
      _ = try f.db.prepare(sql: "SELECT 1\u{0}; DELETE FROM ref")
    },
    MisuseCase("SQL", "embedded NUL in executed SQL", .database("nulCharacterInSQL")) { f in
      try f.db.execute(sql: "DELETE FROM ref WHERE id = 1\u{0} OR 1")
    },
    MisuseCase("SQL", "embedded NUL in a batch", .database("nulCharacterInSQL"), mentions: ["byte"]) { f in
      try f.db.batch(sql: "SELECT 1;\u{0} DELETE FROM ref;")
    },
    MisuseCase("SQL", "batch stops at a syntax error", .sqlite(.error), mentions: ["syntax error"]) { f in
      try f.db.batch(sql: "SELECT 1; SELEC 2; DELETE FROM ref")
    },
    MisuseCase("SQL", "batch with a parameter", .database("parameterCountMismatch")) { f in
      try f.db.batch(sql: "SELECT 1; DELETE FROM ref WHERE id = ?")
    },
    MisuseCase("SQL", "DDL error: table exists", .sqlite(.error), mentions: ["already exists"]) { f in
      try f.db.execute(sql: "CREATE TABLE ref(x)")
    },
    MisuseCase("SQL", "invalid UTF-8 in SQL text via CAST", .database("conversionFailed"), mentions: ["String"]) { f in
      // SQLite keeps the bytes; reading them as a Swift String must not replace them silently.
      _ = try misuseValue(f.db, "SELECT CAST(x'c328' AS TEXT)", as: String.self)
    },
    MisuseCase("SQL", "ambiguous column", .sqlite(.error), mentions: ["ambiguous"]) { f in
      _ = try f.db.prepare(sql: "SELECT id FROM ref, ref AS r2")
    },
  ]

  static let parameters: [MisuseCase] = [
    MisuseCase("Parameters", "execute without values for a parameter", .database("parameterCountMismatch")) { f in
      try f.db.execute(sql: "DELETE FROM ref WHERE id = ?")
    },
    MisuseCase("Parameters", "too few values", .database("parameterCountMismatch"), mentions: ["2 parameter"]) { f in
      try f.db.execute(sql: "UPDATE ref SET name = ? WHERE id = ?", parameterValues: ["x"])
    },
    MisuseCase("Parameters", "too many values", .database("parameterCountMismatch"), mentions: ["3 value"]) { f in
      try f.db.execute(sql: "UPDATE ref SET name = ? WHERE id = ?", parameterValues: ["x", 1, 2])
    },
    MisuseCase("Parameters", "values for a statement with none", .database("parameterCountMismatch")) { f in
      try f.db.execute(sql: "DELETE FROM ref", parameterValues: [1])
    },
    MisuseCase("Parameters", "unknown name", .database("noSuchParameter"), mentions: ["nope"]) { f in
      try f.db.execute(sql: "UPDATE ref SET name = :name WHERE id = 1", parameters: ["name": "x", "nope": 1])
    },
    MisuseCase("Parameters", "missing name", .database("missingParameter"), mentions: [":id"]) { f in
      try f.db.execute(sql: "UPDATE ref SET name = :name WHERE id = :id", parameters: ["name": "x"])
    },
    MisuseCase("Parameters", "same parameter twice", .database("duplicateParameter"), mentions: ["id"]) { f in
      try f.db.execute(sql: "DELETE FROM ref WHERE id = :id", parameters: ["id": 1, ":id": 2])
    },
    MisuseCase("Parameters", "name for a positional parameter", .database("noSuchParameter")) { f in
      _ = try f.db.prepare(sql: "SELECT ?").bind(value: 1, toParameter: "x")
    },
    MisuseCase("Parameters", "names for positional parameters", .database("noSuchParameter"), mentions: ["id"]) { f in
      try f.db.execute(sql: "DELETE FROM ref WHERE id = ?", parameters: ["id": 1])
    },
    MisuseCase("Parameters", "index 0", .sqlite(.range), mentions: ["index 0"]) { f in
      _ = try f.db.prepare(sql: "SELECT ?").bind(value: 1, toParameter: 0)
    },
    MisuseCase("Parameters", "index past the end", .sqlite(.range), mentions: ["index 2", "1 parameter"]) { f in
      _ = try f.db.prepare(sql: "SELECT ?").bind(value: 1, toParameter: 2)
    },
    MisuseCase("Parameters", "negative index", .sqlite(.range), mentions: ["-5"]) { f in
      _ = try f.db.prepare(sql: "SELECT ?").bind(value: "a", toParameter: -5)
    },
    MisuseCase("Parameters", "index beyond Int32", .sqlite(.range)) { f in
      _ = try f.db.prepare(sql: "SELECT ?").bind(value: 1, toParameter: Int(Int32.max) + 7)
    },
    MisuseCase("Parameters", "UInt64 above Int64.max", .database("unrepresentableValue"), mentions: ["UInt64"]) { f in
      try f.db.execute(sql: "UPDATE ref SET score = ? WHERE id = 1", parameterValues: [UInt64.max])
    },
    MisuseCase("Parameters", "UInt above Int64.max", .database("unrepresentableValue"), mentions: ["UInt"]) { f in
      try f.db.execute(sql: "UPDATE ref SET score = ? WHERE id = 1", parameterValues: [UInt(Int64.max) + 1])
    },
    MisuseCase("Parameters", "NaN into a NOT NULL column", .sqlite(.constraintNotNull), mentions: ["NOT NULL"]) { f in
      // SQLite stores NaN as NULL.
      try f.db.execute(sql: "UPDATE ref SET name = ? WHERE id = 1", parameterValues: [Double.nan])
    },
    MisuseCase("Parameters", "Decimal NaN", .database("unrepresentableValue"), mentions: ["NaN"]) { f in
      try f.db.execute(sql: "UPDATE ref SET score = ? WHERE id = 1", parameterValues: [Decimal.nan])
    },
    MisuseCase("Parameters", "bound parameter with NUL in a named key", .database("noSuchParameter")) { f in
      try f.db.execute(sql: "DELETE FROM ref WHERE id = :id", parameters: [":id\u{0}x": 1])
    },
    MisuseCase("Parameters", "statement arguments of the wrong count", .database("parameterCountMismatch")) { f in
      _ = try f.db.fetchValue(Int.self, sql: "SELECT ? + ?", arguments: [1])
    },
  ]

  static let columns: [MisuseCase] = [
    MisuseCase("Columns", "index past the end", .database("columnIndexOutOfRange"), mentions: ["5", "4 column"]) { f in
      let row = try f.db.prepare(sql: "SELECT * FROM ref").step()
      _ = try row?.value(at: 5, as: Int.self)
    },
    MisuseCase("Columns", "negative index", .database("columnIndexOutOfRange"), mentions: ["-1"]) { f in
      let row = try f.db.prepare(sql: "SELECT * FROM ref").step()
      _ = try row?.value(at: -1, as: Int?.self)
    },
    MisuseCase("Columns", "isNull past the end", .database("columnIndexOutOfRange")) { f in
      let row = try f.db.prepare(sql: "SELECT 1").step()
      _ = try row?.isNull(at: 1)
    },
    MisuseCase("Columns", "unknown name", .database("noSuchColumn"), mentions: ["nope", "name"]) { f in
      let row = try f.db.prepare(sql: "SELECT id, name FROM ref").step()
      _ = try row?.value(named: "nope", as: String.self)
    },
    MisuseCase("Columns", "columnName past the end", .database("columnIndexOutOfRange")) { f in
      _ = try f.db.prepare(sql: "SELECT 1").columnName(at: 3)
    },
    MisuseCase("Columns", "columnIndex of an unknown name", .database("noSuchColumn")) { f in
      _ = try f.db.prepare(sql: "SELECT 1 AS one").columnIndex(named: "two")
    },
    MisuseCase("Columns", "declaredType past the end", .database("columnIndexOutOfRange")) { f in
      _ = try f.db.prepare(sql: "SELECT id FROM ref").declaredType(ofColumn: 1)
    },
    MisuseCase("Columns", "column(_:) past the end", .database("columnIndexOutOfRange")) { f in
      _ = try f.db.prepare(sql: "SELECT id FROM ref").column(2, as: Int.self)
    },
    MisuseCase("Columns", "rows(columns:) past the end", .database("columnIndexOutOfRange")) { f in
      _ = try f.db.prepare(sql: "SELECT id FROM ref").rows(columns: [0, 9])
    },
    MisuseCase("Columns", "fetched row past the end", .database("columnIndexOutOfRange")) { f in
      _ = try f.db.fetchRow(sql: "SELECT id FROM ref")?.value(at: 3, as: Int.self)
    },
    MisuseCase("Columns", "fetched row unknown name", .database("noSuchColumn")) { f in
      _ = try f.db.fetchRow(sql: "SELECT id FROM ref")?.value(named: "zz", as: Int.self)
    },
  ]

  static let conversions: [MisuseCase] = [
    MisuseCase("Conversions", "TEXT as Int", .database("conversionFailed"), mentions: ["Int", "name"]) { f in
      let row = try f.db.prepare(sql: "SELECT name FROM ref").step()
      _ = try row?.value(at: 0, as: Int.self)
    },
    MisuseCase("Conversions", "NULL as a non-optional Int", .database("conversionFailed"), mentions: ["NULL"]) { f in
      _ = try misuseValue(f.db, "SELECT NULL", as: Int.self)
    },
    MisuseCase("Conversions", "NULL as String", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT score FROM ref WHERE id = 2", as: String.self)
    },
    MisuseCase("Conversions", "REAL with a fraction as Int", .database("conversionFailed"), mentions: ["1.5"]) { f in
      _ = try misuseValue(f.db, "SELECT 1.5", as: Int.self)
    },
    MisuseCase("Conversions", "REAL 1e19 as Int (overflow)", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT 1e19", as: Int.self)
    },
    MisuseCase("Conversions", "300 as UInt8 (overflow)", .database("conversionFailed"), mentions: ["300", "UInt8"]) {
      f in
      _ = try misuseValue(f.db, "SELECT 300", as: UInt8.self)
    },
    MisuseCase("Conversions", "-1 as UInt", .database("conversionFailed"), mentions: ["-1"]) { f in
      _ = try misuseValue(f.db, "SELECT -1", as: UInt.self)
    },
    MisuseCase("Conversions", "Int64.min as Int32", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT -9223372036854775808", as: Int32.self)
    },
    MisuseCase("Conversions", "infinity as Int", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT 1e999", as: Int.self)
    },
    MisuseCase("Conversions", "-infinity as Int64", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT -1e999", as: Int64.self)
    },
    MisuseCase("Conversions", "1e300 as Float", .database("conversionFailed"), mentions: ["Float"]) { f in
      _ = try misuseValue(f.db, "SELECT 1e300", as: Float.self)
    },
    MisuseCase("Conversions", "BLOB as String", .database("conversionFailed"), mentions: ["String"]) { f in
      _ = try misuseValue(f.db, "SELECT x'ff00'", as: String.self)
    },
    MisuseCase("Conversions", "TEXT as Double", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT '1.5'", as: Double.self)
    },
    MisuseCase("Conversions", "REAL as Bool", .database("conversionFailed"), mentions: ["Bool"]) { f in
      _ = try misuseValue(f.db, "SELECT 0.5", as: Bool.self)
    },
    MisuseCase("Conversions", "TEXT as Data", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT 12", as: Data.self)
    },
    MisuseCase("Conversions", "invalid UTF-8 TEXT as String", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT CAST(x'80ff' AS TEXT)", as: String.self)
    },
    MisuseCase("Conversions", "text that is not a date", .database("conversionFailed"), mentions: ["Date"]) { f in
      _ = try misuseValue(f.db, "SELECT 'yesterday'", as: Date.self)
    },
    MisuseCase("Conversions", "text that is not a UUID", .database("conversionFailed"), mentions: ["UUID"]) { f in
      _ = try misuseValue(f.db, "SELECT 'not-a-uuid'", as: UUID.self)
    },
    MisuseCase("Conversions", "a 3-byte blob as UUID", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT x'010203'", as: UUID.self)
    },
    MisuseCase("Conversions", "text that is not a URL", .database("conversionFailed"), mentions: ["URL"]) { f in
      _ = try misuseValue(f.db, "SELECT ''", as: URL.self)
    },
    MisuseCase("Conversions", "text that is not a Decimal", .database("conversionFailed")) { f in
      _ = try misuseValue(f.db, "SELECT 'twelve'", as: Decimal.self)
    },
    MisuseCase("Conversions", "fetchValue of no row", .database("noRow"), mentions: ["returned no row"]) { f in
      _ = try f.db.fetchValue(Int.self, sql: "SELECT id FROM ref WHERE id > 100")
    },
    MisuseCase("Conversions", "fetchValue of a NULL as Int", .database("conversionFailed")) { f in
      _ = try f.db.fetchValue(Int.self, sql: "SELECT score FROM ref WHERE id = 2")
    },
    MisuseCase("Conversions", "decode a row into a mismatched Decodable", .database("conversionFailed")) { f in
      struct Wrong: Decodable { var id: Int; var name: Int }
      _ = try f.db.fetchOne(Wrong.self, sql: "SELECT id, name FROM ref")
    },
    MisuseCase("Conversions", "decode a row missing a key", .database("noSuchColumn"), mentions: ["missing"]) { f in
      struct Wrong: Decodable { var id: Int; var missing: String }
      _ = try f.db.fetchOne(Wrong.self, sql: "SELECT id FROM ref")
    },
  ]

  static let limits: [MisuseCase] = [
    MisuseCase("Limits", "bound string over SQLITE_LIMIT_LENGTH", .sqlite(.tooBig)) { f in
      try f.db.setLimit(.length, to: 100)
      try f.db.execute(
        sql: "UPDATE ref SET name = ? WHERE id = 1", parameterValues: [String(repeating: "x", count: 200)])
    },
    MisuseCase("Limits", "bound blob over SQLITE_LIMIT_LENGTH", .sqlite(.tooBig)) { f in
      try f.db.setLimit(.length, to: 100)
      try f.db.execute(
        sql: "UPDATE ref SET data = ? WHERE id = 1", parameterValues: [[UInt8](repeating: 1, count: 101)])
    },
    MisuseCase("Limits", "bound Data over SQLITE_LIMIT_LENGTH", .sqlite(.tooBig)) { f in
      try f.db.setLimit(.length, to: 100)
      try f.db.execute(sql: "UPDATE ref SET data = ? WHERE id = 1", parameterValues: [Data(count: 1000)])
    },
    MisuseCase("Limits", "zero blob over SQLITE_LIMIT_LENGTH", .sqlite(.tooBig)) { f in
      try f.db.setLimit(.length, to: 100)
      try f.db.execute(sql: "UPDATE ref SET data = ? WHERE id = 1", parameterValues: [ZeroBlob(count: 1000)])
    },
    MisuseCase("Limits", "computed string over SQLITE_LIMIT_LENGTH", .sqlite(.tooBig), mentions: ["too big"]) { f in
      try f.db.setLimit(.length, to: 1000)
      try f.db.execute(sql: "UPDATE ref SET name = printf('%.*c', 5000, 'x') WHERE id = 1")
    },
    MisuseCase("Limits", "SQL over SQLITE_LIMIT_SQL_LENGTH", .sqlite(.tooBig)) { f in
      try f.db.setLimit(.sqlLength, to: 50)
      _ = try f.db.prepare(sql: "SELECT 1 " + String(repeating: "+ 1 ", count: 50))
    },
    MisuseCase("Limits", "expression deeper than SQLITE_LIMIT_EXPR_DEPTH", .sqlite(.error), mentions: ["depth"]) { f in
      try f.db.setLimit(.expressionDepth, to: 10)
      _ = try f.db.prepare(sql: "SELECT 1" + String(repeating: " + 1", count: 20))
    },
    MisuseCase("Limits", "more columns than SQLITE_LIMIT_COLUMN", .sqlite(.error), mentions: ["too many columns"]) {
      f in
      try f.db.setLimit(.columns, to: 5)
      _ = try f.db.prepare(sql: "SELECT 1, 2, 3, 4, 5, 6")
    },
    MisuseCase("Limits", "compound SELECT over its limit", .sqlite(.error), mentions: ["too many terms"]) { f in
      try f.db.setLimit(.compoundSelectTerms, to: 2)
      _ = try f.db.prepare(sql: "SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4")
    },
    MisuseCase("Limits", "function arguments over their limit", .sqlite(.error), mentions: ["too many arguments"]) {
      f in
      try f.db.setLimit(.functionArguments, to: 2)
      _ = try f.db.prepare(sql: "SELECT max(1, 2, 3, 4)")
    },
    MisuseCase("Limits", "parameter number over its limit", .sqlite(.error), mentions: ["variable number"]) { f in
      try f.db.setLimit(.variableNumber, to: 10)
      _ = try f.db.prepare(sql: "SELECT ?11")
    },
    MisuseCase("Limits", "LIKE pattern over its limit", .sqlite(.error), mentions: ["LIKE"]) { f in
      try f.db.setLimit(.likePatternLength, to: 5)
      _ = try f.db.prepare(sql: "SELECT 'abc' LIKE 'abcdefghij'").step()
    },
    MisuseCase("Limits", "attach over its limit", .sqlite(.error), mentions: ["too many attached"]) { f in
      try f.db.setLimit(.attachedDatabases, to: 0)
      try f.db.execute(sql: "ATTACH ':memory:' AS other")
    },
    MisuseCase("Limits", "negative limit", .sqlite(.range), mentions: ["negative"]) { f in
      try f.db.setLimit(.length, to: -1)
    },
    MisuseCase("Limits", "floating-point digits out of range", .sqlite(.range), mentions: ["4 to 23"]) { f in
      try f.db.setFloatingPointDigits(99)
    },
  ]

  static let closed: [MisuseCase] = [
    MisuseCase("Closed database", "prepare", .database("databaseClosed"), mentions: ["closed"]) { f in
      try f.db.close()
      _ = try f.db.prepare(sql: "SELECT 1")
    },
    MisuseCase("Closed database", "execute", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Closed database", "batch", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.batch(sql: "DELETE FROM ref")
    },
    MisuseCase("Closed database", "cachedStatement", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.cachedStatement(sql: "SELECT 1")
    },
    MisuseCase("Closed database", "begin", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.begin()
    },
    MisuseCase("Closed database", "transaction", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.transaction { db in try db.execute(sql: "DELETE FROM ref") }
    },
    MisuseCase("Closed database", "savepoint", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.savepoint { db in try db.execute(sql: "DELETE FROM ref") }
    },
    MisuseCase("Closed database", "sqliteHandle", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.sqliteHandle
    },
    MisuseCase("Closed database", "setLimit", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.setLimit(.length, to: 10)
    },
    MisuseCase("Closed database", "isEnabled", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.isEnabled(.foreignKeys)
    },
    MisuseCase("Closed database", "setBusyTimeout", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.setBusyTimeout(1)
    },
    MisuseCase("Closed database", "addFunction", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.addFunction("f", arity: 0) { _ in .null }
    },
    MisuseCase("Closed database", "addCollation", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.addCollation("c") { a, b in a < b ? .orderedAscending : .orderedSame }
    },
    MisuseCase("Closed database", "setCommitHook", .database("databaseClosed")) { f in
      try f.db.close()
      try f.db.setCommitHook { .commit }
    },
    MisuseCase("Closed database", "fetchAll", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.fetchAll(Int.self, sql: "SELECT id FROM ref")
    },
    MisuseCase("Closed database", "tables()", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.tables()
    },
    MisuseCase("Closed database", "status", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.status(.cacheUsed)
    },
    MisuseCase("Closed database", "serialize", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.serialize()
    },
    MisuseCase("Closed database", "openBlob", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.openBlob(table: "t", column: "c", rowid: 1)
    },
    MisuseCase("Closed database", "checkpoint", .database("databaseClosed")) { f in
      try f.db.close()
      _ = try f.db.checkpoint()
    },
  ]

  static let outliving: [MisuseCase] = [
    MisuseCase("Statement outliving its database", "step", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "DELETE FROM ref")
      try f.db.close()
      _ = try statement.step()
    },
    MisuseCase("Statement outliving its database", "execute", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "DELETE FROM ref WHERE id = ?")
      try f.db.close()
      try statement.bind(parameterValues: [1]).execute()
    },
    MisuseCase("Statement outliving its database", "bind", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "SELECT ?")
      try f.db.close()
      _ = try statement.bind(value: 1, toParameter: 1)
    },
    MisuseCase("Statement outliving its database", "reset", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "SELECT 1")
      try f.db.close()
      _ = try statement.reset()
    },
    MisuseCase("Statement outliving its database", "clearBindings", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "SELECT ?")
      try f.db.close()
      _ = try statement.clearBindings()
    },
    MisuseCase("Statement outliving its database", "allRows", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "SELECT * FROM ref")
      try f.db.close()
      _ = try statement.allRows()
    },
    MisuseCase("Statement outliving its database", "mid-iteration", .database("databaseClosed")) { f in
      let statement = try f.db.prepare(sql: "SELECT * FROM ref")
      _ = try statement.step()
      try f.db.close()
      _ = try statement.step()
    },
    MisuseCase("Statement outliving its database", "released database", .database("databaseClosed")) { f in
      // The statement keeps no reference to the Database; closing the fixture's connection and keeping
      // only the statement leaves SQLite's zombie connection to the statement.
      var statement: Statement? = try f.db.prepare(sql: "SELECT count(*) FROM ref")
      try f.db.close()
      defer { statement = nil }
      _ = try statement?.front(Int.self)
    },
  ]

  static let transactions: [MisuseCase] = [
    MisuseCase("Transactions", "transaction inside a transaction", .database("transactionState")) { f in
      try f.db.transaction { db in
        try db.execute(sql: "DELETE FROM ref WHERE id = 1")
        try db.transaction { db in try db.execute(sql: "DELETE FROM ref") }
      }
    },
    MisuseCase("Transactions", "commit without a transaction", .sqlite(.error), mentions: ["no transaction"]) { f in
      try f.db.commit()
    },
    MisuseCase("Transactions", "rollback without a transaction", .sqlite(.error), mentions: ["no transaction"]) { f in
      try f.db.rollback()
    },
    MisuseCase("Transactions", "begin twice", .sqlite(.error), mentions: ["within a transaction"]) { f in
      try f.db.begin()
      defer { try? f.db.rollback() }
      try f.db.execute(sql: "DELETE FROM ref")
      try f.db.begin()
    },
    MisuseCase("Transactions", "body throws: rolled back", .other("MisuseCallbackError")) { f in
      try f.db.transaction { db in
        try db.execute(sql: "DELETE FROM ref")
        throw MisuseCallbackError()
      }
    },
    MisuseCase("Transactions", "savepoint body throws: rolled back", .other("MisuseCallbackError")) { f in
      try f.db.savepoint("sp") { db in
        try db.execute(sql: "UPDATE ref SET name = 'changed'")
        throw MisuseCallbackError()
      }
    },
    MisuseCase("Transactions", "body commits itself", .database("transactionEndedInBody"), changesDatabase: true) { f in
      try f.db.transaction { db in
        try db.execute(sql: "INSERT INTO t(b) VALUES ('committed')")
        try db.execute(sql: "COMMIT")
      }
    },
    MisuseCase("Transactions", "body rolls back itself", .database("transactionEndedInBody"), mentions: ["rolled back"])
    { f in
      try f.db.transaction { db in
        try db.execute(sql: "DELETE FROM ref")
        try db.execute(sql: "ROLLBACK")
      }
    },
    MisuseCase("Transactions", "constraint failure inside a transaction", .sqlite(.constraintUnique)) { f in
      try f.db.transaction { db in
        try db.execute(sql: "INSERT INTO t(b) VALUES ('new')")
        try db.execute(sql: "INSERT INTO t(b) VALUES ('x')")
      }
    },
    MisuseCase("Transactions", "release of an unknown savepoint", .sqlite(.error), mentions: ["no such savepoint"]) {
      f in
      try f.db.execute(sql: "RELEASE nope")
    },
  ]

  static let constraints: [MisuseCase] = [
    MisuseCase("Constraints", "duplicate primary key", .sqlite(.constraintPrimaryKey), mentions: ["ref.id"]) { f in
      try f.db.execute(sql: "INSERT INTO ref(id, name) VALUES (1, 'again')")
    },
    MisuseCase("Constraints", "duplicate unique value", .sqlite(.constraintUnique), mentions: ["t.b"]) { f in
      try f.db.execute(sql: "INSERT INTO t(b) VALUES ('x')")
    },
    MisuseCase("Constraints", "NULL into NOT NULL", .sqlite(.constraintNotNull), mentions: ["ref.name"]) { f in
      try f.db.execute(sql: "INSERT INTO ref(id, name) VALUES (9, ?)", parameterValues: [nil])
    },
    MisuseCase(
      "Constraints", "CHECK constraint", .sqlite(.constraintCheck), mentions: ["positive"],
      setup: { f in
        try f.db.execute(sql: "CREATE TABLE checked(n INTEGER CONSTRAINT positive CHECK (n > 0))")
      }
    ) { f in
      try f.db.execute(sql: "INSERT INTO checked VALUES (-1)")
    },
    MisuseCase(
      "Constraints", "foreign key", .sqlite(.constraintForeignKey),
      setup: { f in
        try f.db.execute(sql: "CREATE TABLE child(ref_id INTEGER REFERENCES ref(id))")
      }
    ) { f in
      try f.db.execute(sql: "PRAGMA foreign_keys = ON")
      try f.db.execute(sql: "INSERT INTO child VALUES (99)")
    },
    MisuseCase(
      "Constraints", "RAISE in a trigger", .sqlite(.constraintTrigger), mentions: ["no deletes"],
      setup: { f in
        try f.db.execute(
          sql: "CREATE TRIGGER keep BEFORE DELETE ON ref BEGIN SELECT RAISE(ABORT, 'no deletes'); END")
      }
    ) { f in
      try f.db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase(
      "Constraints", "STRICT table type", .sqlite(.constraint), mentions: ["cannot store TEXT"],
      setup: { f in
        try f.db.execute(sql: "CREATE TABLE strict_t(n INTEGER) STRICT")
      }
    ) { f in
      try f.db.execute(sql: "INSERT INTO strict_t VALUES (?)", parameterValues: ["abc"])
    },
  ]

  static let files: [MisuseCase] = [
    MisuseCase("Files", "write through a read-only connection", .sqlite(.readOnly), mentions: ["readonly"]) { f in
      let reader = try Database(path: f.path, options: .readOnly)
      try reader.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Files", "write through a ?mode=ro URI", .sqlite(.readOnly)) { f in
      let reader = try Database(path: "file:\(f.path)?mode=ro", options: Database.OpenOptions(uri: true))
      try reader.execute(sql: "UPDATE ref SET name = 'x'")
    },
    MisuseCase("Files", "write to a file with mode 0444", .sqlite(.readOnly)) { f in
      try f.db.close()
      chmod(f.path, 0o444)
      let writer = try Database(path: f.path)
      // A process with root rights may write a 0444 file anyway: then query_only stands in for the
      // permission, so that the case checks the same error path.
      if geteuid() == 0 { try writer.execute(sql: "PRAGMA query_only = ON") }
      try writer.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Files", "full disk (max_page_count)", .sqlite(.full), mentions: ["full"]) { f in
      let pages = try misuseValue(f.db, "PRAGMA page_count", as: Int.self)
      _ = try f.db.prepare(sql: "PRAGMA max_page_count = \(pages)").step()
      try f.db.execute(sql: "INSERT INTO t(c) VALUES (zeroblob(100000))")
    },
    MisuseCase("Files", "full disk in the middle of a transaction", .sqlite(.full)) { f in
      let pages = try misuseValue(f.db, "PRAGMA page_count", as: Int.self)
      _ = try f.db.prepare(sql: "PRAGMA max_page_count = \(pages + 2)").step()
      try f.db.transaction { db in
        for _ in 0..<100 { try db.execute(sql: "INSERT INTO t(c) VALUES (zeroblob(2000))") }
      }
    },
    MisuseCase("Files", "open a file that is not a database", .sqlite(.notADatabase), mentions: ["not a database"]) {
      f in
      let path = f.file("garbage.db")
      try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: path))
      let db = try Database(path: path)
      _ = try db.prepare(sql: "SELECT * FROM sqlite_schema")
    },
    MisuseCase("Files", "open a text file", .sqlite(.notADatabase)) { f in
      let path = f.file("notes.txt")
      try Data("These are not the pages of a database.\n".utf8).write(to: URL(fileURLWithPath: path))
      let db = try Database(path: path)
      try db.execute(sql: "CREATE TABLE x(y)")
    },
    MisuseCase(
      "Files", "open a truncated database", .sqlite(.corrupt), mentions: ["malformed"],
      setup: { f in try f.db.execute(sql: "INSERT INTO t(c) SELECT zeroblob(3000) FROM ref") }
    ) { f in
      try f.db.close()
      let bytes = try Data(contentsOf: URL(fileURLWithPath: f.path))
      let path = f.file("truncated.db")
      try bytes.prefix(4096 + 100).write(to: URL(fileURLWithPath: path))
      let db = try Database(path: path)
      _ = try db.prepare(sql: "SELECT count(*) FROM t").allRows()
    },
    MisuseCase("Files", "open a directory", .sqlite(.cannotOpen)) { f in
      _ = try Database(path: f.directory.path).prepare(sql: "SELECT * FROM sqlite_schema")
    },
    MisuseCase("Files", "open read-only a file that does not exist", .sqlite(.cannotOpen), mentions: ["unable to open"])
    { f in
      _ = try Database(path: f.file("missing.db"), options: .readOnly)
    },
    MisuseCase("Files", "open in a folder that does not exist", .sqlite(.cannotOpen)) { f in
      _ = try Database(path: f.file("no/such/folder/x.db"))
    },
    MisuseCase("Files", "open a URL that is not a file URL", .sqlite(.cannotOpen), mentions: ["not a file URL"]) { _ in
      guard let url = URL(string: "https://example.com/x.db") else { throw MisuseCallbackError() }
      _ = try Database(url: url)
    },
    MisuseCase("Files", "open with an unknown VFS", .sqlite(.error), mentions: ["no such vfs"]) { f in
      _ = try Database(path: f.file("v.db"), options: Database.OpenOptions(vfs: "no-such-vfs"))
    },
    MisuseCase("Files", "open a path with an embedded NUL", .sqlite(.cannotOpen), mentions: ["NUL"]) { f in
      // SQLite would open the path cut at the NUL: here, the fixture's own file.
      let db = try Database(path: f.path + "\u{0}.other")
      try db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Files", "open a symbolic link with noFollow", .sqlite(.cannotOpen)) { f in
      let link = f.file("link.db")
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: f.path)
      let db = try Database(path: link, options: Database.OpenOptions(noFollow: true))
      try db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Files", "ATTACH a file that is not a database", .sqlite(.notADatabase)) { f in
      let path = f.file("junk.db")
      try Data(repeating: 0xa5, count: 4096).write(to: URL(fileURLWithPath: path))
      try f.db.execute(sql: "ATTACH ? AS junk", parameterValues: [path])
      _ = try f.db.prepare(sql: "SELECT * FROM junk.sqlite_schema")
    },
  ]

  static let all: [MisuseCase] =
    sql + parameters + columns + conversions + limits + closed + outliving + transactions + constraints + files
}
