import Foundation
import Testing

@testable import Amalgam

/// Observations stay cheap when there are more of them than the statement cache holds: a commit runs
/// only the queries of the tables it changed.
@Suite struct ObservationScalingTests {
  @Test func moreObservationsThanCachedStatementsRunNoQueryOnACommitToAnotherTable() async throws {
    let queue = try DatabaseQueue()
    let count = 200  // three times the statement cache's 64 statements
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE w(id INTEGER PRIMARY KEY, v INTEGER)")
      try db.execute(sql: "INSERT INTO w VALUES (1, 0)")
      for index in 0..<count {
        try db.execute(sql: "CREATE TABLE o\(index)(id INTEGER PRIMARY KEY, v INTEGER)")
        try db.execute(sql: "INSERT INTO o\(index) VALUES (1, \(index))")
      }
    }
    let fetches = Shared(0)
    var iterators: [ValueObservation<Int?>.AsyncIterator] = []
    for index in 0..<count {
      let sql = "SELECT v FROM o\(index) WHERE id = 1"
      iterators.append(
        queue.observe { db in
          fetches.withLock { $0 += 1 }
          return try db.fetchOne(Int.self, sql: sql)
        }.makeAsyncIterator())
    }
    for index in iterators.indices {
      let value = try await iterators[index].next()
      #expect(value == index)
    }
    var written = queue.observe { db in try db.fetchOne(Int.self, sql: "SELECT v FROM w WHERE id = 1") }
      .makeAsyncIterator()
    #expect(try await written.next() == 0)
    #expect(fetches.current == count)
    for value in 1...10 {
      try await queue.write { db in try db.execute(sql: "UPDATE w SET v = ? WHERE id = 1", arguments: [value]) }
      var delivered = try await written.next()
      while delivered != value { delivered = try await written.next() }
    }
    // Every query that a commit scheduled ran before this closure.
    try queue.sync { _ in }
    #expect(fetches.current == count)
    // A commit to one of the observed tables runs that observation's query, and no other.
    try await queue.write { db in try db.execute(sql: "UPDATE o7 SET v = 1007 WHERE id = 1") }
    #expect(try await iterators[7].next() == 1007)
    try queue.sync { _ in }
    #expect(fetches.current == count + 1)
  }

  @Test func aCachedStatementThatRanAndWasEvictedDuringTheQueryStillCounts() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in
      try db.execute(sql: "CREATE TABLE a(id INTEGER PRIMARY KEY, v INTEGER)")
      try db.execute(sql: "CREATE TABLE b(id INTEGER PRIMARY KEY, v INTEGER)")
      try db.execute(sql: "INSERT INTO a VALUES (1, 0)")
    }
    let fetches = Shared(0)
    // Each run reads `a` through a cached statement, then prepares more statements than the cache holds,
    // which evict it: from the second run on, it was prepared before the query and goes during it.
    var values = queue.observe { db in
      let run = fetches.withLock { count in
        count += 1
        return count
      }
      let value = try db.cachedStatement(sql: "SELECT v FROM a WHERE id = 1").front(Int.self)
      for index in 0..<100 { _ = try db.cachedStatement(sql: "SELECT \(run * 1000 + index)").front(Int.self) }
      return value
    }.makeAsyncIterator()
    #expect(try await values.next() == 0)
    try await queue.write { db in try db.execute(sql: "UPDATE a SET v = 1 WHERE id = 1") }
    #expect(try await values.next() == 1)
    // The second run's region still holds `a`, and only `a`.
    try await queue.write { db in try db.execute(sql: "INSERT INTO b VALUES (1, 1)") }
    try queue.sync { _ in }
    #expect(fetches.current == 2)
    try await queue.write { db in try db.execute(sql: "UPDATE a SET v = 2 WHERE id = 1") }
    #expect(try await values.next() == 2)
    #expect(fetches.current == 3)
  }
}
