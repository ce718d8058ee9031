#if ENABLE_SESSION
  import Amalgam
  import Foundation
  import Testing

  /// A sync loop built from sessions, changesets and the rebaser, proven on three databases: a server and
  /// two devices that edit the same tables offline, send their changes through the server and end
  /// identical. The types below are the code of the article "Syncing devices with changesets".
  ///
  /// Conflict policy (``SyncDevice/resolve(_:)``): the server's order decides. Of two changes to one
  /// column, the one that reached the server first wins; a deletion wins over any change to the row it
  /// deleted; of two inserts with one primary key, the first to reach the server wins. The server takes a
  /// device's changes only when the device has every change the server has (else the device pulls and
  /// rebases first), so the server itself never meets a conflict.
  @Suite struct ChangesetSyncTests {
    static let schema = """
      CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT, rank INTEGER);
      CREATE TABLE tag(name TEXT PRIMARY KEY, color INTEGER);
      """

    /// The migration that adds a table part-way through the test.
    static var migrator: DatabaseMigrator {
      var migrator = DatabaseMigrator(versioning: .userVersion)
      migrator.registerMigration("comments") { db in
        try db.execute(sql: "CREATE TABLE comment(id INTEGER PRIMARY KEY, note INTEGER, body TEXT)")
      }
      return migrator
    }

    @Test func threeDatabasesEndIdenticalAfterRandomOfflineEdits() throws {
      let server = try SyncServer(database: Self.makeDatabase())
      let devices = try ["phone", "laptop"].map { try SyncDevice(name: $0, database: Self.makeDatabase()) }
      var random = SessionTestRandom(state: 20_261_126)
      var inFlight: [String: SyncMessage] = [:]
      var refused = 0
      var migrated = false
      let steps = 2_000
      for step in 0..<steps {
        if step == steps / 3 {
          // A new version of the app adds a table: the server first, each device when it next pulls.
          try Self.migrator.migrate(server.db)
          migrated = true
        }
        let device = devices[Int(random.next() % 2)]
        switch random.next() % 10 {
        case 0...4:
          try Self.editOffline(device.db, random: &random)
        case 5, 6:
          // Send what changed; the device goes on editing while the message is on its way.
          if inFlight[device.name] == nil, let message = try device.messageToSend() {
            inFlight[device.name] = message
          }
        case 7, 8:
          // The server answers a message that may have waited while other devices sent theirs.
          if let message = inFlight.removeValue(forKey: device.name) {
            let accepted = try server.receive(message)
            try device.handleAnswer(to: message, accepted: accepted)
            if !accepted { refused += 1 }
          }
        default:
          if inFlight[device.name] == nil {
            if migrated { try Self.migrator.migrate(device.db) }
            try device.pull(from: server)
          }
        }
      }
      // Deliver the last messages, then sync each device until nothing is left to send.
      for (name, message) in inFlight {
        let device = try #require(devices.first { $0.name == name })
        try device.handleAnswer(to: message, accepted: try server.receive(message))
      }
      for _ in 0..<2 {
        for device in devices {
          try Self.migrator.migrate(device.db)
          try device.pull(from: server)
          if let message = try device.messageToSend() {
            #expect(try server.receive(message))
            try device.handleAnswer(to: message, accepted: true)
          }
        }
      }
      let serverContents = try sessionContents(server.db)
      for device in devices {
        #expect(try sessionContents(device.db) == serverContents, "\(device.name) differs from the server")
      }
      let conflicts = devices.map(\.conflictCounts).reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
      #expect(server.log.count > 50)
      #expect(refused > 5)
      #expect((serverContents["comment"] ?? []).count > 3)
      #expect(conflicts.values.reduce(0, +) > 20)
      print(
        "ChangesetSyncTests: \(steps) steps, \(server.log.count) changesets accepted, \(refused) refused and "
          + "rebased, conflicts resolved on devices: \(conflicts.sorted { $0.key < $1.key }), "
          + "rows: \(serverContents.mapValues(\.count).sorted { $0.key < $1.key })")
    }

    static func makeDatabase() throws -> Database {
      let db = try Database()
      try db.batch(sql: schema)
      return db
    }

    /// One to three random inserts, updates or deletes, as a user of the app makes them offline: the keys
    /// come from a small range, so devices often touch the same rows.
    static func editOffline(_ db: Database, random: inout SessionTestRandom) throws {
      let hasComments = try db.tableExists("comment")
      for _ in 0...(random.next() % 3) {
        let key = Int(random.next() % 24) + 1
        let value = Int(random.next() % 1000)
        switch (random.next() % (hasComments ? 9 : 6), random.next() % 3) {
        case (0...1, _):
          try db.execute(
            sql:
              "INSERT INTO note(id, title, rank) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title",
            arguments: [key, "note \(value)", value])
        case (2, 0): try db.execute(sql: "DELETE FROM note WHERE id = ?", arguments: [key])
        case (2, _): try db.execute(sql: "UPDATE note SET rank = ? WHERE id = ?", arguments: [value, key])
        case (3, _): try db.execute(sql: "UPDATE note SET title = ? WHERE id = ?", arguments: ["edited \(value)", key])
        case (4, 0): try db.execute(sql: "DELETE FROM tag WHERE name = ?", arguments: ["tag\(key % 8)"])
        case (4...5, _):
          try db.execute(
            sql: "INSERT INTO tag(name, color) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET color = excluded.color",
            arguments: ["tag\(key % 8)", value])
        case (6, 0): try db.execute(sql: "DELETE FROM comment WHERE id = ?", arguments: [key])
        case (6...7, _):
          try db.execute(
            sql: "INSERT OR IGNORE INTO comment(id, note, body) VALUES (?, ?, ?)",
            arguments: [key, value % 24 + 1, "comment \(value)"])
        default: try db.execute(sql: "UPDATE comment SET body = ? WHERE id = ?", arguments: ["reply \(value)", key])
        }
      }
    }
  }

  // Syncing devices: begin

  /// What a device sends: its changes, and how much of the server's log they were made on.
  struct SyncMessage {
    let device: String
    let changeset: Changeset
    let basePosition: Int
  }

  /// The server: the shared database and the log of every changeset it accepted, in order.
  final class SyncServer {
    let db: Database
    private(set) var log: [Changeset] = []

    init(database: Database) { db = database }

    /// Accepts a device's changes if they were made on the server's latest state; otherwise the device
    /// must pull and rebase them first. Accepted changes never conflict here.
    func receive(_ message: SyncMessage) throws -> Bool {
      guard message.basePosition == log.count else { return false }
      try db.apply(message.changeset)  // aborts, undoing everything, at any conflict
      log.append(message.changeset)
      return true
    }
  }

  /// A device: its own copy of the database, edited offline, and a session recording those edits.
  final class SyncDevice {
    let name: String
    let db: Database
    private var session: Session
    /// Local changes taken out of the session but not yet accepted by the server.
    private var unsent: Changeset?
    /// How many changesets of the server's log this database holds.
    private var position = 0
    private(set) var conflictCounts: [String: Int] = [:]

    init(name: String, database: Database) throws {
      self.name = name
      db = database
      session = try Session(database: db)
      try session.attach()
    }

    /// The local changes made since the last message, with those the server refused: the next
    /// message, or nil when nothing changed.
    func messageToSend() throws -> SyncMessage? {
      let changes = try takeLocalChanges()
      unsent = nil
      guard let changes else { return nil }
      return SyncMessage(device: name, changeset: changes, basePosition: position)
    }

    /// The server's answer. Changes refused wait, to be rebased by the next pull and sent again.
    func handleAnswer(to message: SyncMessage, accepted: Bool) throws {
      if accepted {
        position = message.basePosition + 1
      } else {
        unsent = try unsent.map { try message.changeset.concatenated(with: $0) } ?? message.changeset
      }
    }

    /// Applies the server's changesets that this database lacks, over the local changes not yet
    /// accepted, then rebases those local changes so that, applied on the server, they give what this
    /// database now holds.
    func pull(from server: SyncServer) throws {
      let local = try takeLocalChanges()
      try session.setEnabled(false)  // the server's changes are not local changes
      let rebaser = try Rebaser()
      for changeset in server.log[position...] {
        let rebaseData = try db.apply(changeset) { conflict in
          conflictCounts["\(conflict.kind)", default: 0] += 1
          return Self.resolve(conflict)
        }
        try rebaser.configure(rebaseData)
      }
      position = server.log.count
      unsent = try local.map { try rebaser.rebase($0) }
      session = try Session(database: db)
      try session.attach()
    }

    /// The conflict policy: the change that reached the server first wins, and a deletion wins.
    static func resolve(_ conflict: ChangesetConflict) -> ChangesetConflictResolution {
      switch conflict.kind {
      case .data, .conflict: .replace  // the server's change wins (for a deletion too)
      case .notFound: .omit  // the row was deleted here: the deletion wins
      case .constraint, .foreignKey: .abort
      }
    }

    /// The changes not yet accepted: the unsent ones followed by those the session recorded, which
    /// starts over.
    private func takeLocalChanges() throws -> Changeset? {
      let recorded = try session.changeset()
      session = try Session(database: db)
      try session.attach()
      switch (unsent, recorded.isEmpty) {
      case (nil, true): return nil
      case (nil, false): return recorded
      case (let unsent?, true): return unsent
      case (let unsent?, false): return try unsent.concatenated(with: recorded)
      }
    }
  }

// Syncing devices: end
#endif
