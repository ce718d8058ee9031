// GRDB's spelling of starting an observation. An Amalgam observation belongs to the queue or pool it
// observes from the start, so GRDB's unbound `ValueObservation.tracking { }` has no equivalent that a
// fix-it could write: the declaration below only turns GRDB's first guess into an error that says what
// to write instead. See <doc:MovingFromFeistyDBSQiftOrGRDB>.

extension ValueObservation {
  /// GRDB's way to start an observation, unavailable: write `queue.observe { db in ... }` (or
  /// `pool.observe`), and iterate the result.
  ///
  /// ```swift
  /// for try await count in queue.observe({ db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM player") }) {
  ///   print(count)
  /// }
  /// ```
  @available(
    *, unavailable,
    message: "an observation starts from its queue or pool: write queue.observe { db in ... } and iterate it"
  )
  public static func tracking(_ fetch: @escaping @Sendable (Database) throws -> Value) -> ValueObservation<Value> {
    // Unavailable: no code can call it.
    fatalError("ValueObservation.tracking(_:) is unavailable")
  }
}
