#if VECTOR && ENABLE_FTS5
  import Amalgam
  import Foundation
  import Testing

  /// Hybrid search: an FTS5 query and a KNN query over the same rowids, fused by reciprocal rank fusion.
  @Suite struct HybridSearchTests {
    /// Notes with an external-content FTS5 index and 2-dimensional embeddings sharing their rowids.
    static func database() throws -> Database {
      let db = try Database()
      try db.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
          CREATE VIRTUAL TABLE note_fts USING fts5(body, content = 'note', content_rowid = 'id');
          INSERT INTO note VALUES
            (1, 'quarterly budget review'),
            (2, 'budget for the garden'),
            (3, 'holiday photos from the beach'),
            (4, 'spending plan for next year'),
            (5, 'recipe for lemon cake');
          INSERT INTO note_fts(note_fts) VALUES ('rebuild');
          """)
      try db.create(vectorTable: "note_embedding") { t in t.vector("embedding", dimensions: 2) }
      // Meaning, in two made-up dimensions: (money, leisure).
      try db.batch(
        sql: """
          INSERT INTO note_embedding(rowid, embedding) VALUES
            (1, '[1.0, 0.0]'), (2, '[0.6, 0.5]'), (3, '[0.0, 1.0]'), (4, '[0.95, 0.05]'), (5, '[0.1, 0.8]');
          """)
      return db
    }

    /// The fused ranking computed from the two lists, in Swift.
    static func fused(text: [Int64], vector: [Int64], rankConstant: Double = 60) -> [(Int64, Double)] {
      var scores: [Int64: Double] = [:]
      for (index, rowid) in text.enumerated() { scores[rowid, default: 0] += 1 / (rankConstant + Double(index + 1)) }
      for (index, rowid) in vector.enumerated() { scores[rowid, default: 0] += 1 / (rankConstant + Double(index + 1)) }
      return scores.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
    }

    @Test func keywordOrMeaningIsOneCallAndEqualsTheFusionOfBothRankings() throws {
      let db = try Self.database()
      let pattern = try #require(FTS5Pattern(matchingAnyTokenIn: "budget"))
      let query: Float32Vector = [1, 0.02]
      let results = try db.hybridSearch(
        matching: pattern, in: "note_fts", nearestTo: query, in: "note_embedding", column: "embedding", limit: 3)
      // Full text finds 1 and 2 (by BM25); meaning ranks 1, 4, 2.
      let text = try db.fetchAll(
        Int64.self, literal: "SELECT rowid FROM note_fts WHERE note_fts MATCH \(pattern) ORDER BY rank, rowid")
      let vector = try db.nearestNeighbors(to: query, in: "note_embedding", column: "embedding", k: 3).map(\.rowid)
      #expect(Set(text) == [1, 2])
      #expect(vector == [1, 4, 2])
      let expected = Self.fused(text: text, vector: vector).prefix(3)
      #expect(results.map(\.rowid) == expected.map(\.0))
      for (result, want) in zip(results, expected) { #expect(abs(result.score - want.1) < 1e-12) }
      // Row 4 has no keyword: found by meaning only.
      let four = try #require(results.first { $0.rowid == 4 })
      #expect(four.textRank == nil)
      #expect(four.vectorRank == 2)
      #expect(four.distance.map { abs($0 - 0.0034.squareRoot()) < 1e-6 } == true)
      #expect(results.first?.textRank != nil && results.first?.vectorRank == 1)
    }

    @Test func weightsAndCandidatesChangeTheFusion() throws {
      let db = try Self.database()
      let pattern = try #require(FTS5Pattern(matchingAnyTokenIn: "beach"))
      let query: Float32Vector = [1, 0]
      // Text alone finds 3; with the vector weight at 0 it comes first even though it means the opposite.
      let textFirst = try db.hybridSearch(
        matching: pattern, in: "note_fts", nearestTo: query, in: "note_embedding", column: "embedding", limit: 5,
        vectorWeight: 0)
      #expect(textFirst.first?.rowid == 3)
      let meaningFirst = try db.hybridSearch(
        matching: pattern, in: "note_fts", nearestTo: query, in: "note_embedding", column: "embedding", limit: 5,
        textWeight: 0)
      #expect(meaningFirst.map(\.rowid).prefix(2) == [1, 4])
      // One candidate from each list: at most two rows.
      let two = try db.hybridSearch(
        matching: pattern, in: "note_fts", nearestTo: query, in: "note_embedding", column: "embedding", limit: 5,
        candidates: 1)
      #expect(Set(two.map(\.rowid)) == [1, 3])
    }

    @Test func theSQLRecipeRunsAsIsAndBadInputThrows() throws {
      let db = try Self.database()
      let pattern = try #require(FTS5Pattern(matchingAnyTokenIn: "budget"))
      let literal = try Database.hybridSearchSQL(
        matching: pattern, in: "note_fts", nearestTo: [1, 0] as Float32Vector, in: "note_embedding",
        column: "embedding", limit: 2)
      let rows = try db.fetchRows(literal: literal)
      #expect(rows.first?.columnNames == ["rowid", "score", "text_rank", "vector_rank", "distance"])
      #expect(rows.map { $0[0] } == [.integer(1), .integer(2)])
      #expect(throws: VectorError.invalidNeighborCount(0)) {
        _ = try db.hybridSearch(
          matching: pattern, in: "note_fts", nearestTo: [1, 0] as Float32Vector, in: "note_embedding",
          column: "embedding", limit: 0)
      }
      let syntax = expectSQLiteError {
        _ = try db.hybridSearch(
          matching: FTS5Pattern(rawPattern: "budget AND"), in: "note_fts", nearestTo: [1, 0] as Float32Vector,
          in: "note_embedding", column: "embedding")
      }
      #expect(syntax?.message.contains("fts5: syntax error") == true)
    }
  }
#endif

#if VECTOR && ENCRYPTION
  import Amalgam
  import Foundation
  import Testing

  /// sqlite-vec on SQLite3 Multiple Ciphers: vec0 tables in an encrypted file.
  @Suite struct EncryptedVectorTests {
    @Test func vec0TablesLiveInAnEncryptedFileAndNeedItsKey() throws {
      try withTemporaryDirectory { directory in
        let path = directory.appendingPathComponent("vectors.sqlite").path
        var options = Database.OpenOptions()
        options.key = .passphrase("vector key")
        let db = try Database(path: path, options: options)
        try db.create(vectorTable: "item") { t in
          t.vector("embedding", dimensions: 4)
          t.auxiliary("label", .text)
        }
        try db.execute(
          sql: "INSERT INTO item(rowid, embedding, label) VALUES (1, ?, 'SECRET-LABEL'), (2, ?, 'other')",
          arguments: [Float32Vector([1, 0, 0, 0]), Float32Vector([0, 1, 0, 0])])
        try db.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("SECRET-LABEL".utf8)) == nil)
        let reopened = try Database(path: path, options: options)
        let nearest = try reopened.nearestNeighbors(
          to: [0.9, 0.1, 0, 0] as Float32Vector, in: "item", column: "embedding", k: 1)
        #expect(nearest.map(\.rowid) == [1])
        try reopened.close()
        #expect(throws: (any Error).self) {
          let plain = try Database(path: path)
          _ = try plain.nearestNeighbors(to: [1, 0, 0, 0] as Float32Vector, in: "item", column: "embedding", k: 1)
        }
      }
    }
  }
#endif
