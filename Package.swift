// swift-tools-version: 6.1
//
// Amalgam: SQLite 3.53.4 (vendored in Vendor/SQLite) with a Swift 6 API on top.
//
// Every SQLite compile option a user may want to choose is a package trait. The table below is the one
// place that maps traits to SQLite's compile-time options; the README mirrors it for users.
// A consumer keeps the defaults and adds to them with:
//     .package(url: "...", from: "...", traits: [.defaults, "ENABLE_FTS4"])

import PackageDescription

/// One row of the trait table: a trait, whether it is on by default, the SQLite macros it defines
/// ("NAME" or "NAME=VALUE"), the traits it turns on too, and what it is for.
struct CompileOption {
  let trait: String
  let isDefault: Bool
  let defines: [String]
  let enables: [String]
  let description: String

  init(_ trait: String, default isDefault: Bool, defines: [String], enables: [String] = [], _ description: String) {
    self.trait = trait
    self.isDefault = isDefault
    self.defines = defines
    self.enables = enables
    self.description = description
  }
}

let compileOptions: [CompileOption] = [
  // Features, on by default.
  .init(
    "ENABLE_FTS5", default: true, defines: ["SQLITE_ENABLE_FTS5"],
    "FTS5 full-text search."),
  .init(
    "ENABLE_SESSION", default: true, defines: ["SQLITE_ENABLE_SESSION"], enables: ["ENABLE_PREUPDATE_HOOK"],
    "Sessions and changesets (also turns on ENABLE_PREUPDATE_HOOK)."),
  .init(
    "ENABLE_PREUPDATE_HOOK", default: true, defines: ["SQLITE_ENABLE_PREUPDATE_HOOK"],
    "The pre-update hook."),
  .init(
    "ENABLE_RTREE", default: true, defines: ["SQLITE_ENABLE_RTREE"],
    "R*Tree spatial index virtual table."),
  .init(
    "ENABLE_MATH_FUNCTIONS", default: true, defines: ["SQLITE_ENABLE_MATH_FUNCTIONS"],
    "SQL math functions (sin, sqrt, log, ...)."),
  .init(
    "ENABLE_SNAPSHOT", default: true, defines: ["SQLITE_ENABLE_SNAPSHOT"],
    "WAL snapshots (sqlite3_snapshot_*)."),
  .init(
    "ENABLE_CARRAY", default: true, defines: ["SQLITE_ENABLE_CARRAY"],
    "The carray() table-valued function for binding arrays."),
  .init(
    "ENABLE_PERCENTILE", default: true, defines: ["SQLITE_ENABLE_PERCENTILE"],
    "median(), percentile() and related aggregates."),
  .init(
    "ENABLE_COLUMN_METADATA", default: true, defines: ["SQLITE_ENABLE_COLUMN_METADATA"],
    "Column origin metadata (sqlite3_column_table_name, ...)."),
  .init(
    "ENABLE_DBSTAT_VTAB", default: true, defines: ["SQLITE_ENABLE_DBSTAT_VTAB"],
    "The dbstat virtual table (space used per table and index)."),
  .init(
    "ENABLE_STMTVTAB", default: true, defines: ["SQLITE_ENABLE_STMTVTAB"],
    "The sqlite_stmt virtual table (prepared statements of a connection)."),
  .init(
    "ENABLE_DBPAGE_VTAB", default: true, defines: ["SQLITE_ENABLE_DBPAGE_VTAB"],
    "The sqlite_dbpage virtual table (raw page access, read-only in defensive mode); amalgam rsync needs it."),
  .init(
    "ENABLE_EXTENSIONS", default: true, defines: ["AMALGAM_ENABLE_EXTENSIONS"],
    "ext/misc series, decimal, ieee754, uuid and sha3, registered on every connection."),

  // Safe defaults, on by default; turn one off for legacy behaviour.
  .init(
    "DQS_0", default: true, defines: ["SQLITE_DQS=0"],
    "Double-quoted strings are identifiers only, never string literals."),
  .init(
    "DEFAULT_MEMSTATUS_0", default: true, defines: ["SQLITE_DEFAULT_MEMSTATUS=0"],
    "No memory-usage tracking: faster malloc, sqlite3_memory_used() reads 0."),
  .init(
    "DEFAULT_WAL_SYNCHRONOUS_1", default: true, defines: ["SQLITE_DEFAULT_WAL_SYNCHRONOUS=1"],
    "synchronous=NORMAL in WAL mode: durable against crashes, faster commits."),
  .init(
    "LIKE_DOESNT_MATCH_BLOBS", default: true, defines: ["SQLITE_LIKE_DOESNT_MATCH_BLOBS"],
    "LIKE and GLOB never match BLOB operands (faster LIKE optimisation)."),
  .init(
    "OMIT_DEPRECATED", default: true, defines: ["SQLITE_OMIT_DEPRECATED"],
    "Leaves out deprecated C interfaces."),
  .init(
    "OMIT_SHARED_CACHE", default: true, defines: ["SQLITE_OMIT_SHARED_CACHE"],
    "Leaves out shared-cache mode (a faster, simpler pager)."),
  .init(
    "USE_URI", default: true, defines: ["SQLITE_USE_URI=1"],
    "Filenames are interpreted as URIs (file:...) by default."),

  // Opt-in features.
  .init(
    "ENABLE_FTS4", default: false,
    defines: ["SQLITE_ENABLE_FTS3", "SQLITE_ENABLE_FTS4", "SQLITE_ENABLE_FTS3_PARENTHESIS"],
    "FTS3 and FTS4 full-text search."),
  .init(
    "ENABLE_GEOPOLY", default: false, defines: ["SQLITE_ENABLE_GEOPOLY"], enables: ["ENABLE_RTREE"],
    "Geopoly polygon functions (also turns on ENABLE_RTREE)."),
  .init(
    "ENABLE_STAT4", default: false, defines: ["SQLITE_ENABLE_STAT4"],
    "Histogram statistics from ANALYZE for better plans."),
  .init(
    "ENABLE_BYTECODE_VTAB", default: false, defines: ["SQLITE_ENABLE_BYTECODE_VTAB"],
    "The bytecode() and tables_used() table-valued functions."),
  .init(
    "ENABLE_NORMALIZE", default: false, defines: ["SQLITE_ENABLE_NORMALIZE"],
    "sqlite3_normalized_sql() (Statement.normalizedSQL)."),
  .init(
    "SECURE_DELETE", default: false, defines: ["SQLITE_SECURE_DELETE"],
    "Overwrites deleted content with zeros."),
  .init(
    "API_ARMOR", default: false, defines: ["SQLITE_ENABLE_API_ARMOR"],
    "Extra argument checks in the C API."),
  .init(
    "DEFAULT_FOREIGN_KEYS", default: false, defines: ["SQLITE_DEFAULT_FOREIGN_KEYS=1"],
    "Foreign-key enforcement on by default."),
  .init(
    "OMIT_LOAD_EXTENSION", default: false, defines: ["SQLITE_OMIT_LOAD_EXTENSION"],
    "Leaves out run-time loading of extensions."),
  .init(
    "OMIT_PROGRESS_CALLBACK", default: false, defines: ["SQLITE_OMIT_PROGRESS_CALLBACK"],
    "Leaves out the progress handler (a little faster VM)."),
  .init(
    "OMIT_JSON", default: false, defines: ["SQLITE_OMIT_JSON"],
    "Leaves out the JSON functions."),
  .init(
    "ENABLE_STMT_SCANSTATUS", default: false, defines: ["SQLITE_ENABLE_STMT_SCANSTATUS"],
    "Per-loop run-time counters of a statement (Statement.scanStatus())."),
  .init(
    "ENABLE_SETLK_TIMEOUT", default: false, defines: ["SQLITE_ENABLE_SETLK_TIMEOUT=1"],
    "Database.setLockTimeout: blocking WAL locks where the VFS has them (Windows; the unix VFS does not block)."),

  .init(
    "ENCRYPTION", default: false, defines: ["AMALGAM_ENABLE_ENCRYPTION"],
    "Encrypted databases: SQLite3 Multiple Ciphers (ChaCha20, AES, SQLCipher, Ascon, AEGIS) in place of SQLite."),
  .init(
    "VECTOR", default: false, defines: ["AMALGAM_ENABLE_VECTOR"],
    "Vector search: sqlite-vec 0.1.9 (vec0 tables, KNN queries, vec_* functions), registered on every connection."),

  // Threading mode. The default (neither trait) is SQLITE_THREADSAFE=2, multi-thread: the Swift layer
  // confines each connection. If both traits are on (as with --enable-all-traits), THREADSAFE_1 wins:
  // Sources/AmalgamSQLite/sqlite3.c resolves the choice, so SQLITE_THREADSAFE is defined exactly once.
  .init(
    "THREADSAFE_0", default: false, defines: ["AMALGAM_THREADSAFE_0"],
    "Single-thread mode (SQLITE_THREADSAFE=0): no mutexes at all."),
  .init(
    "THREADSAFE_1", default: false, defines: ["AMALGAM_THREADSAFE_1"],
    "Serialized mode (SQLITE_THREADSAFE=1). Wins over THREADSAFE_0."),
]

