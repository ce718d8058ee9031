import Amalgam
import Foundation
import Testing

/// The examples of the DocC articles in Sources/Amalgam/Amalgam.docc. Most are compiled by the tests of the
/// capability they show; the others are here, verbatim between the markers. `everyArticleCodeLineIsInATest`
/// checks that every line of every Swift example in the articles appears in some test file (TraitListTests
/// checks the compile-options article's trait table).
@Suite struct ArticleExamplesTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let catalog = root.appendingPathComponent("Sources/Amalgam/Amalgam.docc")

  @Test func landingPageExample() throws {
    var read: [String] = []
    // Landing page: begin
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    try db.execute(sql: "INSERT INTO person(name) VALUES (?)", arguments: ["Ada"])
    let statement = try db.prepare(sql: "SELECT id, name FROM person")
    while let row = try statement.step() {
      let id: Int64 = try row.value(at: 0)
      let name: String = try row.value(named: "name")
      print(id, name)
      // Landing page: end
      read.append("\(id) \(name)")
    }
    #expect(read == ["1 Ada"])
  }

  @Test func gettingStartedFirstDatabase() throws {
    // Getting started, a first database: begin
    let db = try Database()  // in memory; Database(path:) opens a file
    try db.batch(
      sql: """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);
        INSERT INTO person(name, email) VALUES ('Ada', 'ada@example.com'), ('Grace', NULL);
        """)

    // Positional and named parameters.
    try db.execute(sql: "INSERT INTO person(name) VALUES (?)", arguments: ["Linus"])
    try db.execute(
      sql: "UPDATE person SET email = :email WHERE name = :name",
      arguments: ["email": "linus@example.com", "name": "Linus"])

    // Iterating rows: errors are thrown, never swallowed.
    let statement = try db.prepare(sql: "SELECT id, name, email FROM person ORDER BY id")
    while let row = try statement.step() {
      let id: Int64 = try row.value(at: 0)
      let name: String = try row.value(named: "name")
      let email: String? = try row.value(named: "email")  // optional: NULL reads as nil
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
    // Getting started, a first database: end

    #expect(people.map(\.name) == ["Ada", "Grace", "Linus"])
    #expect(people.map(\.email) == ["ada@example.com", nil, "linus@example.com"])
    // Grace and Barbara had no email and were deleted.
    #expect(count == 2)
  }

  @Test func gettingStartedExamples() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT)")
    try db.execute(sql: "INSERT INTO person(id, name, email) VALUES (1, 'Ada', 'ada@example.com')")

    // Getting started, binding: begin
    let insert = try db.prepare(sql: "INSERT INTO person(name, email) VALUES (?, ?)")
    try insert.bind("Edsger", "edsger@example.com").execute()
    try insert.bind("Barbara", nil as String?).execute()
    let update = try db.prepare(sql: "UPDATE person SET email = :email WHERE name = :name")
    try update.bind(named: ("email", "barbara@example.com"), ("name", "Barbara")).execute()
    // Getting started, binding: end

    // Getting started, reading: begin
    let names = try db.prepare(sql: "SELECT name FROM person ORDER BY name").column(0, as: String.self)
    let withEmail = try db.prepare(sql: "SELECT count(*) FROM person WHERE email IS NOT NULL").front(Int.self)
    // Getting started, reading: end
    #expect(names == ["Ada", "Barbara", "Edsger"])
    #expect(withEmail == 3)

    var caught = false
    // Getting started, errors: begin
    do {
      try db.execute(sql: "INSERT INTO person(id, name) VALUES (1, 'Ada again')")
    } catch ResultCode.constraintPrimaryKey {
      print("person 1 exists already")
      // Getting started, errors: end
      caught = true
    }
    #expect(caught)
  }

  @Test func compileOptionsExample() {
    // Choosing compile options, run-time checks: begin
    print(SQLite.version, SQLite.threadingMode)  // 3.53.4 multi-thread
    let hasFullTextSearch = SQLite.enabledTraits.contains("ENABLE_FTS5")
    let hasStat4 = SQLite.isCompileOptionUsed("ENABLE_STAT4")
    // Choosing compile options, run-time checks: end
    #expect(SQLite.version == "3.53.4")
    #if ENABLE_FTS5
      #expect(hasFullTextSearch)
    #else
      #expect(!hasFullTextSearch)
    #endif
    #if ENABLE_STAT4
      #expect(hasStat4)
    #else
      #expect(!hasStat4)
    #endif
  }

  @Test func performanceExample() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE reading(sensor INTEGER NOT NULL, value REAL NOT NULL)")
    var counts: [Int?] = []

    // Performance, writing fast code: begin
    // Typed values in and out: nothing is boxed, no DatabaseValue is built.
    let insert = try db.prepare(sql: "INSERT INTO reading(sensor, value) VALUES (?, ?)")
    try db.transaction { _ in
      for index in 0..<1_000 {
        try insert.bind(index % 10, Double(index) / 10).execute()
      }
    }
    var total = 0.0
    let select = try db.prepare(sql: "SELECT sensor, value FROM reading")
    while let row = try select.step() {
      total += try row.value(at: 1) as Double
    }
    // SQL that runs again and again is parsed and planned once per connection.
    for sensor in 0..<10 {
      let count = try db.cachedStatement(sql: "SELECT count(*) FROM reading WHERE sensor = ?")
        .bind(value: sensor, toParameter: 1).front(Int.self)
      // Performance, writing fast code: end
      counts.append(count)
    }

    #expect(total == 49_950)  // (0 + 1 + ... + 999) / 10
    #expect(counts == Array(repeating: 100, count: 10))
    #expect(db.cachedStatementCount == 1)
  }

  /// The Swift code blocks of every article, as lines; a block that starts with `// In your Package.swift`
  /// is a manifest excerpt, not compiled.
  static func articleCodeLines() throws -> [(article: String, line: String)] {
    let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
    var lines: [(String, String)] = []
    for article in articles.sorted() {
      let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
      var searchStart = text.startIndex
      while let start = text.range(of: "```swift\n", range: searchStart..<text.endIndex),
        let end = text.range(of: "```", range: start.upperBound..<text.endIndex)
      {
        let block = text[start.upperBound..<end.lowerBound]
        searchStart = end.upperBound
        if block.hasPrefix("// In your Package.swift") { continue }
        lines += block.split(separator: "\n").map { (article, $0.trimmingCharacters(in: .whitespaces)) }
          .filter { !$0.1.isEmpty }
      }
    }
    return lines
  }

  @Test func everyArticleCodeLineIsInATest() throws {
    let lines = try Self.articleCodeLines()
    #expect(lines.count > 100)
    let testsDirectory = Self.root.appendingPathComponent("Tests/AmalgamTests")
    var tests = ""
    let files = FileManager.default.enumerator(at: testsDirectory, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      if file.pathExtension == "swift" { tests += try String(contentsOf: file, encoding: .utf8) }
    }
    for (article, line) in lines where line != "import Amalgam" && line != "import Foundation" {
      #expect(tests.contains(line), "\(article): line compiled by no test: \(line)")
    }
  }
}
