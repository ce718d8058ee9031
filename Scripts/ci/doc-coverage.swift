// Doc comment coverage of Amalgam's public declarations, read from the module's symbol graphs.
// Run by Scripts/ci/check-docs:
//
//     swift Scripts/ci/doc-coverage.swift SYMBOL-GRAPH-DIR SOURCES-DIR [--list]
//
// Every public declaration in SOURCES-DIR is counted once (a protocol extension's default
// implementation appears in the graph once per conforming type) as one of:
//   - own: its own doc comment sits right above it, with only attribute lines in between;
//   - inherited: no comment of its own, but it implements a protocol requirement, whose comment DocC
//     shows (one of Amalgam's protocols, or the standard library's, such as `description`);
//   - undocumented: no doc comment at all.
// Prints the counts and the undocumented declarations (with --list, the inherited ones too), and exits 1
// if any declaration is undocumented.

import Foundation

enum Status: Int, Comparable {
  case undocumented, inherited, own
  static func < (left: Status, right: Status) -> Bool { left.rawValue < right.rawValue }
}

struct Entry {
  var symbols: Set<String> = []
  var status = Status.undocumented
  var commentOrigin = ""
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
  print(
    """
    Usage: swift Scripts/ci/doc-coverage.swift SYMBOL-GRAPH-DIR SOURCES-DIR [--list]

    Checks that every public declaration in the symbol graphs of SYMBOL-GRAPH-DIR whose source is under
    SOURCES-DIR has a doc comment, its own or that of the protocol requirement it implements; exits 1
    when one has none. Scripts/ci/check-docs runs it.

      --list        also list the declarations whose doc comment is inherited
      -h, --help    show this help
    """)
  exit(0)
}
let positional = arguments.filter { !$0.hasPrefix("--") }
guard positional.count == 2 else {
  FileHandle.standardError.write(Data("usage: doc-coverage.swift SYMBOL-GRAPH-DIR SOURCES-DIR [--list]\n".utf8))
  exit(2)
}
let graphDirectory = URL(fileURLWithPath: positional[0])
let sourcesPrefix = URL(fileURLWithPath: positional[1]).standardizedFileURL.path + "/"
let listInherited = arguments.contains("--list")

var sourceCache: [String: [Substring]] = [:]
func sourceLines(_ path: String) -> [Substring] {
  if let lines = sourceCache[path] { return lines }
  let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
  sourceCache[path] = lines
  return lines
}

func relative(_ path: String) -> String {
  path.hasPrefix(sourcesPrefix) ? String(path.dropFirst(sourcesPrefix.count)) : path
}

/// Line (0-based) of a doc comment line's range start or end.
func line(_ commentLine: [String: Any]?, _ end: String) -> Int? {
  ((commentLine?["range"] as? [String: Any])?[end] as? [String: Any])?["line"] as? Int
}

var entries: [String: Entry] = [:]  // by "file:line"
/// What each symbol implements, by precise identifier: the requirement's name, from `memberOf`
/// relationships (a conforming type's implementation) and `defaultImplementationOf` ones.
func implementedRequirements(_ graph: [String: Any]) -> [String: String] {
  var names: [String: String] = [:]
  for case let relationship as [String: Any] in graph["relationships"] as? [Any] ?? [] {
    guard let source = relationship["source"] as? String else { continue }
    if let origin = relationship["sourceOrigin"] as? [String: Any], let name = origin["displayName"] as? String {
      names[source] = name
    } else if relationship["kind"] as? String == "defaultImplementationOf", names[source] == nil {
      names[source] = (relationship["targetFallback"] as? String) ?? "a protocol requirement"
    }
  }
  return names
}

let graphFiles = try FileManager.default.contentsOfDirectory(at: graphDirectory, includingPropertiesForKeys: nil)
  .filter { $0.lastPathComponent.hasSuffix(".symbols.json") }
for graphFile in graphFiles {
  let graph = try JSONSerialization.jsonObject(with: Data(contentsOf: graphFile)) as? [String: Any] ?? [:]
  let requirements = implementedRequirements(graph)
  for case let symbol as [String: Any] in graph["symbols"] as? [Any] ?? [] {
    guard let location = symbol["location"] as? [String: Any],
      let uri = location["uri"] as? String, let path = URL(string: uri)?.path, path.hasPrefix(sourcesPrefix),
      let declarationLine = (location["position"] as? [String: Any])?["line"] as? Int
    else { continue }  // synthesized, or declared outside Amalgam's sources

    var status = Status.undocumented
    var origin = ""
    let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
    if let requirement = requirements[identifier] {
      status = .inherited
      origin = requirement
    }
    if let comment = symbol["docComment"] as? [String: Any],
      let lines = comment["lines"] as? [[String: Any]], !lines.isEmpty
    {
      let commentPath = (comment["uri"] as? String).flatMap { URL(string: $0)?.path }
      status = .inherited
      origin =
        commentPath.map { "\(relative($0)):\((line(lines.first, "start") ?? -1) + 1)" }
        ?? (comment["module"] as? String ?? "another module")
      if commentPath == path, let lastCommentLine = line(lines.last, "end"), lastCommentLine < declarationLine {
        let source = sourceLines(path)
        let between = (lastCommentLine + 1)..<declarationLine
        if between.allSatisfy({ $0 < source.count && source[$0].trimmingCharacters(in: .whitespaces).hasPrefix("@") }) {
          status = .own
        }
      }
    }
    let key = "\(relative(path)):\(declarationLine + 1)"
    var entry = entries[key] ?? Entry()
    entry.symbols.insert((symbol["pathComponents"] as? [String] ?? []).joined(separator: "/"))
    if status > entry.status || entry.symbols.count == 1 {
      entry.status = max(entry.status, status)
      entry.commentOrigin = origin
    }
    entries[key] = entry
  }
}

func keys(_ status: Status) -> [String] {
  entries.filter { $0.value.status == status }.keys.sorted {
    let (left, right) = ($0.split(separator: ":"), $1.split(separator: ":"))
    return (left[0], Int(left[1]) ?? 0) < (right[0], Int(right[1]) ?? 0)
  }
}
func describe(_ key: String) -> String {
  let symbols = entries[key]?.symbols.sorted() ?? []
  return "\(key)  \(symbols.first ?? "")" + (symbols.count > 1 ? " (and \(symbols.count - 1) more)" : "")
}

let inherited = keys(.inherited)
let undocumented = keys(.undocumented)
print(
  "\(entries.count) public declarations: \(keys(.own).count) with their own doc comment, "
    + "\(inherited.count) inheriting one from a protocol requirement, \(undocumented.count) without any")
if listInherited {
  for key in inherited { print("  inherited     \(describe(key))  from \(entries[key]?.commentOrigin ?? "")") }
}
for key in undocumented { print("  undocumented  \(describe(key))") }
exit(undocumented.isEmpty ? 0 : 1)
