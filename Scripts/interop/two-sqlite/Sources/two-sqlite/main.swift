// Links Amalgam (SQLite 3.53.4, compiled into this executable) and the system's libsqlite3 (3.40.1 on
// Debian 12, used by the C library in OtherLibrary) into one program, and reports:
//   1. whether linking both fails (duplicate symbols),
//   2. which copy Amalgam's calls reach, and which copy the application's own C calls reach,
//   3. the POSIX advisory-lock hazard when two copies open the same file.
// Run from Scripts/interop/two-sqlite: `swift run two-sqlite`. Exits non-zero when a measured fact differs from
// what the README says.

import Amalgam
import Foundation
import OtherLibrary

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a line at once (unbuffered), so that the output up to a crash is kept.
func print(_ text: String) {
  let line = text + "\n"
  _ = line.withCString { write(1, $0, strlen($0)) }
}

// Child process: one write through Amalgam, as another program would try it.
if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "write" {
  do {
    let db = try Database(path: CommandLine.arguments[2])
    try db.execute(sql: "INSERT INTO t VALUES (99)")
    print("written")
  } catch {
    print("refused: \(error)")
  }
  exit(0)
}

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ fact: String) {
  print("  [\(condition ? "as documented" : "DIFFERS")] \(fact)")
  if !condition { failures.append(fact) }
}

/// Runs this program again to write to `path` from another process; returns its one line of output.
func writeFromAnotherProcess(_ path: String) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["write", path]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return output.trimmingCharacters(in: .whitespacesAndNewlines)
}

// MARK: - 1 and 2: which copy each call reaches

print("1. Linking Amalgam's SQLite and -lsqlite3 into one executable: no duplicate-symbol error.")
let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
check(maps.contains("libsqlite3.so"), "libsqlite3.so is loaded at start (NEEDED)")

print("2. Which copy each call reaches:")
let amalgamVersion = try Database().prepare(sql: "SELECT sqlite_version()").front(String.self) ?? "?"
print("   Amalgam (SQL sqlite_version()): \(amalgamVersion)")
check(amalgamVersion == "3.53.4", "Amalgam's calls reach Amalgam's copy (3.53.4)")

let headerVersion = String(cString: other_header_version())
let appVersion = String(cString: other_linked_version())
print("   the app's C library (compiled with the \(headerVersion) header) calls sqlite3_libversion(): \(appVersion)")
check(appVersion == "3.53.4", "the app's own sqlite3_* calls reach Amalgam's copy, not the library it linked")

let system = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL)
let dlopenVersion =
  dlsym(system, "sqlite3_libversion").map {
    String(cString: unsafeBitCast($0, to: (@convention(c) () -> UnsafePointer<CChar>).self)())
  } ?? "?"
print("   dlsym(dlopen(\"libsqlite3.so.0\"), \"sqlite3_libversion\")(): \(dlopenVersion)")
check(dlopenVersion == "3.53.4", "even dlopen + dlsym of libsqlite3.so.0 reaches Amalgam's copy")

let expired = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sqlite3_expired")
check(
  expired != nil && expired == dlsym(system, "sqlite3_expired"),
  "sqlite3_expired (deprecated, left out of Amalgam's copy by OMIT_DEPRECATED) resolves to the system copy")

let isolatedVersion = String(cString: other_isolated_version())
print("   the system SQLite loaded again with dlmopen(LM_ID_NEWLM): \(isolatedVersion)")
check(isolatedVersion == "3.40.1", "dlmopen reaches an independent second copy")

// MARK: - 3: two copies, one file, POSIX locks

print("3. Two copies opening one file (https://sqlite.org/howtocorrupt.html section 2.2):")
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("two-sqlite-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("shared.db").path

let amalgam = try Database(path: path)
try amalgam.batch(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
// A read inside a transaction: Amalgam's connection holds a SHARED lock until COMMIT, so no other
// process may write meanwhile.
try amalgam.begin()
let before = try amalgam.prepare(sql: "SELECT count(*) FROM t").front(Int.self) ?? -1
let whileLocked = try writeFromAnotherProcess(path)
print("   Amalgam is in a read transaction; another process tries to write: \(whileLocked)")
check(whileLocked.hasPrefix("refused") && whileLocked.contains("locked"), "the lock keeps the other process out")

// The second copy opens the same file, reads it and closes it. Its close() of its own descriptor drops
// every POSIX lock that this process holds on the file, Amalgam's included: one copy of SQLite tracks
// its descriptors per file to avoid exactly that, but two copies do not know about each other.
check(other_isolated_read(path) == 0, "the second copy opens, reads and closes the file")

let afterClose = try writeFromAnotherProcess(path)
print("   Amalgam still in its read transaction; another process tries to write: \(afterClose)")
check(afterClose == "written", "the second copy's close dropped Amalgam's lock: the other process wrote")
let during = try amalgam.prepare(sql: "SELECT count(*) FROM t").front(Int.self) ?? -1
try amalgam.commit()
let after = try amalgam.prepare(sql: "SELECT count(*) FROM t").front(Int.self) ?? -1
print("   rows Amalgam saw: \(before) before, \(during) inside its transaction, \(after) after it")

if failures.isEmpty {
  print("All facts as documented.")
} else {
  print("\(failures.count) fact(s) differ from the README: \(failures)")
  exit(1)
}
