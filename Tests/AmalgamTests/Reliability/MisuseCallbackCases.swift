import Amalgam
import Foundation
import Testing

/// An aggregate whose step throws.
struct ThrowingStepAggregate: SQLAggregateFunction {
  init() {}
  mutating func step(_ arguments: FunctionArguments) throws { throw MisuseCallbackError() }
  func final() throws -> DatabaseValue { .null }
}

/// An aggregate whose final throws.
struct ThrowingFinalAggregate: SQLAggregateFunction {
  var count = 0
  init() {}
  mutating func step(_ arguments: FunctionArguments) throws { count += 1 }
  func final() throws -> DatabaseValue { throw MisuseCallbackError() }
}

/// A window function whose inverse throws.
struct ThrowingInverseWindow: SQLAggregateWindowFunction {
  var sum: Int64 = 0
  init() {}
  mutating func step(_ arguments: FunctionArguments) throws { sum += arguments.int64(at: 0) }
  mutating func inverse(_ arguments: FunctionArguments) throws { throw MisuseCallbackError() }
  func value() throws -> DatabaseValue { .integer(sum) }
}

/// Holds the first error a non-throwing callback met, to rethrow it after the call.
final class CallbackErrorBox {
  var error: (any Error)?
  func record(_ body: () throws -> Void) {
    do { try body() } catch { if self.error == nil { self.error = error } }
  }
  func rethrow() throws {
    if let error { throw error }
  }
}

