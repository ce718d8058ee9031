import Amalgam
import Testing

/// The keyed containers a `StatementEncoder` hands to `encode(to:)` write only while their value is
/// encoded.
struct StatementEncoderLifetimeTests {
  enum Keys: String, CodingKey { case id, name }

  final class Keeper: @unchecked Sendable {
    var containers: [KeyedEncodingContainer<Keys>] = []
  }

  @TaskLocal static var keeper: Keeper?

  struct Player: Encodable {
    var id: Int
    var name: String
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Keys.self)
      try container.encode(id, forKey: .id)
      try container.encode(name, forKey: .name)
      StatementEncoderLifetimeTests.keeper?.containers.append(container)
    }
  }

  @Test func aContainerKeptAfterItsValueWasEncodedThrowsInsteadOfBinding() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE player(id INTEGER, name TEXT)")
    let keeper = Keeper()
    let insert = try db.prepare(sql: "INSERT INTO player VALUES (:id, :name)")
    try Self.$keeper.withValue(keeper) {
      try insert.bind(Player(id: 1, name: "Ada")).execute()
      #expect(try StatementEncoder().encode(Player(id: 2, name: "Grace")) == ["id": .integer(2), "name": .text("Grace")])
    }
    #expect(keeper.containers.count == 2)
    for var container in keeper.containers {
      #expect(throws: DatabaseError.callbackValueExpired("a StatementEncoder container kept after its value was encoded")) {
        try container.encode(99, forKey: .id)
      }
      #expect(throws: DatabaseError.self) { try container.encodeNil(forKey: .name) }
    }
    // The kept containers bound nothing: the statement still holds the first player's values.
    try insert.execute()
    #expect(try db.fetchAll(Int.self, sql: "SELECT id FROM player") == [1, 1])
    #expect(try db.fetchAll(String.self, sql: "SELECT name FROM player") == ["Ada", "Ada"])
  }
}
