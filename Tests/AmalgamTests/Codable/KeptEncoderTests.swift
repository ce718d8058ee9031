import Amalgam
import Foundation
import Testing

/// Keeps the encoder it was given. Unchecked: used by one test, on one thread.
private final class EncoderKeeper: @unchecked Sendable {
  var encoder: (any Encoder)?
}

private struct KeepsEncoder: Encodable {
  let keeper: EncoderKeeper
  var a: Int
  enum CodingKeys: String, CodingKey { case a }
  func encode(to encoder: any Encoder) throws {
    keeper.encoder = encoder
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(a, forKey: .a)
  }
}

@Suite struct KeptEncoderTests {
  @Test func aContainerAskedOfAnEncoderKeptAfterItsEncodeThrowsAndBindsNothing() throws {
    let db = try Database()
    try db.execute(sql: "CREATE TABLE t(a)")
    let statement = try db.prepare(sql: "INSERT INTO t VALUES (:a)")
    let keeper = EncoderKeeper()
    try statement.bind(KeepsEncoder(keeper: keeper, a: 1)).execute()
    let encoder = try #require(keeper.encoder)
    var late = encoder.container(keyedBy: KeepsEncoder.CodingKeys.self)
    #expect(
      throws: DatabaseError.callbackValueExpired("a StatementEncoder's keyed container, used after its encode returned")
    ) { try late.encode(99, forKey: .a) }
    try statement.execute()
    #expect(try db.fetchAll(Int.self, sql: "SELECT a FROM t") == [1, 1])
  }
}
