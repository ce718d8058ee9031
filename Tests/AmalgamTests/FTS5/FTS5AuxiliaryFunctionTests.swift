#if ENABLE_FTS5
  import Amalgam
  import Foundation
  import Testing

  /// bm25() written with the Swift API, as FTS5 computes it: IDFs from xQueryPhrase counted once per
  /// query and kept as auxiliary data, frequencies weighted per column from the function's arguments.
  func registerSwiftBM25(_ db: Database, name: String = "swift_bm25") throws {
    final class QueryData {
      let idf: [Double]
      let averageLength: Double
      var frequencies: [Double]
      init(idf: [Double], averageLength: Double) {
        self.idf = idf
        self.averageLength = averageLength
        frequencies = Array(repeating: 0, count: idf.count)
      }
    }
    try db.addAuxiliaryFunction(name) { api, arguments, context in
      let data: QueryData
      if let stored = api.auxiliaryData as? QueryData {
        data = stored
      } else {
        let rows = try api.rowCount()
        let tokens = try api.columnTotalSize()
        var idf: [Double] = []
        for phrase in 0..<api.phraseCount {
          var hits: Int64 = 0
          try api.queryPhrase(phrase) { _ in hits += 1 }
          let value = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
          idf.append(value <= 0 ? 1e-6 : value)
        }
        data = QueryData(idf: idf, averageLength: Double(tokens) / Double(rows))
        try api.setAuxiliaryData(data)
      }
      for index in data.frequencies.indices { data.frequencies[index] = 0 }
      let weightCount = arguments.count
      for index in 0..<(try api.instanceCount()) {
        let instance = try api.instance(at: index)
        data.frequencies[instance.phrase] += weightCount > instance.column ? arguments.double(at: instance.column) : 1
      }
      let length = Double(try api.columnSize())
      let k1 = 1.2
      let b = 0.75
      var score = 0.0
      for phrase in data.idf.indices {
        let frequency = data.frequencies[phrase]
        score +=
          data.idf[phrase] * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / data.averageLength)))
      }
      context.setResult(.real(-1.0 * score))
    }
  }

  /// highlight() written with the Swift API, as FTS5 computes it: coalesced phrase instances of the
  /// column, marked on the tokens of the column text tokenized with the table's tokenizer.
  func registerSwiftHighlight(_ db: Database, name: String = "swift_highlight") throws {
    try db.addAuxiliaryFunction(name) { api, arguments, context in
      guard arguments.count == 3 else { throw FTS5TestError(reason: "wrong number of arguments to function \(name)()") }
      let column = Int(arguments.int64(at: 0))
      let open = Array((arguments.text(at: 1) ?? "").utf8)
      let close = Array((arguments.text(at: 2) ?? "").utf8)
      guard column >= 0 && column < api.columnCount else { return context.setResult(.text("")) }
      // Coalesced runs of matched token positions in the column, in order.
      var runs: [(start: Int, end: Int)] = []
      for index in 0..<(try api.instanceCount()) {
        let instance = try api.instance(at: index)
        guard instance.column == column else { continue }
        let end = instance.offset + api.phraseSize(instance.phrase) - 1
        if let last = runs.last, instance.offset <= last.end {
          runs[runs.count - 1].end = max(last.end, end)
        } else {
          runs.append((instance.offset, end))
        }
      }
      let text = Array(try api.columnText(column).utf8)
      var output: [UInt8] = []
      var copied = 0
      var position = 0
      var run = 0
      var isOpen = false
      try api.tokenize(column: column) { token in
        if token.isColocated { return }
        defer { position += 1 }
        let current = run < runs.count ? runs[run] : nil
        if isOpen && position <= (current?.start ?? position) && token.range.lowerBound > copied {
          output += close
          isOpen = false
        }
        if let current, position == current.start, !isOpen {
          output += text[copied..<token.range.lowerBound]
          output += open
          copied = token.range.lowerBound
          isOpen = true
        }
        if let current, position == current.end {
          output += text[copied..<token.range.upperBound]
          copied = token.range.upperBound
          run += 1
        }
      }
      if isOpen { output += close }
      output += text[copied...]
      context.setResult(.text(String(decoding: output, as: UTF8.self)))
    }
  }

  /// A corpus of short documents over two columns, with repeated words and varied lengths.
  func fts5Corpus(_ db: Database, table: String = "docs", tokenize: String = "unicode61", rows: Int = 300) throws {
    try db.execute(sql: "CREATE VIRTUAL TABLE \(table) USING fts5(title, body, tokenize = '\(tokenize)')")
    let words = [
      "swift", "sqlite", "search", "index", "token", "query", "phrase", "rank", "score", "table", "column", "row",
      "Crème", "brûlée", "東京", "data", "fast", "safe", "text", "match",
    ]
    var seed: UInt64 = 42
    func next() -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(seed >> 33)
    }
    let insert = try db.prepare(sql: "INSERT INTO \(table)(title, body) VALUES (?, ?)")
    try db.transaction { _ in
      for _ in 0..<rows {
        let title = (0..<(1 + next() % 4)).map { _ in words[next() % words.count] }.joined(separator: " ")
        let body = (0..<(3 + next() % 30)).map { _ in words[next() % words.count] }.joined(
          separator: next() % 5 == 0 ? ", " : " ")
        try insert.reset().bind(parameterValues: [title, body]).execute()
      }
    }
  }

  @Suite("FTS5 auxiliary functions")
  struct FTS5AuxiliaryFunctionTests {
    static let queries = [
      "swift", "swift sqlite", "swift OR sqlite", "\"search index\"", "title:rank", "sea*", "NEAR(token query, 3)",
      "fast NOT safe", "東京", "crème OR brûlée", "{title body}: match", "data OR text OR row OR column",
    ]

    @Test(arguments: queries)
    func swiftBM25EqualsTheBuiltInBM25(query: String) throws {
      let db = try Database()
      try fts5Corpus(db)
      try registerSwiftBM25(db)
      let rows = try fts5Rows(
        db,
        "SELECT rowid, bm25(docs), swift_bm25(docs), bm25(docs, 2.0, 0.5), swift_bm25(docs, 2.0, 0.5) FROM docs WHERE docs MATCH ? ORDER BY rowid",
        [query])
      #expect(!rows.isEmpty)
      for row in rows {
        guard case .real(let builtIn) = row[1], case .real(let swift) = row[2],
          case .real(let weightedBuiltIn) = row[3],
          case .real(let weightedSwift) = row[4]
        else {
          Issue.record("Scores are not REAL: \(row)")
          continue
        }
        #expect(abs(builtIn - swift) <= 1e-9, "row \(row[0])")
        #expect(abs(weightedBuiltIn - weightedSwift) <= 1e-9, "row \(row[0])")
      }
      // Ranked by either, the rows come in the same order.
      let byBuiltIn = try fts5Rows(db, "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid", [query])
      let bySwift = try fts5Rows(
        db, "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY swift_bm25(docs), rowid", [query])
      #expect(byBuiltIn == bySwift)
    }

    @Test(arguments: queries)
    func swiftHighlightEqualsTheBuiltInHighlight(query: String) throws {
      let db = try Database()
      try fts5Corpus(db)
      try registerSwiftHighlight(db)
      let rows = try fts5Rows(
        db,
        """
        SELECT highlight(docs, 0, '[', ']'), swift_highlight(docs, 0, '[', ']'),
               highlight(docs, 1, '<b>', '</b>'), swift_highlight(docs, 1, '<b>', '</b>')
        FROM docs WHERE docs MATCH ? ORDER BY rowid
        """, [query])
      #expect(!rows.isEmpty)
      for row in rows {
        #expect(row[0] == row[1])
        #expect(row[2] == row[3])
      }
    }

    @Test func swiftHighlightEqualsTheBuiltInWithASwiftTokenizer() throws {
      let db = try Database()
      try db.addTokenizer("unicode_words", type: UnicodeWords.self)
      try fts5Corpus(db, tokenize: "unicode_words", rows: 100)
      try registerSwiftHighlight(db)
      for query in ["東京", "crème", "\"crème brûlée\"", "swi*"] {
        for row in try fts5Rows(
          db, "SELECT highlight(docs, 1, '[', ']'), swift_highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH ?",
          [query])
        {
          #expect(row[0] == row[1])
        }
      }
    }

    @Test func theAPIReportsTheRowTheTableAndTheMatches() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(title, body)")
      try db.execute(
        sql: """
          INSERT INTO docs(rowid, title, body) VALUES
            (7, 'Swift and SQLite', 'SQLite is small. Swift is safe. SQLite is fast.'),
            (8, 'Other', 'nothing here'),
            (9, 'sqlite', 'tiny')
          """)
      struct Seen: Equatable {
        var rowid: Int64 = 0
        var columns = 0
        var texts: [String] = []
        var sizes: [Int] = []
        var rowSize = 0
        var rowCount: Int64 = 0
        var totals: [Int64] = []
        var phrases: [Int] = []
        var instances: [FTS5PhraseInstance] = []
        var phraseInstances: [[Int]] = []
        var phraseColumns: [[Int]] = []
        var queryTokens: [String] = []
        var instanceTokens: [String] = []
        var tokens: [String] = []
        var columnTokens: [String] = []
      }
      var seen = Seen()
      try db.addAuxiliaryFunction("inspect") { api, _, context in
        seen.rowid = api.rowid
        seen.columns = api.columnCount
        seen.texts = try (0..<api.columnCount).map { try api.columnText($0) }
        seen.sizes = try (0..<api.columnCount).map { try api.columnSize($0) }
        seen.rowSize = try api.columnSize()
        seen.rowCount = try api.rowCount()
        seen.totals = [try api.columnTotalSize(), try api.columnTotalSize(0), try api.columnTotalSize(1)]
        seen.phrases = (0..<api.phraseCount).map { api.phraseSize($0) }
        seen.instances = try (0..<api.instanceCount()).map { try api.instance(at: $0) }
        seen.phraseInstances = try (0..<api.phraseCount).map { phrase in
          var found: [Int] = []
          try api.forEachInstance(ofPhrase: phrase) { column, offset in found.append(column * 100 + offset) }
          return found
        }
        seen.phraseColumns = try (0..<api.phraseCount).map { phrase in
          var found: [Int] = []
          try api.forEachColumn(ofPhrase: phrase) { found.append($0) }
          return found
        }
        seen.queryTokens = try (0..<api.phraseCount).flatMap { phrase in
          try (0..<api.phraseSize(phrase)).map { try api.queryToken(phrase: phrase, token: $0) }
        }
        seen.instanceTokens = try (0..<api.instanceCount()).map { try api.instanceToken(at: $0, token: 0) }
        try api.tokenize("Hello, Wörld") { seen.tokens.append("\($0.text)@\($0.range)") }
        try api.tokenize(column: 0) { seen.columnTokens.append($0.text) }
        context.setResult(.integer(42))
      }
      let result = try fts5Rows(db, "SELECT inspect(docs) FROM docs WHERE docs MATCH 'sqli* \"swift is\"'")
      #expect(result == [[.integer(42)]])
      #expect(seen.rowid == 7)
      #expect(seen.columns == 2)
      #expect(seen.texts == ["Swift and SQLite", "SQLite is small. Swift is safe. SQLite is fast."])
      #expect(seen.sizes == [3, 9])
      #expect(seen.rowSize == 12)
      #expect(seen.rowCount == 3)
      #expect(seen.totals == [17, 5, 12])
      #expect(seen.phrases == [1, 2])
      #expect(
        seen.instances == [
          .init(phrase: 0, column: 0, offset: 2), .init(phrase: 0, column: 1, offset: 0),
          .init(phrase: 1, column: 1, offset: 3), .init(phrase: 0, column: 1, offset: 6),
        ])
      #expect(seen.phraseInstances == [[2, 100, 106], [103]])
      #expect(seen.phraseColumns == [[0, 1], [1]])
      #expect(seen.queryTokens == ["sqli", "swift", "is"])
      #expect(seen.instanceTokens == ["sqlite", "sqlite", "swift", "sqlite"])
      // unicode61 removes diacritics by default.
      #expect(seen.tokens == ["hello@0..<5", "world@7..<13"])
      #expect(seen.columnTokens == ["swift", "and", "sqlite"])
    }

    @Test func queryPhraseVisitsEveryRowOfThePhraseAndTheOuterViewStaysValid() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
      try db.execute(sql: "INSERT INTO docs(rowid, body) VALUES (1, 'a b'), (2, 'b c'), (3, 'a c'), (4, 'a')")
      var visits: [String] = []
      try db.addAuxiliaryFunction("phrase_rows") { api, _, context in
        var rowids: [Int64] = []
        try api.queryPhrase(1) { row in
          rowids.append(row.rowid)
          #expect(api.isValid)
          #expect(row.isValid)
        }
        visits.append("\(api.rowid):\(rowids)")
        context.setResult(.integer(Int64(rowids.count)))
      }
      #expect(try fts5Rows(db, "SELECT phrase_rows(docs) FROM docs WHERE docs MATCH 'a AND c'") == [[.integer(2)]])
      #expect(visits == ["3:[2, 3]"])
      #expect {
        _ = try fts5Rows(db, "SELECT phrase_rows(docs) FROM docs WHERE docs MATCH 'a'")
      } throws: { error in (error as? SQLiteError)?.code == .range }
    }

    @Test func auxiliaryDataLastsForOneQueryAndIsSharedByItsRows() throws {
      final class Counter { var rows = 0 }
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
      try db.execute(sql: "INSERT INTO docs VALUES ('x'), ('x y'), ('x z')")
      try db.addAuxiliaryFunction("row_number_in_query") { api, _, context in
        let counter = api.auxiliaryData as? Counter ?? Counter()
        if api.auxiliaryData == nil { try api.setAuxiliaryData(counter) }
        counter.rows += 1
        context.setResult(.integer(Int64(counter.rows)))
      }
      let sql = "SELECT row_number_in_query(docs) FROM docs WHERE docs MATCH 'x' ORDER BY rowid"
      #expect(try fts5Rows(db, sql) == [[.integer(1)], [.integer(2)], [.integer(3)]])
      // A new query starts with no data.
      #expect(try fts5Rows(db, sql) == [[.integer(1)], [.integer(2)], [.integer(3)]])
      weak var released: Counter?
      try db.addAuxiliaryFunction("take") { api, _, context in
        let counter = Counter()
        released = counter
        try api.setAuxiliaryData(counter)
        let removed = try api.removeAuxiliaryData()
        context.setResult(.integer(removed is Counter && api.auxiliaryData == nil ? 1 : 0))
      }
      #expect(try fts5Rows(db, "SELECT take(docs) FROM docs WHERE docs MATCH 'y'") == [[.integer(1)]])
      #expect(released == nil)
    }

    @Test func theColumnLocaleIsTheOneGivenWithFts5Locale() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(a, b, locale = 1)")
      try db.execute(sql: "INSERT INTO docs VALUES (fts5_locale('fr_FR', 'bonjour'), 'hello')")
      try db.addAuxiliaryFunction("locales") { api, _, context in
        context.setResult(
          .text(try (0..<api.columnCount).map { try api.columnLocale($0) ?? "-" }.joined(separator: ",")))
      }
      #expect(try fts5Strings(db, "SELECT locales(docs) FROM docs WHERE docs MATCH 'bonjour'") == ["fr_FR,-"])
    }

    @Test func argumentsErrorsAndOutOfRangeIndexes() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
      try db.execute(sql: "INSERT INTO docs VALUES ('x y')")
      try db.addAuxiliaryFunction("echo") { _, arguments, context in
        context.setResult(.text((0..<arguments.count).map { arguments.text(at: $0) ?? "NULL" }.joined(separator: "|")))
      }
      #expect(try fts5Strings(db, "SELECT echo(docs, 1, 'two', NULL) FROM docs WHERE docs MATCH 'x'") == ["1|two|NULL"])
      try db.addAuxiliaryFunction("fails") { _, _, _ in throw FTS5TestError(reason: "aux failure") }
      #expect {
        _ = try fts5Rows(db, "SELECT fails(docs) FROM docs WHERE docs MATCH 'x'")
      } throws: { error in (error as? SQLiteError)?.message == "aux failure" }
      try db.addAuxiliaryFunction("bad_column") { api, _, _ in _ = try api.columnText(5) }
      #expect {
        _ = try fts5Rows(db, "SELECT bad_column(docs) FROM docs WHERE docs MATCH 'x'")
      } throws: { error in (error as? SQLiteError)?.code == .range }
      try db.addAuxiliaryFunction("bad_instance") { api, _, _ in _ = try api.instance(at: 9) }
      #expect {
        _ = try fts5Rows(db, "SELECT bad_instance(docs) FROM docs WHERE docs MATCH 'x'")
      } throws: { error in (error as? SQLiteError)?.code == .range }
      try db.addAuxiliaryFunction("bad_phrase") { api, _, _ in try api.forEachInstance(ofPhrase: -1) { _, _ in } }
      #expect {
        _ = try fts5Rows(db, "SELECT bad_phrase(docs) FROM docs WHERE docs MATCH 'x'")
      } throws: { error in (error as? SQLiteError)?.code == .range }
    }

    @Test func keptCallbackValuesNeverReachSQLiteAfterTheCall() throws {
      let db = try Database()
      try db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
      try db.execute(sql: "INSERT INTO docs VALUES ('x y')")
      var keptAPI: FTS5ExtensionAPI?
      var keptArguments: FunctionArguments?
      var keptContext: FunctionContext?
      var keptToken: FTS5Token?
      var keptRow: FTS5ExtensionAPI?
      try db.addAuxiliaryFunction("keep") { api, arguments, context in
        keptAPI = api
        keptArguments = arguments
        keptContext = context
        try api.tokenize("hello") { keptToken = $0 }
        try api.queryPhrase(0) { keptRow = $0 }
        #expect(keptRow?.isValid == false)
        #expect(keptToken?.isValid == false)
        context.setResult(.integer(1))
      }
      _ = try fts5Rows(db, "SELECT keep(docs, 'argument') FROM docs WHERE docs MATCH 'x'")
      let api = try #require(keptAPI)
      #expect(!api.isValid)
      #expect(api.rowid == 0)
      #expect(api.columnCount == 0)
      #expect(api.phraseCount == 0)
      #expect(api.phraseSize(0) == 0)
      #expect(api.auxiliaryData == nil)
      let expired: (any Error) -> Bool = { error in
        if case .callbackValueExpired = error as? DatabaseError { return true }
        return false
      }
      #expect(performing: { _ = try api.columnText(0) }, throws: expired)
      #expect(performing: { _ = try api.instanceCount() }, throws: expired)
      #expect(performing: { _ = try api.rowCount() }, throws: expired)
      #expect(performing: { try api.queryPhrase(0) { _ in } }, throws: expired)
      #expect(performing: { try api.tokenize("x") { _ in } }, throws: expired)
      #expect(performing: { try api.setAuxiliaryData(1) }, throws: expired)
      #expect(performing: { try api.forEachInstance(ofPhrase: 0) { _, _ in } }, throws: expired)
      let row = try #require(keptRow)
      #expect(performing: { _ = try row.columnText(0) }, throws: expired)
      let token = try #require(keptToken)
      #expect(token.text == "")
      #expect(token.range == 0..<5)
      #expect(keptArguments?.text(at: 0) == nil)
      keptContext?.setResult(.integer(2))  // does nothing
      #expect(keptContext?.sqliteContext == nil)
    }
  }
#endif
