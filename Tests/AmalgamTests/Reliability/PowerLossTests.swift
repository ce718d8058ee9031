import Amalgam
import AmalgamTestSupport
import Foundation
import Testing

/// Power loss, simulated with the test VFS of Tests/AmalgamTestSupport (PowerLossVFS.c): it remembers
/// every write since each file's last sync, and a power cut reverts them on disk, as if the operating
/// system lost its cache. (SIGKILL, in CrashSafetyTests, loses nothing the process handed to the
/// operating system.) Each trial commits numbered transactions through that VFS, cuts the power at a
/// random write, truncation, sync or deletion (or after the last commit), reopens the file with the
/// default VFS, and checks that SQLite finds it intact, that the rows are 1...k with no gap and no half
/// transaction, and that k is what the journal mode and `synchronous` promise. `swift test` runs a few
/// trials per setting; `Scripts/stress/power-loss-test --trials N` runs more (it sets AMALGAM_POWER_LOSS_TRIALS).
@Suite struct PowerLossTests {
  /// A journal mode and `synchronous` setting (`nil` keeps the connection's default).
  struct Setting: CustomStringConvertible {
    var journalMode: String
    var synchronous: String?
    var description: String { "journal_mode=\(journalMode) synchronous=\(synchronous ?? "default")" }
  }

  /// What one trial saw.
  struct Trial {
    /// The last transaction whose commit returned.
    var acknowledged = 0
    /// The last transaction known to be on disk: the last acknowledged one when each commit syncs, or
    /// the last one before a completed checkpoint when only checkpoints sync.
    var durable = 0
    /// The connection's `PRAGMA synchronous` (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA).
    var synchronous = -1
    /// Rows found after the power came back.
    var survived = 0
    /// Writes the VFS dropped at the cut.
    var dropped: Int64 = 0
    /// Writes, truncations, syncs and deletions the VFS counted.
    var operations: Int64 = 0
    /// Whether the power went out during the transactions (rather than after the last commit).
    var cutDuringWork = false
  }

  static let vfsName = "amalgam-power-loss"
  static let transactions = 30

  /// A repeatable generator, so that a trial can be rerun from its seed.
  struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// Commits up to `transactions` transactions through the power-loss VFS in `directory`; the power goes
  /// out at operation `cutAt` (0: after the last commit). Then reopens and counts what survived.
  static func trial(_ setting: Setting, in directory: URL, cutAt: Int64, keepPercent: Int32, seed: UInt64) throws
    -> Trial
  {
    #expect(amalgam_power_loss_register() == 0)  // SQLITE_OK
    let path = directory.appendingPathComponent("power.sqlite").path
    #expect(amalgam_power_loss_plug(directory.path, cutAt, keepPercent, seed) == 0)
    var trial = Trial()
    var generator = SplitMix64(state: seed)
    do {
      let db = try Database(path: path, options: .init(vfs: vfsName))
      defer { try? db.close() }
      do {
        _ = try db.prepare(sql: "PRAGMA journal_mode = \(setting.journalMode)").front(String.self)
        if let synchronous = setting.synchronous { try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        try db.transaction(.immediate) { db in
          try db.batch(
            sql: """
              CREATE TABLE entry(n INTEGER PRIMARY KEY, amount INTEGER NOT NULL, payload BLOB NOT NULL);
              CREATE INDEX entry_amount ON entry(amount);
              CREATE TABLE total(id INTEGER PRIMARY KEY CHECK (id = 1), amount INTEGER NOT NULL);
              INSERT INTO total VALUES (1, 0);
              """)
        }
        // Read after a transaction: SQLite applies its WAL default (DEFAULT_WAL_SYNCHRONOUS_1) when a
        // transaction first reads the database in WAL mode, not at the switch to WAL.
        trial.synchronous = try db.prepare(sql: "PRAGMA synchronous").front(Int.self) ?? -1
        let insert = try db.prepare(sql: "INSERT INTO entry(n, amount, payload) VALUES (?, ?, zeroblob(?))")
        let add = try db.prepare(sql: "UPDATE total SET amount = amount + ? WHERE id = 1")
        for n in 1...transactions {
          let amount = Int.random(in: 1...1_000, using: &generator)
          let size =
            n % 7 == 0 ? Int.random(in: 2_000...12_000, using: &generator) : Int.random(in: 0...300, using: &generator)
          try db.transaction(.immediate) { _ in
            try insert.bind(parameterValues: [n, amount, size]).execute()
            try add.bind(parameterValues: [amount]).execute()
          }
          trial.acknowledged = n
          if trial.synchronous >= 2 { trial.durable = n }
          if setting.journalMode == "WAL" && n % 8 == 0 {
            // A completed checkpoint syncs the WAL first: everything committed so far is durable.
            let result = try db.checkpoint(.passive)
            if trial.synchronous >= 1 && result.isComplete { trial.durable = n }
          }
        }
      } catch {
        // The only failures expected are the I/O errors of the power cut.
        #expect(amalgam_power_loss_is_out(directory.path) == 1, "\(setting) seed \(seed): \(error)")
        trial.cutDuringWork = true
      }
      trial.operations = amalgam_power_loss_operations(directory.path)
      if amalgam_power_loss_is_out(directory.path) == 0 {
        trial.dropped = amalgam_power_loss_cut(directory.path)
      }
    }
    #expect(amalgam_power_loss_unplug(directory.path) == 0)

    // The power is back: open with the default VFS, which recovers from the journal or the WAL.
    let db = try Database(path: path)
    defer { try? db.close() }
    let integrity = try db.prepare(sql: "PRAGMA integrity_check").column(0, as: String.self)
    #expect(integrity == ["ok"], "\(setting) seed \(seed) cut at \(cutAt)")
    guard try db.tableExists("entry") else { return trial }
    let row = try db.prepare(
      sql: "SELECT count(*), coalesce(max(n), 0), coalesce(sum(amount), 0), (SELECT amount FROM total) FROM entry"
    ).firstRow()
    guard let row, case .integer(let count) = row[0], case .integer(let maximum) = row[1] else {
      Issue.record("\(setting) seed \(seed): no counts")
      return trial
    }
    #expect(count == maximum, "\(setting) seed \(seed) cut at \(cutAt): a gap in the rows")
    #expect(row[2] == row[3], "\(setting) seed \(seed) cut at \(cutAt): a half-applied transaction")
    trial.survived = Int(maximum)
    return trial
  }

  /// Runs a trial with the power cut after the last commit (which counts the operations), then trials cut
  /// at random operations among those, checking each against `expectation`; returns the trials.
  static func trials(_ setting: Setting, keepPercent: Int32, count: Int) async throws -> [Trial] {
    var generator = SystemRandomNumberGenerator()
    let referenceSeed: UInt64 = generator.next()
    let reference = try withTemporaryDirectory { directory in
      try Self.trial(setting, in: directory, cutAt: 0, keepPercent: keepPercent, seed: referenceSeed)
    }
    var trials = [reference]
    for _ in 0..<count {
      let seed: UInt64 = generator.next()
      let cutAt = Int64.random(in: 1...max(1, reference.operations), using: &generator)
      let trial = try withTemporaryDirectory { directory in
        try Self.trial(setting, in: directory, cutAt: cutAt, keepPercent: keepPercent, seed: seed)
      }
      // Nothing acknowledged and durable is lost; at most the transaction in flight is added.
      #expect(
        trial.survived >= trial.durable && trial.survived <= trial.acknowledged + 1,
        "\(setting) keep \(keepPercent)% seed \(seed) cut at \(cutAt): \(trial)")
      trials.append(trial)
    }
    return trials
  }

