import Amalgam
import Testing

/// The README's quick start, verbatim (between the markers), followed by checks of what it did.
/// If the README changes, change this copy too.
@Suite struct ReadmeExamplesTests {
  @Test func quickStartCompilesAndRuns() throws {
    // README quick start: begin
    let db = try Database()   // in memory; Database(path:) opens a file
    try db.batch(sql: """
      CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);
      INSERT INTO person(name, email) VALUES ('Ada', 'ada@example.com'), ('Grace', NULL);
      """)

    // Positional and named parameters.
    try db.execute(sql: "INSERT INTO person(name) VALUES (?)", parameterValues: ["Linus"])
    try db.execute(sql: "UPDATE person SET email = :email WHERE name = :name",
                   parameters: ["email": "linus@example.com", "name": "Linus"])

    // Iterating rows: errors are thrown, never swallowed.
    let statement = try db.prepare(sql: "SELECT id, name, email FROM person ORDER BY id")
    while let row = try statement.step() {
      let id: Int64 = try row.value(at: 0)
      let name: String = try row.value(named: "name")
      let email: String? = try row.value(named: "email")   // optional: NULL reads as nil
      print(id, name, email ?? "-")
    }

    // Codable rows and parameters.
    struct Person: Codable { var id: Int64; var name: String; var email: String? }
    let people = try db.prepare(sql: "SELECT id, name, email FROM person").decodeAll(Person.self)
    try db.prepare(sql: "INSERT INTO person(id, name, email) VALUES (:id, :name, :email)")
      .bind(Person(id: 10, name: "Barbara", email: nil))
      .execute()

    // Transactions commit on success and roll back when the closure throws.
    try db.transaction { db in
      try db.execute(sql: "DELETE FROM person WHERE email IS NULL")
    }
    let count: Int? = try db.prepare(sql: "SELECT count(*) FROM person").front()
    // README quick start: end

    #expect(people.map(\.name) == ["Ada", "Grace", "Linus"])
    #expect(people.map(\.email) == ["ada@example.com", nil, "linus@example.com"])
    // Grace and Barbara had no email and were deleted.
    #expect(count == 2)
  }

  @Test func readmeQuickStartMatchesThisTest() throws {
    // Keeps the copy above honest: every code line of the README's quick start appears in this file.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    guard let start = readme.range(of: "## Quick start\n\n```swift\n"),
      let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
    else {
      Issue.record("README.md has no Quick start code block")
      return
    }
    let lines = readme[start.upperBound..<end.lowerBound].split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && $0 != "import Amalgam" }
    #expect(lines.count > 10)
    for line in lines {
      #expect(test.contains(line), "README line not in ReadmeExamplesTests: \(line)")
    }
  }
}

import Foundation
