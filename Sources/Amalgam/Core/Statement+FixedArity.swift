// Binding by position and by name, one overload per number of values from two to twelve.
//
// `bind(_:)` and `bind(named:)` take parameter packs. Swift 6.3 moves each element of a pack through the
// runtime even in a specialised caller: a protocol witness call and a value-witness copy per value, and
// for a pack of `(name, value)` tuples a tuple-metadata lookup, copy and destroy per pair (about 250
// instructions, more than SQLite spends binding the value). Overloads of fixed arity take plain generic
// parameters, which specialise to direct calls; Swift prefers them to a pack, so a call with two to twelve
// values picks one without a change to what the user writes. Every overload of a kind is the same code
// (those by name compare the names with the ones the statement remembers from its last bind by name, and
// resolve and remember them when they differ, then bind each value at its parameter). One value, or more
// than twelve, go through the packs in Statement.swift, which do the same work (an overload for one value
// would share its name with the pack's, and make the documentation's links to it ambiguous).
//
// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>

extension Statement {
  /// Binds two values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for two pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<V0: ParameterBindable, V1: ParameterBindable>(
    named p0: (String, V0), _ p1: (String, V1)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 2 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1) {
        try rememberNamedBinding([p0.0, p1.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
    }
    return self
  }

  /// Binds three values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for three pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable>(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 3 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
    }
    return self
  }

  /// Binds four values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for four pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable>(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 4 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
    }
    return self
  }

  /// Binds five values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for five pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 5 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
    }
    return self
  }

  /// Binds six values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for six pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 6 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
    }
    return self
  }

  /// Binds seven values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for seven pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5), _ p6: (String, V6)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 7 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5) || !namedBinding.isName(p6.0, at: 6)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0, p6.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
      try p6.1.bind(to: self, at: indexes[6])
    }
    return self
  }

  /// Binds eight values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for eight pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5), _ p6: (String, V6), _ p7: (String, V7)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 8 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5) || !namedBinding.isName(p6.0, at: 6) || !namedBinding.isName(p7.0, at: 7)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0, p6.0, p7.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
      try p6.1.bind(to: self, at: indexes[6])
      try p7.1.bind(to: self, at: indexes[7])
    }
    return self
  }

  /// Binds nine values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for nine pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5), _ p6: (String, V6), _ p7: (String, V7), _ p8: (String, V8)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 9 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5) || !namedBinding.isName(p6.0, at: 6) || !namedBinding.isName(p7.0, at: 7)
        || !namedBinding.isName(p8.0, at: 8)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0, p6.0, p7.0, p8.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
      try p6.1.bind(to: self, at: indexes[6])
      try p7.1.bind(to: self, at: indexes[7])
      try p8.1.bind(to: self, at: indexes[8])
    }
    return self
  }

  /// Binds ten values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for ten pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable, V9: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5), _ p6: (String, V6), _ p7: (String, V7), _ p8: (String, V8), _ p9: (String, V9)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 10 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5) || !namedBinding.isName(p6.0, at: 6) || !namedBinding.isName(p7.0, at: 7)
        || !namedBinding.isName(p8.0, at: 8) || !namedBinding.isName(p9.0, at: 9)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0, p6.0, p7.0, p8.0, p9.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
      try p6.1.bind(to: self, at: indexes[6])
      try p7.1.bind(to: self, at: indexes[7])
      try p8.1.bind(to: self, at: indexes[8])
      try p9.1.bind(to: self, at: indexes[9])
    }
    return self
  }

  /// Binds eleven values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for eleven pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable, V9: ParameterBindable,
    V10: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5), _ p6: (String, V6), _ p7: (String, V7), _ p8: (String, V8), _ p9: (String, V9),
    _ p10: (String, V10)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 11 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5) || !namedBinding.isName(p6.0, at: 6) || !namedBinding.isName(p7.0, at: 7)
        || !namedBinding.isName(p8.0, at: 8) || !namedBinding.isName(p9.0, at: 9) || !namedBinding.isName(p10.0, at: 10)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0, p6.0, p7.0, p8.0, p9.0, p10.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
      try p6.1.bind(to: self, at: indexes[6])
      try p7.1.bind(to: self, at: indexes[7])
      try p8.1.bind(to: self, at: indexes[8])
      try p9.1.bind(to: self, at: indexes[9])
      try p10.1.bind(to: self, at: indexes[10])
    }
    return self
  }

  /// Binds twelve values to named parameters, each given as a `(name, value)` pair: the same as
  /// the parameter-pack `bind(named:)` for twelve pairs, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_parameter_index.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable, V9: ParameterBindable,
    V10: ParameterBindable, V11: ParameterBindable
  >(
    named p0: (String, V0), _ p1: (String, V1), _ p2: (String, V2), _ p3: (String, V3), _ p4: (String, V4),
    _ p5: (String, V5), _ p6: (String, V6), _ p7: (String, V7), _ p8: (String, V8), _ p9: (String, V9),
    _ p10: (String, V10), _ p11: (String, V11)
  ) throws -> Statement {
    try whileOpen {
      if namedBinding.count != 12 || !namedBinding.isName(p0.0, at: 0) || !namedBinding.isName(p1.0, at: 1)
        || !namedBinding.isName(p2.0, at: 2) || !namedBinding.isName(p3.0, at: 3) || !namedBinding.isName(p4.0, at: 4)
        || !namedBinding.isName(p5.0, at: 5) || !namedBinding.isName(p6.0, at: 6) || !namedBinding.isName(p7.0, at: 7)
        || !namedBinding.isName(p8.0, at: 8) || !namedBinding.isName(p9.0, at: 9) || !namedBinding.isName(p10.0, at: 10)
        || !namedBinding.isName(p11.0, at: 11)
      {
        try rememberNamedBinding([p0.0, p1.0, p2.0, p3.0, p4.0, p5.0, p6.0, p7.0, p8.0, p9.0, p10.0, p11.0])
      }
      let indexes = namedBinding.indexes
      try p0.1.bind(to: self, at: indexes[0])
      try p1.1.bind(to: self, at: indexes[1])
      try p2.1.bind(to: self, at: indexes[2])
      try p3.1.bind(to: self, at: indexes[3])
      try p4.1.bind(to: self, at: indexes[4])
      try p5.1.bind(to: self, at: indexes[5])
      try p6.1.bind(to: self, at: indexes[6])
      try p7.1.bind(to: self, at: indexes[7])
      try p8.1.bind(to: self, at: indexes[8])
      try p9.1.bind(to: self, at: indexes[9])
      try p10.1.bind(to: self, at: indexes[10])
      try p11.1.bind(to: self, at: indexes[11])
    }
    return self
  }
}

