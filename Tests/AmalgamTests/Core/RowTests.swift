import Amalgam
import Foundation
import Testing

@Suite("Row")
struct RowTests {
  private func personDatabase() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, score REAL, photo BLOB);
        INSERT INTO person VALUES (1, 'Ada', 36, 9.5, x'010203');
        INSERT INTO person VALUES (2, NULL, NULL, NULL, NULL);
        """)
    return db
  }

  @Test func withUnsafeBytesHandsOverEachStorageClassWithoutACopy() throws {
    let db = try Database()
    let statement = try db.prepare(
      sql: "SELECT x'00ff10', 'é€', CAST(x'c328' AS TEXT), NULL, x'', '', 42, 2.5")
    let row = try #require(try statement.step())
    func bytes(_ index: Int) throws -> [UInt8]? { try row.withUnsafeBytes(at: index) { $0.map { [UInt8]($0) } } }
    #expect(try bytes(0) == [0x00, 0xFF, 0x10])
    #expect(try bytes(1) == Array("é€".utf8))
    #expect(try bytes(2) == [0xC3, 0x28])  // text that is not valid UTF-8, as stored
    #expect(try bytes(3) == nil)
    #expect(try bytes(4) == [])
    #expect(try bytes(5) == [])
    #expect(try bytes(6) == Array("42".utf8))
    #expect(try bytes(7) == Array("2.5".utf8))
    let sum = try row.withUnsafeBytes(at: 0) { bytes in bytes?.reduce(0) { $0 &+ Int($1) } ?? 0 }
    #expect(sum == 0xFF + 0x10)
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 8, count: 8)) { try bytes(8) }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: -1, count: 8)) { try bytes(-1) }
    struct Stop: Error, Equatable {}
    #expect(throws: Stop()) { try row.withUnsafeBytes(at: 0) { _ in throw Stop() } }
    // The statement goes on normally after a body threw.
    #expect(try statement.step() == nil)
  }

  @Test func typedReadsByIndexAndByName() throws {
    let db = try personDatabase()
    let statement = try db.prepare(sql: "SELECT id, name, age, score, photo FROM person WHERE id = 1")
    let row = try #require(try statement.step())
    #expect(row.count == 5)
    #expect(try row.value(at: 0, as: Int64.self) == 1)
    #expect(try row.value(at: 1, as: String.self) == "Ada")
    #expect(try row.value(at: 2, as: Int.self) == 36)
    #expect(try row.value(at: 3, as: Double.self) == 9.5)
    #expect(try row.value(at: 4, as: [UInt8].self) == [1, 2, 3])
    #expect(try row.value(named: "name", as: String.self) == "Ada")
    #expect(try row.value(named: "age", as: Int?.self) == 36)
    #expect(try row.value(named: "photo", as: Data.self) == Data([1, 2, 3]))
    let name: String = try row.value(named: "name")
    let age: Int? = try row.value(at: 2)
    #expect(name == "Ada")
    #expect(age == 36)
  }

  @Test func nullReadsAsNilForOptionalTypes() throws {
    let db = try personDatabase()
    let row = try #require(try db.prepare(sql: "SELECT name, age, score, photo FROM person WHERE id = 2").step())
    #expect(try row.value(at: 0, as: String?.self) == nil)
    #expect(try row.value(at: 1, as: Int?.self) == nil)
    #expect(try row.value(at: 2, as: Double?.self) == nil)
    #expect(try row.value(at: 3, as: Data?.self) == nil)
    #expect(try row.value(named: "age", as: Bool?.self) == nil)
    #expect(try row.isNull(at: 0))
    #expect(try row[1] == .null)
  }

  @Test func nullReadIntoANonOptionalTypeThrowsConversionFailedNamingTheColumn() throws {
    let db = try personDatabase()
    let row = try #require(try db.prepare(sql: "SELECT id, age FROM person WHERE id = 2").step())
    let error = #expect(throws: DatabaseError.self) { _ = try row.value(named: "age", as: Int.self) }
    guard case .conversionFailed(let column, let type, let found, let reason) = error else {
      Issue.record("expected conversionFailed, got \(String(describing: error))")
      return
    }
    let label = try #require(column)
    #expect(label.contains("age"))
    #expect(label.contains("1"))  // the column index
    #expect(type == "Int")
    #expect(found == "NULL")
    #expect(reason.contains("NULL"))
    #expect(error?.description.contains("age") == true)

    for read in [
      { _ = try row.value(at: 1, as: String.self) },
      { _ = try row.value(at: 1, as: Double.self) },
      { _ = try row.value(at: 1, as: Bool.self) },
      { _ = try row.value(at: 1, as: Data.self) },
      { _ = try row.value(at: 1, as: [UInt8].self) },
    ] as [() throws -> Void] {
      let error = #expect(throws: DatabaseError.self) { try read() }
      guard case .conversionFailed(let column?, _, "NULL", _) = error else {
        Issue.record("expected conversionFailed of NULL naming a column, got \(String(describing: error))")
        continue
      }
      #expect(column.contains("age"))
    }
  }

  @Test func conversionErrorFromAnExpressionColumnNamesTheExpression() throws {
    let db = try Database()
    let row = try #require(try db.prepare(sql: "SELECT 'seven' AS amount").step())
    let error = #expect(throws: DatabaseError.self) { _ = try row.value(at: 0, as: Int.self) }
    guard case .conversionFailed(let column, let type, let found, _) = error else {
      Issue.record("expected conversionFailed, got \(String(describing: error))")
      return
    }
    #expect(column?.contains("amount") == true)
    #expect(type == "Int")
    #expect(found == "TEXT \"seven\"")
  }

  @Test func columnIndexOutOfRangeThrows() throws {
    let db = try personDatabase()
    let row = try #require(try db.prepare(sql: "SELECT id, name FROM person").step())
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 2, count: 2)) { _ = try row.value(at: 2, as: Int.self) }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: -1, count: 2)) {
      _ = try row.value(at: -1, as: Int?.self)
    }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 99, count: 2)) { _ = try row[99] }
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 5, count: 2)) { _ = try row.isNull(at: 5) }
  }

  @Test func unknownColumnNameThrowsNoSuchColumnListingTheColumns() throws {
    let db = try personDatabase()
    let row = try #require(try db.prepare(sql: "SELECT id, name FROM person").step())
    #expect(throws: DatabaseError.noSuchColumn(name: "email", available: ["id", "name"])) {
      _ = try row.value(named: "email", as: String.self)
    }
    #expect(throws: DatabaseError.noSuchColumn(name: "nam", available: ["id", "name"])) { _ = try row["nam"] }
    #expect(throws: DatabaseError.noSuchColumn(name: "age", available: ["id", "name"])) { _ = try row.age }
  }

  @Test func columnNamesMatchIgnoringASCIICase() throws {
    let db = try Database()
    let row = try #require(try db.prepare(sql: "SELECT 1 AS MixedCase, 2 AS lower").step())
    #expect(try row.value(named: "MixedCase", as: Int.self) == 1)
    #expect(try row.value(named: "mixedcase", as: Int.self) == 1)
    #expect(try row.value(named: "MIXEDCASE", as: Int.self) == 1)
    #expect(try row.value(named: "LOWER", as: Int.self) == 2)
    #expect(try row["lOwEr"] == .integer(2))
    // Case-insensitive, not fuzzy.
    #expect(throws: DatabaseError.noSuchColumn(name: "mixed_case", available: ["MixedCase", "lower"])) {
      _ = try row["mixed_case"]
    }
  }

  @Test func whenTwoColumnsShareANameTheFirstWins() throws {
    let db = try Database()
    let row = try #require(try db.prepare(sql: "SELECT 1 AS v, 2 AS v").step())
    #expect(try row.value(named: "v", as: Int.self) == 1)
    #expect(try row.value(named: "V", as: Int.self) == 1)
    #expect(try row.dictionary() == ["v": .integer(1)])
  }

  @Test func dynamicMemberLookupReadsAColumnByName() throws {
    let db = try personDatabase()
    let row = try #require(try db.prepare(sql: "SELECT id, name, score, photo FROM person WHERE id = 1").step())
    let name: DatabaseValue = try row.name
    #expect(name == .text("Ada"))
    #expect(try row.id == .integer(1))
    #expect(try row.score == .real(9.5))
    #expect(try row.photo == .blob(Data([1, 2, 3])))
    #expect(try row.NAME == .text("Ada"))
  }

  @Test func subscriptsReturnTheStoredValue() throws {
    let db = try personDatabase()
    let row = try #require(try db.prepare(sql: "SELECT id, name, age, score, photo FROM person WHERE id = 1").step())
    #expect(try row[0] == .integer(1))
    #expect(try row[1] == .text("Ada"))
    #expect(try row["age"] == .integer(36))
    #expect(try row["score"] == .real(9.5))
    #expect(try row[4] == .blob(Data([1, 2, 3])))
  }

  @Test func valuesAndDictionaryCopyTheRowSoTheyOutliveIt() throws {
    let db = try personDatabase()
    let statement = try db.prepare(sql: "SELECT id, name, age, score, photo FROM person ORDER BY id")
    var copies: [[DatabaseValue]] = []
    var dictionaries: [[String: DatabaseValue]] = []
    while let row = try statement.step() {
      copies.append(try row.values())
      dictionaries.append(try row.dictionary())
    }
    #expect(
      copies == [
        [.integer(1), .text("Ada"), .integer(36), .real(9.5), .blob(Data([1, 2, 3]))],
        [.integer(2), .null, .null, .null, .null],
      ])
    #expect(dictionaries[0] == ["id": 1, "name": "Ada", "age": 36, "score": 9.5, "photo": .blob(Data([1, 2, 3]))])
    #expect(dictionaries[1] == ["id": 2, "name": nil, "age": nil, "score": nil, "photo": nil])
  }

  @Test func rowExposesItsStatement() throws {
    let db = try Database()
    let statement = try db.prepare(sql: "SELECT 1 AS one")
    let row = try #require(try statement.step())
    #expect(row.statement === statement)
    #expect(row.statement.columnNames == ["one"])
  }
}
