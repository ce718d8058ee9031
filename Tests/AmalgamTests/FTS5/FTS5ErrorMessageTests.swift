#if ENABLE_FTS5
  import Amalgam
  import Testing

  /// An error of the user's own type, known only by its description.
  private struct MyError: Error, CustomStringConvertible {
    let place: String
    var description: String { "MyError: refused in \(place)" }
  }

  /// A Swift error thrown from an FTS5 auxiliary function, or from the closures it hands to the
  /// extension API, reaches the caller as an ``SQLiteError`` whose message is the error's description.
  @Suite struct FTS5ErrorMessageTests {
    @Test func auxiliaryFunctionsAndTheirClosures() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
      try db.execute(sql: "INSERT INTO docs VALUES ('alpha beta'), ('beta gamma')")
      try db.addAuxiliaryFunction("refuse") { _, _, _ in throw MyError(place: "the function") }
      try db.addAuxiliaryFunction("refuse_in_query_phrase") { api, _, _ in
        try api.queryPhrase(0) { _ in throw MyError(place: "queryPhrase") }
      }
      try db.addAuxiliaryFunction("refuse_in_tokenize") { api, _, _ in
        try api.tokenize("some text") { _ in throw MyError(place: "tokenize") }
      }
      try db.addAuxiliaryFunction("refuse_in_instances") { api, _, _ in
        try api.forEachInstance(ofPhrase: 0) { _, _ in throw MyError(place: "forEachInstance") }
      }
      for (function, place) in [
        ("refuse", "the function"), ("refuse_in_query_phrase", "queryPhrase"), ("refuse_in_tokenize", "tokenize"),
        ("refuse_in_instances", "forEachInstance"),
      ] {
        let error = #expect(throws: SQLiteError.self, "\(function)") {
          _ = try db.prepare(sql: "SELECT \(function)(docs) FROM docs WHERE docs MATCH 'beta'").allRows()
        }
        #expect(error?.code == .error, "\(function)")
        #expect(error?.message == "MyError: refused in \(place)", "\(function): \(String(describing: error))")
      }
    }
  }
#endif
