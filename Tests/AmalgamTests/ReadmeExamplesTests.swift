import Amalgam
import Foundation
import Testing

/// The README's quick start, verbatim (between the markers), followed by checks of what it did.
/// If the README changes, change this copy too: `readmeQuickStartMatchesThisTest` compares them.
@Suite struct ReadmeExamplesTests {
  // README quick start: begin (types)
  struct Player: TableRecord, Equatable {
    static let tableName = "player"
    var id: Int64?  // INTEGER PRIMARY KEY: nil lets SQLite choose the rowid
    var name: String
    var score: Int
  }
  // README quick start: end (types)

  @Test func quickStartCompilesAndRuns() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("amalgam-readme-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("players.sqlite").path

    // README quick start: begin
    // One connection, shared safely by every thread and task. `path` is where the database file lives.
    let queue = try DatabaseQueue(path: path)

    // Each migration runs once, in order, in its own transaction.
    var migrator = DatabaseMigrator()
    migrator.registerMigration("create player") { db in
      try db.create(table: "player") { t in
        t.column("id", .integer, primaryKey: .autoincrement)
        t.column("name", .text, notNull: true)
        t.column("score", .integer, notNull: true, defaultValue: 0)
      }
    }
    try migrator.migrate(queue)

    // A transaction commits when the closure returns and rolls back when it throws.
    try queue.transaction { db in
      try db.insert(Player(id: nil, name: "Ada", score: 10))
      try db.insert(Player(id: nil, name: "Grace", score: 30))
      // Every API that runs SQL takes `sql:` and `arguments:` ([...] by position, [name: value] by name).
      try db.execute(sql: "UPDATE player SET score = score + ? WHERE name = ?", arguments: [5, "Ada"])
      try db.execute(sql: "INSERT INTO player(name) VALUES (:name)", arguments: ["name": "Linus"])
    }

    // Reads: records, single values.
    let players = try queue.read { db in
      try db.fetchAll(Player.self, sql: "SELECT * FROM player ORDER BY score DESC")
    }
    let best = try queue.fetchOne(String.self, sql: "SELECT name FROM player ORDER BY score DESC")
    let strong = try queue.fetchOne(Int.self, sql: "SELECT count(*) FROM player WHERE score > ?", arguments: [12])
    print(players.map(\.name), best ?? "-", strong ?? 0)  // ["Grace", "Ada", "Linus"] Grace 2
    // README quick start: end

    #expect(
      players == [
        Player(id: 2, name: "Grace", score: 30), Player(id: 1, name: "Ada", score: 15),
        Player(id: 3, name: "Linus", score: 0),
      ])
    #expect(best == "Grace")
    #expect(strong == 2)
    #expect(try migrator.appliedMigrations(queue) == ["create player"])

    // Migrating again applies nothing, and a transaction whose closure throws leaves no trace.
    try migrator.migrate(queue)
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try queue.transaction { db in
        try db.insert(Player(id: nil, name: "Edsger", score: 1))
        throw Stop()
      }
    }
    #expect(try queue.fetchOne(Int.self, sql: "SELECT count(*) FROM player") == 3)
  }

  @Test func readmeQuickStartMatchesThisTest() throws {
    // Keeps the copy above honest: every code line of the README's quick start appears in this file.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    guard let section = readme.range(of: "## Quick start\n"),
      let start = readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex),
      let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
    else {
      Issue.record("README.md has no Quick start code block")
      return
    }
    let lines = readme[start.upperBound..<end.lowerBound].split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && $0 != "import Amalgam" }
    #expect(lines.count > 20)
    for line in lines {
      #expect(test.contains(line), "README line not in ReadmeExamplesTests: \(line)")
    }
  }

  @Test func observingExampleRuns() async throws {
    let queue = try DatabaseQueue()
    try queue.sync { db in try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT)") }
    let seen = Shared<[Int?]>([])
    let task = offThePoolTask {
      // README observing: begin
      let playerCounts = queue.observe { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }
      for try await count in playerCounts.removingDuplicates() {
        print("players:", count)
        // README observing: end
        seen.withLock { $0.append(count) }
      }
    }
    defer { task.cancel() }
    #expect(await eventually { seen.current == [0] })
    try queue.sync { db in try db.execute(sql: "INSERT INTO player(name) VALUES ('Ada')") }
    #expect(await eventually { seen.current == [0, 1] })
  }

  #if ENCRYPTION
    @Test func encryptionExampleRuns() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("encrypted.sqlite").path
        let passphraseFromKeychain = "correct horse battery staple"
        // README encryption: begin
        var configuration = Configuration()
        configuration.key = .passphrase(passphraseFromKeychain)  // ChaCha20-Poly1305 unless configuration.cipher says
        let encrypted = try DatabaseQueue(path: path, configuration: configuration)
        // README encryption: end
        try encrypted.sync { db in try db.execute(sql: "CREATE TABLE t(x)") }
        try encrypted.close()
        configuration.key = .passphrase("wrong")
        #expect(throws: EncryptionError.wrongKey(path: path)) {
          try DatabaseQueue(path: path, configuration: configuration)
        }
      }
    }
  #endif

  @Test func readmeEncryptionExampleMatchesThisTest() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    guard let section = readme.range(of: "## Encrypted databases\n"),
      let start = readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex),
      let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
    else {
      Issue.record("README.md has no Encrypted databases code block")
      return
    }
    let lines = readme[start.upperBound..<end.lowerBound].split(separator: "\n")
    #expect(lines.count == 3)
    for line in lines { #expect(test.contains(line.trimmingCharacters(in: .whitespaces)), "\(line)") }
  }

  @Test func readmeObservingExampleMatchesThisTest() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    guard let section = readme.range(of: "## Observing the database\n"),
      let start = readme.range(of: "```swift\n", range: section.upperBound..<readme.endIndex),
      let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
    else {
      Issue.record("README.md has no Observing the database code block")
      return
    }
    let lines = readme[start.upperBound..<end.lowerBound].split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    #expect(lines.count == 4)
    for line in lines {
      #expect(test.contains(line), "README line not in ReadmeExamplesTests: \(line)")
    }
  }

  @Test func readmeManifestExcerptsNameTheProductAndToolsVersion() throws {
    // The README's manifest is not compiled (it is a consumer's), so check the lines a consumer copies.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    #expect(manifest.hasPrefix("// swift-tools-version: 6.1"))
    #expect(readme.contains("// swift-tools-version: 6.1\n"))
    #expect(readme.contains(#".product(name: "Amalgam", package: "Amalgam")"#))
    #expect(manifest.contains(#".library(name: "Amalgam", targets: ["Amalgam"])"#))
    #expect(readme.contains("swift test "))
  }
}
