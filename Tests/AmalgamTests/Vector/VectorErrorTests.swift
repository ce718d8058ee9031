#if VECTOR
  import Amalgam
  import Foundation
  import Testing

  /// Bad vectors and bad searches throw an error that says what is wrong, and leave the table as it was.
  @Suite struct VectorErrorTests {
    /// A table of two float32 vectors of 3 dimensions and two int8 vectors, with one row.
    static func database() throws -> Database {
      let db = try Database()
      try db.create(vectorTable: "item") { t in
        t.vector("embedding", dimensions: 3)
        t.vector("code", dimensions: 2, elementType: .int8)
      }
      try db.execute(sql: "INSERT INTO item(rowid, embedding, code) VALUES (1, '[1, 2, 3]', vec_int8('[1, 2]'))")
      return db
    }

    static func rowCount(_ db: Database) throws -> Int? {
      try db.fetchOne(Int.self, sql: "SELECT count(*) FROM item")
    }

    static let insertSQL = "INSERT INTO item(rowid, embedding, code) VALUES (2, ?, vec_int8(?))"

    @Test func aVectorOfTheWrongDimensionIsRefusedWithSqliteVecsMessage() throws {
      let db = try Self.database()
      let error = expectSQLiteError {
        try db.execute(sql: Self.insertSQL, arguments: [Float32Vector([1, 2]), Int8Vector([1, 2])])
      }
      #expect(error?.message.contains("Dimension mismatch") == true)
      #expect(error?.message.contains("Expected 3 dimensions but received 2") == true)
      #expect(try Self.rowCount(db) == 1)
      let query = expectSQLiteError {
        _ = try db.nearestNeighbors(to: [1, 2, 3, 4] as Float32Vector, in: "item", column: "embedding", k: 1)
      }
      #expect(query?.message.contains("Dimension mismatch") == true)
    }

    @Test func aVectorOfTheWrongElementTypeIsRefused() throws {
      let db = try Self.database()
      // An int8 vector where a float32 one belongs, and a float32 BLOB where an int8 one belongs.
      let intoFloat = expectSQLiteError {
        try db.execute(
          sql: "INSERT INTO item(rowid, embedding, code) VALUES (2, vec_int8(?), vec_int8(?))",
          arguments: [Int8Vector([1, 2, 3]), Int8Vector([1, 2])])
      }
      #expect(intoFloat?.message.contains("float32") == true)
      let intoInt8 = expectSQLiteError {
        try db.execute(
          sql: "INSERT INTO item(rowid, embedding, code) VALUES (2, ?, ?)",
          arguments: [Float32Vector([1, 2, 3]), Float32Vector([1, 2])])
      }
      #expect(intoInt8?.message.contains("int8") == true)
      let query = expectSQLiteError {
        _ = try db.nearestNeighbors(to: [1, 2] as Int8Vector, in: "item", column: "embedding", k: 1)
      }
      #expect(query != nil)
      #expect(try Self.rowCount(db) == 1)
    }

    @Test func aBlobThatIsNotAWholeNumberOfElementsIsRefused() throws {
      let db = try Self.database()
      let error = expectSQLiteError {
        try db.execute(sql: Self.insertSQL, arguments: [Data(repeating: 0, count: 11), Int8Vector([1, 2])])
      }
      #expect(error != nil)
      #expect(try Self.rowCount(db) == 1)
      // Reading one: a conversion error that names the byte count.
      #expect {
        _ = try db.fetchOne(Float32Vector.self, sql: "SELECT x'00010203040506'")
      } throws: { error in
        "\(error)".contains("A BLOB of 7 bytes is not a whole number of float32 elements (4 bytes each)")
      }
      #expect(throws: DatabaseError.self) { _ = try db.fetchOne(Float32Vector.self, sql: "SELECT 42") }
      #expect(throws: DatabaseError.self) { _ = try db.fetchOne(BitVector.self, sql: "SELECT '[1, 0]'") }
    }

    @Test func jsonThatIsNotAnArrayOfTheElementTypeIsRefusedNamingIt() throws {
      #expect(throws: VectorError.invalidJSON("float32 elements expected in \"[1, \\\"a\\\"]\"")) {
        _ = try Float32Vector(json: #"[1, "a"]"#)
      }
      #expect(throws: VectorError.invalidJSON("int8 elements expected in \"[1, 128]\"")) {
        _ = try Int8Vector(json: "[1, 128]")
      }
      #expect(try Int8Vector(json: "[-128, 127]") == [-128, 127])
      // Read from a column, such text is a conversion error that names the vector type.
      let db = try Database()
      #expect {
        _ = try db.fetchOne(Float32Vector.self, sql: "SELECT '[1,'")
      } throws: { error in
        "\(error)".contains("Float32Vector") && "\(error)".contains("float32 elements expected")
      }
      #expect {
        _ = try db.fetchOne(Int8Vector.self, sql: "SELECT '[300]'")
      } throws: { error in
        "\(error)".contains("Int8Vector") && "\(error)".contains("int8 elements expected")
      }
      #expect {
        _ = try db.fetchOne(BitVector.self, sql: "SELECT '[1]'")
      } throws: { error in
        "\(error)".contains("BitVector") && "\(error)".contains("a bit vector is stored as a BLOB")
      }
    }

    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func nonFiniteElementsAreRefusedBeforeSQLiteSeesThem(value: Float) throws {
      let db = try Self.database()
      #expect(throws: VectorError.nonFiniteElement(index: 1)) {
        try db.execute(sql: Self.insertSQL, arguments: [Float32Vector([0, value, 0]), Int8Vector([1, 2])])
      }
      #expect(throws: VectorError.nonFiniteElement(index: 2)) {
        _ = try db.nearestNeighbors(to: Float32Vector([0, 0, value]), in: "item", column: "embedding", k: 1)
      }
      #expect(
        VectorError.nonFiniteElement(index: 1).description
          == "Element 1 of the float32 vector is NaN or infinite: sqlite-vec needs finite numbers")
      #expect(try Self.rowCount(db) == 1)
    }

    @Test func emptyVectorsAreRefused() throws {
      let db = try Self.database()
      #expect(throws: VectorError.emptyVector) {
        try db.execute(sql: Self.insertSQL, arguments: [Float32Vector([]), Int8Vector([1, 2])])
      }
      #expect(throws: VectorError.emptyVector) {
        try db.execute(sql: Self.insertSQL, arguments: [Float32Vector([1, 2, 3]), Int8Vector([])])
      }
      #expect(throws: VectorError.emptyVector) {
        _ = try db.nearestNeighbors(to: BitVector(bytes: []), in: "item", column: "embedding", k: 1)
      }
      // In SQL, sqlite-vec refuses one itself.
      let error = expectSQLiteError {
        try db.execute(sql: "INSERT INTO item(rowid, embedding, code) VALUES (2, '[]', vec_int8('[1, 2]'))")
      }
      #expect(error?.message.contains("zero-length") == true)
      #expect(try Self.rowCount(db) == 1)
    }

    @Test func kBelowOneIsRefusedAndKAboveSqliteVecsLimitGetsItsMessage() throws {
      let db = try Self.database()
      for k in [0, -1, Int.min] {
        #expect(throws: VectorError.invalidNeighborCount(k)) {
          _ = try db.nearestNeighbors(to: [1, 2, 3] as Float32Vector, in: "item", column: "embedding", k: k)
        }
      }
      let huge = expectSQLiteError {
        _ = try db.nearestNeighbors(to: [1, 2, 3] as Float32Vector, in: "item", column: "embedding", k: 1 << 40)
      }
      #expect(huge?.message.contains("k value in knn query too large") == true)
      let four = try db.nearestNeighbors(to: [1, 2, 3] as Float32Vector, in: "item", column: "embedding", k: 4096)
      #expect(four.map(\.rowid) == [1])
    }

    @Test func anUnknownMetricOrColumnTypeIsRefusedBySqliteVec() throws {
      let db = try Database()
      let metric = expectSQLiteError {
        try db.execute(sql: "CREATE VIRTUAL TABLE item USING vec0(embedding float[3] distance_metric=manhattan)")
      }
      #expect(
        metric?.message.contains("could not parse vector column 'embedding float[3] distance_metric=manhattan'")
          == true)
      let type = expectSQLiteError {
        try db.execute(sql: "CREATE VIRTUAL TABLE item USING vec0(embedding complex[3])")
      }
      #expect(type?.message.contains("could not parse table option 'embedding complex[3]'") == true)
      #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 0)
    }

    @Test func definitionsSqliteVecWouldRefuseThrowBeforeSQLiteSeesThem() throws {
      let db = try Database()
      func message(_ body: (inout VectorTableDefinition) -> Void) -> String? {
        do {
          try db.create(vectorTable: "item", body)
        } catch let error as SchemaError {
          return error.description
        } catch {
          return "unexpected \(error)"
        }
        return nil
      }
      #expect(message { _ in }?.contains("needs at least one vector column") == true)
      #expect(message { $0.vector("e", dimensions: 0) }?.contains("has 0 dimensions") == true)
      #expect(message { $0.vector("e", dimensions: 12, elementType: .bit) }?.contains("not a multiple of 8") == true)
      #expect(
        message { $0.vector("e", dimensions: 8, elementType: .bit, distance: .cosine) }?
          .contains("always uses the Hamming distance") == true)
      #expect(message { $0.vector("my embedding", dimensions: 3) }?.contains("not a plain identifier") == true)
      #expect(
        message {
          $0.vector("e", dimensions: 3)
          $0.partitionKey("p", .float)
        }?.contains("a partition key is integer, text, not float (p)") == true)
      #expect(
        message {
          $0.vector("e", dimensions: 3)
          $0.metadata("m", .blob)
        }?.contains("a metadata column is integer, float, text, boolean, not blob (m)") == true)
      #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema") == 0)
    }

    @Test func aFailedInsertInsideATransactionLeavesTheEarlierRowsAndTheRestOfTheTable() throws {
      let db = try Self.database()
      try db.transaction { db in
        try db.execute(sql: Self.insertSQL, arguments: [Float32Vector([4, 5, 6]), Int8Vector([3, 4])])
        let error = expectSQLiteError {
          try db.execute(
            sql: "INSERT INTO item(rowid, embedding, code) VALUES (3, ?, vec_int8(?)), (4, ?, vec_int8(?))",
            arguments: [Float32Vector([7, 8, 9]), Int8Vector([5, 6]), Float32Vector([1]), Int8Vector([7, 8])])
        }
        #expect(error?.message.contains("Dimension mismatch") == true)
      }
      // The failed statement's first row went with it; the earlier statement's row stayed.
      #expect(try db.fetchAll(Int.self, sql: "SELECT rowid FROM item ORDER BY rowid") == [1, 2])
      let nearest = try db.nearestNeighbors(to: [7, 8, 9] as Float32Vector, in: "item", column: "embedding", k: 5)
      #expect(nearest.map(\.rowid) == [2, 1])
    }
  }
#endif
