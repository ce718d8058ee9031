import Amalgam
import Testing

/// The keyed containers a `RowDecoder` hands to `init(from:)` read their row only while it is decoded.
struct RowDecoderLifetimeTests {
  enum Keys: String, CodingKey { case id, name }

  /// Keeps the containers it was given (tests only; each test makes its own keeper).
  final class Keeper: @unchecked Sendable {
    var containers: [KeyedDecodingContainer<Keys>] = []
  }

  struct Player: Decodable {
    var id: Int
    var name: String
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Keys.self)
      id = try container.decode(Int.self, forKey: .id)
      name = try container.decode(String.self, forKey: .name)
      RowDecoderLifetimeTests.lastKeeper?.containers.append(container)
    }
  }

  // The decoder's userInfo is empty, so the test hands the keeper over through a task-local value.
  @TaskLocal static var lastKeeper: Keeper?

  @Test func aContainerKeptAfterItsRowWasDecodedThrowsInsteadOfReadingAnotherRow() throws {
    let db = try Database()
    try db.batch(sql: "CREATE TABLE player(id INTEGER, name TEXT); INSERT INTO player VALUES (1, 'Ada'), (2, 'Grace')")
    let keeper = Keeper()
    let players = try Self.$lastKeeper.withValue(keeper) {
      try db.fetchAll(Player.self, sql: "SELECT id, name FROM player ORDER BY id")
    }
    #expect(players.map(\.id) == [1, 2])
    #expect(players.map(\.name) == ["Ada", "Grace"])
    #expect(keeper.containers.count == 2)
    for container in keeper.containers {
      #expect(throws: DatabaseError.callbackValueExpired("a RowDecoder container kept after its row was decoded")) {
        try container.decode(Int.self, forKey: .id)
      }
      #expect(throws: DatabaseError.self) { try container.decodeNil(forKey: .name) }
      #expect(!container.contains(.id))
      #expect(container.allKeys.isEmpty)
    }
    // Decoding goes on working after the kept containers expired (their sources were reused).
    #expect(try db.fetchOne(Player.self, sql: "SELECT 3 AS id, 'Linus' AS name")?.name == "Linus")
  }
}
