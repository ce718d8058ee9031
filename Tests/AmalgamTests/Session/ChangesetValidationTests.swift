#if ENABLE_SESSION
  @testable import Amalgam
  import Foundation
  import Testing

  /// Corrupt changesets reach every entry point that hands bytes to SQLite: each must throw
  /// `SQLITE_CORRUPT` before SQLite reads them. SQLite's changegroup, concatenation, inversion and
  /// rebaser find the end of a record by its declared lengths, so these bytes made them read past the
  /// end of their buffer (or before it), which AddressSanitizer reports (`Scripts/sanitize --address`).
  @Suite struct ChangesetValidationTests {
    /// The table header of `t(id INTEGER PRIMARY KEY, name TEXT, note TEXT)`.
    static let header: [UInt8] = [0x54, 0x03, 0x01, 0x00, 0x00, UInt8(ascii: "t"), 0x00]

    /// An INSERT of `(id, 'ab', 'cd')`, whose last value is `last` (the TEXT `'cd'` when `nil`).
    static func insert(id: UInt8, last: [UInt8]? = nil) -> [UInt8] {
      let integer: [UInt8] = [0x01, 0, 0, 0, 0, 0, 0, 0, id]
      let name: [UInt8] = [0x03, 0x02, UInt8(ascii: "a"), UInt8(ascii: "b")]
      let note = last ?? [0x03, 0x02, UInt8(ascii: "c"), UInt8(ascii: "d")]
      return [0x12, 0x00] + integer + name + note
    }

    /// A valid changeset: two inserts into `t`. (Computed: LeakSanitizer reports the heap storage of a
    /// `static let` Data that the process keeps until it exits.)
    static var valid: Data { Data(header + insert(id: 1) + insert(id: 2)) }

    /// Changesets whose first change is complete and whose second is not, each in a way that made
    /// SQLite's unchecked readers read outside the bytes.
    static var corrupt: [(name: String, data: Data)] {
      [
        // The last value's bytes are cut short.
        ("truncated inside a value", Data(header + insert(id: 1) + insert(id: 2).dropLast())),
        // The record stops exactly after its second value: the reader takes the byte past the end as
        // the third value's type.
        ("truncated between two values", Data(header + insert(id: 1) + insert(id: 2).dropLast(4))),
        // The last TEXT declares 127 bytes; 2 follow.
        (
          "a length that runs past the end",
          Data(header + insert(id: 1) + insert(id: 2, last: [0x03, 0x7F, 0x63, 0x64]))
        ),
        // A 5-byte varint length of 0xFFFFFFFF, which SQLite reads into an int as -1.
        (
          "a length that overflows to -1",
          Data(header + insert(id: 1) + insert(id: 2, last: [0x03, 0x8F, 0xFF, 0xFF, 0xFF, 0x7F, 0x63, 0x64]))
        ),
        // A length of 2^31, negative as an int.
        (
          "a length of 2^31", Data(header + insert(id: 1) + insert(id: 2, last: [0x03, 0x88, 0x80, 0x80, 0x80, 0x00]))
        ),
        // The table header is cut inside its name.
        ("truncated inside a table header", Data(header + insert(id: 1) + header.dropLast())),
      ]
    }

    /// Expects `body` to throw `SQLITE_CORRUPT` with the validator's message.
    private func expectCorrupt(
      _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
      do {
        try body()
        Issue.record("\(what): nothing was thrown", sourceLocation: sourceLocation)
      } catch let error as SQLiteError {
        #expect(error.code == .corrupt, "\(what): \(error)", sourceLocation: sourceLocation)
        #expect(
          error.message.hasPrefix("The changeset is corrupt or truncated: "), "\(what): \(error)",
          sourceLocation: sourceLocation)
      } catch {
        Issue.record("\(what): \(error)", sourceLocation: sourceLocation)
      }
    }

    /// A database with the table of the changesets.
    private func makeTarget() throws -> Database {
      let db = try Database()
      try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, note TEXT)")
      return db
    }

    @Test func wrappingBytesChecksThem() throws {
      #expect(try Changeset(data: Self.valid).data == Self.valid)
      #expect(try Patchset(data: Data()).isEmpty)
      for (name, data) in Self.corrupt {
        expectCorrupt("Changeset(data:), \(name)") { _ = try Changeset(data: data) }
        expectCorrupt("Patchset(data:), \(name)") { _ = try Patchset(data: data) }
      }
      // Not a changeset at all.
      expectCorrupt("text") { _ = try Changeset(data: Data("hello".utf8)) }
    }

    @Test func theValidChangesetPassesEveryEntryPoint() throws {
      let changeset = Changeset(uncheckedData: Self.valid)
      #expect(try changeset.operations().count == 2)
      #expect(try changeset.inverted().operations().count == 2)
      let group = try Changegroup()
      try group.add(changeset)
      #expect(try group.changeset().operations().count == 2)
      let target = try makeTarget()
      try target.apply(changeset)
      #expect(
        try target.fetchOne(String.self, sql: "SELECT group_concat(id || name || note) FROM t") == "1abcd,2abcd")
    }

    @Test func everyInMemoryEntryPointThrowsCorruptForCorruptBytes() throws {
      let valid = Changeset(uncheckedData: Self.valid)
      for (name, data) in Self.corrupt {
        let changeset = Changeset(uncheckedData: data)
        expectCorrupt("operations, \(name)") { _ = try changeset.operations() }
        expectCorrupt("ChangesetReader, \(name)") { _ = try ChangesetReader(changeset) }
        expectCorrupt("Patchset ChangesetReader, \(name)") { _ = try ChangesetReader(Patchset(uncheckedData: data)) }
        expectCorrupt("inverted, \(name)") { _ = try changeset.inverted() }
        expectCorrupt("concatenated, left, \(name)") { _ = try changeset.concatenated(with: valid) }
        expectCorrupt("concatenated, right, \(name)") { _ = try valid.concatenated(with: changeset) }
        expectCorrupt("Changegroup.add, \(name)") { try Changegroup().add(changeset) }
        expectCorrupt("Changegroup.add with a schema, \(name)") {
          let group = try Changegroup()
          try group.setSchema(database: try makeTarget())
          try group.add(changeset)
        }
        expectCorrupt("Rebaser.configure, \(name)") { try Rebaser().configure(data) }
        expectCorrupt("Rebaser.rebase, \(name)") { _ = try Rebaser().rebase(changeset) }
        let target = try makeTarget()
        expectCorrupt("apply, \(name)") { try target.apply(changeset) }
        expectCorrupt("apply with .noSavepoint, \(name)") { try target.apply(changeset, options: .noSavepoint) }
        // Checked before SQLite applies anything, even without a savepoint to undo it.
        #expect(try target.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
      }
    }

    @Test func everyStreamingEntryPointThrowsCorruptForCorruptBytes() throws {
      for (name, data) in Self.corrupt {
        let input = { ChangesetStreams.reading(from: data) }
        let valid = { ChangesetStreams.reading(from: Self.valid) }
        expectCorrupt("ChangesetReader(from:), \(name)") {
          let reader = try ChangesetReader(from: input())
          while try reader.next() != nil {}
        }
        expectCorrupt("Changeset.invert(_:to:), \(name)") { try Changeset.invert(input()) { _ in } }
        expectCorrupt("Changeset.concatenate, first, \(name)") { try Changeset.concatenate(input(), valid()) { _ in } }
        expectCorrupt("Changeset.concatenate, second, \(name)") {
          try Changeset.concatenate(valid(), input()) { _ in }
        }
        expectCorrupt("Changegroup.add(from:), \(name)") { try Changegroup().add(from: input()) }
        expectCorrupt("Changegroup.add(from:) with a schema, \(name)") {
          let group = try Changegroup()
          try group.setSchema(database: try makeTarget())
          try group.add(from: input())
        }
        expectCorrupt("Rebaser.rebase(_:to:), \(name)") { try Rebaser().rebase(input()) { _ in } }
        let target = try makeTarget()
        expectCorrupt("applyChangeset(from:), \(name)") { try target.applyChangeset(from: input()) }
        // The savepoint undid the change applied before the corrupt one.
        #expect(try target.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
      }
    }

    @Test func aRebaseOfATruncatedChangesetThrowsInsteadOfReturningPartOfIt() throws {
      // A rebaser without resolutions returns its input unchanged; SQLite 3.53.4 stopped at the
      // truncated second change and returned the first alone, without an error.
      let truncated = Changeset(uncheckedData: Self.valid.dropLast())
      let rebaser = try Rebaser()
      #expect(try rebaser.rebase(Changeset(uncheckedData: Self.valid)).data == Self.valid)
      #expect(
        throws: SQLiteError(
          code: .corrupt,
          message:
            "The changeset is corrupt or truncated: it ends after \(Self.valid.count - 1) bytes, inside a change to "
            + "table \"t\"")
      ) { try rebaser.rebase(truncated) }
      var streamed = Data()
      #expect(throws: SQLiteError.self) {
        try rebaser.rebase(ChangesetStreams.reading(from: truncated.data)) { streamed.append(contentsOf: $0) }
      }
    }

    @Test func messagesSayWhatIsWrongAndWhere() throws {
      func message(_ bytes: [UInt8]) -> String? {
        do {
          _ = try Changeset(uncheckedData: Data(bytes)).operations()
          return nil
        } catch {
          return (error as? SQLiteError)?.message
        }
      }
      let prefix = "The changeset is corrupt or truncated: "
      #expect(message([0x12, 0x00]) == prefix + "a change comes before the first table header (byte 1)")
      #expect(message([0x07]) == prefix + "byte 7 is neither a table header nor an operation (byte 1)")
      #expect(message([0x54, 0x00]) == prefix + "a table header declares 0 columns (byte 2)")
      #expect(
        message(Self.header + [0x12, 0x00, 0x09]) == prefix + "a value of table \"t\" has the unknown type 9 (byte 10)")
      #expect(
        message(Self.header + Self.insert(id: 1, last: [0x03, 0x88, 0x80, 0x80, 0x80, 0x00]))
          == prefix + "a value of table \"t\" declares a length of 2147483648 bytes (byte 28)")
      // An update must record the primary key of its row.
      #expect(
        message(Self.header + [0x17, 0x00, 0x00, 0x05, 0x05, 0x05, 0x03, 0x01, 0x78, 0x05])
          == prefix + "an update to table \"t\" does not record its primary key (byte 10)")
      #expect(message(Self.header) == nil)
      #expect(message([]) == nil)
    }

    @Test func aPatchsetCannotBeInvertedAndSaysSo() throws {
      let db = try makeTarget()
      let session = try Session(database: db)
      try session.attach()
      try db.execute(sql: "INSERT INTO t VALUES (1, 'a', 'b')")
      let patchset = try session.patchset()
      let expected = SQLiteError(
        code: .misuse, message: "A patchset cannot be inverted: it does not record the old values of its changes")
      #expect(throws: expected) { try ChangesetReader(patchset, inverted: true) }
      #expect(throws: expected) { try Changeset(uncheckedData: patchset.data).inverted() }
      #expect(throws: expected) { try db.apply(patchset, options: .invert) }
    }
  }
#endif
