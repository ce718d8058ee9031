import Foundation
import Testing

/// The README agrees with the repository: its table of articles lists every DocC article, every file it
/// links exists, and it states the Apple platforms that Package.swift declares.
@Suite struct ReadmeConsistencyTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func readme() throws -> String {
    try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
  }

  @Test func everyArticleHasARowInTheReadmeTable() throws {
    let readme = try Self.readme()
    let catalog = Self.root.appendingPathComponent("Sources/Amalgam/Amalgam.docc")
    let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path)
      .filter { $0.hasSuffix(".md") && $0 != "Amalgam.md" }.sorted()
    #expect(articles.count >= 20)
    for article in articles {
      #expect(
        readme.contains("](Sources/Amalgam/Amalgam.docc/\(article)) | "),
        "README.md's Documentation table has no row for \(article)")
    }
  }

  @Test func everyFileTheReadmeLinksExists() throws {
    let readme = try Self.readme()
    let targets = readme.matches(of: /\]\(([^)#:\s]+)\)/).map { String($0.output.1) }
    #expect(targets.count >= 20)
    for target in targets {
      #expect(
        FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target).path),
        "README.md links \(target), which does not exist")
    }
  }

  @Test func theReadmeStatesTheMinimumApplePlatformsOfTheManifest() throws {
    let readme = try Self.readme()
    let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
    let declared = manifest.matches(of: /\.(macOS|iOS|tvOS|watchOS|visionOS)\(\.v(\d+)\)/).map {
      "\($0.output.1) \($0.output.2)"
    }
    #expect(declared.count == 5, "Package.swift declares \(declared)")
    for platform in declared {
      #expect(readme.contains(platform), "README.md does not state \(platform)")
    }
  }
}
