#if VECTOR
  import Amalgam
  import Foundation
  import Testing

  /// vec0 tables shared with sqlite-vec 0.1.9's own build: the PyPI wheel's loadable extension, loaded into
  /// APSW (`pip install sqlite-vec==0.1.9 apsw-sqlite3mc`). Each side reads what the other wrote: the same
  /// rows, and the same nearest neighbours at bit-identical distances.
  ///
  /// APSW here is the one on SQLite3 Multiple Ciphers that the encryption interoperability tests use: it
  /// loads extensions, and plain `apsw` installs the same `apsw` module, so the two cannot be installed
  /// side by side. The test skips when Python lacks either package, unless
  /// `AMALGAM_REQUIRE_VECTOR_INTEROP` is set (CI sets it), in which case it fails.
  @Suite struct VectorInteropTests {
    static let environment = ProcessInfo.processInfo.environment
    static var required: Bool { !(environment["AMALGAM_REQUIRE_VECTOR_INTEROP"] ?? "").isEmpty }

    /// A python3 whose APSW loads the sqlite_vec package's extension.
    static let python: URL? = {
      guard let python = ChildProcess.inPath("python3") else { return nil }
      let process = Process()
      process.executableURL = python
      process.arguments = [
        "-c",
        "import apsw, sqlite_vec; c = apsw.Connection(':memory:'); c.enable_load_extension(True); "
          + "c.load_extension(sqlite_vec.loadable_path()); assert c.execute('SELECT vec_version()').get == 'v0.1.9'",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      guard (try? process.run()) != nil else { return nil }
      process.waitUntilExit()
      return process.terminationStatus == 0 ? python : nil
    }()

    /// The SQL both sides run to list the rows, one line each.
    static let rowsSQL = """
      SELECT 'row|' || rowid || '|' || author_id || '|' || hex(embedding) || '|' || hex(code) || '|' || hex(bits)
        || '|' || category || '|' || title FROM item ORDER BY rowid
      """

    /// The Python program: writes the file (`write`), or only reads it (`read`); then prints its rows and,
    /// for each stored query, the 7 nearest neighbours in each vector column (and in one partition and
    /// category), ordered by distance then rowid, each as `rowid:bit pattern of the distance`.
    static let script = #"""
      import apsw, random, sqlite_vec, struct, sys
      path, mode = sys.argv[1], sys.argv[2]
      db = apsw.Connection(path)
      db.enable_load_extension(True)
      db.load_extension(sqlite_vec.loadable_path())
      if mode == "write":
          rng = random.Random(38)
          db.execute("CREATE VIRTUAL TABLE item USING vec0(author_id integer partition key, "
                     "embedding float[16] distance_metric=cosine, code int8[8], bits bit[32], category text, +title text)")
          db.execute("CREATE TABLE query(id INTEGER PRIMARY KEY, embedding BLOB, code BLOB, bits BLOB)")
          def vectors():
              return (struct.pack("<16f", *[rng.uniform(-1, 1) for _ in range(16)]),
                      struct.pack("<8b", *[rng.randint(-128, 127) for _ in range(8)]),
                      bytes(rng.randrange(256) for _ in range(4)))
          with db:
              for rowid in range(1, 201):
                  e, c, b = vectors()
                  db.execute("INSERT INTO item(rowid, author_id, embedding, code, bits, category, title) "
                             "VALUES (?, ?, ?, vec_int8(?), vec_bit(?), ?, ?)",
                             (rowid, rowid % 3, e, c, b, ["work", "home"][rowid % 2], "title %d" % rowid))
              for id in range(1, 4):
                  db.execute("INSERT INTO query VALUES (?, ?, ?, ?)", (id, *vectors()))
      for (line,) in db.execute(sys.argv[3]):
          print(line)
      searches = [("embedding", "embedding MATCH ?"), ("code", "code MATCH vec_int8(?)"),
                  ("bits", "bits MATCH vec_bit(?)"),
                  ("filtered", "embedding MATCH ? AND author_id = 1 AND category = 'work'")]
      for id, e, c, b in db.execute("SELECT id, embedding, code, bits FROM query ORDER BY id").fetchall():
          for (name, condition), vector in zip(searches, [e, c, b, e]):
              rows = db.execute("SELECT rowid, distance FROM item WHERE " + condition + " AND k = 7 ORDER BY distance",
                                (vector,)).fetchall()
              rows.sort(key=lambda row: (row[1], row[0]))
              pattern = lambda d: struct.unpack("<q", struct.pack("<d", d))[0]
              print("knn|%d|%s|" % (id, name) + "|".join("%d:%d" % (r, pattern(d)) for r, d in rows))
      db.close()
      """#

    /// Writes the file through Amalgam's API: the same schema as the Python program, other random vectors.
    static func writeWithAmalgam(_ path: String) throws {
      var random = SeededGenerator(seed: 38)
      func vectors() throws -> (Float32Vector, Int8Vector, BitVector) {
        (
          Float32Vector((0..<16).map { _ in Float.random(in: -1...1, using: &random) }),
          Int8Vector((0..<8).map { _ in Int8.random(in: -128...127, using: &random) }),
          BitVector(bytes: (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) })
        )
      }
      let db = try Database(path: path)
      try db.create(vectorTable: "item") { t in
        t.partitionKey("author_id", .integer)
        t.vector("embedding", dimensions: 16, distance: .cosine)
        t.vector("code", dimensions: 8, elementType: .int8)
        t.vector("bits", dimensions: 32, elementType: .bit)
        t.metadata("category", .text)
        t.auxiliary("title", .text)
      }
      try db.execute(sql: "CREATE TABLE query(id INTEGER PRIMARY KEY, embedding BLOB, code BLOB, bits BLOB)")
      try db.transaction { db in
        let insert = try db.prepare(
          sql: "INSERT INTO item(rowid, author_id, embedding, code, bits, category, title) "
            + "VALUES (?, ?, ?, vec_int8(?), vec_bit(?), ?, ?)")
        for rowid in 1...200 {
          let (e, c, b) = try vectors()
          try insert.bind(rowid, rowid % 3, e, c, b, ["work", "home"][rowid % 2], "title \(rowid)").execute()
        }
        for id in 1...3 {
          let (e, c, b) = try vectors()
          try db.execute(sql: "INSERT INTO query VALUES (?, ?, ?, ?)", arguments: [id, e, c, b])
        }
      }
      try db.close()
    }

    /// What Amalgam reads from the file, in the Python program's format.
    static func readWithAmalgam(_ path: String) throws -> [String] {
      let db = try Database(path: path)
      defer { try? db.close() }
      var lines = try db.fetchAll(String.self, sql: rowsSQL)
      let queries = try db.fetchRows(sql: "SELECT id, embedding, code, bits FROM query ORDER BY id")
      for query in queries {
        let id: Int = try query.value(at: 0)
        let embedding: Float32Vector = try query.value(at: 1)
        let searches: [(String, [VectorMatch])] = [
          ("embedding", try db.nearestNeighbors(to: embedding, in: "item", column: "embedding", k: 7)),
          ("code", try db.nearestNeighbors(to: try query.value(at: 2) as Int8Vector, in: "item", column: "code", k: 7)),
          ("bits", try db.nearestNeighbors(to: try query.value(at: 3) as BitVector, in: "item", column: "bits", k: 7)),
          (
            "filtered",
            try db.nearestNeighbors(
              to: embedding, in: "item", column: "embedding", k: 7, filter: "author_id = 1 AND category = 'work'")
          ),
        ]
        for (name, matches) in searches {
          lines.append(
            "knn|\(id)|\(name)|"
              + matches.map { "\($0.rowid):\(Int64(bitPattern: $0.distance.bitPattern))" }
              .joined(separator: "|"))
        }
      }
      return lines
    }

    @Test(.enabled(if: python != nil || required, "python3 with apsw-sqlite3mc and sqlite-vec is not installed"))
    func sqliteVecsOwnBuildReadsAmalgamsTablesAndAmalgamReadsItsTables() async throws {
      let python = try #require(
        Self.python,
        "python3 with APSW and sqlite-vec 0.1.9 was not found (pip install apsw-sqlite3mc sqlite-vec==0.1.9)")
      try await withTemporaryDirectory { directory in
        let ours = directory.appendingPathComponent("amalgam.db").path
        try Self.writeWithAmalgam(ours)
        let read = try await ChildProcess.run(python, ["-c", Self.script, ours, "read", Self.rowsSQL], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        let amalgamLines = try Self.readWithAmalgam(ours)
        #expect(amalgamLines.count == 200 + 12)
        #expect(read.stdout.split(separator: "\n").map(String.init) == amalgamLines)

        let theirs = directory.appendingPathComponent("sqlite-vec.db").path
        let write = try await ChildProcess.run(
          python, ["-c", Self.script, theirs, "write", Self.rowsSQL], in: directory)
        #expect(write.status == 0, "\(write.stderr)")
        let pythonLines = write.stdout.split(separator: "\n").map(String.init)
        #expect(pythonLines.count == 200 + 12)
        #expect(try Self.readWithAmalgam(theirs) == pythonLines)
      }
    }
  }
#endif
