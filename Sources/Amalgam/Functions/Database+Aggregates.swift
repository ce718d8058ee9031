import AmalgamSQLite

// MARK: - Aggregate and window functions

extension Database {
  /// Adds or replaces an SQL aggregate function implemented by `type`: each group of each query gets
  /// its own `type.init()`.
  ///
  /// ```swift
  /// try db.addAggregateFunction("product", arity: 1, Product.self)
  /// let products = try db.prepare(sql: "SELECT product(x) FROM t GROUP BY g").column(0, as: Double.self)
  /// ```
  ///
  /// Name, arity and flags are as for scalar functions (`addFunction(_:arity:flags:_:)`). Remove it with
  /// ``removeFunction(_:arity:)``.
  ///
  /// - Throws: ``SQLiteError`` with code ``ResultCode/misuse`` for a bad name or arity, or SQLite's error;
  ///   ``DatabaseError/databaseClosed``.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  public func addAggregateFunction<A: SQLAggregateFunction>(
    _ name: String, arity: Int, flags: FunctionFlags = .default, _ type: A.Type
  ) throws {
    try addAggregateFunction(name, arity: arity, flags: flags) { A() }
  }

  /// Adds or replaces an SQL aggregate function whose per-group state `makeState` creates: for state
  /// that needs configuration.
  ///
  /// ```swift
  /// try db.addAggregateFunction("join_comma", arity: 1) { Join(separator: ", ") }
  /// ```
  ///
  /// `makeState` runs once for every group of every query (and once more for a query over no rows);
  /// the database keeps it until the function is removed or replaced, or the database closes.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  public func addAggregateFunction<A: SQLAggregateFunction>(
    _ name: String, arity: Int, flags: FunctionFlags = .default, _ makeState: @escaping () -> A
  ) throws {
    let box = AggregateFunction(name: name, flags: flags, makeState: makeState)
    try createFunction(name, arity: arity, flags: flags, box: box) { handle, userData, textRepresentation in
      sqlite3_create_window_function(
        handle, name, Int32(arity), textRepresentation, userData, stepAggregate, finalAggregate, nil, nil,
        releaseFunctionBox)
    }
  }

  /// Adds or replaces an aggregate window function implemented by `type`, usable both as an aggregate
  /// and with an OVER clause. Each group, and each window partition, gets its own `type.init()`.
  ///
  /// ```swift
  /// try db.addWindowFunction("moving_sum", arity: 1, MovingSum.self)
  /// // SELECT moving_sum(x) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t
  /// ```
  ///
  /// Name, arity and flags are as for scalar functions (`addFunction(_:arity:flags:_:)`).
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>,
  /// <https://sqlite.org/windowfunctions.html#udfwinfunc>
  public func addWindowFunction<W: SQLAggregateWindowFunction>(
    _ name: String, arity: Int, flags: FunctionFlags = .default, _ type: W.Type
  ) throws {
    try addWindowFunction(name, arity: arity, flags: flags) { W() }
  }

  /// Adds or replaces an aggregate window function whose per-partition state `makeState` creates.
  /// See the form that takes the type, `addWindowFunction(_:arity:flags:_:)`.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/create_function.html>
  public func addWindowFunction<W: SQLAggregateWindowFunction>(
    _ name: String, arity: Int, flags: FunctionFlags = .default, _ makeState: @escaping () -> W
  ) throws {
    let box = AggregateFunction(name: name, flags: flags, windowState: makeState)
    try createFunction(name, arity: arity, flags: flags, box: box) { handle, userData, textRepresentation in
      sqlite3_create_window_function(
        handle, name, Int32(arity), textRepresentation, userData, stepAggregate, finalAggregate, aggregateValue,
        inverseAggregate, releaseFunctionBox)
    }
  }
}

/// An aggregate's callbacks for one Swift type: the user data SQLite holds for it. The closures capture
/// the type and its factory, so that SQLite's C callbacks, which cannot be generic, reach them.
final class AggregateFunction {
  let name: String
  let flags: FunctionFlags
  let step: (OpaquePointer, FunctionArguments) throws -> Void
  let final: (OpaquePointer) throws -> DatabaseValue
  let inverse: ((OpaquePointer, FunctionArguments) throws -> Void)?
  let value: ((OpaquePointer) throws -> DatabaseValue)?
  /// The lifetime of each step's and inverse's arguments.
  let scope: CallbackScope

