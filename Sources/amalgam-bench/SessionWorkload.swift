// Workload 12: sessions. Record 100,000 row inserts with a session, produce the changeset, then delete
// the rows and apply the changeset to put them back; once through SQLite's C API, once through Amalgam's.
import Amalgam
import AmalgamSQLite

/// The row changes recorded, produced and applied by workload 12.
let sessionRowCount = 100_000

/// The session workloads, when the build has sessions (trait ENABLE_SESSION).
func sessionWorkloads() -> [Workload] {
  #if ENABLE_SESSION
    [
      Workload(
        number: 12, name: "session: record, produce and apply 100k row changes", target: 1.2,
        prepareRun: { db in
          try db.batch(
            sql: """
              CREATE TABLE IF NOT EXISTS session_rows(id INTEGER PRIMARY KEY, v INTEGER, label TEXT);
              DELETE FROM session_rows;
              """)
        },
        verifyRun: { db in try sessionChecksum(db.sqliteHandle) },
        c: sessionWorkloadC,
        amalgam: { db in
          let session = try Session(database: db)
          try session.attach("session_rows")
          try db.transaction { db in
            let insert = try db.prepare(sql: "INSERT INTO session_rows VALUES (?, ?, ?)")
            for row in 0..<sessionRowCount {
              try insert.bind(row, row &* 7, "row").execute()
            }
          }
          let changeset = try session.changeset()
          try db.execute(sql: "DELETE FROM session_rows")
          try db.apply(changeset)
          return changeset.data.count
        })
    ]
  #else
    []
  #endif
}

#if ENABLE_SESSION
  /// Workload 12 through SQLite's C API.
  func sessionWorkloadC(_ handle: OpaquePointer) throws -> Int {
    var session: OpaquePointer?
    try checkC(sqlite3session_create(handle, "main", &session), handle)
    defer { sqlite3session_delete(session) }
    try checkC(sqlite3session_attach(session, "session_rows"), handle)
    try checkC(sqlite3_exec(handle, "BEGIN", nil, nil, nil), handle)
    let insert = try prepareC(handle, "INSERT INTO session_rows VALUES (?, ?, ?)")
    for row in 0..<sessionRowCount {
      sqlite3_bind_int64(insert, 1, Int64(row))
      sqlite3_bind_int64(insert, 2, Int64(row &* 7))
      sqlite3_bind_text(insert, 3, "row", 3, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
      try checkC(sqlite3_step(insert), handle, SQLITE_DONE)
      sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    try checkC(sqlite3_exec(handle, "COMMIT", nil, nil, nil), handle)
    var size: Int32 = 0
    var bytes: UnsafeMutableRawPointer?
    try checkC(sqlite3session_changeset(session, &size, &bytes), handle)
    defer { sqlite3_free(bytes) }
    try checkC(sqlite3_exec(handle, "DELETE FROM session_rows", nil, nil, nil), handle)
    try checkC(
      sqlite3changeset_apply_v2(
        handle, size, bytes, nil, { _, _, _ in SQLITE_CHANGESET_ABORT }, nil, nil, nil, 0), handle)
    return Int(size)
  }

  /// The rows' count and sum (added to the changeset's size, which each side returns): equal only if both
  /// sides did the same work. Run after each run, outside the measured region.
  func sessionChecksum(_ handle: OpaquePointer) throws -> Int {
    let statement = try prepareC(handle, "SELECT count(*), sum(v) FROM session_rows")
    defer { sqlite3_finalize(statement) }
    try checkC(sqlite3_step(statement), handle, SQLITE_ROW)
    return Int(sqlite3_column_int64(statement, 0)) &+ Int(sqlite3_column_int64(statement, 1))
  }
#endif
