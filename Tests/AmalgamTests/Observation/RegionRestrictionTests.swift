import Testing

@testable import Amalgam

/// A region of `table` in main restricted to `columns` and `rowids` (`nil`: every one).
private func region(_ table: String, columns: Set<String>?, rowids: Set<Int64>? = nil) -> DatabaseRegion {
  var region = DatabaseRegion()
  region.insert(
    DatabaseRegion.Table(schema: "main", name: table), DatabaseRegion.TableRegion(columns: columns, rowids: rowids))
  return region
}

/// Regions restricted to columns and rowids: union and intersection, as observations rely on.
@Suite struct RegionRestrictionTests {
  @Test func columnsMeetOrNot() {
    let reads = region("t", columns: ["a", "b"])
    #expect(reads.intersects(region("t", columns: ["b"])))
    #expect(!reads.intersects(region("t", columns: ["c"])))
    #expect(!reads.intersects(region("u", columns: ["a"])))
    // A change of every column (an INSERT or a DELETE) meets any read of the table.
    #expect(reads.intersects(DatabaseRegion(tables: ["t"])))
    #expect(DatabaseRegion(tables: ["t"]).intersects(region("t", columns: ["z"])))
  }

  @Test func noColumnReadMeetsOnlyRowSetChanges() {
    let count = region("t", columns: [])
    #expect(!count.intersects(region("t", columns: ["a"])))
    #expect(!count.intersects(region("t", columns: [])))
    #expect(count.intersects(region("t", columns: nil, rowids: [4])))
    #expect(count.intersects(.fullDatabase))
  }

  @Test func rowidsMeetOrNot() {
    let reads = region("t", columns: ["a"], rowids: [1, 2])
    #expect(reads.intersects(region("t", columns: ["a"], rowids: [2, 3])))
    #expect(!reads.intersects(region("t", columns: ["a"], rowids: [3])))
    #expect(!reads.intersects(region("t", columns: nil, rowids: [3])))
    #expect(reads.intersects(region("t", columns: nil)))
    // Columns and rows must both meet.
    #expect(!reads.intersects(region("t", columns: ["b"], rowids: [1])))
    #expect(region("t", columns: nil, rowids: [1]).intersects(region("t", columns: ["b"], rowids: nil)))
  }

  @Test func theUnionOfRestrictedEntriesIsTheirSetUnion() {
    let union = region("t", columns: ["a"], rowids: [1]).union(region("t", columns: ["b"], rowids: [2]))
    #expect(union.description == "DatabaseRegion(t(a, b)[1, 2])")
    #expect(union.intersects(region("t", columns: ["b"], rowids: [1])))
    #expect(!union.intersects(region("t", columns: ["c"])))
  }

  @Test func theUnionWithAnUnrestrictedEntryIsUnrestricted() {
    var union = region("t", columns: ["a"], rowids: [1])
    union.formUnion(DatabaseRegion(tables: ["t", "u"]))
    #expect(union == DatabaseRegion(tables: ["t", "u"]))
    #expect(union.intersects(region("t", columns: ["z"], rowids: [9])))
    let columnsOnly = region("t", columns: ["a"], rowids: [1]).union(region("t", columns: ["b"]))
    #expect(columnsOnly.description == "DatabaseRegion(t(a, b))")
    let rowsOnly = region("t", columns: ["a"], rowids: [1]).union(region("t", columns: nil, rowids: [2]))
    #expect(rowsOnly.description == "DatabaseRegion(t[1, 2])")
    #expect(region("t", columns: ["a"]).union(.fullDatabase).isFullDatabase)
  }

  @Test func aDeclaredColumnRegionComparesColumnNamesWithoutCase() {
    let titles = DatabaseRegion(table: "Note", columns: ["Title"])
    #expect(titles.description == "DatabaseRegion(note(title))")
    #expect(titles.contains(table: "NOTE"))
    #expect(titles.intersects(region("note", columns: ["title"])))
    #expect(!titles.intersects(region("note", columns: ["body"])))
    #expect(DatabaseRegion(table: "note", columns: []).description == "DatabaseRegion(note())")
  }

  @Test func shadowTablesOfAVirtualTableStillMatchWhateverTheColumns() {
    let fts = DatabaseRegion(
      tables: [DatabaseRegion.Table(schema: "main", name: "doc")],
      virtualTables: [DatabaseRegion.Table(schema: "main", name: "doc")])
    #expect(fts.intersects(region("doc_data", columns: ["block"])))
  }
}
