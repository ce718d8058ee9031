import Amalgam
import Foundation
import Testing

/// `Package.swift` is the one source of the trait list. The README's trait table and the article
/// ChoosingCompileOptions.md must list exactly its traits with its defaults, and the lists in the code that
/// cannot read the manifest (the traits `SQLite.enabledTraits` reports, `TraitTests`' table) must not name
/// a trait it does not declare.
@Suite struct TraitListTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// Each trait that Package.swift declares in its table of compile options (`compileOptions`), with
  /// whether it is on by default. (The default trait set itself, `DEFAULT_OPTIONS`, turns on the options
  /// marked `default: true`; it is not an option and is not in the table.)
  static func manifestTraits() throws -> [String: Bool] {
    let manifest = try text("Package.swift")
    let start = try #require(manifest.range(of: "let compileOptions: [CompileOption] = ["))
    let end = try #require(manifest.range(of: "\n]\n", range: start.upperBound..<manifest.endIndex))
    var traits: [String: Bool] = [:]
    var rest = manifest[start.upperBound..<end.lowerBound]
    while let entry = rest.range(of: ".init(") {
      let nameStart = try #require(rest.range(of: "\"", range: entry.upperBound..<rest.endIndex))
      let nameEnd = try #require(rest.range(of: "\"", range: nameStart.upperBound..<rest.endIndex))
      let name = String(rest[nameStart.upperBound..<nameEnd.lowerBound])
      let flag = try #require(rest.range(of: "default: ", range: nameEnd.upperBound..<rest.endIndex))
      let isDefault = rest[flag.upperBound...].hasPrefix("true")
      #expect(traits[name] == nil, "Package.swift declares \(name) twice")
      traits[name] = isDefault
      rest = rest[flag.upperBound...]
    }
    return traits
  }

  /// The rows of the markdown table whose header starts with `| Trait | SQLite option | Default |`:
  /// each trait (the first column, in backticks) with its default (`on` or `off`, the third column).
  static func tableTraits(in text: String, document: String) -> [(trait: String, isDefault: Bool?)] {
    guard let header = text.range(of: "| Trait | SQLite option | Default |") else {
      Issue.record("\(document) has no trait table")
      return []
    }
    var rows: [(String, Bool?)] = []
    for line in text[header.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2) {
      guard line.hasPrefix("|") else { break }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      // cells[0] is the empty text before the first "|".
      guard cells.count > 3 else {
        Issue.record("\(document): a trait table row with fewer than three columns: \(line)")
        continue
      }
      let trait = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      let isDefault: Bool? = cells[3] == "on" ? true : cells[3] == "off" ? false : nil
      rows.append((trait, isDefault))
    }
    return rows
  }

  @Test func manifestDeclaresTraitsWithDefaults() throws {
    let traits = try Self.manifestTraits()
    #expect(traits.count > 30)
    #expect(traits["ENABLE_FTS5"] == true)
    #expect(traits["ENABLE_FTS4"] == false)
  }

  @Test(
    "the README and the article list Package.swift's traits and defaults, once each",
    arguments: ["README.md", "Sources/Amalgam/Amalgam.docc/ChoosingCompileOptions.md"])
  func documentListsTheManifestTraits(document: String) throws {
    let manifest = try Self.manifestTraits()
    let rows = Self.tableTraits(in: try Self.text(document), document: document)
    let listed = Dictionary(rows.map { ($0.trait, $0.isDefault) }, uniquingKeysWith: { first, _ in first })
    #expect(rows.count == listed.count, "\(document) lists a trait twice")
    for (trait, isDefault) in manifest.sorted(by: { $0.key < $1.key }) {
      guard let documented = listed[trait] else {
        Issue.record("\(document) does not list trait \(trait), which Package.swift declares")
        continue
      }
      #expect(
        documented == isDefault,
        "\(document) says \(trait) is \(documented.map { $0 ? "on" : "off" } ?? "neither on nor off") by default; Package.swift says \(isDefault ? "on" : "off")"
      )
    }
    for trait in listed.keys.sorted() where manifest[trait] == nil {
      Issue.record("\(document) lists trait \(trait), which Package.swift does not declare")
    }
  }

  @Test func readmeAndArticleShowTheSameTable() throws {
    let readme = Self.tableTraits(in: try Self.text("README.md"), document: "README.md")
    let article = Self.tableTraits(
      in: try Self.text("Sources/Amalgam/Amalgam.docc/ChoosingCompileOptions.md"), document: "the article")
    #expect(readme.map(\.trait) == article.map(\.trait))
    #expect(readme.map(\.isDefault) == article.map(\.isDefault))
  }

  @Test func listsInTheCodeNameOnlyDeclaredTraits() throws {
    let manifest = try Self.manifestTraits()
    // DEFAULT_OPTIONS, the default trait set, is declared beside the table of options.
    #expect(try Self.text("Package.swift").contains("let defaultOptionsTrait = \"DEFAULT_OPTIONS\""))
    for trait in SQLite.enabledTraits where trait != "DEFAULT_OPTIONS" {
      #expect(manifest[trait] != nil, "SQLite.enabledTraits reports \(trait), which Package.swift does not declare")
    }
    // TraitTests checks every trait that is an SQLite compile option against sqlite3_compileoption_used.
    let checked = Set(TraitTests.optionByTrait.map(\.trait))
    let notCompileOptions: Set<String> = ["ENABLE_EXTENSIONS", "ENCRYPTION", "VECTOR", "THREADSAFE_0", "THREADSAFE_1"]
    #expect(checked == Set(manifest.keys).subtracting(notCompileOptions))
  }
}
