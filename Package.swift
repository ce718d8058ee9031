// swift-tools-version: 6.1
//
// Amalgam: SQLite 3.53.4 (vendored in Vendor/SQLite) with a Swift 6 API on top.
//
// Every SQLite compile option a user may want to choose is a package trait. The table below is the one
// place that maps traits to SQLite's compile-time options; the README mirrors it for users.
// A consumer keeps the defaults and adds to them with:
//     .package(url: "...", from: "...", traits: [.defaults, "ENABLE_FTS4"])

import PackageDescription

/// One row of the trait table: a trait, the SQLite macros it defines, whether it is on by default.
struct CompileOption {
  let trait: String
  let defines: [(name: String, value: String?)]
  let isDefault: Bool
  let description: String
  var enables: [String] = []
}

let compileOptions: [CompileOption] = [
  // Features, on by default.
  .init(trait: "ENABLE_FTS5", defines: [("SQLITE_ENABLE_FTS5", nil)], isDefault: true,
        description: "FTS5 full-text search."),
  .init(trait: "ENABLE_SESSION", defines: [("SQLITE_ENABLE_SESSION", nil)], isDefault: true,
        description: "Sessions and changesets (also turns on ENABLE_PREUPDATE_HOOK).",
        enables: ["ENABLE_PREUPDATE_HOOK"]),
  .init(trait: "ENABLE_PREUPDATE_HOOK", defines: [("SQLITE_ENABLE_PREUPDATE_HOOK", nil)], isDefault: true,
        description: "The pre-update hook."),
  .init(trait: "ENABLE_RTREE", defines: [("SQLITE_ENABLE_RTREE", nil)], isDefault: true,
        description: "R*Tree spatial index virtual table."),
  .init(trait: "ENABLE_MATH_FUNCTIONS", defines: [("SQLITE_ENABLE_MATH_FUNCTIONS", nil)], isDefault: true,
        description: "SQL math functions (sin, sqrt, log, ...)."),
  .init(trait: "ENABLE_SNAPSHOT", defines: [("SQLITE_ENABLE_SNAPSHOT", nil)], isDefault: true,
        description: "WAL snapshots (sqlite3_snapshot_*)."),
  .init(trait: "ENABLE_CARRAY", defines: [("SQLITE_ENABLE_CARRAY", nil)], isDefault: true,
        description: "The carray() table-valued function for binding arrays."),
  .init(trait: "ENABLE_PERCENTILE", defines: [("SQLITE_ENABLE_PERCENTILE", nil)], isDefault: true,
        description: "median(), percentile() and related aggregates."),
  .init(trait: "ENABLE_COLUMN_METADATA", defines: [("SQLITE_ENABLE_COLUMN_METADATA", nil)], isDefault: true,
        description: "Column origin metadata (sqlite3_column_table_name, ...)."),
  .init(trait: "ENABLE_DBSTAT_VTAB", defines: [("SQLITE_ENABLE_DBSTAT_VTAB", nil)], isDefault: true,
        description: "The dbstat virtual table (space used per table and index)."),
  .init(trait: "ENABLE_STMTVTAB", defines: [("SQLITE_ENABLE_STMTVTAB", nil)], isDefault: true,
        description: "The sqlite_stmt virtual table (prepared statements of a connection)."),
  .init(trait: "ENABLE_EXTENSIONS", defines: [("AMALGAM_ENABLE_EXTENSIONS", nil)], isDefault: true,
        description: "ext/misc series, decimal, ieee754, uuid and sha3, registered on every connection."),

  // Safe defaults, on by default; turn one off for legacy behaviour.
  .init(trait: "DQS_0", defines: [("SQLITE_DQS", "0")], isDefault: true,
        description: "Double-quoted strings are identifiers only, never string literals."),
  .init(trait: "DEFAULT_MEMSTATUS_0", defines: [("SQLITE_DEFAULT_MEMSTATUS", "0")], isDefault: true,
        description: "No memory-usage tracking: faster malloc, sqlite3_memory_used() reads 0."),
  .init(trait: "DEFAULT_WAL_SYNCHRONOUS_1", defines: [("SQLITE_DEFAULT_WAL_SYNCHRONOUS", "1")], isDefault: true,
        description: "synchronous=NORMAL in WAL mode: durable against crashes, faster commits."),
  .init(trait: "LIKE_DOESNT_MATCH_BLOBS", defines: [("SQLITE_LIKE_DOESNT_MATCH_BLOBS", nil)], isDefault: true,
        description: "LIKE and GLOB never match BLOB operands (faster LIKE optimisation)."),
  .init(trait: "OMIT_DEPRECATED", defines: [("SQLITE_OMIT_DEPRECATED", nil)], isDefault: true,
        description: "Leaves out deprecated C interfaces."),
  .init(trait: "OMIT_SHARED_CACHE", defines: [("SQLITE_OMIT_SHARED_CACHE", nil)], isDefault: true,
        description: "Leaves out shared-cache mode (a faster, simpler pager)."),
  .init(trait: "USE_URI", defines: [("SQLITE_USE_URI", "1")], isDefault: true,
        description: "Filenames are interpreted as URIs (file:...) by default."),

  // Opt-in features.
  .init(trait: "ENABLE_FTS4", defines: [("SQLITE_ENABLE_FTS3", nil), ("SQLITE_ENABLE_FTS4", nil),
                                         ("SQLITE_ENABLE_FTS3_PARENTHESIS", nil)], isDefault: false,
        description: "FTS3 and FTS4 full-text search."),
  .init(trait: "ENABLE_GEOPOLY", defines: [("SQLITE_ENABLE_GEOPOLY", nil)], isDefault: false,
        description: "Geopoly polygon functions (also turns on ENABLE_RTREE).", enables: ["ENABLE_RTREE"]),
  .init(trait: "ENABLE_STAT4", defines: [("SQLITE_ENABLE_STAT4", nil)], isDefault: false,
        description: "Histogram statistics from ANALYZE for better plans."),
  .init(trait: "ENABLE_BYTECODE_VTAB", defines: [("SQLITE_ENABLE_BYTECODE_VTAB", nil)], isDefault: false,
        description: "The bytecode() and tables_used() table-valued functions."),
  .init(trait: "ENABLE_DBPAGE_VTAB", defines: [("SQLITE_ENABLE_DBPAGE_VTAB", nil)], isDefault: false,
        description: "The sqlite_dbpage virtual table (raw page access)."),
  .init(trait: "ENABLE_NORMALIZE", defines: [("SQLITE_ENABLE_NORMALIZE", nil)], isDefault: false,
        description: "sqlite3_normalized_sql() (Statement.normalizedSQL)."),
  .init(trait: "SECURE_DELETE", defines: [("SQLITE_SECURE_DELETE", nil)], isDefault: false,
        description: "Overwrites deleted content with zeros."),
  .init(trait: "API_ARMOR", defines: [("SQLITE_ENABLE_API_ARMOR", nil)], isDefault: false,
        description: "Extra argument checks in the C API."),
  .init(trait: "DEFAULT_FOREIGN_KEYS", defines: [("SQLITE_DEFAULT_FOREIGN_KEYS", "1")], isDefault: false,
        description: "Foreign-key enforcement on by default."),
  .init(trait: "OMIT_LOAD_EXTENSION", defines: [("SQLITE_OMIT_LOAD_EXTENSION", nil)], isDefault: false,
        description: "Leaves out run-time loading of extensions."),
  .init(trait: "OMIT_PROGRESS_CALLBACK", defines: [("SQLITE_OMIT_PROGRESS_CALLBACK", nil)], isDefault: false,
        description: "Leaves out the progress handler (a little faster VM)."),
  .init(trait: "OMIT_JSON", defines: [("SQLITE_OMIT_JSON", nil)], isDefault: false,
        description: "Leaves out the JSON functions."),
  .init(trait: "ENABLE_STMT_SCANSTATUS", defines: [("SQLITE_ENABLE_STMT_SCANSTATUS", nil)], isDefault: false,
        description: "Per-loop run-time counters of a statement (Statement.scanStatus())."),
  .init(trait: "ENABLE_SETLK_TIMEOUT", defines: [("SQLITE_ENABLE_SETLK_TIMEOUT", "1")], isDefault: false,
        description: "Database.setLockTimeout: blocking WAL locks where the VFS has them (Windows; the unix VFS does not block)."),

  // Threading mode. The default (neither trait) is SQLITE_THREADSAFE=2, multi-thread: the Swift layer
  // confines each connection. If both traits are on (as with --enable-all-traits), THREADSAFE_1 wins:
  // Sources/AmalgamSQLite/sqlite3.c resolves the choice, so SQLITE_THREADSAFE is defined exactly once.
  .init(trait: "THREADSAFE_0", defines: [("AMALGAM_THREADSAFE_0", nil)], isDefault: false,
        description: "Single-thread mode (SQLITE_THREADSAFE=0): no mutexes at all."),
  .init(trait: "THREADSAFE_1", defines: [("AMALGAM_THREADSAFE_1", nil)], isDefault: false,
        description: "Serialized mode (SQLITE_THREADSAFE=1). Wins over THREADSAFE_0."),
]

