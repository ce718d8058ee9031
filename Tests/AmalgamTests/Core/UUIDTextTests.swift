import Amalgam
import Foundation
import Testing

/// Text that is not a UUID in its 8-4-4-4-12 form is refused, even where Foundation's parser would read
/// it as some other UUID (fuzz-value-conversions found "…-80B4-00-04FD430C8" read as …-00004fd430c8).
@Suite struct UUIDTextTests {
  @Test(arguments: [
    "6BA7B810-9DAD-11D1-80B4-00-04FD430C8",
    "6BA7B810-9DAD-11D1-80B4000C04FD430C8",
    "6BA7B8109DAD11D180B400C04FD430C8",
    "{6BA7B810-9DAD-11D1-80B4-00C04FD430C8}",
    "6BA7B810-9DAD-11D1-80B4-00C04FD430C",
    "6BA7B810-9DAD-11D1-80B4-00C04FD430C8 ",
    "6BA7B810-9DAD-11D1-80B4-00C04FD430CG",
  ])
  func malformedTextThrows(text: String) throws {
    #expect(throws: DatabaseError.self) { try UUID(databaseValue: .text(text)) }
    let db = try Database()
    let row = try db.prepare(sql: "SELECT ?").bind(parameterValues: [text]).firstRow()
    #expect(row == [.text(text)])
    #expect(throws: DatabaseError.self) {
      _ = try db.prepare(sql: "SELECT ?").bind(parameterValues: [text]).front(UUID.self)
    }
  }

  @Test func theCanonicalFormInEitherCaseReads() throws {
    let expected = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")
    #expect(try UUID(databaseValue: .text("6BA7B810-9DAD-11D1-80B4-00C04FD430C8")) == expected)
    #expect(try UUID(databaseValue: .text("6ba7b810-9dad-11d1-80b4-00c04fd430c8")) == expected)
    #expect(try UUID(databaseValue: .text("6ba7B810-9DAD-11d1-80B4-00c04fd430C8")) == expected)
  }
}
