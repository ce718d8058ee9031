#if ENABLE_FTS5
  import Amalgam
  import AmalgamSQLite
  import Foundation

  let fts5DocumentCount = 100_000

  /// Splits exactly like FTS5's built-in `ascii` tokenizer: runs of ASCII letters and digits and of
  /// non-ASCII bytes are tokens, ASCII letters fold to lower case. A token with no upper-case letter
  /// is emitted as a range of the input (no copy); others are folded into a reused buffer.
  final class BenchmarkASCIITokenizer: FTS5Tokenizer {
    var buffer: UnsafeMutableRawBufferPointer

    init(arguments: FTS5TokenizerArguments) throws {
      buffer = .allocate(byteCount: 64, alignment: 1)
    }

    deinit { buffer.deallocate() }

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      try text.withUnsafeBytes { bytes in
        let count = bytes.count
        var index = 0
        while index < count {
          while index < count && !Self.isTokenByte(bytes[index]) { index += 1 }
          guard index < count else { break }
          let start = index
          var hasUpper = false
          while index < count && Self.isTokenByte(bytes[index]) {
            hasUpper = hasUpper || (bytes[index] &- 0x41) < 26
            index += 1
          }
          if !hasUpper {
            try tokens.emit(start..<index)
          } else {
            if index - start > buffer.count {
              buffer.deallocate()
              buffer = .allocate(byteCount: (index - start) * 2, alignment: 1)
            }
            for offset in 0..<(index - start) {
              let byte = bytes[start + offset]
              buffer[offset] = (byte &- 0x41) < 26 ? byte | 0x20 : byte
            }
            try tokens.emit(UnsafeRawBufferPointer(rebasing: buffer[0..<(index - start)]), range: start..<index)
          }
        }
      }
    }

    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
      byte >= 0x80 || (byte &- 0x30) < 10 || ((byte | 0x20) &- 0x61) < 26
    }
  }

  /// The per-query data of the Swift bm25: inverse document frequencies, average row length, and the
  /// phrase frequencies of the current row.
  final class BenchmarkBM25Data {
    let idf: [Double]
    let averageLength: Double
    var frequencies: [Double]
    init(idf: [Double], averageLength: Double) {
      self.idf = idf
      self.averageLength = averageLength
      frequencies = Array(repeating: 0, count: idf.count)
    }
  }

  /// bm25() written with Amalgam's auxiliary-function API, computing what FTS5's built-in computes.
  func swiftBM25(api: FTS5ExtensionAPI, arguments: FunctionArguments, context: FunctionContext) throws {
    let data: BenchmarkBM25Data
    if let stored = api.auxiliaryData as? BenchmarkBM25Data {
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
      data = BenchmarkBM25Data(idf: idf, averageLength: Double(tokens) / Double(rows))
      try api.setAuxiliaryData(data)
    }
    let phraseCount = data.idf.count
    for phrase in 0..<phraseCount { data.frequencies[phrase] = 0 }
    let weightCount = arguments.count
    for index in 0..<(try api.instanceCount()) {
      let instance = try api.instance(at: index)
      data.frequencies[instance.phrase] += weightCount > instance.column ? arguments.double(at: instance.column) : 1
    }
    let length = Double(try api.columnSize())
    let k1 = 1.2
    let b = 0.75
    var score = 0.0
    for phrase in 0..<phraseCount {
      let frequency = data.frequencies[phrase]
      score +=
        data.idf[phrase] * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / data.averageLength)))
    }
    context.setResult(.real(-1.0 * score))
  }

  /// Creates the FTS5 workloads' source documents and ranked table, and registers the Swift tokenizer
  /// and bm25 on `db`.
  func setUpFTS5Benchmark(_ db: Database) throws {
    try db.addTokenizer("swift_ascii", type: BenchmarkASCIITokenizer.self)
    try db.addAuxiliaryFunction("swift_bm25", swiftBM25)
    let words = [
      "alpha", "Bravo", "charlie", "delta", "Echo", "foxtrot", "golf", "hotel", "India", "juliet", "kilo", "lima",
      "Mike", "november", "oscar", "papa", "quebec", "Romeo", "sierra", "tango", "uniform", "victor", "whiskey",
      "x-ray", "yankee", "zulu", "café", "naïve", "2026", "common",
    ]
    try db.execute(sql: "CREATE TABLE fts_documents(body TEXT)")
    try db.execute(sql: "CREATE VIRTUAL TABLE fts_ranked USING fts5(body, tokenize = 'ascii')")
    try db.transaction { db in
      let insert = try db.prepare(sql: "INSERT INTO fts_documents VALUES (?)")
      var seed: UInt64 = 7
      for _ in 0..<fts5DocumentCount {
        var body = "common"
        for _ in 0..<8 {
          seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          body += (seed >> 60 == 0 ? ", " : " ") + words[Int(seed >> 33) % words.count]
        }
        try insert.bind(parameterValues: [body]).execute()
      }
      try db.execute(sql: "INSERT INTO fts_ranked(body) SELECT body FROM fts_documents")
    }
  }

  /// Recreates the two indexing tables, empty, before each run.
  func resetFTS5Indexes(_ db: Database) throws {
    try db.batch(
      sql: """
        DROP TABLE IF EXISTS fts_builtin_ascii;
        DROP TABLE IF EXISTS fts_swift_ascii;
        CREATE VIRTUAL TABLE fts_builtin_ascii USING fts5(body, tokenize = 'ascii');
        CREATE VIRTUAL TABLE fts_swift_ascii USING fts5(body, tokenize = 'swift_ascii');
        """)
  }

  /// Indexes the documents into `table` and returns a checksum of the index: rows, and the rows that
  /// hold three of the words.
  func indexDocumentsC(_ handle: OpaquePointer, table: String) throws -> Int {
    try checkC(sqlite3_exec(handle, "INSERT INTO \(table)(body) SELECT body FROM fts_documents", nil, nil, nil), handle)
    var checksum = Int(sqlite3_changes(handle))
    for word in ["bravo", "caf*", "2026"] {
      let statement = try prepareC(handle, "SELECT count(*) FROM \(table) WHERE \(table) MATCH '\(word)'")
      defer { sqlite3_finalize(statement) }
      try checkC(sqlite3_step(statement), handle, SQLITE_ROW)
      checksum = checksum &* 31 &+ Int(sqlite3_column_int64(statement, 0))
    }
    return checksum
  }

  /// Sums a ranking function over every row of a MATCH on all 100,000 documents.
  func rankSumC(_ handle: OpaquePointer, function: String) throws -> Int {
    let statement = try prepareC(
      handle, "SELECT \(function)(fts_ranked) FROM fts_ranked WHERE fts_ranked MATCH 'common OR bravo'")
    defer { sqlite3_finalize(statement) }
    var sum = 0.0
    var rc = sqlite3_step(statement)
    while rc == SQLITE_ROW {
      sum += sqlite3_column_double(statement, 0)
      rc = sqlite3_step(statement)
    }
    try checkC(rc, handle, SQLITE_DONE)
    return Int((sum * 1000).rounded())
  }

  func fts5Workloads() -> [Workload] {
    [
      Workload(
        number: 19, name: "FTS5: index 100k short documents, Swift ascii tokenizer vs built-in ascii", target: 2.0,
        prepareRun: resetFTS5Indexes,
        c: { handle in try indexDocumentsC(handle, table: "fts_builtin_ascii") },
        amalgam: { db in try indexDocumentsC(db.sqliteHandle, table: "fts_swift_ascii") }),
      Workload(
        number: 20, name: "FTS5: bm25 over a 100k-row MATCH, Swift auxiliary function vs built-in", target: 2.0,
        c: { handle in try rankSumC(handle, function: "bm25") },
        amalgam: { db in
          var sum = 0.0
          try db.prepare(sql: "SELECT swift_bm25(fts_ranked) FROM fts_ranked WHERE fts_ranked MATCH 'common OR bravo'")
            .results { row in sum += try row.value(at: 0) as Double }
          return Int((sum * 1000).rounded())
        }),
    ]
  }
#endif
