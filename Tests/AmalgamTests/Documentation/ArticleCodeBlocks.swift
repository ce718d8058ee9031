import Foundation
import Testing

/// The Swift code blocks of the DocC articles, for the tests that run an article's example and check that
/// they hold it verbatim.
enum ArticleCodeBlocks {
  static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Amalgam/Amalgam.docc")

  /// The lines of every Swift code block of `article` (a file name in the catalog), block by block: trimmed,
  /// without empty lines and imports.
  static func blocks(of article: String) throws -> [[String]] {
    let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
    var blocks: [[String]] = []
    var searchStart = text.startIndex
    while let start = text.range(of: "```swift\n", range: searchStart..<text.endIndex),
      let end = text.range(of: "```", range: start.upperBound..<text.endIndex)
    {
      blocks.append(
        text[start.upperBound..<end.lowerBound].split(separator: "\n")
          .map { $0.trimmingCharacters(in: .whitespaces) }
          .filter { !$0.isEmpty && !$0.hasPrefix("import ") })
      searchStart = end.upperBound
    }
    return blocks
  }

  /// Records an issue for every line of the block of `article` that contains `line` that `file` lacks.
  static func expectBlock(
    of article: String, containing line: String, isIn file: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let test = try String(contentsOf: URL(fileURLWithPath: file), encoding: .utf8)
    guard let block = try blocks(of: article).first(where: { $0.contains(line) }) else {
      Issue.record("\(article) has no Swift example with the line \(line)", sourceLocation: sourceLocation)
      return
    }
    for codeLine in block where !test.contains(codeLine) {
      Issue.record(
        "\(article): line not in \(URL(fileURLWithPath: file).lastPathComponent): \(codeLine)",
        sourceLocation: sourceLocation)
    }
  }
}
