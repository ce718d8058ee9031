import Amalgam
import Testing

extension ReliabilityTests {
  /// Every public entry point misused: each case must throw the expected error with a useful message,
  /// leave no statement behind, keep the connection usable and leave the database file unchanged (see
  /// ``MisuseCase/run(sourceLocation:)``). Cases run in-process, one fresh database file each.
  @Suite("Misuse and bad input")
  struct MisuseTests {
    @Test("Core", arguments: MisuseCoreCases.all)
    func core(_ misuse: MisuseCase) throws {
      try misuse.run()
    }

    @Test("Callbacks", arguments: MisuseCallbackCases.all)
    func callbacks(_ misuse: MisuseCase) throws {
      try misuse.run()
    }

    @Test("Features", arguments: MisuseFeatureCases.all)
    func features(_ misuse: MisuseCase) throws {
      try misuse.run()
    }

    @Test("At least 150 cases, with distinct names")
    func count() {
      let all = MisuseCoreCases.all + MisuseCallbackCases.all + MisuseFeatureCases.all
      #expect(all.count >= 150, "\(all.count) cases")
      #expect(Set(all.map(\.testDescription)).count == all.count)
    }
  }
}