/// Misuse through callbacks: SQL functions, aggregates, collations and hooks that throw, re-enter their
/// connection, or keep values past their call.
enum MisuseCallbackCases {
  static let functions: [MisuseCase] = [
    MisuseCase("Functions", "scalar function throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addFunction("boom", arity: 1) { _ in throw MisuseCallbackError() }
      try f.db.execute(sql: "UPDATE ref SET name = boom(name)")
    },
    MisuseCase("Functions", "typed function throws an SQLiteError code", .sqlite(.constraint), mentions: ["refused"]) {
      f in
      try f.db.addFunction("refuse", arity: 0) { _ in throw SQLiteError(code: .constraint, message: "refused") }
      try f.db.execute(sql: "DELETE FROM ref WHERE refuse() IS NULL")
    },
    MisuseCase("Functions", "function throws in the middle of a multi-row update", .sqlite(.error)) { f in
      var calls = 0
      try f.db.addFunction("third", arity: 1) { values in
        calls += 1
        if calls == 3 { throw MisuseCallbackError() }
        return values[0]
      }
      try f.db.execute(sql: "UPDATE ref SET name = third(name) || '!'")
    },
    MisuseCase("Functions", "argument read as the wrong type", .sqlite(.error), mentions: ["Int"]) { f in
      try f.db.addFunction("twice", arity: 1) { (arguments: FunctionArguments, context: FunctionContext) in
        context.setResult(.integer(Int64(try arguments.value(at: 0, as: Int.self) * 2)))
      }
      try f.db.execute(sql: "UPDATE ref SET score = twice(name)")
    },
    MisuseCase("Functions", "argument index past the end", .sqlite(.range), mentions: ["index 1", "second"]) { f in
      try f.db.addFunction("second", arity: 1) { (arguments: FunctionArguments, context: FunctionContext) in
        context.setResult(try arguments.value(at: 1, as: DatabaseValue.self))
      }
      _ = try f.db.prepare(sql: "SELECT second(1)").allRows()
    },
    MisuseCase("Functions", "typed function given TEXT for Int", .sqlite(.mismatch), mentions: ["inc()", "Int"]) { f in
      try f.db.addFunction("inc") { (n: Int) in n + 1 }
      _ = try f.db.prepare(sql: "SELECT inc('a')").allRows()
    },
    MisuseCase("Functions", "typed function result overflows", .sqlite(.error), mentions: ["UInt64"]) { f in
      try f.db.addFunction("huge") { (_: Int) in UInt64.max }
      _ = try f.db.prepare(sql: "SELECT huge(1)").allRows()
    },
    MisuseCase("Functions", "called with the wrong number of arguments", .sqlite(.error), mentions: ["wrong number"]) {
      f in
      try f.db.addFunction("one", arity: 1) { values in values[0] }
      _ = try f.db.prepare(sql: "SELECT one(1, 2)")
    },
    MisuseCase("Functions", "arity out of range", .sqlite(.misuse), mentions: ["arity"]) { f in
      try f.db.addFunction("many", arity: 200) { _ in .null }
    },
    MisuseCase("Functions", "name over 255 bytes", .sqlite(.misuse), mentions: ["255"]) { f in
      try f.db.addFunction(String(repeating: "f", count: 300), arity: 0) { _ in .null }
    },
    MisuseCase("Functions", "empty name", .sqlite(.misuse)) { f in
      try f.db.addFunction("", arity: 0) { _ in .null }
    },
    MisuseCase("Functions", "name with a NUL", .sqlite(.misuse), mentions: ["NUL"]) { f in
      try f.db.addFunction("ab\u{0}c", arity: 0) { _ in .null }
    },
    MisuseCase(
      "Functions", "direct-only function from a trigger", .sqlite(.error), mentions: ["unsafe use of audit"],
      setup: { f in
        try f.db.execute(sql: "CREATE TRIGGER tr AFTER UPDATE ON ref BEGIN SELECT audit(new.id); END")
      }
    ) { f in
      try f.db.addFunction("audit", arity: 1, flags: .directOnly) { values in values[0] }
      try f.db.execute(sql: "UPDATE ref SET name = 'new'")
    },
    MisuseCase("Functions", "function re-enters to drop the table it reads", .sqlite(.locked), mentions: ["locked"]) {
      f in
      try f.db.addFunction("sneaky", arity: 1) { [unowned db = f.db] values in
        try db.execute(sql: "DROP TABLE ref")
        return values[0]
      }
      _ = try f.db.prepare(sql: "SELECT sneaky(id) FROM ref").allRows()
    },
    MisuseCase("Functions", "arguments kept after the call", .database("callbackValueExpired")) { f in
      var kept: FunctionArguments?
      try f.db.addFunction("keep", arity: 1) { (arguments: FunctionArguments, context: FunctionContext) in
        kept = arguments
        context.setResult(.null)
      }
      _ = try f.db.prepare(sql: "SELECT keep('x')").allRows()
      _ = try kept?.value(at: 0, as: String.self)
    },
    MisuseCase("Functions", "subtype without the resultSubtype flag", .sqlite(.misuse), mentions: ["resultSubtype"]) {
      f in
      try f.db.addFunction("sub", arity: 0) { (_: FunctionArguments, context: FunctionContext) in
        context.setResult(.integer(1))
        try context.setResultSubtype(74)
      }
      _ = try f.db.prepare(sql: "SELECT sub()").allRows()
    },
    MisuseCase("Functions", "aggregate step throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addAggregateFunction("bad_sum", arity: 1, ThrowingStepAggregate.self)
      _ = try f.db.prepare(sql: "SELECT bad_sum(id) FROM ref").allRows()
    },
    MisuseCase("Functions", "aggregate final throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addAggregateFunction("bad_final", arity: 1, ThrowingFinalAggregate.self)
      try f.db.execute(sql: "INSERT INTO t(b) SELECT bad_final(id) FROM ref")
    },
    MisuseCase("Functions", "window inverse throws", .sqlite(.error), mentions: ["failed on purpose"]) { f in
      try f.db.addWindowFunction("bad_window", arity: 1, ThrowingInverseWindow.self)
      _ = try f.db.prepare(
        sql: "SELECT bad_window(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ref"
      ).allRows()
    },
    MisuseCase("Functions", "aggregate used as a window function", .sqlite(.error), mentions: ["window"]) { f in
      try f.db.addAggregateFunction("agg_only", arity: 1, ThrowingFinalAggregate.self)
      _ = try f.db.prepare(sql: "SELECT agg_only(id) OVER (ORDER BY id ROWS 1 PRECEDING) FROM ref")
    },
    MisuseCase("Functions", "remove a function while a statement runs", .sqlite(.busy)) { f in
      try f.db.addFunction("tmp", arity: 1) { values in values[0] }
      let statement = try f.db.prepare(sql: "SELECT tmp(id) FROM ref")
      _ = try statement.step()
      try f.db.removeFunction("tmp", arity: 1)
    },
  ]

