import Amalgam
import AmalgamExampleExtension
import Foundation
import Testing

/// A C extension compiled against Amalgam's SQLite (the AmalgamExampleExtension target), registered on
/// one connection or, process-wide, on every new one.
///
/// Automatic extensions affect every connection the process opens, including those of tests running at
/// the same time: these tests register only an extension whose names (`example_half`,
/// `example_reverse`) no other test uses, and cancel it before they end. Never a failing one.
@Suite(.serialized) struct CExtensionTests {
  /// The entry points, as Swift sees them.
  static let example: SQLiteExtensionEntryPoint = amalgam_example_extension_init
  static let failing: SQLiteExtensionEntryPoint = amalgam_example_failing_init

  static func hasExampleHalf(_ db: Database) throws -> Bool {
    try db.prepare(sql: "SELECT count(*) FROM pragma_function_list WHERE name = 'example_half'").front(Int.self) == 1
  }

  @Test func anExtensionRegisteredOnOneConnectionAddsItsFunctionAndCollation() throws {
    let db = try Database()
    try db.registerExtension(Self.example)
    #expect(try db.prepare(sql: "SELECT example_half(5), example_half(NULL)").firstRow() == [.real(2.5), .null])
    try db.batch(sql: "CREATE TABLE t(word TEXT); INSERT INTO t VALUES ('b'), ('c'), ('a');")
    #expect(
      try db.prepare(sql: "SELECT word FROM t ORDER BY word COLLATE example_reverse").column(0, as: String.self)
        == ["c", "b", "a"])
    // Only that connection.
    #expect(try Self.hasExampleHalf(Database()) == false)
  }

  @Test func aFailingEntryPointThrowsItsMessage() throws {
    let db = try Database()
    #expect {
      try db.registerExtension(Self.failing)
    } throws: { error in
      let error = error as? SQLiteError
      return error?.code == .error && error?.message == "example extension refused"
    }
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try db.registerExtension(Self.example) }
  }

  @Test func anAutomaticExtensionRunsOnEveryNewConnectionUntilCancelled() throws {
    let before = try Database()
    try SQLite.registerAutomaticExtension(Self.example)
    defer { SQLite.cancelAutomaticExtension(Self.example) }
    try SQLite.registerAutomaticExtension(Self.example)  // again: no effect
    let after = try Database()
    #expect(try after.prepare(sql: "SELECT example_half(9)").front(Double.self) == 4.5)
    #expect(try Self.hasExampleHalf(before) == false)
    try withTemporaryDirectory { directory in
      let file = try Database(path: directory.appendingPathComponent("auto.sqlite").path)
      #expect(try Self.hasExampleHalf(file))
    }

    #expect(SQLite.cancelAutomaticExtension(Self.example))
    #expect(!SQLite.cancelAutomaticExtension(Self.example))
    #expect(try Self.hasExampleHalf(Database()) == false)
    #expect(try Self.hasExampleHalf(after))  // what it registered stays
  }

  @Test func resettingRemovesTheAutomaticExtensions() throws {
    try SQLite.registerAutomaticExtension(Self.example)
    defer { SQLite.cancelAutomaticExtension(Self.example) }
    #expect(try Self.hasExampleHalf(Database()))
    SQLite.resetAutomaticExtensions()
    #expect(try Self.hasExampleHalf(Database()) == false)
    #expect(!SQLite.cancelAutomaticExtension(Self.example))
  }

  @Test func registeringFromManyThreadsAtOnceIsSafe() async throws {
    defer { SQLite.cancelAutomaticExtension(Self.example) }
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for index in 0..<16 {
        group.addTask {
          if index.isMultiple(of: 2) {
            try SQLite.registerAutomaticExtension(Self.example)
          } else {
            SQLite.cancelAutomaticExtension(Self.example)
          }
          // A connection opens, with or without the extension, while the list changes.
          let db = try Database()
          let count = try db.prepare(sql: "SELECT count(*) FROM pragma_function_list WHERE name = 'example_half'")
            .front(Int.self)
          return count == 0 || count == 1
        }
      }
      for try await opened in group { #expect(opened) }
    }
  }

  /// The WritingExtensionsInC article's registration example, with the example extension's entry point.
  @Test func theReadmeExampleRuns() throws {
    let db = try Database()
    let my_extension_init = Self.example
    try db.registerExtension(my_extension_init)  // this connection
    try SQLite.registerAutomaticExtension(my_extension_init)  // every connection opened from now on
    SQLite.cancelAutomaticExtension(my_extension_init)
    #expect(try db.prepare(sql: "SELECT example_half(3)").front(Double.self) == 1.5)
  }

  /// The examples of the "Writing extensions in C" article.
  @Test func theArticleExamplesRun() throws {
    do {
      let db = try Database()
      try db.registerExtension(amalgam_example_extension_init)
      let half: Double? = try db.prepare(sql: "SELECT example_half(5)").front()  // 2.5
      #expect(half == 2.5)
    }
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("article.sqlite").path
      defer { SQLite.cancelAutomaticExtension(Self.example) }
      try SQLite.registerAutomaticExtension(amalgam_example_extension_init)
      let queue = try DatabaseQueue(path: path)  // its connection has example_half()
      SQLite.cancelAutomaticExtension(amalgam_example_extension_init)
      let half = try queue.read { db in try db.prepare(sql: "SELECT example_half(1)").front(Double.self) }
      #expect(half == 0.5)
    }
  }
}
