// Fuzzes changeset and patchset handling: the fuzzer's bytes are read as a changeset and as a patchset
// (in one piece and streamed in chunks of fuzzer-chosen sizes), inverted, concatenated, merged in a
// changegroup and applied to a small database whose conflict handler reads every conflict and answers
// as the bytes say. Corrupt bytes must throw, never crash, and the invariants below hold.
import Amalgam
import Foundation
import FuzzSupport

/// A database with tables of the shapes changesets usually touch; every apply is rolled back.
nonisolated(unsafe) let database: Database = {  // The fuzzer calls the target on one thread.
  let db = try! Database()
  try! db.batch(
    sql: """
      CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
      CREATE TABLE t2(x, y, z, PRIMARY KEY(x, y));
      CREATE TABLE t3(k TEXT PRIMARY KEY, v REAL NOT NULL) WITHOUT ROWID;
      INSERT INTO t1 VALUES (1, 'one', x'01'), (2, 'two', NULL), (3, NULL, x'');
      INSERT INTO t2 VALUES (1, 'a', 1.5), ('b', 2, NULL);
      INSERT INTO t3 VALUES ('k', 1.0), ('', -0.5);
      """)
  return db
}()

/// The operations of a streamed read, in chunks whose sizes cycle through `chunkSizes`.
func streamedOperations(_ bytes: Data, chunkSizes: [Int], inverted: Bool) throws -> [ChangesetOperation] {
  var offset = 0
  var call = 0
  let reader = try ChangesetReader(
    from: { buffer in
      let size = min(buffer.count, chunkSizes[call % chunkSizes.count], bytes.count - offset)
      call += 1
      guard size > 0 else { return 0 }
      bytes.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]), from: offset..<offset + size)
      offset += size
      return size
    }, inverted: inverted)
  var operations: [ChangesetOperation] = []
  while let operation = try reader.next() { operations.append(operation) }
  return operations
}

func checkShape(_ operation: ChangesetOperation) {
  fuzzCheck(operation.columnCount >= 0, "negative column count in \(operation)")
  fuzzCheck(operation.primaryKeyColumns.allSatisfy { $0 >= 0 && $0 < operation.columnCount }, "bad keys \(operation)")
  switch operation.operation {
  case .insert: fuzzCheck(operation.oldValues.isEmpty && operation.newValues.count == operation.columnCount, "\(operation)")
  case .delete: fuzzCheck(operation.newValues.isEmpty && operation.oldValues.count == operation.columnCount, "\(operation)")
  case .update:
    fuzzCheck(operation.oldValues.count == operation.columnCount && operation.newValues.count == operation.columnCount, "\(operation)")
  @unknown default: break
  }
}

func apply(_ changeset: some ChangesetProtocol, resolutions: [UInt8], options: ChangesetApplyOptions) {
  var conflicts = 0
  do {
    try database.execute(sql: "BEGIN")
    defer { try? database.execute(sql: "ROLLBACK") }
    _ = try database.apply(
      changeset, options: options,
      tableFilter: { table in table != "t3" || resolutions.count % 2 == 0 },
      onConflict: { conflict in
        conflicts += 1
        // Read everything the conflict carries: it must be valid during the call.
        _ = conflict.change.map { "\($0)" }
        _ = conflict.conflictingValues.map { "\($0)" }
        _ = conflict.foreignKeyViolationCount
        let choice = resolutions.isEmpty ? 0 : resolutions[conflicts % resolutions.count]
        switch choice % 4 {
        case 0: return .omit
        case 1: return conflict.kind == .data || conflict.kind == .conflict ? .replace : .omit
        case 2: return .abort
        default: throw CancellationError()
        }
      })
  } catch {
    // Corrupt changesets, aborted applies, constraint failures: errors, which is what is tested.
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  let flags = input.byte()
  let resolutions = input.chunk(maxCount: 8)
  let chunkSizes = input.chunk(maxCount: 4).map { Int($0) + 1 }
  let bytes = Data(input.rest())
  // Bytes that fail validation are refused at construction; the streaming reader still reads them.
  let changeset = try? Changeset(data: bytes)
  let patchset = try? Patchset(data: bytes)

  let operations = try? changeset?.operations()
  operations?.forEach(checkShape)
  if let operations, let streamed = try? streamedOperations(bytes, chunkSizes: chunkSizes.isEmpty ? [7] : chunkSizes, inverted: false) {
    fuzzCheck(operations == streamed, "streamed read differs: \(streamed) vs \(String(describing: operations))")
  }
  _ = try? patchset?.operations()

  if let changeset, let inverted = try? changeset.inverted() {
    let fromInverse = try? inverted.operations()
    let readInverted = try? ChangesetReader(changeset, inverted: true)
    var invertedOperations: [ChangesetOperation] = []
    var readCleanly = readInverted != nil
    do {
      while let next = try readInverted?.next() { invertedOperations.append(next) }
    } catch {
      readCleanly = false
    }
    // Only when both read without error: on invalid bytes (an UPDATE whose old key is undefined),
    // SQLite's invert and its inverted read stop at different places.
    if let fromInverse, operations != nil, readCleanly {
      fuzzCheck(fromInverse.count == invertedOperations.count, "inverse: \(fromInverse) vs \(invertedOperations)")
    }
  }
  if flags & 1 != 0 {
    if let changeset { _ = try? (changeset.concatenated(with: changeset)).operations() }
    if let patchset { _ = try? (patchset + patchset).operations() }
  }
  if flags & 2 != 0, let group = try? Changegroup() {
    if flags & 4 != 0 { try? group.setSchema(database: database) }
    if let changeset { try? group.add(changeset) }
    if let operations { for operation in operations { try? group.add(operation) } }
    _ = try? group.changeset().operations()
    _ = try? group.patchset()
  }
  var options: ChangesetApplyOptions = []
  if flags & 8 != 0 { options.insert(.invert) }
  if flags & 16 != 0 { options.insert(.ignoreNoOp) }
  if flags & 32 != 0 { options.insert(.noSavepoint) }
  if let changeset { apply(changeset, resolutions: resolutions, options: options) }
  if flags & 64 != 0, let patchset { apply(patchset, resolutions: resolutions, options: []) }
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_changeset_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
