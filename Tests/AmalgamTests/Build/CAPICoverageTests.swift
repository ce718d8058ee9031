import Foundation
import Testing

/// Every function of SQLite's C API is accounted for in the table of
/// Sources/Amalgam/Amalgam.docc/CAPICoverage.md: wrapped by the Swift layer, or left out with a reason.
/// After `Scripts/update-sqlite`, a new function fails here until it has a row (`Scripts/c-api-table`).
@Suite struct CAPICoverageTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let statuses: Set<String> = [
    "wrapped", "internal", "utf16", "superseded", "deprecated", "process-wide", "printf", "option", "not-yet",
  ]

  /// The functions that sqlite3.h declares with SQLITE_API.
  static func headerFunctions() throws -> Set<String> {
    let header = try String(
      contentsOf: root.appendingPathComponent("Vendor/SQLite/sqlite3.h"), encoding: .utf8)
    var names: Set<String> = []
    for line in header.split(separator: "\n") where line.hasPrefix("SQLITE_API") {
      if let match = line.firstMatch(of: /\b(sqlite3\w*)\s*\(/) { names.insert(String(match.1)) }
    }
    return names
  }

  /// The table's rows: function → status.
  static func tableRows() throws -> [String: String] {
    let table = try String(
      contentsOf: root.appendingPathComponent("Sources/Amalgam/Amalgam.docc/CAPICoverage.md"), encoding: .utf8)
    var rows: [String: String] = [:]
    for line in table.split(separator: "\n") {
      if let match = line.firstMatch(of: /^\| `(sqlite3\w*)` \| (\S+) \| (.+) \|$/) {
        #expect(rows[String(match.1)] == nil, "\(match.1) has two rows")
        rows[String(match.1)] = String(match.2)
      }
    }
    return rows
  }

  /// The SQLite functions that the Swift layer's sources name outside comments.
  static func functionsUsedBySwift(among names: Set<String>) throws -> Set<String> {
    var used: Set<String> = []
    let sources = root.appendingPathComponent("Sources/Amalgam")
    let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      guard file.pathExtension == "swift" else { continue }
      for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
        for match in line.matches(of: /\bsqlite3\w*\b/) where names.contains(String(match.output)) {
          used.insert(String(match.output))
        }
      }
    }
    return used
  }

  @Test func everyCFunctionIsWrappedOrListedWithAReason() throws {
    let functions = try Self.headerFunctions()
    #expect(functions.count > 300, "sqlite3.h should declare over 300 functions")
    let rows = try Self.tableRows()
    let used = try Self.functionsUsedBySwift(among: functions)

    for name in functions.sorted() {
      guard let status = rows[name] else {
        Issue.record("\(name) is in sqlite3.h but not in CAPICoverage.md: run Scripts/c-api-table and review it")
        continue
      }
      #expect(Self.statuses.contains(status), "\(name): unknown status \(status)")
      let isUsed = used.contains(name)
      if status == "wrapped" {
        #expect(isUsed, "\(name) is marked wrapped, but the Swift layer does not call it")
      } else {
        #expect(!isUsed, "\(name) is called by the Swift layer: mark it wrapped, naming the Swift API")
      }
    }
    for name in Set(rows.keys).subtracting(functions).sorted() {
      Issue.record("\(name) is in CAPICoverage.md but no longer in sqlite3.h")
    }

    var counts: [String: Int] = [:]
    for name in functions { counts[rows[name] ?? "missing", default: 0] += 1 }
    let summary = counts.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    print("C API coverage: \(functions.count) functions: \(summary)")
  }
}