// The default trait set is the one trait DEFAULT_OPTIONS, which turns on the options marked `default: true`
// through the build settings below rather than by enabling their traits. SwiftPM 6.3 passes each enabled
// trait to the Swift compiler as a -D flag in an order that changes from one run to the next (a Set's), and
// a new order recompiles every Swift file of the package: with one trait on there is one order. A user
// still turns a default off by listing the traits they want without `.defaults`, as before, and each
// option still has its own trait. (The traits a default option turns on with `enables` are defaults too.)
let defaultOptionsTrait = "DEFAULT_OPTIONS"

/// The SQLite compile options of the enabled traits, for every C target that compiles SQLite's sources.
let sqliteTraitDefines: [CSetting] = compileOptions.flatMap { option in
  option.defines.map { define in
    let parts = define.split(separator: "=", maxSplits: 1).map(String.init)
    let traits = option.isDefault ? [option.trait, defaultOptionsTrait] : [option.trait]
    return CSetting.define(parts[0], to: parts.count > 1 ? parts[1] : nil, .when(traits: Set(traits)))
  }
}

/// The Swift compilation condition of each default option under DEFAULT_OPTIONS, so that `#if ENABLE_FTS5`
/// holds with the default traits as it does when the trait itself is on. For every Swift target.
let defaultOptionConditions: [SwiftSetting] = compileOptions.filter(\.isDefault).map { option in
  .define(option.trait, .when(traits: [defaultOptionsTrait]))
}

