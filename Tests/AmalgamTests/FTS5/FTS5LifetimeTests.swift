#if ENABLE_FTS5
  import Amalgam
  import Testing

  /// An object whose release shows that the closure capturing it was released.
  private final class CapturedSentinel {}

  /// Values an auxiliary function keeps after its call must not keep the function alive: the leak check
  /// (`Scripts/sanitize`) found that a closure storing its `FTS5ExtensionAPI` in its own captured state
  /// was never released, since the view retained the function's registration.
  @Suite struct FTS5LifetimeTests {
    @Test func anAuxiliaryFunctionThatKeepsItsAPIViewIsReleasedWithItsDatabase() throws {
      weak var released: CapturedSentinel?
      do {
        let db = try Database()
        try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
        try db.execute(sql: "INSERT INTO docs VALUES ('x y')")
        let sentinel = CapturedSentinel()
        released = sentinel
        var keptAPI: FTS5ExtensionAPI?
        var keptRow: FTS5ExtensionAPI?
        try db.addAuxiliaryFunction("keep") { api, _, context in
          withExtendedLifetime(sentinel) {}
          keptAPI = api
          try api.queryPhrase(0) { keptRow = $0 }
          context.setResult(.integer(Int64(api.columnCount)))
        }
        let rows = try db.prepare(sql: "SELECT keep(docs) FROM docs WHERE docs MATCH 'x'").allRows()
        #expect(rows == [[.integer(1)]])
        #expect(keptAPI?.isValid == false)
        #expect(keptRow?.isValid == false)
        #expect(keptAPI?.columnCount == 0)
        try db.close()
      }
      #expect(released == nil, "the auxiliary function's closure was never released")
    }
  }
#endif
