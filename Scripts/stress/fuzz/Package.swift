// swift-tools-version: 6.1
//
// libFuzzer targets for Amalgam's Swift layer. A package of its own, outside the library's package
// graph: the targets are built with `-sanitize=fuzzer` and `-parse-as-library` (libFuzzer supplies
// `main`), which a library consumer must never get. Build and run them with `Scripts/stress/fuzz/run`.
//
// Each target fuzzes one place where the Swift layer parses bytes or text it does not control; see
// Scripts/stress/fuzz/README.md and the README's "Fuzzing" section.

import PackageDescription

let package = Package(
  name: "AmalgamFuzz",
  dependencies: [
    // FTS5 and sessions are default traits today; naming them keeps the FTS5 and changeset targets
    // building if the defaults ever change. VECTOR (sqlite-vec) is for fuzz-vector.
    .package(name: "Amalgam", path: "../../..", traits: [.defaults, "ENABLE_FTS5", "ENABLE_SESSION", "VECTOR"])
  ],
  targets: [
    .target(name: "FuzzSupport", dependencies: [.product(name: "Amalgam", package: "Amalgam")]),
    .executableTarget(name: "fuzz-value-conversions", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
    .executableTarget(name: "fuzz-row-decoder", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
    .executableTarget(name: "fuzz-changeset", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
    .executableTarget(name: "fuzz-deserialize", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
    .executableTarget(name: "fuzz-fts5-tokenizer", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
    .executableTarget(name: "fuzz-vector", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
    // Compiles the command-line tool's own formatter sources (symbolic links into Sources/amalgam),
    // since an executable target cannot be imported.
    .executableTarget(name: "fuzz-cli-output", dependencies: ["FuzzSupport", .product(name: "Amalgam", package: "Amalgam")]),
  ],
  swiftLanguageModes: [.v6]
)