  init<A: SQLAggregateFunction>(name: String, flags: FunctionFlags, makeState: @escaping () -> A) {
    self.name = name
    self.flags = flags
    scope = CallbackScope()
    step = { context, arguments in try AggregateState.state(in: context, makeState).pointee.step(arguments) }
    final = { context in try (AggregateState<A>.take(from: context) ?? makeState()).final() }
    inverse = nil
    value = nil
  }

  init<W: SQLAggregateWindowFunction>(name: String, flags: FunctionFlags, windowState makeState: @escaping () -> W) {
    self.name = name
    self.flags = flags
    scope = CallbackScope()
    step = { context, arguments in try AggregateState.state(in: context, makeState).pointee.step(arguments) }
    final = { context in try (AggregateState<W>.take(from: context) ?? makeState()).final() }
    inverse = { context, arguments in try AggregateState.state(in: context, makeState).pointee.inverse(arguments) }
    value = { context in
      guard let state = AggregateState<W>.existing(in: context) else { return try makeState().value() }
      return try state.pointee.value()
    }
  }
}

/// The state of one aggregate group, kept where SQLite's aggregate context (`sqlite3_aggregate_context`)
/// stores one pointer: SQLite allocates that memory zeroed for each group and frees it when the group
/// ends, and always calls xFinal first (also when a statement is reset or finalized early), which is
/// where the Swift value is destroyed.
enum AggregateState<State> {
  private static var slotSize: Int32 { Int32(MemoryLayout<UnsafeMutableRawPointer?>.size) }

  /// The group's state, created on first use.
  static func state(in context: OpaquePointer, _ makeState: () -> State) throws -> UnsafeMutablePointer<State> {
    guard let slot = sqlite3_aggregate_context(context, slotSize) else {
      throw SQLiteError(code: .noMemory)
    }
    if let existing = slot.load(as: UnsafeMutableRawPointer?.self) {
      return existing.assumingMemoryBound(to: State.self)
    }
    let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
    state.initialize(to: makeState())
    slot.storeBytes(of: UnsafeMutableRawPointer(state), as: UnsafeMutableRawPointer?.self)
    return state
  }

  /// The group's state if it has one, without creating any.
  static func existing(in context: OpaquePointer) -> UnsafeMutablePointer<State>? {
    // A size of 0 allocates nothing: it returns the group's memory only if a step allocated it.
    guard let slot = sqlite3_aggregate_context(context, 0) else { return nil }
    return slot.load(as: UnsafeMutableRawPointer?.self)?.assumingMemoryBound(to: State.self)
  }

  /// Moves the group's state out and frees its memory; `nil` when no row reached the group.
  static func take(from context: OpaquePointer) -> State? {
    guard let slot = sqlite3_aggregate_context(context, 0),
      let existing = slot.load(as: UnsafeMutableRawPointer?.self)
    else { return nil }
    slot.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
    let state = existing.assumingMemoryBound(to: State.self)
    defer { state.deallocate() }
    return state.move()
  }
}

/// The aggregate registered with `context`'s function. Registered only with an AggregateFunction as
/// its user data (in the functions above).
private func aggregate(_ context: OpaquePointer) -> AggregateFunction? {
  sqlite3_user_data(context).map { Unretained<AggregateFunction>(opaque: $0).object }
}

/// SQLite's xStep.
private func stepAggregate(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
  guard let context, let function = aggregate(context) else { return }
  function.scope.run { token in
    do {
      try function.step(context, FunctionArguments(count: count, values: values, token: token))
    } catch {
      setFunctionError(error, on: context)
    }
    failIfOutOfMemory(token, on: context)
  }
}

/// SQLite's xInverse.
private func inverseAggregate(
  _ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?
) {
  guard let context, let function = aggregate(context), let inverse = function.inverse else { return }
  function.scope.run { token in
    do {
      try inverse(context, FunctionArguments(count: count, values: values, token: token))
    } catch {
      setFunctionError(error, on: context)
    }
    failIfOutOfMemory(token, on: context)
  }
}

/// SQLite's xFinal: the result, and the end of the group's state.
private func finalAggregate(_ context: OpaquePointer?) {
  guard let context, let function = aggregate(context) else { return }
  do {
    setFunctionResult(try function.final(context), on: context)
  } catch {
    setFunctionError(error, on: context)
  }
}

/// SQLite's xValue.
private func aggregateValue(_ context: OpaquePointer?) {
  guard let context, let function = aggregate(context), let value = function.value else { return }
  do {
    setFunctionResult(try value(context), on: context)
  } catch {
    setFunctionError(error, on: context)
  }
}
