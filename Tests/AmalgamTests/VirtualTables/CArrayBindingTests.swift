#if ENABLE_CARRAY
  import Amalgam
  import Foundation
  import Testing

  @Suite("carray: binding Swift arrays")
  struct CArrayBindingTests {
    private func values(_ db: Database, bind: (Statement) throws -> Void) throws -> [DatabaseValue] {
      let statement = try db.prepare(sql: "SELECT value FROM carray(?)")
      try bind(statement)
      return try statement.allRows().map { $0[0] }
    }

    @Test func everyElementTypeReachesCarray() throws {
      let db = try Database()
      #expect(
        try values(db) { try $0.bind(array: [Int32(-1), 2, .max], toParameter: 1) } == [
          -1, 2, .integer(Int64(Int32.max)),
        ])
      #expect(
        try values(db) { try $0.bind(array: [Int64.min, 0, .max], toParameter: 1) } == [
          .integer(.min), 0, .integer(.max),
        ])
      #expect(try values(db) { try $0.bind(array: [1.5, -0.25], toParameter: 1) } == [.real(1.5), .real(-0.25)])
      #expect(try values(db) { try $0.bind(array: ["héllo", "", "wörld"], toParameter: 1) } == ["héllo", "", "wörld"])
      #expect(
        try values(db) { try $0.bind(array: [Data([1, 2]), Data(), Data([255])], toParameter: 1) }
          == [.blob(Data([1, 2])), .blob(Data()), .blob(Data([255]))])
      #expect(try values(db) { try $0.bind(array: [[UInt8]([7, 8, 9])], toParameter: 1) } == [.blob(Data([7, 8, 9]))])
      #expect(try values(db) { try $0.bind(array: [Int64](), toParameter: 1) } == [])
    }

    @Test func inCarrayFiltersATableAndTheArrayMayGoAway() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
      for id in 1...100 { try db.execute(sql: "INSERT INTO t VALUES (?, ?)", parameterValues: [id, "n\(id)"]) }
      let statement = try db.prepare(sql: "SELECT name FROM t WHERE id IN carray(?) ORDER BY id")
      do {
        var ids: [Int64] = [3, 50, 99, 1000]
        try statement.bind(array: ids, toParameter: 1)
        ids.removeAll()  // SQLite has its own copy
      }
      #expect(try statement.column(0, as: String.self) == ["n3", "n50", "n99"])
      // Run again with the same binding, then rebind: the earlier copy is released.
      #expect(try statement.column(0, as: String.self) == ["n3", "n50", "n99"])
      try statement.bind(array: ["1", "2"].map { Int64($0)! }, toParameter: 1)
      #expect(try statement.column(0, as: String.self) == ["n1", "n2"])
      try statement.clearBindings()
      #expect(try statement.column(0, as: String.self) == [])
    }

    @Test func aBadParameterIndexThrows() throws {
      let db = try Database()
      let statement = try db.prepare(sql: "SELECT value FROM carray(?)")
      #expect(throws: SQLiteError.self) { try statement.bind(array: [Int64(1)], toParameter: 2) }
    }
  }
#endif
