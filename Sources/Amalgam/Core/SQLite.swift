import AmalgamSQLite

/// Facts about the SQLite library compiled into this build: version, compile options, keywords.
///
/// ```swift
/// print(SQLite.version)                          // "3.53.4"
/// SQLite.isCompileOptionUsed("ENABLE_FTS5")      // true with the default traits
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/libversion.html>
public enum SQLite {
  /// The SQLite version, such as `"3.53.4"` (`sqlite3_libversion`).
  public static var version: String { String(cString: sqlite3_libversion()) }

  /// The version as a number, such as `3053004` (`sqlite3_libversion_number`).
  public static var versionNumber: Int { Int(sqlite3_libversion_number()) }

  /// The check-in date and hash of the SQLite source (`sqlite3_sourceid`).
  public static var sourceID: String { String(cString: sqlite3_sourceid()) }

  /// Every compile-time option of this build, without the `SQLITE_` prefix (`sqlite3_compileoption_get`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/compileoption_get.html>
  public static var compileOptions: [String] {
    var options: [String] = []
    var index: Int32 = 0
    while let option = sqlite3_compileoption_get(index) {
      options.append(String(cString: option))
      index += 1
    }
    return options
  }

  /// Whether this build used a compile-time option, named with or without the `SQLITE_` prefix
  /// (`sqlite3_compileoption_used`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/compileoption_get.html>
  public static func isCompileOptionUsed(_ name: String) -> Bool {
    sqlite3_compileoption_used(name) != 0
  }

  /// SQLite's threading mode, as chosen at compile time by the `THREADSAFE_0` / `THREADSAFE_1` traits.
  ///
  /// Related SQLite documentation: <https://sqlite.org/threadsafe.html>
  public enum ThreadingMode: Int32, Sendable, CustomStringConvertible {
    /// `SQLITE_THREADSAFE=0`: no mutexes; use SQLite from one thread only.
    case singleThread = 0
    /// `SQLITE_THREADSAFE=1`: a connection may be shared between threads; SQLite serialises calls.
    case serialized = 1
    /// `SQLITE_THREADSAFE=2`, the default: each connection is used by one thread at a time.
    case multiThread = 2

    /// SQLite's name for the mode: "single-thread", "serialized" or "multi-thread".
    public var description: String {
      switch self {
      case .singleThread: "single-thread"
      case .serialized: "serialized"
      case .multiThread: "multi-thread"
      }
    }
  }

  /// The threading mode this SQLite was compiled with (`sqlite3_threadsafe` plus the `THREADSAFE` option).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/threadsafe.html>
  public static var threadingMode: ThreadingMode {
    if sqlite3_threadsafe() == 0 { return .singleThread }
    return isCompileOptionUsed("THREADSAFE=1") ? .serialized : .multiThread
  }

