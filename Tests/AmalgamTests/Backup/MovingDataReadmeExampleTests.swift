import Amalgam
import Foundation
import Testing

/// The MovingData article's examples in one piece,
/// verbatim between the markers, followed by checks of what it did.
@Suite struct MovingDataReadmeExampleTests {
  @Test func readmeExampleCompilesAndRuns() async throws {
    try await withTemporaryDirectory { directory in
      let compactPath = directory.appendingPathComponent("compact.db").path

      // moving data article example: begin
      let db = try Database()
      try db.execute(sql: "CREATE TABLE file(id INTEGER PRIMARY KEY, name TEXT, content BLOB)")

      // Online backup: in one call, or in steps with progress (answer false to stop; the copy is then untouched).
      let copy = try Database()
      try db.backup(to: copy)
      try db.backup(to: copy, pagesPerStep: 100) { progress in
        print("\(progress.completedPageCount) of \(progress.totalPageCount) pages")
        return true
      }
      for try await progress in db.backupSteps(to: copy, pagesPerStep: 100) {
        print(progress.fractionCompleted)  // cancelling the task stops the backup
      }

      // Large values in chunks: reserve the space with ZeroBlob, then write and read in place.
      try db.execute(
        sql: "INSERT INTO file(name, content) VALUES (?, ?)", parameterValues: ["big.bin", ZeroBlob(count: 1_000_000)])
      let blob = try db.openBlob(table: "file", column: "content", rowid: db.lastInsertRowid, writable: true)
      let chunk = [UInt8](repeating: 0xAB, count: 65_536)
      for offset in stride(from: 0, to: blob.count, by: chunk.count) {
        try blob.write(Array(chunk.prefix(blob.count - offset)), at: offset)
      }
      var header = [UInt8](repeating: 0, count: 16)
      try header.withUnsafeMutableBytes { try blob.read(into: $0, at: 0) }  // into your buffer, no copy
      try blob.close()

      // A whole database as bytes, and back; and a compact copy on disk.
      let image: Data = try db.serialize()
      let restored = try Database()
      try restored.deserialize(image, readOnly: true)
      try db.vacuum(into: compactPath)
      // moving data article example: end

      #expect(header == [UInt8](repeating: 0xAB, count: 16))
      #expect(try restored.prepare(sql: "SELECT length(content) FROM file").front(Int.self) == 1_000_000)
      #expect(try restored.prepare(sql: "SELECT hex(substr(content, 1000000, 1)) FROM file").front(String.self) == "AB")
      #expect(throws: SQLiteError.self) { try restored.execute(sql: "DELETE FROM file") }
      let compact = try Database(path: compactPath)
      #expect(try compact.prepare(sql: "SELECT length(content) FROM file").front(Int.self) == 1_000_000)
      #expect(try copy.prepare(sql: "SELECT count(*) FROM sqlite_schema").front(Int.self) == 1)
    }
  }

  @Test func theArticleExamplesAreThisOne() throws {
    // The MovingData article shows this example in parts: every line of its examples is in this file.
    let test = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
    let blocks = try ArticleCodeBlocks.blocks(of: "MovingData.md")
    #expect(blocks.count >= 3)
    for line in blocks.joined() where !test.contains(line) {
      Issue.record("MovingData.md: line not in this test: \(line)")
    }
  }
}
