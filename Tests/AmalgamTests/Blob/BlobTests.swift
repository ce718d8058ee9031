import Amalgam
import Foundation
import Testing

/// Incremental BLOB I/O: reading and writing in place at offsets, the read-only flag, expiry when the
/// row changes, reopening, bounds, and a 10 MB value written and read in chunks.
@Suite struct BlobTests {
  static func makeDatabase() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE file(id INTEGER PRIMARY KEY, name TEXT, content BLOB);
        INSERT INTO file VALUES (1, 'one', x'00112233445566778899');
        INSERT INTO file VALUES (2, 'two', x'AABBCC');
        INSERT INTO file VALUES (3, 'three', NULL);
        """)
    return db
  }

  @Test func readsIntoACallerBufferAtAnOffset() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 1)
    #expect(blob.count == 10)
    #expect(blob.isWritable == false)
    var buffer = [UInt8](repeating: 0xFF, count: 6)
    try buffer.withUnsafeMutableBytes { bytes in
      try blob.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[1..<5]), at: 3)
    }
    #expect(buffer == [0xFF, 0x33, 0x44, 0x55, 0x66, 0xFF])
    #expect(try blob.read(count: 10) == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99])
    #expect(try blob.read(count: 0, at: 10) == [])
  }

  @Test func writesInPlaceAtAnOffset() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 1, writable: true)
    try blob.write([0xDE, 0xAD], at: 8)
    try [UInt8]([0xBE, 0xEF]).withUnsafeBytes { try blob.write($0, at: 0) }
    try blob.close()
    let hex = try db.prepare(sql: "SELECT hex(content) FROM file WHERE id = 1").front(String.self)
    #expect(hex == "BEEF2233445566778899".prefix(16) + "DEAD")
  }

  @Test func aReadOnlyBlobRefusesWrites() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 1)
    #expect {
      try blob.write([1], at: 0)
    } throws: { error in
      (error as? SQLiteError)?.code == .readOnly
    }
    #expect(
      try db.prepare(sql: "SELECT hex(content) FROM file WHERE id = 1").front(String.self) == "00112233445566778899")
  }

  @Test func writableOpenOfAReadOnlyDatabaseFails() throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("blob.db").path
      try Self.makeDatabase().backup(to: Database(path: path))
      let db = try Database(path: path, options: .readOnly)
      #expect(try db.openBlob(table: "file", column: "content", rowid: 2).read(count: 3) == [0xAA, 0xBB, 0xCC])
      #expect {
        try db.openBlob(table: "file", column: "content", rowid: 2, writable: true)
      } throws: { error in
        (error as? SQLiteError)?.code == .readOnly
      }
    }
  }

  @Test func readsAndWritesPastTheEndThrow() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 2, writable: true)
    for (count, offset) in [(4, 0), (1, 3), (2, 2), (1, -1), (-1, 0), (1, Int.max)] {
      #expect(throws: SQLiteError.self, "read \(count) at \(offset)") { try blob.read(count: count, at: offset) }
    }
    #expect {
      try blob.write([1, 2], at: 2)
    } throws: { error in
      (error as? SQLiteError)?.code == .error && (error as? SQLiteError)?.message.contains("past the end") == true
    }
    #expect(try blob.read(count: 3) == [0xAA, 0xBB, 0xCC])
  }

  @Test func aChangedRowExpiresTheBlobWithSQLITE_ABORTUntilReopened() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 1, writable: true)
    #expect(try blob.read(count: 1) == [0x00])
    try db.execute(sql: "UPDATE file SET name = 'uno' WHERE id = 1")
    #expect {
      try blob.read(count: 1)
    } throws: { error in
      (error as? SQLiteError)?.code == .abort
    }
    #expect {
      try blob.write([1], at: 0)
    } throws: { error in
      (error as? SQLiteError)?.code == .abort
    }
    // An expired blob stays expired; a new one sees the row as it is now.
    #expect(throws: SQLiteError.self) { try blob.reopen(rowid: 1) }
    let fresh = try db.openBlob(table: "file", column: "content", rowid: 1)
    #expect(try fresh.read(count: 2) == [0x00, 0x11])
    try db.execute(sql: "DELETE FROM file WHERE id = 1")
    #expect {
      try fresh.read(count: 1)
    } throws: { error in
      (error as? SQLiteError)?.code == .abort
    }
  }

  @Test func reopenMovesToAnotherRow() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 1)
    try blob.reopen(rowid: 2)
    #expect(blob.count == 3)
    #expect(try blob.read(count: 3) == [0xAA, 0xBB, 0xCC])
    try blob.reopen(rowid: 1)
    #expect(blob.count == 10)
    #expect(try blob.read(count: 1, at: 9) == [0x99])
    // A failed reopen leaves the blob unusable.
    #expect {
      try blob.reopen(rowid: 99)
    } throws: { error in
      (error as? SQLiteError)?.message.contains("no such rowid: 99") == true
    }
    #expect(blob.count == 0)
    #expect(throws: SQLiteError.self) { try blob.read(count: 1) }
    let other = try db.openBlob(table: "file", column: "content", rowid: 2)
    #expect(throws: SQLiteError.self) { try other.reopen(rowid: 3) }  // NULL is not a blob
  }

  @Test func openingWhatIsNotThereThrowsSQLitesMessage() throws {
    let db = try Self.makeDatabase()
    try db.execute(sql: "CREATE TABLE keyed(k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID")
    let cases: [(String, String, Int64, String)] = [
      ("missing", "content", 1, "no such table"),
      ("file", "missing", 1, "no such column"),
      ("file", "content", 42, "no such rowid"),
      ("file", "content", 3, "cannot open value of type null"),
      ("keyed", "v", 1, "cannot open table without rowid"),
    ]
    for (table, column, rowid, message) in cases {
      #expect {
        try db.openBlob(table: table, column: column, rowid: rowid)
      } throws: { error in
        (error as? SQLiteError)?.message.contains(message) == true
      }
    }
    #expect(throws: SQLiteError.self) { try db.openBlob(schema: "nowhere", table: "file", column: "content", rowid: 1) }
  }

  @Test func closedBlobsAndDatabasesThrowDatabaseClosed() throws {
    let db = try Self.makeDatabase()
    let blob = try db.openBlob(table: "file", column: "content", rowid: 1)
    try blob.close()
    try blob.close()
    #expect(!blob.isOpen)
    #expect(blob.count == 0)
    #expect(throws: DatabaseError.databaseClosed) { try blob.read(count: 1) }
    let other = try db.openBlob(table: "file", column: "content", rowid: 2)
    try db.close()
    #expect(throws: DatabaseError.databaseClosed) { try other.read(count: 1) }
    #expect(throws: DatabaseError.databaseClosed) { try other.reopen(rowid: 1) }
  }

  @Test func zeroBlobReservesSpaceWithoutStoringBytes() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(b BLOB)")
    try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [ZeroBlob(count: 5)])
    #expect(try db.prepare(sql: "SELECT hex(b) FROM t").front(String.self) == "0000000000")
    #expect(ZeroBlob(count: -3).count == 0)
    #expect(ZeroBlob(count: 2).databaseValue() == .blob(Data([0, 0])))
    try db.setLimit(.length, to: 100)
    #expect {
      try db.execute(sql: "INSERT INTO t VALUES (?)", parameterValues: [ZeroBlob(count: 1000)])
    } throws: { error in
      (error as? SQLiteError)?.code == .tooBig
    }
  }

  @Test func tenMegabytesRoundTripInChunksThroughAZeroBlob() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE file(id INTEGER PRIMARY KEY, content BLOB)")
    let size = 10 * 1024 * 1024
    let chunkSize = 64 * 1024 + 3  // not a divisor of the size: the last chunk is short
    try db.execute(sql: "INSERT INTO file(content) VALUES (?)", parameterValues: [ZeroBlob(count: size)])
    let rowid = db.lastInsertRowid
    func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index &* 31 &+ index >> 16) }

    let writer = try db.openBlob(table: "file", column: "content", rowid: rowid, writable: true)
    #expect(writer.count == size)
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    for offset in stride(from: 0, to: size, by: chunkSize) {
      let length = min(chunkSize, size - offset)
      for index in 0..<length { chunk[index] = byte(offset + index) }
      try chunk.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[..<length]), at: offset) }
    }
    try writer.close()

    #expect(try db.prepare(sql: "SELECT length(content) FROM file").front(Int.self) == size)
    let reader = try db.openBlob(table: "file", column: "content", rowid: rowid)
    var mismatches = 0
    for offset in stride(from: 0, to: size, by: chunkSize) {
      let length = min(chunkSize, size - offset)
      try chunk.withUnsafeMutableBytes {
        try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<length]), at: offset)
      }
      for index in 0..<length where chunk[index] != byte(offset + index) { mismatches += 1 }
    }
    #expect(mismatches == 0)
    // SQL sees the same bytes.
    let sample = try db.prepare(sql: "SELECT substr(content, 5000001, 4) FROM file").front(Data.self)
    #expect(sample == Data((5_000_000..<5_000_004).map(byte)))
  }
}
