import Amalgam
import Foundation
import Testing

@Suite("SQLite namespace")
struct SQLiteInfoTests {
  @Test func versionIsTheVendoredRelease() throws {
    #expect(SQLite.version == "3.53.4")
    #expect(SQLite.versionNumber == 3_053_004)
    #expect(SQLite.sourceID.hasPrefix("2026-07-24"))
    let db = try Database()
    #expect(try db.fetchOne(String.self, sql: "SELECT sqlite_version()") == "3.53.4")
    #expect(try db.fetchOne(String.self, sql: "SELECT sqlite_source_id()") == SQLite.sourceID)
  }

  @Test func isKeywordRecognisesSQLKeywordsIgnoringCase() {
    #expect(SQLite.isKeyword("SELECT"))
    #expect(SQLite.isKeyword("select"))
    #expect(SQLite.isKeyword("Where"))
    #expect(SQLite.isKeyword("RETURNING"))
    #expect(!SQLite.isKeyword("banana"))
    #expect(!SQLite.isKeyword(""))
    #expect(!SQLite.isKeyword("SELECTS"))
  }

  @Test func keywordsListsEveryKeywordInUpperCase() {
    let keywords = SQLite.keywords
    #expect(keywords.contains("SELECT"))
    #expect(keywords.contains("WHERE"))
    #expect(keywords.contains("WITHOUT"))
    #expect(!keywords.contains("BANANA"))
    #expect(Set(keywords).count == keywords.count)
    #expect(keywords.allSatisfy { $0 == $0.uppercased() && SQLite.isKeyword($0) })
  }

  @Test func isCompleteTellsWhetherSQLEndsWithACompleteStatement() {
    #expect(SQLite.isComplete("SELECT 1;"))
    #expect(SQLite.isComplete("SELECT 1; SELECT 2;"))
    #expect(SQLite.isComplete("SELECT 'a;b';  -- done\n"))
    #expect(!SQLite.isComplete("SELECT 1"))
    #expect(!SQLite.isComplete("SELECT 'unterminated;"))
    #expect(!SQLite.isComplete("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1;"))
    #expect(SQLite.isComplete("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;"))
  }

  #if !THREADSAFE_0 && !THREADSAFE_1
    @Test func defaultThreadingModeIsMultiThread() {
      #expect(SQLite.threadingMode == .multiThread)
      #expect(SQLite.threadingMode.rawValue == 2)
      #expect(SQLite.threadingMode.description == "multi-thread")
      #expect(SQLite.compileOptions.contains("THREADSAFE=2"))
      #expect(SQLite.isCompileOptionUsed("THREADSAFE=2"))
    }
  #endif

  @Test func threadingModeDescriptions() {
    #expect(SQLite.ThreadingMode.singleThread.description == "single-thread")
    #expect(SQLite.ThreadingMode.serialized.description == "serialized")
    #expect(SQLite.ThreadingMode(rawValue: 1) == .serialized)
  }

  @Test func compileOptionsHaveNoPrefixAndCanBeQueriedWithOrWithoutIt() {
    let options = SQLite.compileOptions
    #expect(!options.isEmpty)
    #expect(options.allSatisfy { !$0.hasPrefix("SQLITE_") })
    #expect(!SQLite.isCompileOptionUsed("NO_SUCH_OPTION_AT_ALL"))
    #if ENABLE_FTS5
      #expect(options.contains("ENABLE_FTS5"))
      #expect(SQLite.isCompileOptionUsed("ENABLE_FTS5"))
      #expect(SQLite.isCompileOptionUsed("SQLITE_ENABLE_FTS5"))
      #expect(SQLite.enabledTraits.contains("ENABLE_FTS5"))
    #endif
    #if DQS_0
      #expect(options.contains("DQS=0"))
      #expect(SQLite.enabledTraits.contains("DQS_0"))
    #endif
  }

  #if DQS_0
    @Test func doubleQuotedStringsAreIdentifiersOnly() throws {
      let db = try Database()
      let error = #expect(throws: SQLiteError.self) { _ = try db.prepare(sql: "SELECT \"not a column\"") }
      #expect(error?.code == .error)
      #expect(error?.message == "no such column: \"not a column\" - should this be a string literal in single-quotes?")
    }
  #endif
}
