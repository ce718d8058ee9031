import AmalgamSQLite

/// Records the region a closure reads on a connection: every table SQLite's authorizer reports a read
/// of while the closure's statements are prepared. Registering the authorizer again at the start makes
/// SQLite prepare every statement of the connection again before it next runs, so statements taken
/// from the statement cache are recorded too.
///
/// Used only on the thread using the connection.
final class RegionRecorder: ConnectionState, AuthorizerListener {
  private var region: DatabaseRegion?

  init() {}

  /// Runs `body` on `db`, and returns its value with the region it read.
  static func record<T>(_ db: Database, _ body: () throws -> T) throws -> (T, DatabaseRegion) {
    let connection = db.connection
    let recorder = connection.state(RegionRecorder.self)
    try connection.withHandle { handle in
      let dispatcher = AuthorizerDispatcher.on(connection, handle)
      dispatcher.addListener(recorder)
      dispatcher.register(handle)
    }
    recorder.region = DatabaseRegion()
    let value: T
    do {
      defer { recorder.stop(connection) }
      value = try body()
    }
    var region = recorder.region ?? .fullDatabase
    recorder.region = nil
    if !region.isFullDatabase { region = try markVirtualTables(region, db) }
    return (value, region)
  }

  private func stop(_ connection: Connection) {
    guard let handle = connection.handle, let dispatcher = AuthorizerDispatcher.existing(on: connection) else {
      return
    }
    dispatcher.removeListener(self)
    dispatcher.uninstallIfUnused(connection, handle)
  }

  /// Marks the virtual tables of `region`, whose shadow tables it then covers: one query per schema
  /// the region reads.
  private static func markVirtualTables(_ region: DatabaseRegion, _ db: Database) throws -> DatabaseRegion {
    var virtualTables: Set<DatabaseRegion.Table> = []
    for schema in Set(region.tables.map(\.schema)) {
      let names = try db.prepare(
        sql: "SELECT name FROM \(quoteIdentifier(schema)).sqlite_schema "
          + "WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
      ).column(0, as: String.self)
      for name in names {
        let table = DatabaseRegion.Table(schema: schema, name: name)
        if region.tables.contains(table) { virtualTables.insert(table) }
      }
    }
    return DatabaseRegion(tables: region.tables, virtualTables: virtualTables)
  }

  func authorize(
    _ code: Int32, _ argument1: UnsafePointer<CChar>?, _ argument2: UnsafePointer<CChar>?,
    databaseName: UnsafePointer<CChar>?, triggerOrView: UnsafePointer<CChar>?
  ) -> Int32 {
    guard region != nil else { return SQLITE_OK }
    switch code {
    case SQLITE_READ:
      if let argument1 {
        region?.insert(
          DatabaseRegion.Table(
            schema: databaseName.map { String(cString: $0) } ?? "main", name: String(cString: argument1)))
      }
    case SQLITE_PRAGMA:
      // What a pragma reads is unknown: the query depends on every table.
      region = .fullDatabase
    default:
      break
    }
    return SQLITE_OK
  }

  func connectionDidClose() {
    region = nil
  }
}
