import AmalgamSQLite
import Foundation
import Testing

@testable import Amalgam

/// For every trait, the Swift compilation condition must agree with what the compiled SQLite reports.
/// A trait that reaches Swift but not the C target (or the reverse) fails here.
@Suite struct TraitTests {
  /// Each trait with the SQLite compile option that proves it reached the C build.
  static let optionByTrait: [(trait: String, option: String)] = [
    ("ENABLE_FTS5", "ENABLE_FTS5"),
    ("ENABLE_SESSION", "ENABLE_SESSION"),
    ("ENABLE_PREUPDATE_HOOK", "ENABLE_PREUPDATE_HOOK"),
    ("ENABLE_RTREE", "ENABLE_RTREE"),
    ("ENABLE_MATH_FUNCTIONS", "ENABLE_MATH_FUNCTIONS"),
    ("ENABLE_SNAPSHOT", "ENABLE_SNAPSHOT"),
    ("ENABLE_CARRAY", "ENABLE_CARRAY"),
    ("ENABLE_PERCENTILE", "ENABLE_PERCENTILE"),
    ("ENABLE_COLUMN_METADATA", "ENABLE_COLUMN_METADATA"),
    ("ENABLE_DBSTAT_VTAB", "ENABLE_DBSTAT_VTAB"),
    ("ENABLE_STMTVTAB", "ENABLE_STMTVTAB"),
    ("DQS_0", "DQS=0"),
    ("DEFAULT_MEMSTATUS_0", "DEFAULT_MEMSTATUS=0"),
    ("DEFAULT_WAL_SYNCHRONOUS_1", "DEFAULT_WAL_SYNCHRONOUS=1"),
    ("LIKE_DOESNT_MATCH_BLOBS", "LIKE_DOESNT_MATCH_BLOBS"),
    ("OMIT_DEPRECATED", "OMIT_DEPRECATED"),
    ("OMIT_SHARED_CACHE", "OMIT_SHARED_CACHE"),
    ("USE_URI", "USE_URI"),
    ("ENABLE_FTS4", "ENABLE_FTS4"),
    ("ENABLE_GEOPOLY", "ENABLE_GEOPOLY"),
    ("ENABLE_STAT4", "ENABLE_STAT4"),
    ("ENABLE_BYTECODE_VTAB", "ENABLE_BYTECODE_VTAB"),
    ("ENABLE_DBPAGE_VTAB", "ENABLE_DBPAGE_VTAB"),
    ("ENABLE_NORMALIZE", "ENABLE_NORMALIZE"),
    ("SECURE_DELETE", "SECURE_DELETE"),
    ("API_ARMOR", "ENABLE_API_ARMOR"),
    ("DEFAULT_FOREIGN_KEYS", "DEFAULT_FOREIGN_KEYS"),
    ("OMIT_LOAD_EXTENSION", "OMIT_LOAD_EXTENSION"),
    ("OMIT_PROGRESS_CALLBACK", "OMIT_PROGRESS_CALLBACK"),
    ("OMIT_JSON", "OMIT_JSON"),
    ("ENABLE_STMT_SCANSTATUS", "ENABLE_STMT_SCANSTATUS"),
    ("ENABLE_SETLK_TIMEOUT", "ENABLE_SETLK_TIMEOUT"),
  ]

  @Test("every trait's Swift condition agrees with sqlite3_compileoption_used", arguments: optionByTrait)
  func traitMatchesCompileOption(trait: String, option: String) {
    let inSwift = SQLite.enabledTraits.contains(trait)
    let inC = SQLite.isCompileOptionUsed(option)
    #expect(inSwift == inC, "trait \(trait): Swift says \(inSwift), SQLite option \(option) says \(inC)")
  }

  @Test func everyDeclaredTraitIsChecked() {
    // enabledTraits lists only enabled traits; TraitListTests checks the table against Package.swift's full list.
    let checked = Set(Self.optionByTrait.map(\.trait))
    // ENCRYPTION swaps the amalgamation rather than setting an option: EncryptionTests calls into the C side.
    // VECTOR compiles sqlite-vec beside it: VectorRegistrationTests checks that it is registered.
    let notCompileOptions: Set<String> = [
      "DEFAULT_OPTIONS", "ENABLE_EXTENSIONS", "ENCRYPTION", "VECTOR", "THREADSAFE_0", "THREADSAFE_1",
    ]
    for trait in SQLite.enabledTraits where !notCompileOptions.contains(trait) {
      #expect(checked.contains(trait), "trait \(trait) has no compile-option check")
    }
  }

