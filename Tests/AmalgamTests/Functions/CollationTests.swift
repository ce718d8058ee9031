import Amalgam
import Foundation
import Testing

@Suite("Collations")
struct CollationTests {
  /// Orders by length, then as Swift orders strings.
  private static func byLength(_ a: String, _ b: String) -> ComparisonResult {
    if a.count != b.count { return a.count < b.count ? .orderedAscending : .orderedDescending }
    return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
  }

  private func names(_ db: Database, _ sql: String) throws -> [String] {
    try db.prepare(sql: sql).column(0, as: String.self)
  }

  // MARK: - Custom collations

  @Test func closureCollationOrdersByInOrderBy() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE word(w TEXT); INSERT INTO word VALUES ('ccc'), ('a'), ('bb'), ('aa')")
    try db.addCollation("BY_LENGTH", Self.byLength)
    #expect(try names(db, "SELECT w FROM word ORDER BY w COLLATE BY_LENGTH") == ["a", "aa", "bb", "ccc"])
    #expect(try names(db, "SELECT w FROM word ORDER BY w COLLATE by_length DESC") == ["ccc", "bb", "aa", "a"])
    #expect(try names(db, "SELECT w FROM word ORDER BY w") == ["a", "aa", "bb", "ccc"])
  }

  @Test func collationInAColumnDefinitionAppliesToOrderingComparisonAndIndexes() throws {
    let db = try Database()
    try db.addCollation("BY_LENGTH", Self.byLength)
    try db.batch(
      sql: """
        CREATE TABLE word(w TEXT COLLATE BY_LENGTH UNIQUE);
        INSERT INTO word VALUES ('ccc'), ('a'), ('bb');
        """)
    #expect(try names(db, "SELECT w FROM word ORDER BY w") == ["a", "bb", "ccc"])
    #expect(try names(db, "SELECT w FROM word WHERE w > 'zz'") == ["ccc"])
    #expect(try names(db, "SELECT min(w) FROM word") == ["a"])
  }

  @Test func collationsAreUsedForEqualityAndUniqueness() throws {
    let db = try Database()
    try db.addCollation("FIRST_LETTER") { a, b in
      let (x, y) = (a.first.map(String.init) ?? "", b.first.map(String.init) ?? "")
      return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
    }
    try db.batch(sql: "CREATE TABLE initial(name TEXT UNIQUE COLLATE FIRST_LETTER); INSERT INTO initial VALUES ('Ada')")
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO initial VALUES ('Alan')") }
    #expect(error?.extendedCode == .constraintUnique)
    #expect(try db.fetchOne(sql: "SELECT 'Bob' = 'Bill' COLLATE FIRST_LETTER") == true)
  }

  @Test func removeCollationMakesItsUseFailAndReleasesTheClosure() throws {
    let db = try Database()
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      try db.addCollation("PROBE") { a, b in
        _ = probe; return Self.byLength(a, b)
      }
    }
    #expect(try names(db, "SELECT 'bb' AS w UNION ALL SELECT 'a' ORDER BY w COLLATE PROBE") == ["a", "bb"])
    try db.removeCollation("PROBE")
    #expect(weakProbe == nil)
    let error = #expect(throws: SQLiteError.self) { try db.prepare(sql: "SELECT 'a' ORDER BY 1 COLLATE PROBE") }
    #expect(error?.code == .error)
    #expect(error?.message == "no such collation sequence: PROBE")
    // Removing again, or something never added, does nothing.
    try db.removeCollation("PROBE")
    try db.removeCollation("NEVER_ADDED")
  }

  @Test func statementsPreparedBeforeRemovalFailToo() throws {
    let db = try Database()
    try db.addCollation("BY_LENGTH", Self.byLength)
    let statement = try db.prepare(sql: "SELECT 'bb' AS w UNION ALL SELECT 'a' ORDER BY w COLLATE BY_LENGTH")
    try db.removeCollation("BY_LENGTH")
    let error = #expect(throws: SQLiteError.self) { try statement.step() }
    #expect(error?.message == "no such collation sequence: BY_LENGTH")
  }

  @Test func replacingACollationChangesTheOrderAndReleasesTheOldClosure() throws {
    let db = try Database()
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      try db.addCollation("MY_ORDER") { a, b in
        _ = probe; return Self.byLength(a, b)
      }
    }
    let sql = "SELECT 'bb' AS w UNION ALL SELECT 'a' UNION ALL SELECT 'ccc' ORDER BY w COLLATE MY_ORDER"
    let statement = try db.prepare(sql: sql)
    #expect(try statement.column(0, as: String.self) == ["a", "bb", "ccc"])
    try db.addCollation("MY_ORDER") { a, b in Self.byLength(b, a) }
    #expect(weakProbe == nil)
    // SQLite re-prepares the statement with the new collation.
    #expect(try statement.column(0, as: String.self) == ["ccc", "bb", "a"])
  }

  @Test func changingACollationWhileAStatementRunsFailsWithBusy() throws {
    let db = try Database()
    try db.addCollation("BY_LENGTH", Self.byLength)
    try db.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES ('a'), ('b')")
    let running = try db.prepare(sql: "SELECT x FROM t ORDER BY x COLLATE BY_LENGTH")
    #expect(try running.step() != nil)
    weak var weakProbe: LifetimeProbe?
    do {
      let probe = LifetimeProbe()
      weakProbe = probe
      let error = #expect(throws: SQLiteError.self) {
        try db.addCollation("BY_LENGTH") { a, b in
          _ = probe; return .orderedSame
        }
      }
      #expect(error?.code == .busy)
      #expect(error?.message == "unable to delete/modify collation sequence due to active statements")
    }
    // SQLite does not release a refused collation; Amalgam did.
    #expect(weakProbe == nil)
    #expect(try running.step()?.value(at: 0) == "b")
  }

  @Test func textThatIsNotUTF8ReachesTheClosureRepaired() throws {
    let db = try Database()
    var seen: [String] = []
    try db.addCollation("RECORD") { a, b in
      seen.append(contentsOf: [a, b])
      return Self.byLength(a, b)
    }
    _ = try db.fetchOne(Int.self, sql: "SELECT CAST(x'61FF' AS TEXT) < 'abc' COLLATE RECORD")
    #expect(seen.contains("a\u{FFFD}"))
  }

  // MARK: - Built-ins

  @Test func naturalOrderComparesDigitRunsByValue() throws {
    let db = try Database()
    try db.addCollation(.natural)
    try db.batch(sql: "CREATE TABLE file(name TEXT); INSERT INTO file VALUES ('a1'), ('a10'), ('a2')")
    #expect(try names(db, "SELECT name FROM file ORDER BY name COLLATE NATURAL_ORDER") == ["a1", "a2", "a10"])
    #expect(try names(db, "SELECT name FROM file ORDER BY name") == ["a1", "a10", "a2"])
  }

  @Test func naturalOrderInAColumnDefinition() throws {
    let db = try Database()
    try db.addCollation(.natural)
    try db.batch(
      sql: """
        CREATE TABLE release(version TEXT PRIMARY KEY COLLATE NATURAL_ORDER);
        INSERT INTO release VALUES ('v1.10'), ('v1.9'), ('v1.9.1'), ('v10.0'), ('v2.0');
        """)
    #expect(
      try names(db, "SELECT version FROM release ORDER BY version")
        == ["v1.9", "v1.9.1", "v1.10", "v2.0", "v10.0"])
    #expect(try names(db, "SELECT max(version) FROM release") == ["v10.0"])
  }

  @Test func naturalOrderDetails() {
    let natural = Collation.natural
    #expect(natural.name == "NATURAL_ORDER")
    let ordered = [
      "",
      "-5",
      "0",
      "01",  // equal in value to "1": ordered by bytes, before it
      "1",
      "2",
      "10",
      "99999999999999999999999999",  // longer than Int64: still exact
      "100000000000000000000000000",
      "A",
      "a",
      "a b",
      "a1",
      "a1b",
      "a2",
      "a10",
      "ab",
      "é2",
      "é10",
    ]
    for (index, left) in ordered.enumerated() {
      for (otherIndex, right) in ordered.enumerated() {
        let expected: ComparisonResult =
          index == otherIndex ? .orderedSame : index < otherIndex ? .orderedAscending : .orderedDescending
        #expect(natural.compare(left, right) == expected, "\(left) vs \(right)")
      }
    }
  }

  @Test func unicodeCaseInsensitiveFoldsEveryScriptsCase() throws {
    let db = try Database()
    try db.addCollation(.unicodeCaseInsensitive)
    #expect(try db.fetchOne(sql: "SELECT 'ÉMILE' = 'émile' COLLATE UNICODE_NOCASE") == true)
    #expect(try db.fetchOne(sql: "SELECT 'ÉMILE' = 'émile' COLLATE NOCASE") == false)  // SQLite's folds ASCII only
    #expect(try db.fetchOne(sql: "SELECT 'Straße' = 'STRASSE' COLLATE UNICODE_NOCASE") == false)
    #expect(try db.fetchOne(sql: "SELECT 'ÄRGER' = 'ärger' COLLATE UNICODE_NOCASE") == true)
    // Canonically equivalent spellings are equal: a precomposed é and e with a combining accent.
    #expect(try db.fetchOne(sql: "SELECT 'caf\u{E9}' = 'CAFE\u{301}' COLLATE UNICODE_NOCASE") == true)
    try db.batch(
      sql: """
        CREATE TABLE person(name TEXT UNIQUE COLLATE UNICODE_NOCASE);
        INSERT INTO person VALUES ('Zoë'), ('émile'), ('Bob'), ('alice');
        """)
    // Code-point order: é sorts after z.
    #expect(try names(db, "SELECT name FROM person ORDER BY name") == ["alice", "Bob", "Zoë", "émile"])
    let error = #expect(throws: SQLiteError.self) { try db.execute(sql: "INSERT INTO person VALUES ('ZOË')") }
    #expect(error?.extendedCode == .constraintUnique)
  }

  @Test func unicodeCaseInsensitiveIsATotalOrderAcrossASCIIAndOtherText() {
    let collation = Collation.unicodeCaseInsensitive
    #expect(collation.name == "UNICODE_NOCASE")
    let words = [
      "", "a", "A", "ab", "AB", "Ab", "b", "é", "É", "e\u{301}", "z", "Ø", "ø", "ß", "ss", "[", "_", "~", "a~", "aé",
    ]
    // Equal, less and greater must agree in both directions and be transitive.
    for a in words {
      for b in words {
        let forward = collation.compare(a, b)
        let backward = collation.compare(b, a)
        #expect(
          (forward, backward) == (.orderedSame, .orderedSame)
            || (forward, backward) == (.orderedAscending, .orderedDescending)
            || (forward, backward) == (.orderedDescending, .orderedAscending), "\(a) vs \(b)")
        #expect((forward == .orderedSame) == (a.lowercased() == b.lowercased()), "\(a) vs \(b)")
        for c in words where forward != .orderedDescending && collation.compare(b, c) != .orderedDescending {
          #expect(collation.compare(a, c) != .orderedDescending, "\(a) ≤ \(b) ≤ \(c)")
        }
      }
    }
  }

  @Test func collationCanBeBuiltFromAClosureAndUsedInSwift() throws {
    let reverse = Collation("REVERSE") { a, b in a == b ? .orderedSame : a < b ? .orderedDescending : .orderedAscending
    }
    #expect(reverse.compare("a", "b") == .orderedDescending)
    #expect(
      ["a10", "a2", "a1"].sorted { Collation.natural.compare($0, $1) == .orderedAscending } == ["a1", "a2", "a10"])
    let db = try Database()
    try db.addCollation(reverse)
    #expect(try names(db, "SELECT 'a' AS w UNION ALL SELECT 'b' ORDER BY w COLLATE REVERSE") == ["b", "a"])
  }
}