  /// Whether `word` is an SQL keyword to SQLite (case-insensitive; `sqlite3_keyword_check`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/keyword_check.html>
  public static func isKeyword(_ word: String) -> Bool {
    var word = word
    return word.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) { chars in
        sqlite3_keyword_check(chars.baseAddress, Int32(chars.count)) != 0
      }
    }
  }

  /// Every SQL keyword SQLite knows, in upper case (`sqlite3_keyword_name`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/keyword_check.html>
  public static var keywords: [String] {
    (0..<sqlite3_keyword_count()).compactMap { index in
      var name: UnsafePointer<CChar>?
      var length: Int32 = 0
      guard sqlite3_keyword_name(index, &name, &length) == SQLITE_OK, let name else { return nil }
      return String(utf8: name, count: Int(length))
    }
  }

  /// Whether `sql` ends with a complete SQL statement (`sqlite3_complete`): useful for a prompt that
  /// reads statements over several lines.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/complete.html>
  public static func isComplete(_ sql: String) -> Bool {
    sqlite3_complete(sql) != 0
  }

  /// The package traits this build of Amalgam was compiled with (see the README's trait table). An option
  /// that is on by default is listed under its own trait's name whether that trait or `DEFAULT_OPTIONS` (what
  /// `.defaults` turns on) enabled it, so `enabledTraits.contains("ENABLE_FTS5")` answers either way.
  public static var enabledTraits: [String] {
    var traits: [String] = []
    #if DEFAULT_OPTIONS
      traits.append("DEFAULT_OPTIONS")
    #endif
    #if ENABLE_FTS5
      traits.append("ENABLE_FTS5")
    #endif
    #if ENABLE_SESSION
      traits.append("ENABLE_SESSION")
    #endif
    #if ENABLE_PREUPDATE_HOOK
      traits.append("ENABLE_PREUPDATE_HOOK")
    #endif
    #if ENABLE_RTREE
      traits.append("ENABLE_RTREE")
    #endif
    #if ENABLE_MATH_FUNCTIONS
      traits.append("ENABLE_MATH_FUNCTIONS")
    #endif
    #if ENABLE_SNAPSHOT
      traits.append("ENABLE_SNAPSHOT")
    #endif
    #if ENABLE_CARRAY
      traits.append("ENABLE_CARRAY")
    #endif
    #if ENABLE_PERCENTILE
      traits.append("ENABLE_PERCENTILE")
    #endif
    #if ENABLE_COLUMN_METADATA
      traits.append("ENABLE_COLUMN_METADATA")
    #endif
    #if ENABLE_DBSTAT_VTAB
      traits.append("ENABLE_DBSTAT_VTAB")
    #endif
    #if ENABLE_STMTVTAB
      traits.append("ENABLE_STMTVTAB")
    #endif
    #if ENABLE_EXTENSIONS
      traits.append("ENABLE_EXTENSIONS")
    #endif
    #if DQS_0
      traits.append("DQS_0")
    #endif
    #if DEFAULT_MEMSTATUS_0
      traits.append("DEFAULT_MEMSTATUS_0")
    #endif
    #if DEFAULT_WAL_SYNCHRONOUS_1
      traits.append("DEFAULT_WAL_SYNCHRONOUS_1")
    #endif
    #if LIKE_DOESNT_MATCH_BLOBS
      traits.append("LIKE_DOESNT_MATCH_BLOBS")
    #endif
    #if OMIT_DEPRECATED
      traits.append("OMIT_DEPRECATED")
    #endif
    #if OMIT_SHARED_CACHE
      traits.append("OMIT_SHARED_CACHE")
    #endif
    #if USE_URI
      traits.append("USE_URI")
    #endif
    #if ENABLE_FTS4
      traits.append("ENABLE_FTS4")
    #endif
    #if ENABLE_GEOPOLY
      traits.append("ENABLE_GEOPOLY")
    #endif
    #if ENABLE_STAT4
      traits.append("ENABLE_STAT4")
    #endif
    #if ENABLE_BYTECODE_VTAB
      traits.append("ENABLE_BYTECODE_VTAB")
    #endif
    #if ENABLE_DBPAGE_VTAB
      traits.append("ENABLE_DBPAGE_VTAB")
    #endif
    #if ENABLE_NORMALIZE
      traits.append("ENABLE_NORMALIZE")
    #endif
    #if SECURE_DELETE
      traits.append("SECURE_DELETE")
    #endif
    #if API_ARMOR
      traits.append("API_ARMOR")
    #endif
    #if DEFAULT_FOREIGN_KEYS
      traits.append("DEFAULT_FOREIGN_KEYS")
    #endif
    #if OMIT_LOAD_EXTENSION
      traits.append("OMIT_LOAD_EXTENSION")
    #endif
    #if OMIT_PROGRESS_CALLBACK
      traits.append("OMIT_PROGRESS_CALLBACK")
    #endif
    #if OMIT_JSON
      traits.append("OMIT_JSON")
    #endif
    #if ENABLE_STMT_SCANSTATUS
      traits.append("ENABLE_STMT_SCANSTATUS")
    #endif
    #if ENABLE_SETLK_TIMEOUT
      traits.append("ENABLE_SETLK_TIMEOUT")
    #endif
    #if ENCRYPTION
      traits.append("ENCRYPTION")
    #endif
    #if VECTOR
      traits.append("VECTOR")
    #endif
    #if THREADSAFE_0
      traits.append("THREADSAFE_0")
    #endif
    #if THREADSAFE_1
      traits.append("THREADSAFE_1")
    #endif
    return traits
  }
}

/// SQLite's `SQLITE_TRANSIENT` destructor: SQLite copies the bytes before the bind call returns.
/// The C macro is a cast of -1 that Swift does not import.
let transientDestructor = unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