/// The SQLite compile options of the enabled traits, for every C target that compiles SQLite's sources.
let sqliteTraitDefines: [CSetting] = compileOptions.flatMap { option in
  option.defines.map { define in CSetting.define(define.name, to: define.value, .when(traits: [option.trait])) }
}

let package = Package(
  name: "Amalgam",
  products: [
    .library(name: "Amalgam", targets: ["Amalgam"]),
    .executable(name: "amalgam", targets: ["amalgam"]),
    .executable(name: "amalgam-bench", targets: ["amalgam-bench"]),
  ],
  traits: Set(
    compileOptions.map {
      Trait(name: $0.trait, description: $0.description, enabledTraits: Set($0.enables))
    }
      + [.default(enabledTraits: Set(compileOptions.filter(\.isDefault).map(\.trait)))]
  ),
  targets: [
    .target(
      name: "AmalgamSQLite",
      cSettings: [
        // ext/misc sources include "sqlite3ext.h" by name: find it (and sqlite3.h) in the vendored folder.
        .headerSearchPath("../../Vendor/SQLite"),
        // Not a user's choice: sub-second sleeps make busy-timeout retries fine-grained.
        .define("HAVE_USLEEP", to: "1"),
      ]
        + compileOptions.flatMap { option in
          option.defines.map { define in
            CSetting.define(define.name, to: define.value, .when(traits: [option.trait]))
          }
        },
      linkerSettings: [
        .linkedLibrary("m"),
        .linkedLibrary("pthread", .when(platforms: [.linux, .android])),
        .linkedLibrary("dl", .when(platforms: [.linux, .android])),
      ]
    ),
    .target(
      name: "Amalgam",
      dependencies: ["AmalgamSQLite"]
    ),
    // SQLite's own shell (Vendor/SQLite/shell.c) with the same compile options, run by `amalgam shell`.
    // Only the amalgam tool depends on it: the Amalgam library never contains the shell.
    .target(
      name: "AmalgamShell",
      dependencies: ["AmalgamSQLite"],
      cSettings: [.headerSearchPath("../../Vendor/SQLite"), .define("HAVE_USLEEP", to: "1")] + sqliteTraitDefines
    ),
    .executableTarget(
      name: "amalgam",
      dependencies: ["Amalgam", "AmalgamShell"]
    ),
    // Compares Amalgam's API with SQLite's C API on the same compiled SQLite: `swift run -c release amalgam-bench`.
    .executableTarget(
      name: "amalgam-bench",
      dependencies: ["Amalgam", "AmalgamSQLite"]
    ),
    // Test-only: a program that DatabaseMigratorTests runs twice at once on one file.
    .executableTarget(
      name: "amalgam-migration-fixture",
      dependencies: ["Amalgam"],
      path: "Tests/MigrationFixture"
    ),
    // Test-only: a program that CrashSafetyTests kills with SIGKILL while it commits (issue 18).
    .executableTarget(
      name: "amalgam-crash-writer",
      dependencies: ["Amalgam"],
      path: "Tests/CrashWriter"
    ),
    // Test-only C support for Tests/AmalgamTests/Reliability: a power-loss VFS and a failing allocator.
    .target(
      name: "AmalgamTestSupport",
      dependencies: ["AmalgamSQLite"],
      path: "Tests/AmalgamTestSupport"
    ),
    // Test-only: a program that OutOfMemoryTests runs with the N-th allocation failing (issue 18).
    .executableTarget(
      name: "amalgam-oom-runner",
      dependencies: ["Amalgam", "AmalgamTestSupport"],
      path: "Tests/OOMRunner"
    ),
    // Test-only: a C extension compiled against Amalgam's SQLite, as an application's own would be.
    .target(
      name: "AmalgamExampleExtension",
      dependencies: ["AmalgamSQLite"],
      path: "Tests/AmalgamExampleExtension"
    ),
    .testTarget(
      name: "AmalgamTests",
      dependencies: ["Amalgam", "AmalgamSQLite", "AmalgamTestSupport", "AmalgamExampleExtension"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
