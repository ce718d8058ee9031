import Amalgam
import AmalgamSQLite
import Foundation
import Testing

/// sqlite-vec is compiled in by the VECTOR trait and registered on every connection, without loading an
/// extension; without the trait none of it exists.
@Suite struct VectorRegistrationTests {
  @Test func sqliteVecIsRegisteredExactlyWhenTheTraitIsOn() throws {
    let db = try Database()
    let count: Int? = try db.prepare(
      sql: "SELECT count(DISTINCT name) FROM pragma_function_list WHERE name IN ('vec_version', 'vec_distance_l2')"
    ).front()
    let modules: Int? = try db.prepare(
      sql: "SELECT count(*) FROM pragma_module_list WHERE name IN ('vec0', 'vec_each')"
    ).front()
    #if VECTOR
      #expect(amalgam_vector_enabled() == 1)
      #expect(count == 2)
      #expect(modules == 2)
      let version: String? = try db.prepare(sql: "SELECT vec_version()").front()
      #expect(version == "v0.1.9")
    #else
      #expect(amalgam_vector_enabled() == 0)
      #expect(count == 0)
      #expect(modules == 0)
    #endif
  }

  #if VECTOR
    @Test func everyConnectionOfAPoolHasVec0() throws {
      try withTemporaryDirectory { directory in
        let pool = try DatabasePool(path: directory.appendingPathComponent("vectors.sqlite").path)
        try pool.sync { db in
          try db.batch(
            sql: """
              CREATE VIRTUAL TABLE item USING vec0(embedding float[2]);
              INSERT INTO item(rowid, embedding) VALUES (1, '[0, 0]'), (2, '[3, 4]');
              """)
        }
        let nearest = try pool.read { db in
          try db.fetchAll(
            Int.self, sql: "SELECT rowid FROM item WHERE embedding MATCH '[3, 3]' AND k = 2 ORDER BY distance")
        }
        #expect(nearest == [2, 1])
      }
    }

    @Test func sqliteVecWorksWithoutLoadingAnExtension() throws {
      let db = try Database()
      let distance: Double? = try db.prepare(sql: "SELECT vec_distance_l2('[0, 0]', '[3, 4]')").front()
      #expect(distance == 5)
      let debug: String? = try db.prepare(sql: "SELECT vec_debug()").front()
      #expect(debug?.contains("Commit: e9f598abfa0c06b328d8fe5da9c3760cce74be10") == true)
    }
  #endif
}