  static let collations: [MisuseCase] = [
    MisuseCase("Collations", "collation re-enters its connection", .database("reentrantCall"), mentions: ["collation"])
    { f in
      let box = CallbackErrorBox()
      try f.db.addCollation("touchy") { [unowned db = f.db] left, right in
        box.record { try db.execute(sql: "DELETE FROM ref") }
        return left < right ? .orderedAscending : left == right ? .orderedSame : .orderedDescending
      }
      _ = try f.db.prepare(sql: "SELECT name FROM ref ORDER BY name COLLATE touchy").allRows()
      try box.rethrow()
    },
    MisuseCase("Collations", "unknown collation", .sqlite(.error), mentions: ["no such collation"]) { f in
      _ = try f.db.prepare(sql: "SELECT name FROM ref ORDER BY name COLLATE nope")
    },
    MisuseCase("Collations", "name with a NUL", .sqlite(.misuse), mentions: ["NUL"]) { f in
      // SQLite would register the name cut at the NUL ("NOCASE"), replacing a built-in collation's use.
      try f.db.addCollation("NOCASE\u{0}x") { _, _ in .orderedSame }
    },
    MisuseCase("Collations", "removed while a statement runs", .sqlite(.busy)) { f in
      try f.db.addCollation("rev") { a, b in a > b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending }
      let statement = try f.db.prepare(sql: "SELECT name FROM ref ORDER BY name COLLATE rev")
      _ = try statement.step()
      try f.db.removeCollation("rev")
    },
  ]

  static let hooks: [MisuseCase] = [
    MisuseCase(
      "Hooks", "commit hook turns the commit into a rollback", .sqlite(.constraint),
      mentions: ["the commit hook turned"]
    ) { f in
      try f.db.setCommitHook { .rollback }
      defer { try? f.db.removeCommitHook() }
      try f.db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Hooks", "commit hook re-enters", .database("reentrantCall"), mentions: ["commit hook"]) { f in
      let box = CallbackErrorBox()
      try f.db.setCommitHook { [unowned db = f.db] in
        box.record { try db.execute(sql: "DELETE FROM t") }
        return .rollback
      }
      defer { try? f.db.removeCommitHook() }
      try? f.db.execute(sql: "DELETE FROM ref WHERE id = 1")
      try box.rethrow()
    },
    MisuseCase("Hooks", "rollback hook re-enters", .database("reentrantCall"), mentions: ["rollback hook"]) { f in
      let box = CallbackErrorBox()
      try f.db.setRollbackHook { [unowned db = f.db] in box.record { try db.execute(sql: "DELETE FROM ref") } }
      try f.db.begin()
      try f.db.execute(sql: "DELETE FROM t")
      try f.db.rollback()
      try f.db.removeRollbackHook()
      try box.rethrow()
    },
    MisuseCase("Hooks", "update hook re-enters", .database("reentrantCall"), mentions: ["update hook"]) { f in
      let box = CallbackErrorBox()
      try f.db.setUpdateHook { [unowned db = f.db] _ in box.record { _ = try db.prepare(sql: "SELECT 1") } }
      try f.db.transaction { db in
        try db.execute(sql: "DELETE FROM t WHERE a = 1")
        try box.rethrow()
      }
    },
    MisuseCase("Hooks", "update hook closes the database", .database("reentrantCall")) { f in
      let box = CallbackErrorBox()
      try f.db.setUpdateHook { [unowned db = f.db] _ in box.record { try db.close() } }
      defer { try? f.db.removeUpdateHook() }
      try f.db.transaction { db in
        try db.execute(sql: "UPDATE ref SET score = 0")
        try box.rethrow()
      }
    },
    MisuseCase("Hooks", "authorizer denies", .sqlite(.authorization), mentions: ["not authorized"]) { f in
      try f.db.setAuthorizer { request in
        if case .delete = request.action { return .deny }
        return .allow
      }
      defer { try? f.db.removeAuthorizer() }
      try f.db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Hooks", "authorizer denies reading a column", .sqlite(.authorization), mentions: ["ref.data"]) { f in
      try f.db.setAuthorizer { request in
        if case .read(_, "data") = request.action { return .deny }
        return .allow
      }
      defer { try? f.db.removeAuthorizer() }
      _ = try f.db.prepare(sql: "SELECT data FROM ref")
    },
    MisuseCase("Hooks", "authorizer re-enters", .database("reentrantCall"), mentions: ["authorizer"]) { f in
      let box = CallbackErrorBox()
      try f.db.setAuthorizer { [unowned db = f.db] _ in
        box.record { try db.execute(sql: "DELETE FROM ref") }
        return .allow
      }
      defer { try? f.db.removeAuthorizer() }
      _ = try f.db.prepare(sql: "SELECT 1")
      try box.rethrow()
    },
    MisuseCase("Hooks", "busy handler gives up", .sqlite(.busy)) { f in
      let other = try Database(path: f.path)
      try other.execute(sql: "BEGIN EXCLUSIVE")
      defer { try? other.rollback() }
      var retries = 0
      try f.db.setBusyHandler { count in
        retries = count
        return count < 2
      }
      try f.db.execute(sql: "DELETE FROM ref")
    },
    MisuseCase("Hooks", "busy handler re-enters", .database("reentrantCall"), mentions: ["busy handler"]) { f in
      let other = try Database(path: f.path)
      try other.execute(sql: "BEGIN EXCLUSIVE")
      defer { try? other.rollback() }
      let box = CallbackErrorBox()
      try f.db.setBusyHandler { [unowned db = f.db] _ in
        box.record { _ = try db.prepare(sql: "SELECT 1") }
        return false
      }
      try? f.db.execute(sql: "DELETE FROM ref")
      try box.rethrow()
    },
    MisuseCase("Hooks", "busy timeout expires", .sqlite(.busy), mentions: ["locked"]) { f in
      let other = try Database(path: f.path)
      try other.execute(sql: "BEGIN EXCLUSIVE")
      defer { try? other.rollback() }
      try f.db.setBusyTimeout(0.02)
      _ = try f.db.prepare(sql: "SELECT * FROM ref").allRows()
    },
    MisuseCase("Hooks", "trace handler runs SQL (allowed) that fails", .sqlite(.error), mentions: ["no such table"]) {
      f in
      let box = CallbackErrorBox()
      try f.db.setTraceHandler(for: .statement) { [unowned db = f.db] _ in
        box.record { _ = try db.prepare(sql: "SELECT * FROM not_here") }
      }
      defer { try? f.db.removeTraceHandler() }
      _ = try f.db.prepare(sql: "SELECT 1").allRows()
      try box.rethrow()
    },
  ]

