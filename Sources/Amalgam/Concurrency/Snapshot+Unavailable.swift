#if !ENABLE_SNAPSHOT
  import AmalgamSQLite

  // Without the ENABLE_SNAPSHOT trait, WAL snapshots are declared but unavailable, so that a use of them
  // fails to compile with a message that names the trait. Nothing here can run.

  /// A recorded state of a WAL database. Needs the `ENABLE_SNAPSHOT` trait.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot.html>
  @available(
    *, unavailable,
    message: "DatabaseSnapshot needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
  )
  public final class DatabaseSnapshot {}

  extension ResultCode {
    /// `SQLITE_ERROR_SNAPSHOT`. Needs the `ENABLE_SNAPSHOT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/rescode.html#error_snapshot>
    @available(
      *, unavailable,
      message: "errorSnapshot needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
    )
    public static var errorSnapshot: ResultCode { ResultCode(rawValue: SQLITE_ERROR | (3 << 8)) }
  }

  extension Database {
    /// Records the state of the open read transaction. Needs the `ENABLE_SNAPSHOT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_get.html>
    @available(
      *, unavailable, message: "takeSnapshot needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
    )
    public func takeSnapshot(schema: String = "main") throws -> DatabaseSnapshot { throw snapshotTraitMissing() }

    /// Moves the open transaction to a snapshot. Needs the `ENABLE_SNAPSHOT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    @available(
      *, unavailable, message: "openSnapshot needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
    )
    public func openSnapshot(_ snapshot: DatabaseSnapshot, schema: String = "main") throws {
      throw snapshotTraitMissing()
    }
  }

  // One declaration for the queue, the read queue and the pool: they all conform to DatabaseReader.
  extension DatabaseReader {
    /// Reads the database as it was at a snapshot, blocking. Needs the `ENABLE_SNAPSHOT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    @available(
      *, unavailable, message: "read(at:) needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
    )
    public func read<T>(at snapshot: DatabaseSnapshot, _ body: (Database) throws -> T) throws -> T {
      throw snapshotTraitMissing()
    }

    /// Reads the database as it was at a snapshot. Needs the `ENABLE_SNAPSHOT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    @available(
      *, unavailable, message: "read(at:) needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
    )
    public func read<T: Sendable>(
      at snapshot: DatabaseSnapshot, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T { throw snapshotTraitMissing() }
  }

  extension DatabaseReadQueue {
    /// Begins a long read transaction on a snapshot. Needs the `ENABLE_SNAPSHOT` trait.
    ///
    /// Related SQLite documentation: <https://sqlite.org/c3ref/snapshot_open.html>
    @available(
      *, unavailable,
      message: "beginReadTransaction(at:) needs the ENABLE_SNAPSHOT trait: add it to the Amalgam dependency's traits"
    )
    public func beginReadTransaction(at snapshot: DatabaseSnapshot) throws { throw snapshotTraitMissing() }
  }

  /// The error the bodies above would throw; they cannot be called.
  private func snapshotTraitMissing() -> SQLiteError {
    SQLiteError(code: .misuse, message: "Snapshots need the ENABLE_SNAPSHOT trait")
  }
#endif
