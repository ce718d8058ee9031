#if ENABLE_SESSION
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// Checks bytes in SQLite's changeset (or patchset) format before SQLite reads them, whole or as they
  /// stream past, and notes the tables they change. Every changeset Amalgam hands to SQLite goes
  /// through it first: ``validate(_:inverting:)`` for bytes in memory, `StreamContext` for input streams.
  ///
  /// Only SQLite's iterator (`sqlite3changeset_next`) checks each length against the bytes left.
  /// `sqlite3changegroup_add`, `sqlite3changeset_concat`, `sqlite3changeset_invert` and the rebaser of
  /// SQLite 3.53.4 find the end of a record by its declared lengths: a truncated record made them read
  /// past the end of their buffer, a length that overflowed to a negative size made them read before
  /// it, and `sqlite3rebaser_rebase` stopped at corrupt bytes without an error, returning part of its
  /// input. Here, bytes that SQLite's iterator refuses, or that SQLite never writes, throw
  /// `SQLITE_CORRUPT` before SQLite sees them.
  ///
  /// The format (sqlite3session.h, "CHANGESET FORMAT"): a table header is `'T'` (changeset) or `'P'`
  /// (patchset), a varint column count, one primary-key byte per column and the table name ending in a
  /// NUL byte. A change is an operation byte (`SQLITE_INSERT`, `SQLITE_UPDATE` or `SQLITE_DELETE`), an
  /// indirect flag byte, then its values: the new row of an insert; the old row of a delete (its
  /// primary key alone in a patchset); the old row then the new row of an update (the new row alone in
  /// a patchset). A value is a type byte: 0 (not recorded) or `SQLITE_NULL` alone, `SQLITE_INTEGER` or
  /// `SQLITE_FLOAT` and 8 bytes, `SQLITE_TEXT` or `SQLITE_BLOB` and a varint length and that many bytes.
  ///
  /// Related SQLite documentation: <https://sqlite.org/session/changeset_iter.html>
  struct ChangesetValidator {
    /// Consecutive changes to one table, as `sqlite3changeset_apply` meets them: it calls its table
    /// filter and checks the target's schema once per run.
    struct TableRun {
      /// The table name's bytes, as the changeset holds them (without the NUL).
      var name: [UInt8]
      /// The column count of the table header that starts the run.
      var columnCount: Int
      /// The primary-key bytes of that header, one per column (0: not part of the key).
      var primaryKey: [UInt8]
      /// The number of changes in the run.
      var changeCount: Int

      /// The name as a string (bytes that are not UTF-8 replaced by U+FFFD, as SQLite reports names).
      var tableName: String { String(decoding: name, as: UTF8.self) }
    }

    /// The runs read so far, in order. A run continues while the changes name the same table (ASCII
    /// letters compared without case, as SQLite compares table names), even across table headers.
    private(set) var runs: [TableRun] = []

    /// True to refuse patchsets, for an inverted read or apply: SQLite's iterator reports
    /// `SQLITE_CORRUPT` for an inverted patchset, which would hide the actual mistake.
    private let inverting: Bool

    /// The number of bytes read so far, to say where a problem is.
    private var offset = 0

    private enum Step {
      /// Between changes: a table header, a change or the end may come.
      case boundary
      case headerColumnCount
      case headerPrimaryKey
      case headerName
      case indirectFlag
      case valueType
      /// The bytes left of an 8-byte INTEGER or REAL.
      case fixedValue(Int)
      case valueLength
      /// The bytes left of a TEXT or BLOB value.
      case payload(Int)
    }

    private var step = Step.boundary
    private var varint = Varint()

    /// The header being read.
    private var newHeaderIsPatchset = false
    private var newHeaderColumnCount = 0
    private var newHeaderPrimaryKey: [UInt8] = []
    private var newHeaderName: [UInt8] = []

    /// The header that applies to the changes that follow, once one was read.
    private var header: (isPatchset: Bool, columnCount: Int, primaryKey: [UInt8], name: [UInt8])?
    /// The indices of the header's primary-key columns.
    private var primaryKeyColumns: [Int] = []

    /// The change being read.
    private var operation: Int32 = 0
    private var valueIndex = 0
    private var valueCount = 0

    init(inverting: Bool = false) {
      self.inverting = inverting
    }

    /// Checks a whole changeset or patchset in memory and returns its table runs.
    ///
    /// - Throws: ``SQLiteError`` with `SQLITE_CORRUPT` (its message says what is wrong and where), or
    ///   `SQLITE_MISUSE` for a patchset when `inverting`.
    static func validate(_ data: Data, inverting: Bool = false) throws -> [TableRun] {
      var validator = ChangesetValidator(inverting: inverting)
      try data.withUnsafeBytes { try validator.consume($0) }
      try validator.finish()
      return validator.runs
    }

    /// Reads the next bytes of the input.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) throws {
      var index = 0
      while index < bytes.count {
        switch step {
        case .fixedValue(let left), .payload(let left):
          // Skip the bytes of a value in one step: only their count matters.
          let taken = min(left, bytes.count - index)
          index += taken
          offset += taken
          if taken < left {
            if case .payload = step { step = .payload(left - taken) } else { step = .fixedValue(left - taken) }
          } else {
            finishValue()
          }
        default:
          let byte = bytes[index]
          index += 1
          offset += 1
          try read(byte)
        }
      }
    }

    /// Checks that the input ended between two changes.
    mutating func finish() throws {
      switch step {
      case .boundary: return
      case .headerColumnCount, .headerPrimaryKey, .headerName:
        throw truncated("inside a table header")
      default:
        throw truncated("inside a change to \(describe(header?.name ?? []))")
      }
    }

    private mutating func read(_ byte: UInt8) throws {
      switch step {
      case .boundary:
        if byte == UInt8(ascii: "T") || byte == UInt8(ascii: "P") {
          if byte == UInt8(ascii: "P") && inverting {
            throw SQLiteError(
              code: .misuse,
              message: "A patchset cannot be inverted: it does not record the old values of its changes")
          }
          newHeaderIsPatchset = byte == UInt8(ascii: "P")
          newHeaderPrimaryKey = []
          newHeaderName = []
          varint = Varint()
          step = .headerColumnCount
          return
        }
        let code = Int32(byte)
        guard code == SQLITE_INSERT || code == SQLITE_UPDATE || code == SQLITE_DELETE else {
          throw corrupt("byte \(byte) is neither a table header nor an operation")
        }
        guard let header else { throw corrupt("a change comes before the first table header") }
        operation = code
        if let last = runs.last, Self.sameTable(last.name, header.name) {
          runs[runs.count - 1].changeCount += 1
        } else {
          runs.append(
            TableRun(
              name: header.name, columnCount: header.columnCount, primaryKey: header.primaryKey, changeCount: 1))
        }
        step = .indirectFlag
      case .headerColumnCount:
        guard varint.add(byte) else { return }
        // SQLite refuses 0, and more than 65536 columns (more than a table can have).
        guard varint.value >= 1 && varint.value <= 65536 else {
          throw corrupt("a table header declares \(varint.value) columns")
        }
        newHeaderColumnCount = Int(varint.value)
        step = .headerPrimaryKey
      case .headerPrimaryKey:
        newHeaderPrimaryKey.append(byte)
        if newHeaderPrimaryKey.count == newHeaderColumnCount { step = .headerName }
      case .headerName:
        guard byte == 0 else {
          newHeaderName.append(byte)
          return
        }
        header = (newHeaderIsPatchset, newHeaderColumnCount, newHeaderPrimaryKey, newHeaderName)
        primaryKeyColumns = newHeaderPrimaryKey.indices.filter { newHeaderPrimaryKey[$0] != 0 }
        step = .boundary
      case .indirectFlag:
        guard let header else { return }
        valueIndex = 0
        switch (header.isPatchset, operation) {
        case (false, SQLITE_UPDATE): valueCount = 2 * header.columnCount
        case (true, SQLITE_DELETE): valueCount = primaryKeyColumns.count
        default: valueCount = header.columnCount
        }
        step = valueCount == 0 ? .boundary : .valueType
      case .valueType:
        switch Int32(byte) {
        case 0:
          if isKeyOfUpdate() {
            throw corrupt("an update to \(describe(header?.name ?? [])) does not record its primary key")
          }
          finishValue()
        case SQLITE_NULL: finishValue()
        case SQLITE_INTEGER, SQLITE_FLOAT: step = .fixedValue(8)
        case SQLITE_TEXT, SQLITE_BLOB:
          varint = Varint()
          step = .valueLength
        default:
          throw corrupt("a value of \(describe(header?.name ?? [])) has the unknown type \(byte)")
        }
      case .valueLength:
        guard varint.add(byte) else { return }
        // SQLite reads lengths as an `int`: a larger one becomes negative.
        guard varint.value <= UInt64(Int32.max) else {
          throw corrupt("a value of \(describe(header?.name ?? [])) declares a length of \(varint.value) bytes")
        }
        if varint.value == 0 { finishValue() } else { step = .payload(Int(varint.value)) }
      case .fixedValue, .payload:
        break
      }
    }

    /// True when the value being read is a primary-key column of the record that identifies the row of
    /// an update (the old values of a changeset, the new values of a patchset), which must be recorded.
    private func isKeyOfUpdate() -> Bool {
      guard operation == SQLITE_UPDATE, let header, valueIndex < header.columnCount else { return false }
      return header.primaryKey[valueIndex] != 0
    }

    private mutating func finishValue() {
      valueIndex += 1
      step = valueIndex == valueCount ? .boundary : .valueType
    }

    /// The error for a problem found at the last byte read (`offset`, counted from 1).
    private func corrupt(_ problem: String) -> SQLiteError {
      SQLiteError(code: .corrupt, message: "The changeset is corrupt or truncated: \(problem) (byte \(offset))")
    }

    /// The error for input that ends too early.
    private func truncated(_ place: String) -> SQLiteError {
      SQLiteError(
        code: .corrupt, message: "The changeset is corrupt or truncated: it ends after \(offset) bytes, \(place)")
    }

    private func describe(_ name: [UInt8]) -> String {
      "table \"\(String(decoding: name, as: UTF8.self))\""
    }

    /// Whether two table names are the same for SQLite (`sqlite3_strnicmp`: ASCII letters without case).
    static func sameTable(_ a: [UInt8], _ b: [UInt8]) -> Bool {
      guard a.count == b.count else { return false }
      return zip(a, b).allSatisfy { lowercasedASCII($0) == lowercasedASCII($1) }
    }

    private static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
      byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// A varint as SQLite's changeset format writes it (`sqlite3GetVarint`): big-endian groups of 7 bits,
    /// the high bit set on every byte but the last, and a ninth byte, when there is one, of 8 bits.
    private struct Varint {
      private(set) var value: UInt64 = 0
      private var count = 0

      /// Adds the next byte; true once the varint is complete.
      mutating func add(_ byte: UInt8) -> Bool {
        count += 1
        if count == 9 {
          value = (value << 8) | UInt64(byte)
          return true
        }
        value = (value << 7) | UInt64(byte & 0x7f)
        return byte & 0x80 == 0
      }
    }
  }
#endif
