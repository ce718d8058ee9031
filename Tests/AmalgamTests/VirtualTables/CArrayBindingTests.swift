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

    @Test func anArrayBoundToAParameterThatIsNotCarraysArgumentThrows() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
      // SQLite would read the pointer as NULL: typeof(?) gave 'null'.
      let typeOf = try db.prepare(sql: "SELECT typeof(?)")
      let error = #expect(throws: SQLiteError.self) { try typeOf.bind(array: [Int64(1)], toParameter: 1) }
      #expect(error?.code == .error)
      #expect(
        error?.message
          == "Parameter 1 of \"SELECT typeof(?)\" is not the first argument of carray(): an array binds only to "
          + "carray(?) (as in \"WHERE id IN carray(?)\"); anywhere else SQLite would read it as NULL")
      // Each array type, in comparisons, in other functions, and in the wrong parameter of a statement
      // that also uses carray().
      let misplaced: [(String, Int)] = [
        ("SELECT * FROM t WHERE x = ?", 1),
        ("SELECT * FROM t WHERE id IN (?)", 1),
        ("SELECT length(?)", 1),
        ("SELECT * FROM t WHERE id IN carray(?2) AND x = ?1", 1),
        ("SELECT value FROM carray(?1) WHERE value > ?2", 2),
        ("INSERT INTO t(x) VALUES (?)", 1),
      ]
      for (sql, index) in misplaced {
        let statement = try db.prepare(sql: sql)
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: [Int32(1)], toParameter: index) }
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: [Int64(1)], toParameter: index) }
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: [1], toParameter: index) }
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: [1.5], toParameter: index) }
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: ["a"], toParameter: index) }
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: [Data([1])], toParameter: index) }
        #expect(throws: SQLiteError.self, "\(sql)") { try statement.bind(array: [[UInt8(1)]], toParameter: index) }
      }
    }

    @Test func everyPlaceCarraysFirstArgumentCanBeIsAccepted() throws {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
      try db.execute(sql: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
      func ids(_ sql: String, array index: Int, _ other: (Int, String)? = nil) throws -> [Int64] {
        let statement = try db.prepare(sql: sql)
        try statement.bind(array: [Int64(1), 3], toParameter: index)
        if let (position, value) = other { try value.bind(to: statement, at: Int32(position)) }
        return try statement.column(0, as: Int64.self)
      }
      #expect(try ids("SELECT value FROM carray(?)", array: 1) == [1, 3])
      #expect(try ids("SELECT id FROM t WHERE id IN carray(?) ORDER BY id", array: 1) == [1, 3])
      #expect(try ids("SELECT id FROM t WHERE id IN (SELECT value FROM carray(?)) ORDER BY id", array: 1) == [1, 3])
      #expect(try ids("SELECT id FROM t WHERE x <> ?1 AND id IN carray(?2) ORDER BY id", array: 2, (1, "c")) == [1])
      #expect(try ids("SELECT id FROM t WHERE id IN carray(:ids) AND x <> :x ORDER BY id", array: 1, (2, "a")) == [3])
      #expect(try ids("SELECT t.id FROM t, carray(?) AS c WHERE t.id = c.value ORDER BY 1", array: 1) == [1, 3])
      #expect(try ids("SELECT count(*) FROM carray(?1) AS a, carray(?1) AS b", array: 1) == [4])
      #expect(try ids("WITH w AS (SELECT value AS v FROM carray(?)) SELECT v FROM w ORDER BY v", array: 1) == [1, 3])
      #expect(try ids("DELETE FROM t WHERE id IN carray(?) RETURNING id", array: 1).sorted() == [1, 3])
      #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM t") == [2])
    }

    @Test func aBadParameterIndexThrows() throws {
      let db = try Database()
      let statement = try db.prepare(sql: "SELECT value FROM carray(?)")
      #expect(throws: SQLiteError.self) { try statement.bind(array: [Int64(1)], toParameter: 2) }
    }
  }
#endif
