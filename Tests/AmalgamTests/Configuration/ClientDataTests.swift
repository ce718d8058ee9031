import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// Client data: Swift values attached to a connection by name (`sqlite3_set_clientdata`).
@Suite struct ClientDataTests {
  final class Tracker {
    var count = 0
  }

  @Test func aValueIsReadBackByNameAndType() throws {
    let db = try Database()
    try db.setClientData(Tracker(), forKey: "com.example.tracker")
    try db.setClientData(42, forKey: "com.example.answer")
    try db.setClientData("hello", forKey: "com.example.greeting")
    #expect(db.clientData(forKey: "com.example.answer", as: Int.self) == 42)
    #expect(db.clientData(forKey: "com.example.greeting", as: String.self) == "hello")
    #expect(db.clientData(forKey: "com.example.tracker", as: Tracker.self) != nil)
    // Another type, another name, or another case read as nil.
    #expect(db.clientData(forKey: "com.example.answer", as: String.self) == nil)
    #expect(db.clientData(forKey: "com.example.missing", as: Int.self) == nil)
    #expect(db.clientData(forKey: "COM.EXAMPLE.ANSWER", as: Int.self) == nil)
  }

  @Test func aFunctionReachesTheValueThroughTheConnection() throws {
    let db = try Database()
    try db.setClientData(Tracker(), forKey: "tracker")
    try db.addFunction("track", arity: 0) { [unowned db] _, context in
      let tracker = db.clientData(forKey: "tracker", as: Tracker.self)
      tracker?.count += 1
      context.setResult(.integer(Int64(tracker?.count ?? -1)))
    }
    #expect(try db.prepare(sql: "SELECT track() + track()").front(Int.self) == 3)
  }

  @Test func replacingOrRemovingAValueReleasesTheOldOne() throws {
    let db = try Database()
    weak var first: Tracker?
    do {
      let tracker = Tracker()
      first = tracker
      try db.setClientData(tracker, forKey: "tracker")
    }
    #expect(first != nil)
    try db.setClientData(Tracker(), forKey: "tracker")
    #expect(first == nil)
    weak let second = db.clientData(forKey: "tracker", as: Tracker.self)
    #expect(second != nil)
    try db.setClientData(Tracker?.none, forKey: "tracker")
    #expect(second == nil)
    #expect(db.clientData(forKey: "tracker", as: Tracker.self) == nil)
  }

  @Test func closingTheConnectionReleasesItsValues() throws {
    let db = try Database()
    weak var released: Tracker?
    do {
      let tracker = Tracker()
      released = tracker
      try db.setClientData(tracker, forKey: "tracker")
    }
    #expect(released != nil)
    try db.close()
    #expect(released == nil)
    #expect(db.clientData(forKey: "tracker", as: Tracker.self) == nil)
    #expect(throws: DatabaseError.databaseClosed) { try db.setClientData(1, forKey: "x") }
  }

  @Test func cCodeClientDataUnderTheSameNameIsSeparate() throws {
    let db = try Database()
    try db.setClientData(7, forKey: "shared")
    let handle = try db.sqliteHandle
    #expect(sqlite3_get_clientdata(handle, "shared") == nil)
    var marker = 0
    withUnsafeMutablePointer(to: &marker) { pointer in
      _ = sqlite3_set_clientdata(handle, "shared", pointer, nil)
    }
    #expect(db.clientData(forKey: "shared", as: Int.self) == 7)
    _ = sqlite3_set_clientdata(handle, "shared", nil, nil)
  }
}
