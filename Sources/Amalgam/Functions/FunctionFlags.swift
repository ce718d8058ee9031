import AmalgamSQLite

/// How SQLite may use an application-defined function: whether its result depends only on its
/// arguments, and where in the schema it may appear.
///
/// The default, ``default``, is `[.deterministic, .directOnly]`: SQLite may optimise calls, and a
/// database file cannot make the application run the function from a view, trigger, CHECK
/// constraint, index or generated column that someone else wrote into its schema.
///
/// ```swift
/// try db.addFunction("now_ms", arity: 0, flags: .directOnly) { _ in
///   .integer(Int64(Date().timeIntervalSince1970 * 1000))   // not deterministic
/// }
/// try db.addFunction("slug", arity: 1, flags: [.deterministic, .innocuous]) { values in ... }
/// ```
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/c_deterministic.html>
///
/// ## Topics
///
/// ### Flags
///
/// - ``deterministic``
/// - ``directOnly``
/// - ``innocuous``
/// - ``subtype``
/// - ``resultSubtype``
/// - ``default``
///
/// ### Raw values
///
/// - ``init(rawValue:)``
/// - ``rawValue``
public struct FunctionFlags: OptionSet, Hashable, Sendable {
  /// The `SQLITE_*` flag bits, as passed to `sqlite3_create_function_v2` with the text encoding.
  public let rawValue: Int32

  /// Creates flags from SQLite's flag bits.
  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// The function always returns the same result for the same arguments within one statement
  /// (`SQLITE_DETERMINISTIC`). SQLite may then factor calls out of loops, and the function may be used
  /// in index expressions, partial-index WHERE clauses and generated columns. Leave it out for a
  /// function that reads a clock, a random source or any other state.
  public static let deterministic = FunctionFlags(rawValue: SQLITE_DETERMINISTIC)

  /// The function may be called only from top-level SQL, never from views, triggers, CHECK
  /// constraints, DEFAULT clauses, index expressions or generated columns (`SQLITE_DIRECTONLY`).
  /// SQLite then fails such a use with "unsafe use of NAME()". Recommended for every function that is
  /// not needed in a schema, and essential for one with side effects or access to application state.
  public static let directOnly = FunctionFlags(rawValue: SQLITE_DIRECTONLY)

  /// The function is harmless even when misused: no side effects, and no dependence on anything but
  /// its arguments (`SQLITE_INNOCUOUS`). With `PRAGMA trusted_schema=OFF`, only innocuous functions may
  /// appear in views, triggers and schema expressions. Claim it only after auditing the function.
  public static let innocuous = FunctionFlags(rawValue: SQLITE_INNOCUOUS)

  /// The function reads the subtypes of its arguments with ``FunctionArguments/subtype(at:)``
  /// (`SQLITE_SUBTYPE`); SQLite then keeps them intact for it.
  public static let subtype = FunctionFlags(rawValue: SQLITE_SUBTYPE)

  /// The function may give its result a subtype, as ``FunctionContext/setResultJSON(_:)`` does
  /// (`SQLITE_RESULT_SUBTYPE`). Required for ``FunctionContext/setResultSubtype(_:)``; leave it out
  /// otherwise, as it turns off some optimisations.
  public static let resultSubtype = FunctionFlags(rawValue: SQLITE_RESULT_SUBTYPE)

  /// `[.deterministic, .directOnly]`: optimisable, and safe against calls placed in a database's schema.
  public static let `default`: FunctionFlags = [.deterministic, .directOnly]
}