  #if !OMIT_JSON
    static let json: [MisuseCase] = [
      MisuseCase("Functions", "JSON result that is not JSON", .sqlite(.error), mentions: ["malformed JSON"]) { f in
        try f.db.addFunction("badjson", arity: 0, flags: [.deterministic, .directOnly, .resultSubtype]) {
          (_: FunctionArguments, context: FunctionContext) in
          try context.setResultJSON("{not json")
        }
        _ = try f.db.prepare(sql: "SELECT json_extract(badjson(), '$.a')").allRows()
      }
    ]
  #else
    static let json: [MisuseCase] = []
  #endif

  #if !OMIT_PROGRESS_CALLBACK
    static let progress: [MisuseCase] = [
      MisuseCase("Hooks", "progress handler interrupts", .sqlite(.interrupt), mentions: ["interrupt"]) { f in
        try f.db.setProgressHandler(every: 10) { .interrupt }
        defer { try? f.db.removeProgressHandler() }
        try f.db.execute(sql: "UPDATE ref SET name = name || '!'")
      },
      MisuseCase("Hooks", "progress handler with a non-positive period", .sqlite(.range)) { f in
        try f.db.setProgressHandler(every: 0) { .continue }
      },
      MisuseCase("Hooks", "progress handler re-enters", .database("reentrantCall"), mentions: ["progress handler"]) {
        f in
        let box = CallbackErrorBox()
        try f.db.setProgressHandler(every: 1) { [unowned db = f.db] in
          box.record { try db.execute(sql: "DELETE FROM ref") }
          return .continue
        }
        defer { try? f.db.removeProgressHandler() }
        _ = try f.db.prepare(sql: "SELECT count(*) FROM ref").allRows()
        try box.rethrow()
      },
      MisuseCase("Hooks", "interrupt during a long query", .sqlite(.interrupt)) { f in
        var calls = 0
        try f.db.setProgressHandler(every: 100) { [unowned db = f.db] in
          calls += 1
          if calls == 3 { db.interrupt() }
          return .continue
        }
        defer { try? f.db.removeProgressHandler() }
        _ = try f.db.prepare(
          sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        ).allRows()
      },
    ]
  #else
    static let progress: [MisuseCase] = []
  #endif

  static let all: [MisuseCase] = functions + json + collations + hooks + progress
}
