#if ENABLE_FTS5
  import Amalgam
  import Foundation
  import Testing

  /// A tokenizer written for FeistyDB, unchanged but for the name of its protocol: it splits on spaces
  /// and folds case, and copies each token as FeistyDB's `copyCurrentToken` does, throwing when the
  /// buffer is too small. It records the reasons and arguments it was given.
  final class SpaceTokenizer: FTS5PullTokenizer {
    nonisolated(unsafe) static var reasons: [Database.FTS5TokenizationReason] = []
    nonisolated(unsafe) static var arguments: [[String]] = []
    var words: [Substring] = []
    var position = -1

    required init(arguments: [String]) {
      Self.arguments.append(arguments)
    }

    func setText(_ text: String, reason: Database.FTS5TokenizationReason) {
      Self.reasons.append(reason)
      words = text.split(separator: " ")
      position = -1
    }

    func advance() -> Bool {
      position += 1
      return position < words.count
    }

    func currentToken() -> String? {
      position < words.count ? words[position].lowercased() : nil
    }

    func copyCurrentToken(to buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int {
      let bytes = Array((currentToken() ?? "").utf8)
      guard bytes.count <= capacity else { throw DatabaseError.message("Insufficient buffer size") }
      buffer.update(from: bytes, count: bytes.count)
      return bytes.count
    }
  }

  /// A pull tokenizer whose token copy fails with an error of its own, and which has no token as a
  /// string either.
  final class FailingCopyTokenizer: FTS5PullTokenizer {
    struct CopyFailed: Error, CustomStringConvertible {
      var description: String { "the token could not be copied" }
    }
    var remaining = 0
    required init(arguments: [String]) {}
    func setText(_ text: String, reason: Database.FTS5TokenizationReason) { remaining = 2 }
    func advance() -> Bool {
      remaining -= 1
      return remaining >= 0
    }
    func currentToken() -> String? { nil }
    func copyCurrentToken(to buffer: UnsafeMutablePointer<UInt8>, capacity: Int) throws -> Int { throw CopyFailed() }
  }

  /// One suite, serialized: the tokenizer records into static properties.
  @Suite(.serialized) struct FTS5PullTokenizerTests {
    private func makeNotes() throws -> Database {
      let db = try Database()
      try db.addTokenizer("spaces", type: SpaceTokenizer.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'spaces first second')")
      return db
    }

    @Test func aFeistyDBTokenizerIndexesAndMatches() throws {
      SpaceTokenizer.arguments = []
      let db = try makeNotes()
      try db.execute(
        sql: "INSERT INTO notes(rowid, body) VALUES (1, 'Buy Oat milk'), (2, 'oat cakes'), (3, 'milkshake')")
      #expect(try fts5Rowids(db, "notes", "oat") == [1, 2])
      #expect(try fts5Rowids(db, "notes", "MILK") == [1])
      #expect(try fts5Rowids(db, "notes", "milk*") == [1, 3])
      #expect(try fts5Rowids(db, "notes", "oat AND cakes") == [2])
      #expect(SpaceTokenizer.arguments.first == ["first", "second"])
    }

    @Test func theReasonIsFeistyDBs() throws {
      let db = try makeNotes()
      SpaceTokenizer.reasons = []
      try db.execute(sql: "INSERT INTO notes(body) VALUES ('alpha beta')")
      _ = try fts5Rowids(db, "notes", "alpha")
      _ = try fts5Rowids(db, "notes", "alp*")
      #expect(SpaceTokenizer.reasons == [.document, .query, .prefix])
    }

    @Test func tokensGetTheRangesOfTheirWordsForHighlight() throws {
      let db = try makeNotes()
      try db.execute(sql: "INSERT INTO notes(body) VALUES ('Buy Oat  milk today')")
      let highlighted = try db.fetchValue(
        String.self, sql: "SELECT highlight(notes, 0, '[', ']') FROM notes WHERE notes MATCH 'oat OR today'")
      #expect(highlighted == "Buy [Oat]  milk [today]")
    }

    @Test func aTokenCopyThatThrowsWithNoStringFailsTheStatementWithItsMessage() throws {
      let db = try Database()
      try db.addTokenizer("failing", type: FailingCopyTokenizer.self)
      try db.execute(sql: "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'failing')")
      let insert = #expect(throws: SQLiteError.self) {
        try db.execute(sql: "INSERT INTO notes(rowid, body) VALUES (1, 'anything')")
      }
      #expect(insert?.message.contains("the token could not be copied") == true, "\(String(describing: insert))")
      // The refused insert left no row behind.
      #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM notes") == 0)
    }

    @Test func aTokenLongerThanTheBufferIsTakenFromCurrentToken() throws {
      let db = try makeNotes()
      let long = String(repeating: "x", count: 600)
      try db.execute(sql: "INSERT INTO notes(rowid, body) VALUES (7, ?)", parameterValues: ["short \(long) end"])
      #expect(try fts5Rowids(db, "notes", long) == [7])
      #expect(try fts5Rowids(db, "notes", "end") == [7])
    }
  }
#endif
