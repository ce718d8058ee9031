/// An SQL aggregate function written in Swift: the state of one group, fed one row at a time.
///
/// SQLite creates a fresh value for every group of every query that uses the function (with
/// ``init()``, or the factory closure given to `Database.addAggregateFunction(_:arity:flags:_:)`),
/// calls ``step(_:)`` for each of the group's rows, then ``final()`` once, and discards the value.
/// Two groups, two uses in one query (`SELECT f(x), f(y)`) and two statements running at once never
/// share state.
///
/// ```swift
/// struct Product: SQLAggregateFunction {
///   var product: Double = 1
///   mutating func step(_ arguments: FunctionArguments) throws {
///     if !arguments.isNull(at: 0) { product *= arguments.double(at: 0) }
///   }
///   func final() throws -> DatabaseValue { .real(product) }
/// }
/// try db.addAggregateFunction("product", arity: 1, Product.self)
/// // SELECT category, product(factor) FROM t GROUP BY category
/// ```
///
/// Over no rows at all (`SELECT product(x) FROM empty`), SQLite calls only ``final()``, on a fresh value.
/// An error thrown by either method fails the statement with the error's message.
///
/// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>,
/// <https://sqlite.org/c3ref/aggregate_context.html>
public protocol SQLAggregateFunction {
  /// Creates the state of a group that has seen no rows.
  init()

  /// Adds one row's arguments to the group. `arguments` is valid only during the call.
  mutating func step(_ arguments: FunctionArguments) throws

  /// The group's result, after its last row.
  func final() throws -> DatabaseValue
}

/// An SQL aggregate that can also run as a window function (`f(x) OVER (...)`) in one pass: rows
/// leave the window frame through ``inverse(_:)`` and ``value()`` reads the current frame's result.
///
/// ```swift
/// struct MovingSum: SQLAggregateWindowFunction {
///   var sum: Int64 = 0
///   mutating func step(_ arguments: FunctionArguments) throws { sum += arguments.int64(at: 0) }
///   mutating func inverse(_ arguments: FunctionArguments) throws { sum -= arguments.int64(at: 0) }
///   func value() throws -> DatabaseValue { .integer(sum) }
/// }
/// try db.addWindowFunction("moving_sum", arity: 1, MovingSum.self)
/// // SELECT moving_sum(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM samples
/// ```
///
/// Each partition gets a fresh value. ``SQLAggregateFunction/final()`` defaults to ``value()``; it is
/// also what a plain aggregate use (without OVER) returns.
///
/// Related SQLite documentation: <https://sqlite.org/windowfunctions.html#udfwinfunc>,
/// <https://sqlite.org/c3ref/create_function.html>
public protocol SQLAggregateWindowFunction: SQLAggregateFunction {
  /// Removes one row's arguments from the frame: the oldest row that ``SQLAggregateFunction/step(_:)``
  /// added and that has not been removed yet.
  mutating func inverse(_ arguments: FunctionArguments) throws

  /// The result for the current frame. SQLite may call it many times, between steps and inverses.
  func value() throws -> DatabaseValue
}

extension SQLAggregateWindowFunction {
  /// The result for the final frame: ``value()``.
  public func final() throws -> DatabaseValue { try value() }
}
