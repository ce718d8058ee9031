#if VECTOR && ENABLE_FTS5
  /// One result of a hybrid search: a rowid found by the full-text query, the vector query or both, with
  /// its fused score.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/blog/2024/sqlite-vec-hybrid-search/index.html>
  public struct HybridMatch: Sendable, Hashable {
    /// The rowid shared by the FTS5 table and the `vec0` table.
    public var rowid: Int64
    /// The reciprocal rank fusion score: the sum over both lists of `weight / (rankConstant + rank)`.
    public var score: Double
    /// The 1-based rank in the full-text results (by FTS5's `rank`, BM25 by default); `nil` when the
    /// full-text query did not find the row.
    public var textRank: Int?
    /// The 1-based rank in the nearest-neighbour results; `nil` when the row was not among them.
    public var vectorRank: Int?
    /// The distance to the query vector; `nil` when the row was not among the nearest neighbours.
    public var distance: Double?

    /// A match with these values.
    public init(rowid: Int64, score: Double, textRank: Int?, vectorRank: Int?, distance: Double?) {
      self.rowid = rowid
      self.score = score
      self.textRank = textRank
      self.vectorRank = vectorRank
      self.distance = distance
    }
  }

  extension Database {
    /// Keyword or meaning: the rows an FTS5 full-text query and a nearest-neighbour search find, fused by
    /// reciprocal rank fusion, best first (equal scores by rowid).
    ///
    /// ```swift
    /// let results = try db.hybridSearch(
    ///   matching: FTS5Pattern(matchingAnyTokenIn: "quarterly budget")!, in: "note_fts",
    ///   nearestTo: Float32Vector(embedding), in: "note_embedding", column: "embedding", limit: 10)
    /// ```
    ///
    /// Each search takes its best `candidates` rows (default: `limit`); a row scores
    /// `textWeight / (rankConstant + textRank) + vectorWeight / (rankConstant + vectorRank)`, a term
    /// counting only when that search found the row. The FTS5 table and the `vec0` table must share
    /// rowids (an external-content FTS5 table over the records table, and vectors inserted with the
    /// records' rowids, do). ``hybridSearchSQL(matching:in:nearestTo:in:column:limit:candidates:rankConstant:textWeight:vectorWeight:schema:)``
    /// gives the statement, to adapt in SQL.
    ///
    /// - Throws: ``VectorError`` for an invalid query vector or a `limit` or `candidates` below 1;
    ///   ``SQLiteError`` for an FTS5 syntax error or what sqlite-vec refuses.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/blog/2024/sqlite-vec-hybrid-search/index.html>
    public func hybridSearch<Vector: DatabaseVector>(
      matching pattern: FTS5Pattern, in textTable: String, nearestTo query: Vector, in vectorTable: String,
      column: String, limit: Int = 10, candidates: Int? = nil, rankConstant: Double = 60, textWeight: Double = 1,
      vectorWeight: Double = 1, schema: String? = nil
    ) throws -> [HybridMatch] {
      let literal = try Self.hybridSearchSQL(
        matching: pattern, in: textTable, nearestTo: query, in: vectorTable, column: column, limit: limit,
        candidates: candidates, rankConstant: rankConstant, textWeight: textWeight, vectorWeight: vectorWeight,
        schema: schema)
      return try withStatement(sql: literal.sql, arguments: literal.statementArguments()) { statement in
        var matches: [HybridMatch] = []
        try statement.results { row in
          matches.append(
            HybridMatch(
              rowid: try row.value(at: 0), score: try row.value(at: 1), textRank: try row.value(at: 2),
              vectorRank: try row.value(at: 3), distance: try row.value(at: 4)))
        }
        return matches
      }
    }

    /// The SQL of ``hybridSearch(matching:in:nearestTo:in:column:limit:candidates:rankConstant:textWeight:vectorWeight:schema:)``,
    /// with its values bound: columns `rowid`, `score`, `text_rank`, `vector_rank`, `distance`.
    ///
    /// ```sql
    /// WITH
    ///   vector_matches AS MATERIALIZED (
    ///     SELECT rowid, distance, row_number() OVER (ORDER BY distance, rowid) AS position
    ///     FROM note_embedding WHERE embedding MATCH :query AND k = :candidates),
    ///   text_matches AS MATERIALIZED (
    ///     SELECT rowid, row_number() OVER (ORDER BY rank, rowid) AS position
    ///     FROM note_fts WHERE note_fts MATCH :pattern ORDER BY rank, rowid LIMIT :candidates),
    ///   fused AS (
    ///     SELECT rowid, :text_weight / (:rank_constant + position) AS score, position AS text_rank,
    ///            NULL AS vector_rank, NULL AS distance FROM text_matches
    ///     UNION ALL
    ///     SELECT rowid, :vector_weight / (:rank_constant + position), NULL, position, distance FROM vector_matches)
    /// SELECT rowid, sum(score) AS score, max(text_rank) AS text_rank, max(vector_rank) AS vector_rank,
    ///        max(distance) AS distance
    /// FROM fused GROUP BY rowid ORDER BY score DESC, rowid LIMIT :limit
    /// ```
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/blog/2024/sqlite-vec-hybrid-search/index.html>
    public static func hybridSearchSQL<Vector: DatabaseVector>(
      matching pattern: FTS5Pattern, in textTable: String, nearestTo query: Vector, in vectorTable: String,
      column: String, limit: Int = 10, candidates: Int? = nil, rankConstant: Double = 60, textWeight: Double = 1,
      vectorWeight: Double = 1, schema: String? = nil
    ) throws -> SQLLiteral {
      guard limit > 0 else { throw VectorError.invalidNeighborCount(limit) }
      let candidates = candidates ?? limit
      let vectorSearch = try nearestNeighborsSQL(
        to: query, in: vectorTable, column: column, k: candidates, schema: schema)
      let text = qualifiedName(textTable, schema: schema)
      let textSearch: SQLLiteral =
        "SELECT rowid, row_number() OVER (ORDER BY rank, rowid) AS position FROM \(sql: text) "
        + "WHERE \(identifier: textTable) MATCH \(pattern) ORDER BY rank, rowid LIMIT \(candidates)"
      let fused: SQLLiteral =
        "WITH vector_matches AS MATERIALIZED (SELECT rowid, distance, "
        + "row_number() OVER (ORDER BY distance, rowid) AS position FROM (" + vectorSearch + ")), "
        + "text_matches AS MATERIALIZED (" + textSearch + "), "
        + "fused AS (SELECT rowid, \(textWeight) / (\(rankConstant) + position) AS score, position AS text_rank, "
        + "NULL AS vector_rank, NULL AS distance FROM text_matches UNION ALL "
        + "SELECT rowid, \(vectorWeight) / (\(rankConstant) + position), NULL, position, distance FROM vector_matches) "
        + "SELECT rowid, sum(score) AS score, max(text_rank) AS text_rank, max(vector_rank) AS vector_rank, "
        + "max(distance) AS distance FROM fused GROUP BY rowid ORDER BY score DESC, rowid LIMIT \(limit)"
      return fused
    }
  }
#endif