  static func summary(_ setting: Setting, keepPercent: Int32, _ trials: [Trial]) -> String {
    let lost = trials.map { $0.acknowledged - min($0.survived, $0.acknowledged) }
    let inFlight = trials.filter { $0.survived == $0.acknowledged + 1 }.count
    return "PowerLossTests: \(setting) keep \(keepPercent)%: \(trials.count) trials, "
      + "\(trials.filter(\.cutDuringWork).count) cut during work, acknowledged commits lost: "
      + "max \(lost.max() ?? 0), total \(lost.reduce(0, +)), in-flight commits kept: \(inFlight)"
  }

  static var trialCount: Int { Reliability.count("AMALGAM_POWER_LOSS_TRIALS", default: 30) }

  @Test(arguments: [Int32(0), 50])
  func walWithSynchronousFullLosesNoAcknowledgedCommit(keepPercent: Int32) async throws {
    let setting = Setting(journalMode: "WAL", synchronous: "FULL")
    let trials = try await Self.trials(setting, keepPercent: keepPercent, count: Self.trialCount)
    // (A trial cut before its first transaction has no reading of `synchronous`.)
    for trial in trials where trial.synchronous >= 0 {
      #expect(trial.synchronous == 2)
      #expect(trial.survived >= trial.acknowledged, "\(trial)")
    }
    print(Self.summary(setting, keepPercent: keepPercent, trials))
  }

  @Test(arguments: [Int32(0), 50])
  func rollbackJournalWithDefaultSynchronousLosesNoAcknowledgedCommit(keepPercent: Int32) async throws {
    let setting = Setting(journalMode: "DELETE", synchronous: nil)
    let trials = try await Self.trials(setting, keepPercent: keepPercent, count: Self.trialCount)
    for trial in trials where trial.synchronous >= 0 {
      #expect(trial.synchronous == 2, "SQLite's default outside WAL is FULL")
      #expect(trial.survived >= trial.acknowledged, "\(trial)")
    }
    print(Self.summary(setting, keepPercent: keepPercent, trials))
  }

  /// The default traits set synchronous=NORMAL in WAL mode (DEFAULT_WAL_SYNCHRONOUS_1): a commit is not
  /// synced, a checkpoint is. The power cut loses at most the transactions after the last checkpoint.
  @Test(arguments: [Int32(0), 50])
  func walWithDefaultSynchronousLosesAtMostTheCommitsSinceTheLastCheckpoint(keepPercent: Int32) async throws {
    let setting = Setting(journalMode: "WAL", synchronous: nil)
    let trials = try await Self.trials(setting, keepPercent: keepPercent, count: Self.trialCount)
    #if DEFAULT_WAL_SYNCHRONOUS_1
      for trial in trials where trial.synchronous >= 0 { #expect(trial.synchronous == 1) }
      // With every unsynced write dropped, a cut after the last commit loses exactly the commits since
      // the last checkpoint: NORMAL really does trade those for speed.
      if keepPercent == 0, let reference = trials.first {
        #expect(reference.survived == reference.durable, "\(reference)")
        #expect(reference.durable < reference.acknowledged)
      }
    #endif
    print(Self.summary(setting, keepPercent: keepPercent, trials))
  }

  /// The VFS really loses what was not synced: with synchronous=OFF nothing is ever synced, so a cut
  /// with every unsynced write dropped leaves an empty file.
  @Test func unsyncedWritesAreLost() async throws {
    let setting = Setting(journalMode: "WAL", synchronous: "OFF")
    let trial = try withTemporaryDirectory { directory in
      try Self.trial(setting, in: directory, cutAt: 0, keepPercent: 0, seed: 1)
    }
    #expect(trial.acknowledged == Self.transactions)
    #expect(trial.dropped > 0)
    #expect(trial.survived == 0)
  }
}
