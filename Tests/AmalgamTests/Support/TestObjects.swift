import Amalgam
import Foundation

/// Hands objects to virtual tables that tests create: a table finds its object through a `USING`
/// argument `id=N`, since SQLite constructs the table itself. Tests run in parallel, so each test
/// registers its own object.
final class TestObjects: @unchecked Sendable {
  // Unchecked: every access holds `lock`.
  private let lock = NSLock()
  private var objects: [Int: AnyObject] = [:]
  private var nextID = 0

  static let shared = TestObjects()

  func register(_ object: AnyObject) -> Int {
    lock.lock()
    defer { lock.unlock() }
    nextID += 1
    objects[nextID] = object
    return nextID
  }

  func object<T>(_ arguments: [String], as type: T.Type) throws -> T {
    let id = VirtualTableModuleArgument.parse(arguments).first { $0.name == "id" }.flatMap { Int($0.value) }
    lock.lock()
    defer { lock.unlock() }
    guard let id, let object = objects[id] as? T else {
      throw SQLiteError(code: .error, message: "no test object for arguments \(arguments)")
    }
    return object
  }
}
