import Amalgam
import Foundation
import Testing

@Suite struct FetchedRowTests {
  private func fetchedRow() throws -> FetchedRow {
    let db = try Database()
    return try #require(
      try db.fetchRow(sql: "SELECT 1 AS id, 'it''s' AS Name, NULL AS note, x'0AFF' AS data, 2.5 AS ratio, 9 AS id"))
  }

  @Test func positionsAndNamesReadTheCopiedValues() throws {
    let row = try fetchedRow()
    #expect(row.count == 6)
    #expect(row[0] == .integer(1))
    #expect(row[4] == .real(2.5))
    // Outside the row: NULL, not a crash.
    #expect(row[6] == .null)
    #expect(row[-1] == .null)
    #expect(row["Name"] == .text("it's"))
    // Names match ignoring ASCII case; the first of two columns with one name wins.
    #expect(row["NAME"] == .text("it's"))
    #expect(row["id"] == .integer(1))
    #expect(row["missing"] == nil)
    #expect(row.dictionary["id"] == .integer(1))
    #expect(row.dictionary.count == 5)
  }

  @Test func descriptionPrintsNamesAndSQLValues() throws {
    #expect(try fetchedRow().description == "[id: 1, Name: 'it''s', note: NULL, data: x'0AFF', ratio: 2.5, id: 9]")
    #expect(FetchedRow(columnNames: [], values: []).description == "[]")
  }

  @Test func typedReadsNameTheColumnInTheirErrors() throws {
    let row = try fetchedRow()
    #expect(try row.value(at: 0, as: Int.self) == 1)
    #expect(try row.value(named: "note", as: String?.self) == nil)
    #expect(try row.value(named: "data", as: Data.self) == Data([0x0A, 0xFF]))
    #expect(throws: DatabaseError.columnIndexOutOfRange(index: 6, count: 6)) { try row.value(at: 6, as: Int.self) }
    #expect(throws: DatabaseError.noSuchColumn(name: "nope", available: ["id", "Name", "note", "data", "ratio", "id"]))
    {
      try row.value(named: "nope", as: Int.self)
    }
    do {
      _ = try row.value(named: "name", as: Int.self)
      Issue.record("expected a conversion error")
    } catch let DatabaseError.conversionFailed(column, type, found, _) {
      #expect(column == "\"Name\" (column 1)")
      #expect(type == "Int")
      #expect(found == "TEXT \"it's\"")
    }
    do {
      _ = try row.value(at: 2, as: Double.self)
      Issue.record("expected a conversion error for NULL")
    } catch let DatabaseError.conversionFailed(column, _, found, _) {
      #expect(column == "\"note\" (column 2)")
      #expect(found == "NULL")
    }
  }
}
