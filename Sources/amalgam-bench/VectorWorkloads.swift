// Workload 31 (VECTOR trait): inserting float32 vectors into a sqlite-vec `vec0` table. The C side binds
// each vector's bytes with sqlite3_bind_blob64; the Amalgam side binds the same `Float32Vector`s through a
// reused statement. 10,000 vectors of 384 dimensions (15 MB), in one transaction, keep a callgrind run
// short; the cost is per row, so the ratio is the same for 100,000.
import Amalgam
import AmalgamSQLite

#if VECTOR
  private let vectorCount = 10_000
  private let vectorDimensions = 384
  private let vectorInsertSQL = "INSERT INTO bench_vectors(rowid, embedding) VALUES (?, ?)"

  /// The vectors both sides insert, made once: deterministic values in [-0.5, 0.5).
  private let benchVectors: [Float32Vector] = (0..<vectorCount).map { row in
    Float32Vector(
      (0..<vectorDimensions).map { column in Float((row &* 31 &+ column &* 17) % 1000) / 1000 - 0.5 })
  }

  /// A new, empty `vec0` table before each run, so both sides insert into the same state.
  private func recreateVectorTable(_ db: Database) throws {
    try db.batch(
      sql: """
        DROP TABLE IF EXISTS bench_vectors;
        CREATE VIRTUAL TABLE bench_vectors USING vec0(embedding float[\(vectorDimensions)]);
        """)
  }

  /// The rows and the first and last element of every stored vector, read back through sqlite-vec.
  private func vectorChecksum(_ db: Database) throws -> Int {
    let handle = try db.sqliteHandle
    let statement = try prepareC(
      handle,
      """
      SELECT count(*), total(rowid), total(json_extract(vec_to_json(embedding), '$[0]')
        + json_extract(vec_to_json(embedding), '$[\(vectorDimensions - 1)]')) FROM bench_vectors
      """)
    defer { sqlite3_finalize(statement) }
    try checkC(sqlite3_step(statement), handle, SQLITE_ROW)
    return Int(sqlite3_column_int64(statement, 0)) &+ Int(sqlite3_column_double(statement, 1))
      &+ Int((sqlite3_column_double(statement, 2) * 1000).rounded())
  }

  /// Workload 31 through the C API: one reused statement, each vector's bytes bound as a BLOB (copied by
  /// SQLite, as Amalgam's binding is).
  private func insertVectorsC(_ handle: OpaquePointer) throws -> Int {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    try checkC(sqlite3_exec(handle, "BEGIN", nil, nil, nil), handle)
    let statement = try prepareC(handle, vectorInsertSQL)
    for (index, vector) in benchVectors.enumerated() {
      sqlite3_bind_int64(statement, 1, Int64(index + 1))
      let rc = vector.elements.withUnsafeBytes { bytes in
        sqlite3_bind_blob64(statement, 2, bytes.baseAddress, UInt64(bytes.count), transient)
      }
      try checkC(rc, handle)
      try checkC(sqlite3_step(statement), handle, SQLITE_DONE)
      sqlite3_reset(statement)
    }
    sqlite3_finalize(statement)
    try checkC(sqlite3_exec(handle, "COMMIT", nil, nil, nil), handle)
    return vectorCount
  }

  /// Workload 31 through Amalgam: a reused statement binding `Float32Vector`s.
  private func insertVectors(_ db: Database) throws -> Int {
    try db.transaction { db in
      let insert = try db.prepare(sql: vectorInsertSQL)
      for (index, vector) in benchVectors.enumerated() { try insert.bind(index + 1, vector).execute() }
    }
    return vectorCount
  }

  func vectorWorkloads() -> [Workload] {
    [
      Workload(
        number: 31, name: "vector: insert 10k float32 vectors of 384 dimensions into vec0, one transaction",
        target: 1.10,
        prepareRun: { db in
          _ = benchVectors.count  // made before the first run, outside the counted region
          try recreateVectorTable(db)
        },
        verifyRun: vectorChecksum,
        c: insertVectorsC,
        amalgam: insertVectors)
    ]
  }
#else
  func vectorWorkloads() -> [Workload] { [] }
#endif
