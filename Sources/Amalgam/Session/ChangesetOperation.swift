#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// One row change read from a changeset or patchset, copied into Swift values: it stays valid after
  /// the iteration that produced it.
  ///
  /// `oldValues` and `newValues` have one element per column of the table (in the changeset's column
  /// order; for a rowid table recorded without a primary key, column 0 is the rowid). An element is
  /// `nil` when the changeset holds no value for that column, which is not the same as SQL NULL
  /// (`.null`): an update records old and new values only for the columns it changed (and the primary
  /// key's old values); a patchset's delete records only the primary key.
  ///
  /// TEXT that is not valid UTF-8 is valid in SQLite, but a Swift `String` cannot hold it: such a
  /// value is given as ``DatabaseValue/blob(_:)`` of its exact bytes, and its column is listed in
  /// ``oldNonUTF8TextColumns`` or ``newNonUTF8TextColumns``, so that the bytes and their storage class
  /// both survive (``Changegroup/add(_:)-(ChangesetOperation)`` writes such a column back as TEXT).
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/sqlite3changeset_op.html>
  public struct ChangesetOperation: Sendable, Hashable {
    /// The table the row belongs to.
    public var table: String
    /// Whether the row was inserted, updated or deleted.
    public var operation: DatabaseEvent.Operation
    /// True for a change made by a trigger or foreign-key action, or recorded while the session was
    /// indirect (``Session/setIndirect(_:)``).
    public var isIndirect: Bool
    /// The number of columns of the table as recorded.
    public var columnCount: Int
    /// The indices of the primary-key columns (`sqlite3changeset_pk`).
    public var primaryKeyColumns: [Int]
    /// The values before the change, one per column; empty for an insert. `nil` means "not recorded".
    public var oldValues: [DatabaseValue?]
    /// The values after the change, one per column; empty for a delete. `nil` means "not recorded"
    /// (for an update: the column did not change).
    public var newValues: [DatabaseValue?]
    /// The indices, in ascending order, of the ``oldValues`` that are TEXT which is not valid UTF-8,
    /// given as ``DatabaseValue/blob(_:)`` of the text's bytes. Usually empty.
    public var oldNonUTF8TextColumns: [Int]
    /// The indices, in ascending order, of the ``newValues`` that are TEXT which is not valid UTF-8,
    /// given as ``DatabaseValue/blob(_:)`` of the text's bytes. Usually empty.
    public var newNonUTF8TextColumns: [Int]

    /// Creates an operation, for example to add to a ``Changegroup`` with ``Changegroup/add(_:)-(ChangesetOperation)``.
    /// A column listed in `oldNonUTF8TextColumns` or `newNonUTF8TextColumns` must hold a
    /// ``DatabaseValue/blob(_:)``, whose bytes are the TEXT value.
    public init(
      table: String, operation: DatabaseEvent.Operation, isIndirect: Bool = false, columnCount: Int,
      primaryKeyColumns: [Int], oldValues: [DatabaseValue?], newValues: [DatabaseValue?],
      oldNonUTF8TextColumns: [Int] = [], newNonUTF8TextColumns: [Int] = []
    ) {
      self.table = table
      self.operation = operation
      self.isIndirect = isIndirect
      self.columnCount = columnCount
      self.primaryKeyColumns = primaryKeyColumns
      self.oldValues = oldValues
      self.newValues = newValues
      self.oldNonUTF8TextColumns = oldNonUTF8TextColumns
      self.newNonUTF8TextColumns = newNonUTF8TextColumns
    }

    /// Copies the current change of a changeset iterator.
    init(iterator: OpaquePointer) throws {
      var tableName: UnsafePointer<CChar>?
      var columns: Int32 = 0
      var code: Int32 = 0
      var indirect: Int32 = 0
      var rc = sqlite3changeset_op(iterator, &tableName, &columns, &code, &indirect)
      guard rc == SQLITE_OK else { throw sessionError(rc) }
      guard let operation = DatabaseEvent.Operation(code: code) else {
        throw sessionError(SQLITE_CORRUPT, message: "The changeset holds an unknown operation \(code)")
      }
      var primaryKey: UnsafeMutablePointer<UInt8>?
      var primaryKeyCount: Int32 = 0
      rc = sqlite3changeset_pk(iterator, &primaryKey, &primaryKeyCount)
      guard rc == SQLITE_OK else { throw sessionError(rc) }
      let count = Int(max(columns, 0))
      var keys: [Int] = []
      if let primaryKey {
        for index in 0..<min(count, Int(primaryKeyCount)) where primaryKey[index] != 0 { keys.append(index) }
      }
      self.table = hookString(tableName) ?? ""
      self.operation = operation
      self.isIndirect = indirect != 0
      self.columnCount = count
      self.primaryKeyColumns = keys
      (oldValues, oldNonUTF8TextColumns) =
        operation == .insert ? ([], []) : try Self.values(iterator, count, sqlite3changeset_old)
      (newValues, newNonUTF8TextColumns) =
        operation == .delete ? ([], []) : try Self.values(iterator, count, sqlite3changeset_new)
    }

    /// Reads `count` values with `read` (`sqlite3changeset_old`, `_new` or `_conflict`): each value, or
    /// `nil` when it is not recorded, and the columns whose TEXT is not valid UTF-8.
    static func values(
      _ iterator: OpaquePointer, _ count: Int,
      _ read: (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    ) throws -> (values: [DatabaseValue?], nonUTF8TextColumns: [Int]) {
      var values: [DatabaseValue?] = []
      var nonUTF8TextColumns: [Int] = []
      values.reserveCapacity(count)
      for column in 0..<count {
        var value: OpaquePointer?
        let rc = read(iterator, Int32(column), &value)
        guard rc == SQLITE_OK else { throw sessionError(rc) }
        guard let value else {
          values.append(nil)
          continue
        }
        let (read, isNonUTF8Text) = try DatabaseValue.changesetValue(value)
        values.append(read)
        if isNonUTF8Text { nonUTF8TextColumns.append(column) }
      }
      return (values, nonUTF8TextColumns)
    }
  }

  extension DatabaseValue {
    /// Reads a value of a changeset without failing on any value SQLite accepts: TEXT that is not valid
    /// UTF-8, which a `String` cannot hold, is `.blob` of its bytes with `isNonUTF8Text` true.
    static func changesetValue(_ value: OpaquePointer) throws -> (value: DatabaseValue, isNonUTF8Text: Bool) {
      guard sqlite3_value_type(value) == SQLITE_TEXT else {
        return (try DatabaseValue(strictSQLiteValue: value), false)
      }
      // NULL for TEXT: SQLite ran out of memory; do not read the length then.
      guard let bytes = sqlite3_value_text(value) else {
        throw SQLiteError(code: .noMemory, message: "Out of memory reading a changeset value as text")
      }
      let text = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
      if let string = String.validatingUTF8(text) { return (.text(string), false) }
      return (.blob(Data(buffer: text)), true)
    }
  }
#endif
