// swift-tools-version:6.1
// The peer benchmark: the same workloads through Amalgam, through SQLite's C API on Amalgam's SQLite, and
// through GRDB, each contender in its own process. A package of its own, so that GRDB never enters the
// library's graph; CI does not build it. See Scripts/README.md and the Performance article.
import PackageDescription

let package = Package(
  name: "peer-bench",
  platforms: [.macOS(.v13)],
  // `swift build -c release --traits ENCRYPTION` builds Amalgam with SQLite3 Multiple Ciphers, for the
  // encrypted-pool curve of peer-scale (a scratch path of its own keeps the plain build warm).
  traits: [.trait(name: "ENCRYPTION", description: "Build Amalgam with its ENCRYPTION trait.")],
  dependencies: [
    .package(
      name: "Amalgam", path: "../..",
      traits: [.defaults, .trait(name: "ENCRYPTION", condition: .when(traits: ["ENCRYPTION"]))]),
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
  ],
  targets: [
    .target(name: "PeerHarness", path: "Sources/PeerHarness"),
    .executableTarget(name: "peer-bench", dependencies: ["PeerHarness"], path: "Sources/peer-bench"),
    .executableTarget(
      name: "peer-amalgam", dependencies: ["PeerHarness", .product(name: "Amalgam", package: "Amalgam")],
      path: "Sources/peer-amalgam"),
    .executableTarget(
      name: "peer-grdb", dependencies: ["PeerHarness", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Sources/peer-grdb"),
    .executableTarget(name: "peer-scale", dependencies: ["PeerHarness"], path: "Sources/peer-scale"),
    .executableTarget(
      name: "scale-amalgam", dependencies: ["PeerHarness", .product(name: "Amalgam", package: "Amalgam")],
      path: "Sources/scale-amalgam"),
    .executableTarget(
      name: "scale-grdb", dependencies: ["PeerHarness", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Sources/scale-grdb"),
  ],
  // Top-level code that hands its globals to closures, as a benchmark script does: Swift 5's checking.
  swiftLanguageModes: [.v5]
)
