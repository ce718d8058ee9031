import AmalgamSQLite

/// The box SQLite holds for a client-data value: any Swift value, kept until it is replaced, removed,
/// or the connection closes.
private final class ClientDataBox {
  let value: Any
  init(_ value: Any) { self.value = value }
}

/// SQLite's destructor for client data: gives back the reference taken when the value was set.
private func releaseClientData(_ pointer: UnsafeMutableRawPointer?) {
  guard let pointer else { return }
  Unretained<ClientDataBox>.releaseOpaque(pointer)
}

extension Database {
  /// Attaches `value` to the connection under `name` (`sqlite3_set_clientdata`), replacing and
  /// releasing any value already there; `nil` removes it. Read it back with
  /// ``clientData(forKey:as:)`` from anywhere that has the connection: a function, a hook, a virtual
  /// table.
  ///
  /// SQLite stores the value under `"amalgam:"` followed by `name`, so that it never meets the
  /// client data that C code using the same handle stores with `sqlite3_set_clientdata`.
  ///
  /// ```swift
  /// try db.setClientData(AuditLog(), forKey: "audit")
  /// let log = db.clientData(forKey: "audit", as: AuditLog.self)
  /// ```
  ///
  /// SQLite keeps the value until it is replaced or removed, or the connection is closed: it is
  /// released when SQLite really closes the connection (after ``close()``, once the last statement is
  /// finalized). Its `deinit` must not use the connection.
  ///
  /// - Parameters:
  ///   - value: any Swift value, or `nil` to remove the value.
  ///   - name: the key; names are compared exactly (case-sensitively). Pick names that other libraries
  ///     using the same connection will not, such as a reverse-DNS prefix.
  /// - Throws: ``DatabaseError/databaseClosed``; ``SQLiteError`` with code ``ResultCode/noMemory``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/get_clientdata.html>
  public func setClientData<Value>(_ value: Value?, forKey name: String) throws {
    let rc = try connection.withHandle { handle in
      let key = Self.clientDataKey(name)
      guard let value else { return sqlite3_set_clientdata(handle, key, nil, nil) }
      // SQLite calls the destructor itself when the call fails.
      let box = Unretained.retainedOpaque(ClientDataBox(value))
      return sqlite3_set_clientdata(handle, key, box, releaseClientData)
    }
    try check(rc)
  }

  /// The value attached to the connection under `name` with ``setClientData(_:forKey:)``
  /// (`sqlite3_get_clientdata`); `nil` when there is none, when it is not a `Value`, or once the
  /// connection is closed.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/get_clientdata.html>
  public func clientData<Value>(forKey name: String, as type: Value.Type = Value.self) -> Value? {
    guard let openHandle, let pointer = sqlite3_get_clientdata(openHandle, Self.clientDataKey(name)) else {
      return nil
    }
    // Only setClientData stores values under an "amalgam:" name, always in a ClientDataBox.
    return Unretained<ClientDataBox>(opaque: pointer).object.value as? Value
  }

  /// The name SQLite stores Swift client data under.
  private static func clientDataKey(_ name: String) -> String { "amalgam:" + name }
}
