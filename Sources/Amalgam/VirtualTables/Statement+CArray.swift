#if ENABLE_CARRAY
  #if canImport(FoundationEssentials)
    import FoundationEssentials
  #else
    import Foundation
  #endif
  import AmalgamSQLite

  /// Binding Swift arrays to the `carray()` table-valued function, so that `WHERE id IN carray(?)`
  /// takes an array (trait `ENABLE_CARRAY`).
  ///
  /// ```swift
  /// let names = try db.prepare(sql: "SELECT name FROM people WHERE id IN carray(?)")
  ///   .bind(array: [Int64(1), 5, 8], toParameter: 1)
  ///   .column(0, as: String.self)
  /// ```
  ///
  /// The array is copied once into memory that SQLite owns and frees when it no longer needs it: when
  /// the parameter is bound again, its bindings are cleared, or the statement is finalized. The Swift
  /// array may change or go away right after the call.
  ///
  /// The parameter must be the first argument of `carray()`. SQLite passes the array as a pointer
  /// (`sqlite3_bind_pointer`) that only `carray()` can read: anywhere else (`SELECT typeof(?)`, a
  /// comparison, another function) it reads as NULL. Binding checks the statement's bytecode, and
  /// throws for a parameter whose value reaches no virtual table's scan as its first argument.
  extension Statement {
    /// Binds an array of 32-bit integers to the `carray()` parameter `index` (1-based).
    ///
    /// - Throws: ``SQLiteError`` (``ResultCode/range`` for an index out of range; ``ResultCode/error``
    ///   when the parameter is not the first argument of `carray()`), ``DatabaseError/databaseClosed``.
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [Int32], toParameter index: Int) throws -> Statement {
      try bindNumbers(array, index: index, type: SQLITE_CARRAY_INT32)
    }

    /// Binds an array of 64-bit integers to the `carray()` parameter `index` (1-based).
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [Int64], toParameter index: Int) throws -> Statement {
      try bindNumbers(array, index: index, type: SQLITE_CARRAY_INT64)
    }

    /// Binds an array of `Int` (as 64-bit integers) to the `carray()` parameter `index` (1-based).
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [Int], toParameter index: Int) throws -> Statement {
      try bindNumbers(array.map { Int64($0) }, index: index, type: SQLITE_CARRAY_INT64)
    }

    /// Binds an array of doubles to the `carray()` parameter `index` (1-based).
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [Double], toParameter index: Int) throws -> Statement {
      try bindNumbers(array, index: index, type: SQLITE_CARRAY_DOUBLE)
    }

    /// Binds an array of strings to the `carray()` parameter `index` (1-based). A string is read up
    /// to its first NUL character, as C strings are.
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [String], toParameter index: Int) throws -> Statement {
      let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
      let bytes = array.reduce(0) { $0 + $1.utf8.count + 1 }
      return try bindCArray(
        index: index, count: array.count, type: SQLITE_CARRAY_TEXT, byteCount: array.count * pointerSize + bytes
      ) { memory in
        var next = memory + array.count * pointerSize
        for (position, var text) in array.enumerated() {
          memory.storeBytes(of: UnsafeRawPointer(next), toByteOffset: position * pointerSize, as: UnsafeRawPointer.self)
          text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { next.copyMemory(from: base, byteCount: utf8.count) }
            next.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
            next += utf8.count + 1
          }
        }
      }
    }

    /// Binds an array of blobs to the `carray()` parameter `index` (1-based).
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [Data], toParameter index: Int) throws -> Statement {
      try bindBlobs(array.count, index: index, totalBytes: array.reduce(0) { $0 + $1.count }) { position, body in
        array[position].withUnsafeBytes(body)
      }
    }

    /// Binds an array of blobs, each given as bytes, to the `carray()` parameter `index` (1-based).
    ///
    /// Related SQLite documentation: <https://sqlite.org/carray.html>
    @discardableResult
    public func bind(array: [[UInt8]], toParameter index: Int) throws -> Statement {
      try bindBlobs(array.count, index: index, totalBytes: array.reduce(0) { $0 + $1.count }) { position, body in
        array[position].withUnsafeBytes(body)
      }
    }

    private func bindNumbers<T: BitwiseCopyable>(_ array: [T], index: Int, type: Int32) throws -> Statement {
      try bindCArray(index: index, count: array.count, type: type, byteCount: array.count * MemoryLayout<T>.stride) {
        memory in
        array.withUnsafeBytes { bytes in
          if let base = bytes.baseAddress { memory.copyMemory(from: base, byteCount: bytes.count) }
        }
      }
    }

    /// Lays the blobs out as C `struct iovec` entries (a pointer and a length each), followed by their bytes.
    private func bindBlobs(
      _ count: Int, index: Int, totalBytes: Int,
      _ withBytes: (Int, (UnsafeRawBufferPointer) -> Void) -> Void
    ) throws -> Statement {
      let entrySize = MemoryLayout<UnsafeRawPointer>.stride + MemoryLayout<Int>.stride
      return try bindCArray(
        index: index, count: count, type: SQLITE_CARRAY_BLOB, byteCount: count * entrySize + totalBytes
      ) {
        memory in
        var next = memory + count * entrySize
        for position in 0..<count {
          withBytes(position) { bytes in
            memory.storeBytes(of: UnsafeRawPointer(next), toByteOffset: position * entrySize, as: UnsafeRawPointer.self)
            memory.storeBytes(
              of: bytes.count, toByteOffset: position * entrySize + MemoryLayout<UnsafeRawPointer>.stride, as: Int.self)
            if let base = bytes.baseAddress { next.copyMemory(from: base, byteCount: bytes.count) }
            next += bytes.count
          }
        }
      }
    }

    /// Copies the array into memory from `sqlite3_malloc64` and binds it; SQLite frees it with
    /// `sqlite3_free` when it is done with it (also when binding fails).
    private func bindCArray(
      index: Int, count: Int, type: Int32, byteCount: Int, _ fill: (UnsafeMutableRawPointer) -> Void
    ) throws -> Statement {
      try checkOpen()
      guard index >= 1, index <= parameterCount else { throw parameterIndexOutOfRange(index) }
      guard try parameterIsScanPointer(index) else {
        throw SQLiteError(
          code: .error,
          message: "Parameter \(index) of \"\(sql)\" is not the first argument of carray(): an array binds only to "
            + "carray(?) (as in \"WHERE id IN carray(?)\"); anywhere else SQLite would read it as NULL")
      }
      guard count <= Int(Int32.max) else {
        throw SQLiteError(code: .tooBig, message: "carray() takes at most \(Int32.max) values; the array has \(count)")
      }
      guard let memory = sqlite3_malloc64(UInt64(Swift.max(byteCount, 1))) else {
        throw SQLiteError(code: .noMemory, message: "No memory to bind an array of \(count) values")
      }
      fill(memory)
      let rc = try connection.withHandle { _ in
        sqlite3_carray_bind_v2(sqliteHandle, Int32(index), memory, Int32(count), type, { sqlite3_free($0) }, memory)
      }
      try check(rc)
      return self
    }

    /// Whether parameter `index` is the first argument of a virtual table's scan (`xFilter`), where
    /// `carray(?)` reads its pointer, according to the statement's bytecode: a copy of the statement in
    /// EXPLAIN mode (`sqlite3_stmt_explain`) lists its `Variable`, `Copy`, `SCopy` and `VFilter`
    /// instructions. (SQLite offers no other way to ask where a parameter is used.) When the copy
    /// cannot be made, the binding is not refused.
    ///
    /// Related SQLite documentation: <https://sqlite.org/opcode.html>,
    /// <https://sqlite.org/c3ref/stmt_explain.html>
    private func parameterIsScanPointer(_ index: Int) throws -> Bool {
      try connection.withHandle { handle in
        var listing: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sqlite3_sql(sqliteHandle), -1, 0, &listing, nil) == SQLITE_OK,
          let listing, sqlite3_stmt_explain(listing, 1) == SQLITE_OK
        else {
          sqlite3_finalize(listing)
          return true
        }
        defer { sqlite3_finalize(listing) }
        // The registers that receive the parameter, the copies between registers (source, destination,
        // count), and the register of each scan's first argument. Constants such as a parameter may be
        // loaded after the loop that uses them (at the end of the program), so the flow is read whole.
        var holding = Set<Int32>()
        var copies: [(from: Int32, to: Int32, count: Int32)] = []
        var firstArguments: [Int32] = []
        while sqlite3_step(listing) == SQLITE_ROW {
          guard let opcode = sqlite3_column_text(listing, 1) else { continue }
          let p1 = Int32(truncatingIfNeeded: sqlite3_column_int64(listing, 2))
          let p2 = Int32(truncatingIfNeeded: sqlite3_column_int64(listing, 3))
          let p3 = Int32(truncatingIfNeeded: sqlite3_column_int64(listing, 4))
          switch String(cString: opcode) {
          case "Variable" where Int(p1) == index: holding.insert(p2)
          case "Copy": copies.append((p1, p2, p3 + 1))  // registers P1...P1+P3 to P2...P2+P3
          case "SCopy", "IntCopy": copies.append((p1, p2, 1))
          case "VFilter": firstArguments.append(p3 + 2)  // P3: plan number, P3+1: argument count
          default: break
          }
        }
        var grew = true
        while grew {
          grew = false
          for copy in copies {
            for offset in 0..<Swift.max(copy.count, 0) where holding.contains(copy.from + offset) {
              if holding.insert(copy.to + offset).inserted { grew = true }
            }
          }
        }
        return firstArguments.contains(where: holding.contains)
      }
    }
  }
#endif
