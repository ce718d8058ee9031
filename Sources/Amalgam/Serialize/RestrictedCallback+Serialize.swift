extension RestrictedCallback {
  /// Not a callback of SQLite's, but restricted the same way: the body of `Database.withSerializedBytes`,
  /// which reads bytes that a write, `DETACH` or close would move or free.
  static let serializedBytesBody = RestrictedCallback(
    "body of withSerializedBytes", may: .readOnlyQueries(reason: "which reads the database's own bytes"))
}