  /// The traits marked `default: true` in Package.swift's trait table, read from the manifest itself (its
  /// rows read `.init(` then `"NAME", default: true, ...`).
  static func defaultOptionsInManifest() throws -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
    return manifest.matches(of: /\.init\(\s*"([A-Z0-9_]+)", default: true/).map { String($0.output.1) }
  }

  @Test func defaultOptionsTurnsOnEveryOptionMarkedDefault() throws {
    let defaults = try Self.defaultOptionsInManifest()
    #expect(defaults.contains("ENABLE_FTS5") && defaults.contains("DQS_0"), "read \(defaults) from Package.swift")
    #expect(!defaults.contains("ENABLE_FTS4"))
    #if DEFAULT_OPTIONS
      for trait in defaults {
        #expect(SQLite.enabledTraits.contains(trait), "DEFAULT_OPTIONS is on but \(trait) is not")
      }
    #endif
  }

  @Test func threadingModeFollowsTheThreadsafeTraits() {
    #if THREADSAFE_1
      #expect(SQLite.threadingMode == .serialized)
      #expect(SQLite.isCompileOptionUsed("THREADSAFE=1"))
    #elseif THREADSAFE_0
      #expect(SQLite.threadingMode == .singleThread)
      #expect(SQLite.isCompileOptionUsed("THREADSAFE=0"))
      #expect(sqlite3_threadsafe() == 0)
    #else
      #expect(SQLite.threadingMode == .multiThread)
      #expect(SQLite.isCompileOptionUsed("THREADSAFE=2"))
    #endif
  }

  @Test func extensionsAreRegisteredExactlyWhenTheTraitIsOn() throws {
    let db = try Database()
    let statement = try db.prepare(
      sql: "SELECT count(DISTINCT name) FROM pragma_function_list "
        + "WHERE name IN ('sha3', 'uuid', 'decimal_add', 'ieee754')")
    let count: Int? = try statement.front()
    #if ENABLE_EXTENSIONS
      #expect(count == 4)
      #expect(amalgam_extensions_enabled() == 1)
      let sum: String? = try db.prepare(sql: "SELECT decimal_add('0.1', '0.2')").front()
      #expect(sum == "0.3")
      let series: Int? = try db.prepare(sql: "SELECT sum(value) FROM generate_series(1, 10)").front()
      #expect(series == 55)
      let hash: String? = try db.prepare(sql: "SELECT hex(sha3('abc', 256))").front()
      #expect(hash == "3A985DA74FE225B2045C172D6BD390BD855F086E3E9D525B46BFE24511431532")
    #else
      #expect(count == 0)
      #expect(amalgam_extensions_enabled() == 0)
    #endif
  }

  @Test func optionalFeaturesWorkWhenTheirTraitIsOn() throws {
    let db = try Database()
    #if ENABLE_FTS5
      try db.batch(sql: "CREATE VIRTUAL TABLE doc USING fts5(body); INSERT INTO doc VALUES ('hello amalgam world');")
      let hits: Int? = try db.prepare(sql: "SELECT count(*) FROM doc WHERE doc MATCH 'amalgam'").front()
      #expect(hits == 1)
    #else
      #expect(throws: SQLiteError.self) { try db.execute(sql: "CREATE VIRTUAL TABLE doc USING fts5(body)") }
    #endif
    #if ENABLE_MATH_FUNCTIONS
      let root: Double? = try db.prepare(sql: "SELECT sqrt(16)").front()
      #expect(root == 4)
    #endif
    #if !OMIT_JSON
      let length: Int? = try db.prepare(sql: "SELECT json_array_length('[1,2,3]')").front()
      #expect(length == 3)
    #endif
    #if DQS_0
      // Double quotes are identifiers only: "nope" is an unknown column, not a string.
      #expect(throws: SQLiteError.self) { try db.execute(sql: "SELECT \"nope\"") }
    #endif
  }
}
