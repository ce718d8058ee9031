import Amalgam
import Foundation
import Testing

/// `deserialize` takes any collection of bytes, not only contiguous ones.
@Suite struct DeserializeCollectionTests {
  @Test func anImageInANonContiguousCollectionDeserializesLikeItsBytes() throws {
    let source = try Database()
    try source.batch(
      sql: """
        CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO t VALUES (1, 'one'), (2, 'two');
        """)
    let image = try source.serialize()
    // A lazily mapped collection has no contiguous storage: its bytes are copied one by one.
    let lazyBytes = image.lazy.map { $0 }
    #expect(lazyBytes.withContiguousStorageIfAvailable { _ in true } == nil)
    let copy = try Database()
    try copy.deserialize(lazyBytes)
    #expect(try copy.fetchAll(String.self, sql: "SELECT name FROM t ORDER BY id") == ["one", "two"])
    #expect(try copy.serialize() == image)
    // Bytes that do not start with the file header are refused, whatever the collection.
    let error = expectSQLiteError { try copy.deserialize(Data("not a database".utf8).lazy.map { $0 }) }
    #expect(error?.code == .notADatabase)
  }
}