extension Statement {
  /// Binds two values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for two values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<V0: ParameterBindable, V1: ParameterBindable>(_ v0: V0, _ v1: V1) throws -> Statement {
    guard parameterCount == 2 else { throw parameterCountMismatch(2) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
    }
    return self
  }

  /// Binds three values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for three values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable>(_ v0: V0, _ v1: V1, _ v2: V2)
    throws -> Statement
  {
    guard parameterCount == 3 else { throw parameterCountMismatch(3) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
    }
    return self
  }

  /// Binds four values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for four values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable>(
    _ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3
  ) throws -> Statement {
    guard parameterCount == 4 else { throw parameterCountMismatch(4) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
    }
    return self
  }

  /// Binds five values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for five values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4) throws -> Statement {
    guard parameterCount == 5 else { throw parameterCountMismatch(5) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
    }
    return self
  }

  /// Binds six values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for six values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5) throws -> Statement {
    guard parameterCount == 6 else { throw parameterCountMismatch(6) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
    }
    return self
  }

  /// Binds seven values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for seven values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5, _ v6: V6) throws -> Statement {
    guard parameterCount == 7 else { throw parameterCountMismatch(7) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
      try v6.bind(to: self, at: 7)
    }
    return self
  }

  /// Binds eight values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for eight values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5, _ v6: V6, _ v7: V7) throws -> Statement {
    guard parameterCount == 8 else { throw parameterCountMismatch(8) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
      try v6.bind(to: self, at: 7)
      try v7.bind(to: self, at: 8)
    }
    return self
  }

  /// Binds nine values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for nine values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5, _ v6: V6, _ v7: V7, _ v8: V8) throws -> Statement {
    guard parameterCount == 9 else { throw parameterCountMismatch(9) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
      try v6.bind(to: self, at: 7)
      try v7.bind(to: self, at: 8)
      try v8.bind(to: self, at: 9)
    }
    return self
  }

  /// Binds ten values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for ten values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable, V9: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5, _ v6: V6, _ v7: V7, _ v8: V8, _ v9: V9) throws
    -> Statement
  {
    guard parameterCount == 10 else { throw parameterCountMismatch(10) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
      try v6.bind(to: self, at: 7)
      try v7.bind(to: self, at: 8)
      try v8.bind(to: self, at: 9)
      try v9.bind(to: self, at: 10)
    }
    return self
  }

  /// Binds eleven values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for eleven values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable, V9: ParameterBindable,
    V10: ParameterBindable
  >(_ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5, _ v6: V6, _ v7: V7, _ v8: V8, _ v9: V9, _ v10: V10)
    throws -> Statement
  {
    guard parameterCount == 11 else { throw parameterCountMismatch(11) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
      try v6.bind(to: self, at: 7)
      try v7.bind(to: self, at: 8)
      try v8.bind(to: self, at: 9)
      try v9.bind(to: self, at: 10)
      try v10.bind(to: self, at: 11)
    }
    return self
  }

  /// Binds twelve values to the parameters by position: the same as the parameter-pack
  /// `bind(_:)` for twelve values, without the pack's runtime cost.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/bind_blob.html>
  @inlinable @discardableResult
  public func bind<
    V0: ParameterBindable, V1: ParameterBindable, V2: ParameterBindable, V3: ParameterBindable, V4: ParameterBindable,
    V5: ParameterBindable, V6: ParameterBindable, V7: ParameterBindable, V8: ParameterBindable, V9: ParameterBindable,
    V10: ParameterBindable, V11: ParameterBindable
  >(
    _ v0: V0, _ v1: V1, _ v2: V2, _ v3: V3, _ v4: V4, _ v5: V5, _ v6: V6, _ v7: V7, _ v8: V8, _ v9: V9, _ v10: V10,
    _ v11: V11
  ) throws -> Statement {
    guard parameterCount == 12 else { throw parameterCountMismatch(12) }
    try whileOpen {
      try v0.bind(to: self, at: 1)
      try v1.bind(to: self, at: 2)
      try v2.bind(to: self, at: 3)
      try v3.bind(to: self, at: 4)
      try v4.bind(to: self, at: 5)
      try v5.bind(to: self, at: 6)
      try v6.bind(to: self, at: 7)
      try v7.bind(to: self, at: 8)
      try v8.bind(to: self, at: 9)
      try v9.bind(to: self, at: 10)
      try v10.bind(to: self, at: 11)
      try v11.bind(to: self, at: 12)
    }
    return self
  }
}
