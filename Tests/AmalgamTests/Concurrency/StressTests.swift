import Amalgam
import Dispatch
import Foundation
import Testing

extension ConcurrencyTests {
  /// One writer and many readers (pool readers, read queues, one of them in long read transactions) on
  /// one WAL file for a bounded time. Every write transaction keeps two invariants: the two balances
  /// always sum to `total`, and the log holds exactly `version` rows. Every read checks both, in
  /// separate statements, and that the version it sees never goes backwards.
  @Suite(.serialized) struct StressTests {
    static let duration = 2.0
    static let total = 1_000

    /// What the readers observed.
    struct Tally: Sendable {
      var writes = 0
      var reads = 0
      var violations: [String] = []
      var errors: [String] = []
    }

    /// Reads the state in four statements and checks the invariants; returns the version seen.
    static func check(_ db: Database, notBefore minimumVersion: Int, tally: Shared<Tally>) throws -> Int {
      let first = try db.prepare(sql: "SELECT balance FROM account WHERE id = 1").front(Int.self) ?? -1
      let second = try db.prepare(sql: "SELECT balance FROM account WHERE id = 2").front(Int.self) ?? -1
      let version = try db.prepare(sql: "SELECT version FROM meta").front(Int.self) ?? -1
      let logged = try db.prepare(sql: "SELECT count(*) FROM log").front(Int.self) ?? -1
      var problems: [String] = []
      if first + second != total { problems.append("balances \(first) + \(second) != \(total) at version \(version)") }
      if logged != version { problems.append("\(logged) log rows at version \(version)") }
      if version < minimumVersion { problems.append("version went back from \(minimumVersion) to \(version)") }
      tally.withLock { tally in
        tally.reads += 1
        tally.violations += problems
      }
      return version
    }

    @Test func oneWriterAndManyReadersNeverSeeABrokenInvariant() async throws {
      try await ConcurrencyTests.withDatabasePath { path in
        let pool = try DatabasePool(path: path, configuration: Configuration(maximumReaderCount: 4))
        try await pool.write { db in
          try db.batch(
            sql: """
              CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
              INSERT INTO account VALUES (1, \(Self.total)), (2, 0);
              CREATE TABLE meta(version INTEGER NOT NULL);
              INSERT INTO meta VALUES (0);
              CREATE TABLE log(version INTEGER PRIMARY KEY, amount INTEGER NOT NULL);
              """)
        }
        let readQueues = try (0..<2).map { _ in try DatabaseReadQueue(path: path) }
        let tally = Shared(Tally())
        let deadline = Date().addingTimeInterval(Self.duration)
        let record: @Sendable (any Error) -> Void = { error in tally.withLock { $0.errors.append("\(error)") } }

        // Read queues on plain threads: blocking reads, one queue in long read transactions.
        let threads = DispatchGroup()
        for (index, readQueue) in readQueues.enumerated() {
          threads.enter()
          ConcurrencyTests.onThread {
            defer { threads.leave() }
            var seen = 0
            do {
              while Date() < deadline {
                if index == 0 {
                  // A long read transaction: several reads, one unchanging state.
                  try readQueue.updateReadTransaction()
                  let pinned = try readQueue.read { db in try Self.check(db, notBefore: seen, tally: tally) }
                  for _ in 0..<3 {
                    let again = try readQueue.read { db in try Self.check(db, notBefore: pinned, tally: tally) }
                    if again != pinned {
                      tally.withLock { $0.violations.append("long read moved \(pinned) → \(again)") }
                    }
                  }
                  seen = pinned
                } else {
                  seen = try readQueue.read { db in try Self.check(db, notBefore: seen, tally: tally) }
                }
              }
              try readQueue.endReadTransaction()
            } catch {
              record(error)
            }
          }
        }

        // The writer: moves money between the accounts in two statements per transaction. On a thread of
        // its own, like the read queues: a task could wait the whole run for the cooperative pool's two
        // threads while other suites keep them busy.
        threads.enter()
        ConcurrencyTests.onThread {
          defer { threads.leave() }
          var version = 0
          do {
            while Date() < deadline {
              version += 1
              let amount = Int.random(in: -50...50)
              try pool.transaction { [version] db in
                try db.execute(
                  sql: "UPDATE account SET balance = balance - ? WHERE id = 1", parameterValues: [amount])
                try db.execute(
                  sql: "UPDATE account SET balance = balance + ? WHERE id = 2", parameterValues: [amount])
                try db.execute(sql: "UPDATE meta SET version = ?", parameterValues: [version])
                try db.execute(sql: "INSERT INTO log VALUES (?, ?)", parameterValues: [version, amount])
              }
              tally.withLock { $0.writes += 1 }
              if version % 100 == 0 { try pool.checkpoint(.passive) }
            }
          } catch {
            record(error)
          }
        }

        await withThrowingTaskGroup(of: Void.self) { group in
          // Pool readers, awaiting: more tasks than readers, so some wait for a free one.
          for _ in 0..<6 {
            group.addTask {
              var seen = 0
              while Date() < deadline {
                seen = try await pool.read { [seen] db in try Self.check(db, notBefore: seen, tally: tally) }
              }
            }
          }
          // Pool readers through callbacks.
          group.addTask {
            while Date() < deadline {
              _ = try await withCheckedThrowingContinuation { continuation in
                pool.asyncRead { db in
                  try Self.check(db, notBefore: 0, tally: tally)
                } completion: {
                  continuation.resume(with: $0)
                }
              }
            }
          }
          do {
            try await group.waitForAll()
          } catch {
            record(error)
          }
        }
        await withCheckedContinuation { continuation in
          threads.notify(queue: .global()) { continuation.resume() }
        }

        let final = try await pool.read { db in try Self.check(db, notBefore: 0, tally: tally) }
        let result = tally.current
        print(
          "Stress: \(result.writes) write transactions, \(result.reads) checked reads in \(Self.duration) s, "
            + "\(result.violations.count) violations, \(result.errors.count) errors")
        #expect(result.violations.count == 0, "first violations: \(result.violations.prefix(5))")
        #expect(result.errors.count == 0, "first errors: \(result.errors.prefix(5))")
        #expect(final == result.writes)
        #expect(result.writes > 10)
        #expect(result.reads > 100)
      }
    }
  }
}
