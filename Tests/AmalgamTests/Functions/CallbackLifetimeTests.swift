import Amalgam
import Foundation
import Testing

/// Values handed to a function call and kept after it returned never reach SQLite again (issue 10,
/// item 2). Before `CallbackScope`, a kept `FunctionContext` crashed with SIGSEGV when used and a kept
/// `FunctionArguments` read freed memory.
@Suite struct CallbackLifetimeTests {
  @Test func keptArgumentsReadAsNullAndThrowAfterTheCall() throws {
    let db = try Database()
    var kept: [FunctionArguments] = []
    try db.addFunction("keep", arity: 2) { arguments, context in
      kept.append(arguments)
      #expect(arguments.isValid)
      context.setResult(arguments[0])
    }
    let value = try db.prepare(sql: "SELECT keep('a fairly long text value that SQLite allocates', x'0102')").front(
      String.self)
    #expect(value == "a fairly long text value that SQLite allocates")
    // Run other SQL so that the memory the arguments pointed to is reused.
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(1000)), ('other text');")

    let arguments = try #require(kept.first)
    #expect(!arguments.isValid)
    #expect(arguments.count == 2)
    #expect(arguments[0] == .null)
    #expect(Array(arguments) == [.null, .null])
    #expect(arguments.isNull(at: 0))
    #expect(arguments.int64(at: 0) == 0)
    #expect(arguments.double(at: 1) == 0)
    #expect(arguments.text(at: 0) == nil)
    #expect(arguments.subtype(at: 0) == 0)
    #expect(arguments.sqliteValue(at: 0) == nil)
    #expect(arguments.withUnsafeBytes(at: 1) { $0.count } == 0)
    #expect(throws: DatabaseError.callbackValueExpired("the arguments of an SQL function call")) {
      _ = try arguments.value(at: 0, as: String.self)
    }
  }

  @Test func keptContextDoesNothingAndItsThrowingSettersThrow() throws {
    let db = try Database()
    var kept: [FunctionContext] = []
    try db.addFunction("keep", arity: 0, flags: [.deterministic, .resultSubtype]) { _, context in
      kept.append(context)
      #expect(context.isValid)
      #expect(context.sqliteContext != nil)
      context.setResult(.integer(1))
    }
    #expect(try db.prepare(sql: "SELECT keep()").front(Int.self) == 1)
    let context = try #require(kept.first)
    #expect(!context.isValid)
    #expect(context.sqliteContext == nil)
    context.setResult(.text("late"))  // must not touch the freed sqlite3_context
    context.setResultZeroBlob(count: 10)
    #expect(throws: DatabaseError.self) { try context.setResultJSON("[1]") }
    #expect(throws: DatabaseError.self) { try context.setResultSubtype(74) }
    // The function still works for later calls.
    #expect(try db.prepare(sql: "SELECT keep()").front(Int.self) == 1)
  }

  @Test func argumentsKeptFromAnEarlierCallAreInvalidDuringALaterCall() throws {
    let db = try Database()
    var first: FunctionArguments?
    var seenDuringSecondCall: DatabaseValue?
    try db.addFunction("f", arity: 1) { arguments, context in
      if let first {
        seenDuringSecondCall = first[0]
      } else {
        first = arguments
      }
      context.setResult(arguments[0])
    }
    _ = try db.prepare(sql: "SELECT f(1)").front(Int.self)
    _ = try db.prepare(sql: "SELECT f(2)").front(Int.self)
    #expect(seenDuringSecondCall == .null)
  }

  @Test func anOuterCallsArgumentsAreValidAgainAfterANestedCallOfTheSameFunction() throws {
    let db = try Database()
    defer { try? db.close() }  // The function captures its database; closing releases it.
    try db.addFunction("depth", arity: 1) { arguments, context in
      let level = try arguments.value(at: 0, as: Int.self)
      if level < 3 {
        let inner = try db.prepare(sql: "SELECT depth(?)").bind(parameterValues: [level + 1]).front(Int.self)
        // The nested call has returned: this call's arguments are readable again.
        #expect(arguments.isValid)
        context.setResult(.integer(Int64((inner ?? 0) + (try arguments.value(at: 0, as: Int.self)))))
      } else {
        context.setResult(.integer(Int64(level)))
      }
    }
    #expect(try db.prepare(sql: "SELECT depth(1)").front(Int.self) == 6)
  }

  @Test func keptAggregateArgumentsAreInvalidAfterTheStep() throws {
    struct Keeper: SQLAggregateFunction {
      nonisolated(unsafe) static var kept: [FunctionArguments] = []
      var count: Int64 = 0
      mutating func step(_ arguments: FunctionArguments) throws {
        Self.kept.append(arguments)
        count += try arguments.value(at: 0, as: Int64.self)
      }
      func final() throws -> DatabaseValue { .integer(count) }
    }
    let db = try Database()
    try db.addAggregateFunction("keeper", arity: 1, Keeper.self)
    #expect(
      try db.prepare(sql: "SELECT keeper(value) FROM (SELECT 1 AS value UNION ALL SELECT 2)").front(Int.self) == 3)
    #expect(Keeper.kept.count == 2)
    #expect(Keeper.kept.allSatisfy { !$0.isValid && $0[0] == .null })
    #expect(throws: DatabaseError.self) { _ = try Keeper.kept[0].value(at: 0, as: Int.self) }
  }

  @Test func anIndexOutOfRangeReadsAsNullInsteadOfTrapping() throws {
    let db = try Database()
    var observed: [String] = []
    try db.addFunction("variadic", arity: -1) { arguments, context in
      observed.append("\(arguments[5]) \(arguments[-1]) \(arguments.int64(at: 9)) \(arguments.text(at: 3) ?? "nil")")
      #expect(arguments.sqliteValue(at: 2) == nil)
      #expect(throws: SQLiteError.self) { _ = try arguments.value(at: 2, as: Int.self) }
      context.setResult(.integer(Int64(arguments.count)))
    }
    #expect(try db.prepare(sql: "SELECT variadic(1, 2)").front(Int.self) == 2)
    #expect(observed == ["NULL NULL 0 nil"])
  }

  @Test func articleExample() throws {
    let db = try Database()
    // Callback lifetime: begin
    var kept: [FunctionArguments] = []
    try db.addFunction("keep", arity: 1) { arguments, context in
      kept.append(arguments)  // allowed, but useless after the call
      context.setResult(arguments[0])  // read during the call: fine
    }
    _ = try db.prepare(sql: "SELECT keep(42)").front(Int.self)
    // kept[0][0] == .null, and `try kept[0].value(at: 0) as Int` throws callbackValueExpired
    // Callback lifetime: end
    #expect(kept[0][0] == .null)
    #expect(throws: DatabaseError.self) { _ = try kept[0].value(at: 0) as Int }
  }
}
