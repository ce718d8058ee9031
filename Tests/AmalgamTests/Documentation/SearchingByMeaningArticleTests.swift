#if VECTOR && ENABLE_FTS5
  import Amalgam
  import Foundation
  import Testing

  /// The examples of the article "Searching by meaning", verbatim, in order, on one database.
  @Suite struct SearchingByMeaningArticleTests {
    @Test func theArticlesExamplesRunAsWritten() throws {
      let db = try Database()
      try db.create(table: "note") { t in
        t.column("id", .integer, primaryKey: .autoincrement)
        t.column("author_id", .integer, notNull: true)
        t.column("category", .text, notNull: true)
        t.column("body", .text, notNull: true)
      }
      try db.create(vectorTable: "note_embedding") { t in
        t.vector("embedding", dimensions: 4, distance: .cosine)
        t.partitionKey("author_id", .integer)
        t.metadata("category", .text)
      }
      try db.transaction { db in
        try db.execute(
          sql: "INSERT INTO note(author_id, category, body) VALUES (?, ?, ?)",
          arguments: [1, "work", "Quarterly budget review with the finance team"])
        let id = db.lastInsertRowid
        try db.execute(
          sql: "INSERT INTO note_embedding(rowid, embedding, author_id, category) VALUES (?, ?, ?, ?)",
          arguments: [id, Float32Vector([0.9, 0.1, 0.0, 0.2]), 1, "work"])
      }
      // Two more notes, not in the article, so that the searches have something to rank.
      try db.execute(sql: "INSERT INTO note(author_id, category, body) VALUES (1, 'home', 'Holiday at the beach')")
      try db.execute(
        sql: "INSERT INTO note_embedding(rowid, embedding, author_id, category) VALUES (2, ?, 1, 'home')",
        arguments: [Float32Vector([0.0, 0.9, 0.4, 0.0])])
      try db.execute(sql: "INSERT INTO note(author_id, category, body) VALUES (2, 'work', 'Spending plan')")
      try db.execute(
        sql: "INSERT INTO note_embedding(rowid, embedding, author_id, category) VALUES (3, ?, 2, 'work')",
        arguments: [Float32Vector([0.85, 0.15, 0.05, 0.1])])

      struct Note: Decodable { var id: Int64; var body: String }
      let query = Float32Vector([0.8, 0.2, 0.1, 0.1])  // the app's model embeds the user's question
      let nearest = try db.nearestNeighbors(to: query, in: "note_embedding", column: "embedding", k: 10)
      let mine = try db.nearestNeighbors(
        Note.self, from: "note", to: query, in: "note_embedding", column: "embedding", k: 10,
        filter: "author_id = \(1) AND category = \("work")")
      #expect(nearest.map(\.rowid) == [3, 1, 2])
      #expect(mine.map(\.record.body) == ["Quarterly budget review with the finance team"])

      let distance = try db.fetchOne(
        Double.self, literal: "SELECT vec_distance_cosine(embedding, \(query)) FROM note_embedding WHERE rowid = 1")
      #expect(distance.map { abs($0 - nearest[1].distance) < 1e-6 } == true)

      try db.execute(sql: "CREATE VIRTUAL TABLE note_fts USING fts5(body, content = 'note', content_rowid = 'id')")
      try db.execute(sql: "INSERT INTO note_fts(note_fts) VALUES ('rebuild')")
      let results = try db.hybridSearch(
        matching: FTS5Pattern(matchingAnyTokenIn: "budget")!, in: "note_fts",
        nearestTo: query, in: "note_embedding", column: "embedding", limit: 10)
      // Note 1 has the word and is second by meaning: first; 3 is first by meaning only.
      #expect(results.map(\.rowid) == [1, 3, 2])
      #expect(results[0].textRank == 1 && results[0].vectorRank == 2)
    }

    @Test func theArticleHoldsTheseExamples() throws {
      for line in [
        "try db.create(vectorTable: \"note_embedding\") { t in", "let id = db.lastInsertRowid",
        "struct Note: Decodable { var id: Int64; var body: String }", "let distance = try db.fetchOne(",
        "let results = try db.hybridSearch(",
      ] {
        try ArticleCodeBlocks.expectBlock(of: "SearchingByMeaning.md", containing: line, isIn: #filePath)
      }
    }
  }
#endif
