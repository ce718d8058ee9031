import Amalgam
import Foundation
import Testing

/// The Migrations article's examples, verbatim between
/// the markers, followed by checks of what they did. If the article changes, change this
/// copy too.
@Suite struct MigrationReadmeExampleTests {
  @Test func readmeExampleCompilesAndRuns() async throws {
    try withTemporaryDirectory { directory in
      let path = directory.appendingPathComponent("app.sqlite").path
      let (applied, isNewer, queue) = try blocking {
        // migrations article example: begin
        var migrator = DatabaseMigrator()
        migrator.registerMigration("create team and player") { db in
          try db.create(table: "team") { t in
            t.column("id", .integer, primaryKey: .autoincrement)
            t.column("name", .text, notNull: true, unique: true, collation: "NOCASE")
          }
          try db.create(table: "player", options: .strict) { t in
            t.column("id", .integer, primaryKey: .autoincrement)
            t.column("name", .text, notNull: true, check: "length(name) > 0")
            t.column("score", .integer, notNull: true, defaultValue: 0)
            t.column("teamID", .integer, references: ForeignKeyReference("team", onDelete: .cascade))
          }
          try db.create(index: "player_by_team", on: "player", columns: ["teamID", "name"])
        }
        migrator.registerMigration("add player email") { db in
          try db.add(column: ColumnDefinition("email", .text, collation: "NOCASE"), to: "player")
        }
        let queue = try DatabaseQueue(path: path)
        try migrator.migrate(queue)  // or: try await migrator.migrate(queue), migrator.migrate(db)
        let applied = try migrator.appliedMigrations(queue)  // ["create team and player", "add player email"]
        let isNewer = try migrator.hasBeenSuperseded(queue)  // migrated by a newer version of the app?

        try queue.sync { db in
          for column in try db.columns(in: "player") {  // name, declaredType, isNotNull, defaultValueSQL, ...
            print(column.name, column.declaredType, column.primaryKeyPosition)
          }
          let keys = try db.foreignKeys(in: "player")  // [teamID -> team(id) ON DELETE CASCADE]
          let strict = try db.tableInfo("player")?.isStrict  // true; also isWithoutRowID, kind
          let version = try db.userVersion  // and applicationID, setUserVersion(_:)
          print(keys, strict ?? false, version)
        }
        // migrations article example: end
        return (applied, isNewer, queue)
      }
      #expect(applied == ["create team and player", "add player email"])
      #expect(!isNewer)
      let (columns, keys, strict) = try blocking {
        try queue.sync { db in
          (
            try db.columns(in: "player").map(\.name), try db.foreignKeys(in: "player"),
            try db.tableInfo("player")?.isStrict
          )
        }
      }
      #expect(columns == ["id", "name", "score", "teamID", "email"])
      #expect(keys.map(\.parentTable) == ["team"] && keys.map(\.onDelete) == [.cascade])
      #expect(strict == true)
      try queue.close()
    }
  }

  @Test func articleExampleMatchesThisTest() throws {
    // Keeps the copy above honest: every code line of the Migrations article's first example is in this file.
    try ArticleCodeBlocks.expectBlock(
      of: "Migrations.md", containing: "migrator.registerMigration(\"create team and player\") { db in",
      isIn: #filePath)
  }

  @Test func articleExamplesCompileAndRun() throws {
    let db = try Database()
    try db.execute(sql: "PRAGMA foreign_keys = ON")

    // Migrations article, rebuilding a table: begin
    var migrator = DatabaseMigrator()
    migrator.registerMigration("create author") { db in
      try db.execute(sql: "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT)")
      try db.execute(sql: "CREATE TABLE book(id INTEGER PRIMARY KEY, authorID INTEGER REFERENCES author(id))")
    }
    migrator.registerMigration("author name becomes NOT NULL", foreignKeyChecks: .disabled) { db in
      try db.create(table: "new_author") { t in
        t.column("id", .integer, primaryKey: .ascending)
        t.column("name", .text, notNull: true, defaultValue: "")
      }
      try db.execute(sql: "INSERT INTO new_author(id, name) SELECT id, coalesce(name, '') FROM author")
      try db.drop(table: "author")
      try db.rename(table: "new_author", to: "author")
    }
    try migrator.migrate(db)
    // Migrations article, rebuilding a table: end
    #expect(try db.columns(in: "author").map(\.isNotNull) == [false, true])

    // Migrations article, errors: begin
    migrator.registerMigration("orphan") { db in
      try db.execute(sql: "INSERT INTO book(id, authorID) VALUES (1, 42)")
    }
    do {
      try migrator.migrate(db)
    } catch let error as MigrationError {
      print(error.migration ?? "", error)
      // Migration "orphan" violates foreign keys: row 1 of table "book" refers to a missing row of "author"
    }
    // Migrations article, errors: end
    #expect(try migrator.appliedMigrations(db) == ["create author", "author name becomes NOT NULL"])

    // Migrations article, user_version: begin
    var legacy = DatabaseMigrator(versioning: .userVersion)
    legacy.registerMigration("version 1") { db in try db.execute(sql: "CREATE TABLE note(text TEXT)") }
    legacy.registerMigration("version 2") { db in try db.execute(sql: "ALTER TABLE note ADD COLUMN pinned") }
    // A database whose user_version is already 1 runs "version 2" only, then holds user_version 2.
    // Migrations article, user_version: end
    let old = try Database()
    try old.execute(sql: "CREATE TABLE note(text TEXT)")
    try old.setUserVersion(1)
    try legacy.migrate(old)
    #expect(try old.userVersion == 2)
    #expect(try old.columnExists("pinned", in: "note"))

    // Migrations article, reading SQL: begin
    let change = SchemaChange.renameColumn("name", table: "order", to: "full name")
    print(try change.sql)  // ALTER TABLE "order" RENAME COLUMN "name" TO "full name"
    let table = TableDefinition("order", options: [.ifNotExists, .withoutRowID]) { t in
      t.column("id", .text, primaryKey: .ascending)
      t.column("total", .real, notNull: true, check: "total >= 0", defaultValue: 0.5)
    }
    print(try table.sql)
    // CREATE TABLE IF NOT EXISTS "order"("id" TEXT PRIMARY KEY, "total" REAL NOT NULL CHECK (total >= 0)
    //   DEFAULT 0.5) WITHOUT ROWID
    // Migrations article, reading SQL: end
    #expect(try change.sql == #"ALTER TABLE "order" RENAME COLUMN "name" TO "full name""#)
    #expect(
      try table.sql
        == #"CREATE TABLE IF NOT EXISTS "order"("id" TEXT PRIMARY KEY, "total" REAL NOT NULL CHECK (total >= 0) DEFAULT 0.5) WITHOUT ROWID"#
    )
  }
}
