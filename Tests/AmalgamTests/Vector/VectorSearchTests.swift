#if VECTOR
  import Amalgam
  import Foundation
  import Testing

  /// KNN searches through sqlite-vec against a brute-force computation in Swift on random data, for every
  /// element type and metric, with ties and `k` larger than the table.
  @Suite struct VectorSearchTests {
    static let rowCount = 300
    static let ks = [1, 7, 64, 1000]

    @Test(arguments: VectorTableDefinition.DistanceMetric.allCases)
    func float32NearestNeighborsEqualBruteForce(metric: VectorTableDefinition.DistanceMetric) throws {
      var random = SeededGenerator(seed: 0xF10A7 &+ UInt64(metric.rawValue.utf8.count))
      let db = try Database()
      try db.create(vectorTable: "item") { t in t.vector("embedding", dimensions: 24, distance: metric) }
      var vectors: [Int64: [Float]] = [:]
      let insert = try db.prepare(sql: "INSERT INTO item(rowid, embedding) VALUES (?, ?)")
      for rowid in 1...Int64(Self.rowCount) {
        // Every tenth row repeats an earlier vector: exact ties.
        let vector =
          rowid % 10 == 0 && rowid > 10
          ? vectors[rowid - 7]! : (0..<24).map { _ in Float.random(in: -1...1, using: &random) }
        vectors[rowid] = vector
        try insert.bind(rowid, Float32Vector(vector)).execute()
      }
      for query in [vectors[13]!, (0..<24).map { _ in Float.random(in: -1...1, using: &random) }] {
        let distances = vectors.mapValues { BruteForce.float($0, query, metric) }
        for k in Self.ks {
          let matches = try db.nearestNeighbors(to: Float32Vector(query), in: "item", column: "embedding", k: k)
          #expect(knnDifference(matches, distances, k: k) == nil, "\(metric) k=\(k)")
        }
      }
    }

    @Test(arguments: VectorTableDefinition.DistanceMetric.allCases)
    func int8NearestNeighborsEqualBruteForce(metric: VectorTableDefinition.DistanceMetric) throws {
      var random = SeededGenerator(seed: 0x1178 &+ UInt64(metric.rawValue.utf8.count))
      let db = try Database()
      try db.create(vectorTable: "item") { t in
        t.vector("code", dimensions: 12, elementType: .int8, distance: metric)
      }
      var vectors: [Int64: [Int8]] = [:]
      let insert = try db.prepare(sql: "INSERT INTO item(rowid, code) VALUES (?, vec_int8(?))")
      for rowid in 1...Int64(Self.rowCount) {
        // Small values: many rows share a distance.
        let vector = (0..<12).map { _ in Int8.random(in: -3...3, using: &random) }
        vectors[rowid] = vector
        try insert.bind(rowid, Int8Vector(vector)).execute()
      }
      let query = (0..<12).map { _ in Int8.random(in: -3...3, using: &random) }
      let distances = vectors.mapValues { BruteForce.int8($0, query, metric) }
      for k in Self.ks {
        let matches = try db.nearestNeighbors(to: Int8Vector(query), in: "item", column: "code", k: k)
        #expect(knnDifference(matches, distances, k: k) == nil, "\(metric) k=\(k)")
      }
    }

    @Test func bitNearestNeighborsEqualBruteForceHamming() throws {
      var random = SeededGenerator(seed: 0xB17)
      let db = try Database()
      try db.create(vectorTable: "item") { t in t.vector("code", dimensions: 64, elementType: .bit) }
      var vectors: [Int64: [UInt8]] = [:]
      let insert = try db.prepare(sql: "INSERT INTO item(rowid, code) VALUES (?, vec_bit(?))")
      for rowid in 1...Int64(Self.rowCount) {
        let bytes = (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
        vectors[rowid] = bytes
        try insert.bind(rowid, BitVector(bytes: bytes)).execute()
      }
      let query = (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
      let distances = vectors.mapValues { BruteForce.hamming($0, query) }
      for k in Self.ks {
        let matches = try db.nearestNeighbors(to: BitVector(bytes: query), in: "item", column: "code", k: k)
        #expect(knnDifference(matches, distances, k: k, tolerance: 0) == nil, "k=\(k)")
      }
    }

    @Test func identicalVectorsTieAtDistanceZeroAndKLargerThanTheTableReturnsEveryRow() throws {
      let db = try Database()
      try db.create(vectorTable: "item") { t in t.vector("embedding", dimensions: 2) }
      try db.batch(
        sql: """
          INSERT INTO item(rowid, embedding) VALUES (10, '[1, 1]'), (20, '[1, 1]'), (30, '[1, 1]'), (40, '[4, 5]');
          """)
      let two = try db.nearestNeighbors(to: [1, 1] as Float32Vector, in: "item", column: "embedding", k: 2)
      #expect(two.map(\.distance) == [0, 0])
      #expect(Set(two.map(\.rowid)).isSubset(of: [10, 20, 30]))
      let all = try db.nearestNeighbors(to: [1, 1] as Float32Vector, in: "item", column: "embedding", k: 100)
      #expect(
        all == [
          .init(rowid: 10, distance: 0), .init(rowid: 20, distance: 0), .init(rowid: 30, distance: 0),
          .init(rowid: 40, distance: 5),
        ])
    }

    @Test func filtersOnMetadataAndPartitionKeysEqualBruteForceOverTheSameRows() throws {
      var random = SeededGenerator(seed: 0xF117E5)
      let db = try Database()
      try db.create(vectorTable: "note_embedding") { t in
        t.vector("embedding", dimensions: 8, distance: .cosine)
        t.partitionKey("author_id", .integer)
        t.metadata("category", .text)
        t.metadata("year", .integer)
        t.auxiliary("title", .text)
      }
      var rows: [(rowid: Int64, author: Int, category: String, year: Int, vector: [Float])] = []
      let insert = try db.prepare(
        sql: "INSERT INTO note_embedding(rowid, embedding, author_id, category, year, title) VALUES (?, ?, ?, ?, ?, ?)")
      for rowid in 1...Int64(400) {
        let row = (
          rowid: rowid, author: Int.random(in: 1...3, using: &random),
          category: ["work", "home", "travel"].randomElement(using: &random)!,
          year: Int.random(in: 2020...2025, using: &random),
          vector: (0..<8).map { _ in Float.random(in: -1...1, using: &random) }
        )
        rows.append(row)
        try insert.bind(rowid, Float32Vector(row.vector), row.author, row.category, row.year, "note \(rowid)").execute()
      }
      let query = (0..<8).map { _ in Float.random(in: -1...1, using: &random) }
      let selected = rows.filter { $0.author == 2 && $0.category == "work" && $0.year >= 2023 }
      let distances = Dictionary(uniqueKeysWithValues: selected.map { ($0.rowid, BruteForce.cosine($0.vector, query)) })
      for k in [1, 5, 1000] {
        let matches = try db.nearestNeighbors(
          to: Float32Vector(query), in: "note_embedding", column: "embedding", k: k,
          filter: "author_id = \(2) AND category = \("work") AND year >= \(2023)")
        #expect(knnDifference(matches, distances, k: k) == nil, "k=\(k)")
      }
      let title: String? = try db.fetchOne(String.self, sql: "SELECT title FROM note_embedding WHERE rowid = 7")
      #expect(title == "note 7")
    }

    /// Text metadata longer than sqlite-vec's 12-byte inline view lives in a shadow table: inserts, updates
    /// (long to long, long to short, short to long) and deletes keep it right. Under AddressSanitizer this
    /// also checks the carried patch 0003 (the SQL text of those shadow-table writes leaked).
    @Test func longTextMetadataSurvivesInsertUpdateAndDelete() throws {
      let db = try Database()
      try db.create(vectorTable: "doc") { t in
        t.vector("embedding", dimensions: 2)
        t.metadata("label", .text)
      }
      let long = { (n: Int) in "a label longer than twelve bytes, number \(n)" }
      let insert = try db.prepare(sql: "INSERT INTO doc(rowid, embedding, label) VALUES (?, ?, ?)")
      for rowid in 1...Int64(20) {
        try insert.bind(rowid, Float32Vector([Float(rowid), 0]), long(Int(rowid))).execute()
      }
      try db.execute(sql: "UPDATE doc SET label = ? WHERE rowid = 1", parameterValues: [long(100)])
      try db.execute(sql: "UPDATE doc SET label = 'short' WHERE rowid = 2")
      try db.execute(sql: "UPDATE doc SET label = 'tiny' WHERE rowid = 3")
      try db.execute(sql: "UPDATE doc SET label = ? WHERE rowid = 3", parameterValues: [long(300)])
      try db.execute(sql: "DELETE FROM doc WHERE rowid BETWEEN 10 AND 20")
      let labels = try db.fetchAll(String.self, sql: "SELECT label FROM doc ORDER BY rowid")
      #expect(labels == [long(100), "short", long(300)] + (4...9).map(long))
      let nearest = try db.nearestNeighbors(
        to: Float32Vector([3, 0]), in: "doc", column: "embedding", k: 1, filter: "label = \(long(300))")
      #expect(nearest.map(\.rowid) == [3])
    }

    @Test func nearestRecordsJoinTheirTableByRowid() throws {
      struct Note: Decodable, Equatable { var id: Int64; var title: String }
      let db = try Database()
      try db.batch(
        sql: """
          CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
          INSERT INTO note VALUES (1, 'origin'), (2, 'near'), (3, 'far');
          """)
      try db.create(vectorTable: "note_embedding") { t in t.vector("embedding", dimensions: 2) }
      try db.batch(
        sql: "INSERT INTO note_embedding(rowid, embedding) VALUES (1, '[0, 0]'), (2, '[1, 0]'), (3, '[9, 9]')")
      let nearest = try db.nearestNeighbors(
        Note.self, from: "note", to: [0.9, 0] as Float32Vector, in: "note_embedding", column: "embedding", k: 2)
      #expect(nearest.map(\.record) == [Note(id: 2, title: "near"), Note(id: 1, title: "origin")])
      #expect(nearest.map(\.rowid) == [2, 1])
      #expect(abs(nearest[0].distance - 0.1) < 1e-6)
      #expect(abs(nearest[1].distance - 0.9) < 1e-6)
    }

    @Test func vecFunctionsWorkInPlainSQLWithBoundVectors() throws {
      let db = try Database()
      let a: Float32Vector = [1, 0, 0, 0]
      let b: Float32Vector = [0, 1, 0, 0]
      let l2 = try #require(try db.fetchOne(Double.self, literal: "SELECT vec_distance_l2(\(a), \(b))"))
      #expect(Float(l2) == Float(2).squareRoot())
      #expect(try db.fetchOne(Double.self, literal: "SELECT vec_distance_cosine(\(a), \(b))") == 1)
      #expect(try db.fetchOne(Double.self, literal: "SELECT vec_distance_l1(\(a), \(b))") == 2)
      #expect(try db.fetchOne(Int.self, literal: "SELECT vec_length(\(a))") == 4)
      #expect(
        try db.fetchOne(String.self, literal: "SELECT vec_to_json(\(a))") == "[1.000000,0.000000,0.000000,0.000000]")
      let code = try BitVector(bits: [true, false, true, false, false, false, false, true])
      let other = try BitVector(bits: [false, false, true, false, false, false, false, false])
      #expect(
        try db.fetchOne(Double.self, literal: "SELECT vec_distance_hamming(vec_bit(\(code)), vec_bit(\(other)))") == 2)
      #expect(try db.fetchOne(String.self, literal: "SELECT vec_type(vec_int8(\(Int8Vector([1, -2]))))") == "int8")
      // vec_quantize_binary and BitVector(quantizing:) agree on the bit order.
      let embedding: [Float] = [0.5, -1, 2, 0, -0.1, 3, 3, -3, 1, 1, 1, 1, -1, -1, -1, -1]
      let quantized = try db.fetchOne(
        BitVector.self, literal: "SELECT vec_quantize_binary(\(Float32Vector(embedding)))")
      #expect(quantized == (try BitVector(quantizing: embedding)))
    }

    @Test func vectorsReadBackExactlyAsTheyWereWritten() throws {
      let db = try Database()
      try db.create(vectorTable: "item") { t in
        t.vector("f", dimensions: 3)
        t.vector("i", dimensions: 3, elementType: .int8)
        t.vector("b", dimensions: 16, elementType: .bit)
      }
      let f: Float32Vector = [Float.pi, -0.0, Float.leastNonzeroMagnitude]
      let i: Int8Vector = [-128, 0, 127]
      let b = BitVector(bytes: [0b1010_0001, 0xFF])
      try db.execute(literal: "INSERT INTO item(rowid, f, i, b) VALUES (1, \(f), vec_int8(\(i)), vec_bit(\(b)))")
      try db.execute(
        sql: "INSERT INTO item(rowid, f, i, b) VALUES (2, '[1.5, 2, -3]', vec_int8('[1, 2, 3]'), vec_bit(x'0102'))")
      let row = try #require(try db.fetchRow(sql: "SELECT f, i, b FROM item WHERE rowid = 1"))
      #expect(try row.value(at: 0, as: Float32Vector.self).elements.map(\.bitPattern) == f.elements.map(\.bitPattern))
      #expect(try row.value(at: 1, as: Int8Vector.self) == i)
      #expect(try row.value(at: 2, as: BitVector.self) == b)
      #expect(b.description == "1000010111111111")
      let statement = try db.prepare(sql: "SELECT f, i FROM item WHERE rowid = 2")
      let second = try #require(try statement.step())
      #expect(try second.value(at: 0, as: Float32Vector.self) == [1.5, 2, -3])
      #expect(try second.value(at: 1, as: Int8Vector.self) == [1, 2, 3])
      #expect(try Float32Vector(json: "[0.25, -1, 2e-3]") == [0.25, -1, 0.002])
      #expect(try Float32Vector(databaseValue: .text(Float32Vector([0.1, 3]).json)) == [0.1, 3])
    }
  }
#endif
