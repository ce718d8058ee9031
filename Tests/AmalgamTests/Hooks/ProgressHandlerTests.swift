#if !OMIT_PROGRESS_CALLBACK
  import Amalgam
  import Testing

  @Suite struct ProgressHandlerTests {
    static let runawayQuery =
      "WITH RECURSIVE forever(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM forever) SELECT count(*) FROM forever"

    @Test func progressHandlerInterruptsARunawayQuery() throws {
      let db = try Database()
      var calls = 0
      try db.setProgressHandler(every: 1000) {
        calls += 1
        return calls < 50 ? .continue : .interrupt
      }
      let error = expectSQLiteError { _ = try db.prepare(sql: Self.runawayQuery).front(Int.self) }
      #expect(error?.code == .interrupt)
      #expect(error?.message == "interrupted")
      #expect(calls == 50)
      // The connection is usable afterwards.
      try db.removeProgressHandler()
      #expect(try db.fetchOne(Int.self, sql: "SELECT 1") == 1)
    }

    @Test func progressHandlerThatContinuesLetsTheQueryFinish() throws {
      let db = try Database()
      var calls = 0
      try db.setProgressHandler(every: 100) {
        calls += 1
        return .continue
      }
      let count = try db.fetchOne(
        Int.self,
        sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) SELECT count(*) FROM c")
      #expect(count == 10000)
      #expect(calls > 100)
    }

    @Test func removedProgressHandlerIsNotCalled() throws {
      let db = try Database()
      var calls = 0
      try db.setProgressHandler(every: 1) {
        calls += 1
        return .interrupt
      }
      try db.removeProgressHandler()
      #expect(try db.fetchOne(Int.self, sql: "SELECT 1 + 1") == 2)
      #expect(calls == 0)
    }

    @Test func periodBelowOneIsRejected() throws {
      let db = try Database()
      let error = expectSQLiteError { try db.setProgressHandler(every: 0) { .continue } }
      #expect(error?.code == .range)
      #expect(error?.message == "The progress handler's period must be at least 1 instruction, not 0")
    }

    @Test func progressHandlerClosureIsReleased() throws {
      try expectHookClosureReleased(
        install: { db, token in
          try db.setProgressHandler(every: 10) { withExtendedLifetime(token) { .continue } }
        },
        remove: { try $0.removeProgressHandler() })
    }
  }
#endif
