#if canImport(Observation)
  import Observation

  /// The live value of a ``ValueObservation``, held by an object that is itself `Observable`: what
  /// an `@Observable` model or a SwiftUI view keeps to show a query's result, re-rendered by SwiftUI
  /// (or told by `withObservationTracking`) each time a commit changes it.
  ///
  /// ```swift
  /// @MainActor @Observable final class NoteList {
  ///   let titles: ObservedValue<[String]>
  ///
  ///   init(queue: DatabaseQueue) {
  ///     titles = ObservedValue(
  ///       initialValue: [],
  ///       queue.observe { db in
  ///         try db.prepare(sql: "SELECT title FROM note ORDER BY title").column(0, as: String.self)
  ///       }.removingDuplicates())
  ///   }
  /// }
  /// // In a view: ForEach(list.titles.value, id: \.self) { Text($0) }
  /// ```
  ///
  /// The observation starts when the holder is made and stops when it is released, so it lives exactly
  /// as long as its owner (the model, or the view's `@State`); ``cancel()`` stops it earlier.
  /// ``value`` is `initialValue` until the first value arrives, a moment later, from the database. An
  /// error that ends the observation (the query failed, the database was closed) is kept in ``error``,
  /// and ``value`` keeps the last value.
  ///
  /// The holder is `@MainActor`: ``value`` changes on the main actor, where SwiftUI reads it while it
  /// renders, so a view never sees a change half made and every change lands in one SwiftUI update, as
  /// with any `@Observable` model that drives views. The query itself runs off the main actor, on the
  /// database's queue or a reader of a pool. Away from the main actor (a server, a background task),
  /// iterate the ``ValueObservation`` itself.
  ///
  /// Needs the Observation module: macOS 14, iOS 17, tvOS 17, watchOS 10, or Linux.
  ///
  /// Related SQLite documentation: <https://sqlite.org/c3ref/update_hook.html>
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @MainActor @Observable
  public final class ObservedValue<Value: Sendable> {
    /// The latest value of the observation: `initialValue` until the first one arrives.
    public private(set) var value: Value
    /// The error that ended the observation, if one did; ``value`` then keeps the last value.
    public private(set) var error: (any Error)?

    /// The task that iterates the observation; cancelled by ``cancel()`` or when the holder goes away.
    @ObservationIgnored private nonisolated let task = LockedState<Task<Void, Never>?>(nil)

    /// Starts `observation`; ``value`` is `initialValue` until its first value arrives.
    public init(initialValue: Value, _ observation: ValueObservation<Value>) {
      value = initialValue
      // Weak: the holder's owner decides how long the observation lives.
      let iteration = Task { @MainActor [weak self] in
        do {
          for try await value in observation {
            guard let self else { return }
            self.value = value
          }
        } catch {
          self?.error = error
        }
      }
      task.withLock { $0 = iteration }
    }

    deinit {
      task.withLock { $0 }?.cancel()
    }

    /// Stops the observation: ``value`` keeps the last value. Releasing the holder does the same.
    public func cancel() {
      task.withLock { $0 }?.cancel()
    }
  }
#endif
