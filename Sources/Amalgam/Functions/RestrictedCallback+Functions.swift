extension RestrictedCallback {
  /// A collation's comparison, which SQLite calls while a statement runs: it must not use its connection.
  static let collation = RestrictedCallback("collation function", may: .nothing)
}
