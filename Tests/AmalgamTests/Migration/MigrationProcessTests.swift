import Amalgam
import Foundation
import Testing

/// Two processes migrating one file at the same time: each runs `amalgam-migration-fixture` (a test-only
/// executable of this package, built by `swift test` next to the test binary; see Tests/MigrationFixture).
@Suite struct MigrationProcessTests {
  @Test func twoProcessesMigratingOneFileAtOnceApplyEachMigrationExactlyOnce() async throws {
    let executable = try ChildProcess.executable("amalgam-migration-fixture")
    try await withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("shared.sqlite").path
      async let first = ChildProcess.run(executable, [path, "first", "2"], in: directory)
      async let second = ChildProcess.run(executable, [path, "second", "2"], in: directory)
      let results = try await [first, second]
      for result in results {
        #expect(result.status == 0 && !result.signaled, "\(result.stderr)")
        #expect(result.stdout == "13\n")
      }

      let db = try Database(path: path)
      let steps = try db.prepare(sql: "SELECT migration FROM log ORDER BY rowid").column(0, as: String.self)
      #expect(steps == (1...12).map { "step \($0)" })
      let recorded = try db.prepare(sql: "SELECT count(*), count(DISTINCT identifier) FROM amalgam_migrations")
        .firstRow()
      #expect(recorded == [.integer(13), .integer(13)])
      // Both took part: the processes pause between migrations, so each applies some of them.
      let processes = try db.prepare(sql: "SELECT DISTINCT process FROM log ORDER BY process").column(
        0, as: String.self)
      #expect(processes == ["first", "second"])
    }
  }
}
