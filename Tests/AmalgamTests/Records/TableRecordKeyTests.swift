import Amalgam
import Testing

/// A record whose declared primary key names a column it does not encode (a typo, or a renamed property).
private struct Tag: TableRecord, Equatable {
  static let tableName = "tag"
  static let primaryKey = ["code"]
  var id: Int64
  var label: String
}

@Suite struct TableRecordKeyTests {
  private func tags() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE tag(id INTEGER PRIMARY KEY, label TEXT, code TEXT);
        INSERT INTO tag VALUES (1, 'one', 'a');
        """)
    return db
  }

  @Test func deletingARecordWhosePrimaryKeyItDoesNotEncodeNamesTheMissingColumn() throws {
    let db = try tags()
    #expect(throws: DatabaseError.noSuchColumn(name: "code", available: ["id", "label"])) {
      try db.delete(Tag(id: 1, label: "one"))
    }
    #expect(try db.fetchValue(Int.self, sql: "SELECT count(*) FROM tag") == 1)
  }

  @Test func updatingSomeColumnsOfSuchARecordNamesTheMissingColumn() throws {
    let db = try tags()
    #expect(throws: DatabaseError.noSuchColumn(name: "code", available: ["id", "label"])) {
      try db.updateIfExists(Tag(id: 1, label: "uno"), columns: ["label"])
    }
    #expect(try db.fetchValue(String.self, sql: "SELECT label FROM tag") == "one")
  }
}
