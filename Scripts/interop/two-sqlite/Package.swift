// swift-tools-version: 6.1
//
// Two copies of SQLite in one program: Amalgam's (compiled into the executable from Vendor/SQLite) and
// the system's shared libsqlite3 (Debian's libsqlite3-dev). `swift run -c release two-sqlite` (or plain
// `swift run`) prints which copy each call reaches and shows the POSIX-lock hazard of two copies opening
// one file. The README's "Two copies of SQLite" section reports its output.

import PackageDescription

let package = Package(
  name: "two-sqlite",
  dependencies: [.package(name: "Amalgam", path: "../../..")],
  targets: [
    // The system SQLite, found with pkg-config: /usr/include/sqlite3.h and -lsqlite3.
    .systemLibrary(
      name: "SystemSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]
    ),
    // A C library of the application that calls the system SQLite.
    .target(name: "OtherLibrary", dependencies: ["SystemSQLite"]),
    .executableTarget(
      name: "two-sqlite",
      dependencies: [.product(name: "Amalgam", package: "Amalgam"), "OtherLibrary"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