let package = Package(
  name: "Amalgam",
  // The library's newest Apple API is Swift's Duration (Configuration.observationPollInterval,
  // ValueObservation.throttled) and ContinuousClock: macOS 13, iOS 16, tvOS 16, watchOS 9. Swift concurrency
  // and AsyncStream.makeStream are back-deployed; String(validating:as:) is used behind #available.
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1), .macCatalyst(.v16)],
  products: [
    .library(name: "Amalgam", targets: ["Amalgam"]),
    .executable(name: "amalgam", targets: ["amalgam"]),
    .executable(name: "amalgam-bench", targets: ["amalgam-bench"]),
  ],
  traits: Set(
    compileOptions.map {
      Trait(name: $0.trait, description: $0.description, enabledTraits: Set($0.enables))
    }
      + [
        Trait(
          name: defaultOptionsTrait,
          description: "The options marked on by default, as one trait: what `.defaults` turns on."),
        .default(enabledTraits: [defaultOptionsTrait]),
      ]
  ),
  targets: [
    .target(
      name: "AmalgamSQLite",
      cSettings: [
        // ext/misc sources include "sqlite3ext.h" by name: find it (and sqlite3.h) in the vendored folder.
        .headerSearchPath("../../Vendor/SQLite"),
        // Vendor/sqlite-vec/patched/sqlite-vec.c includes "sqlite-vec.h", which stays beside the pristine file.
        .headerSearchPath("../../Vendor/sqlite-vec"),
        // Not a user's choice: sub-second sleeps make busy-timeout retries fine-grained.
        .define("HAVE_USLEEP", to: "1"),
      ] + sqliteTraitDefines,
      linkerSettings: [
        .linkedLibrary("m"),
        .linkedLibrary("pthread", .when(platforms: [.linux, .android])),
        .linkedLibrary("dl", .when(platforms: [.linux, .android])),
      ]
    ),
    .target(
      name: "Amalgam",
      dependencies: ["AmalgamSQLite"],
      swiftSettings: defaultOptionConditions
    ),
    // SQLite's own shell (Vendor/SQLite/shell.c) with the same compile options, run by `amalgam shell`.
    // Only the amalgam tool depends on it: the Amalgam library never contains the shell.
    .target(
      name: "AmalgamShell",
      dependencies: ["AmalgamSQLite"],
      cSettings: [.headerSearchPath("../../Vendor/SQLite"), .define("HAVE_USLEEP", to: "1")] + sqliteTraitDefines
    ),
    // SQLite's sqlite3_rsync (Vendor/SQLite/tool/sqlite3_rsync.c) with the same compile options, run by
    // `amalgam rsync`. It needs the sqlite_dbpage virtual table (trait ENABLE_DBPAGE_VTAB).
    .target(
      name: "AmalgamRsync",
      dependencies: ["AmalgamSQLite"],
      cSettings: [.headerSearchPath("../../Vendor/SQLite"), .define("HAVE_USLEEP", to: "1")] + sqliteTraitDefines
    ),
    .executableTarget(
      name: "amalgam",
      dependencies: ["Amalgam", "AmalgamShell", "AmalgamRsync"],
      swiftSettings: defaultOptionConditions
    ),
    // Compares Amalgam's API with SQLite's C API on the same compiled SQLite: `swift run -c release amalgam-bench`.
    .executableTarget(
      name: "amalgam-bench",
      dependencies: ["Amalgam", "AmalgamSQLite"],
      swiftSettings: defaultOptionConditions
    ),
    // Test-only: a program that DatabaseMigratorTests runs twice at once on one file.
    .executableTarget(
      name: "amalgam-migration-fixture",
      dependencies: ["Amalgam"],
      path: "Tests/MigrationFixture",
      swiftSettings: defaultOptionConditions
    ),
    // Test-only: a program that CrashSafetyTests kills with SIGKILL while it commits.
    .executableTarget(
      name: "amalgam-crash-writer",
      dependencies: ["Amalgam"],
      path: "Tests/CrashWriter",
      swiftSettings: defaultOptionConditions
    ),
    // Test-only: a program that LitestreamReplicationTests kills with SIGKILL while Litestream replicates.
    .executableTarget(
      name: "amalgam-replication-writer",
      dependencies: ["Amalgam"],
      path: "Tests/ReplicationWriter",
      swiftSettings: defaultOptionConditions
    ),
    // Test-only C support for Tests/AmalgamTests/Reliability: a power-loss VFS and a failing allocator.
    .target(
      name: "AmalgamTestSupport",
      dependencies: ["AmalgamSQLite"],
      path: "Tests/AmalgamTestSupport"
    ),
    // Test-only: a program that OutOfMemoryTests runs with the N-th allocation failing.
    .executableTarget(
      name: "amalgam-oom-runner",
      dependencies: ["Amalgam", "AmalgamSQLite", "AmalgamTestSupport"],
      path: "Tests/OOMRunner",
      swiftSettings: defaultOptionConditions
    ),
    // Test-only: a C extension compiled against Amalgam's SQLite, as an application's own would be.
    .target(
      name: "AmalgamExampleExtension",
      dependencies: ["AmalgamSQLite"],
      path: "Tests/AmalgamExampleExtension"
    ),
    .testTarget(
      name: "AmalgamTests",
      dependencies: ["Amalgam", "AmalgamSQLite", "AmalgamTestSupport", "AmalgamExampleExtension"],
      swiftSettings: defaultOptionConditions
    ),
  ],
  swiftLanguageModes: [.v6]
)
