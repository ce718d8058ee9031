extension RestrictedCallback {
  // The callbacks SQLite calls while it prepares or plans a statement that uses a virtual table.
  static let virtualTableConnect = RestrictedCallback(
    "virtual table's initializer (xConnect)", may: .readOnlyQueries(reason: whilePreparing))
  static let virtualTableBestIndex = RestrictedCallback(
    "virtual table's bestIndex", may: .readOnlyQueries(reason: whilePreparing))
  static let virtualTableFindFunction = RestrictedCallback(
    "virtual table's findFunction", may: .readOnlyQueries(reason: whilePreparing))
}
