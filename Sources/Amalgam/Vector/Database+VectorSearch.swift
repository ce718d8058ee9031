#if VECTOR
  extension Database {
    /// The `k` rows of `vec0` table `table` nearest to `query` in vector column `column`, nearest first
    /// (equal distances by rowid).
    ///
    /// ```swift
    /// let matches = try db.nearestNeighbors(to: Float32Vector(embedding), in: "note_embedding", column: "embedding", k: 10)
    /// // in one author's notes of one category (a partition key and a metadata column):
    /// let mine = try db.nearestNeighbors(
    ///   to: Float32Vector(embedding), in: "note_embedding", column: "embedding", k: 10,
    ///   filter: "author_id = \(authorID) AND category = \("work")")
    /// ```
    ///
    /// `filter` constrains the search itself, in sqlite-vec: write it with `=`, `!=`, `<`, `<=`, `>`, `>=`
    /// on partition keys and metadata columns, joined by `AND`. (A condition sqlite-vec cannot take, such
    /// as an `OR`, would be applied after the search and leave fewer than `k` rows.)
    ///
    /// - Throws: ``VectorError`` for an invalid query vector or a `k` below 1; ``SQLiteError`` with
    ///   sqlite-vec's message for a query of the wrong dimensions or element type, `k` above 4096, or an
    ///   unknown table or column.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/knn.html>
    public func nearestNeighbors<Vector: DatabaseVector>(
      to query: Vector, in table: String, column: String, k: Int, filter: SQLLiteral? = nil, schema: String? = nil
    ) throws -> [VectorMatch] {
      let literal = try Self.nearestNeighborsSQL(
        to: query, in: table, column: column, k: k, filter: filter, schema: schema)
      return try withStatement(sql: literal.sql, arguments: literal.statementArguments()) { statement in
        var matches: [VectorMatch] = []
        matches.reserveCapacity(min(k, 1024))  // k comes from the caller: never reserve what it asks blindly
        try statement.results { row in
          matches.append(VectorMatch(rowid: try row.value(at: 0), distance: try row.value(at: 1)))
        }
        // Equal distances by rowid, so that the order never depends on how sqlite-vec stored the rows.
        matches.sort { ($0.distance, $0.rowid) < ($1.distance, $1.rowid) }
        return matches
      }
    }

    /// The `k` records nearest to `query`, nearest first: a nearest-neighbour search in `vec0` table
    /// `table` (as ``nearestNeighbors(to:in:column:k:filter:schema:)``), joined by rowid with
    /// `recordTable`, whose rows are decoded into `Record` with `decoder`.
    ///
    /// ```swift
    /// struct Note: Decodable { var id: Int64; var title: String; var body: String }
    /// let nearest = try db.nearestNeighbors(
    ///   Note.self, from: "note", to: Float32Vector(embedding), in: "note_embedding", column: "embedding", k: 5)
    /// for neighbor in nearest { print(neighbor.record.title, neighbor.distance) }
    /// ```
    ///
    /// A vector without a row in `recordTable` is left out.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/knn.html>
    public func nearestNeighbors<Record: Decodable, Vector: DatabaseVector>(
      _ type: Record.Type, from recordTable: String, to query: Vector, in table: String, column: String, k: Int,
      filter: SQLLiteral? = nil, schema: String? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> [VectorNeighbor<Record>] {
      let search = try Self.nearestNeighborsSQL(
        to: query, in: table, column: column, k: k, filter: filter, schema: schema)
      let literal: SQLLiteral =
        "WITH knn AS MATERIALIZED (\(search)) SELECT knn.rowid, knn.distance, record.* FROM knn JOIN "
        + "\(identifier: recordTable) AS record ON record.rowid = knn.rowid ORDER BY knn.distance, knn.rowid"
      return try withStatement(sql: literal.sql, arguments: literal.statementArguments()) { statement in
        var neighbors: [VectorNeighbor<Record>] = []
        try statement.results { row in
          neighbors.append(
            VectorNeighbor(
              record: try decoder.decode(Record.self, from: row), rowid: try row.value(at: 0),
              distance: try row.value(at: 1)))
        }
        return neighbors
      }
    }

    /// The SQL of a nearest-neighbour search, to use in a statement of your own: `SELECT rowid, distance
    /// FROM table WHERE column MATCH ? AND k = ? [AND (filter)] ORDER BY distance`, with the query bound
    /// through its element type's function (`vec_int8(?)`, `vec_bit(?)`). sqlite-vec refuses any other
    /// `ORDER BY` on the search itself: to order equal distances, select from it
    /// (`WITH knn AS MATERIALIZED (...) SELECT ... FROM knn ORDER BY distance, rowid`).
    ///
    /// - Throws: ``VectorError`` for an invalid query vector or a `k` below 1.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/knn.html>
    public static func nearestNeighborsSQL<Vector: DatabaseVector>(
      to query: Vector, in table: String, column: String, k: Int, filter: SQLLiteral? = nil, schema: String? = nil
    ) throws -> SQLLiteral {
      guard k > 0 else { throw VectorError.invalidNeighborCount(k) }
      try query.validate()
      let (open, close) = Vector.elementType == .float32 ? ("", "") : (Vector.elementType.sqlFunction + "(", ")")
      var literal: SQLLiteral =
        "SELECT rowid, distance FROM \(sql: qualifiedName(table, schema: schema)) WHERE \(identifier: column) MATCH "
        + "\(sql: open)\(query)\(sql: close) AND k = \(k)"
      if let filter { literal = literal + " AND (" + filter + ")" }
      // sqlite-vec takes exactly `ORDER BY distance`: callers order ties by rowid themselves.
      return literal + " ORDER BY distance"
    }
  }
#endif
