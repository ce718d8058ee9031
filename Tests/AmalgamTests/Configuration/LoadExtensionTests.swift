#if !OMIT_LOAD_EXTENSION
  import Amalgam
  import Foundation
  import Testing

  @Suite struct LoadExtensionTests {
    @Test func loadingIsOffByDefaultAndFailsAsNotAuthorized() throws {
      let db = try Database()
      #expect(try db.isEnabled(.loadExtension) == false)
      let error = expectSQLiteError { try db.loadExtension(path: "/nonexistent/extension.so") }
      #expect(error?.code == .error)
      #expect(error?.message == "not authorized")
    }

    @Test func loadingAMissingFileThrowsTheSystemsReason() throws {
      let db = try Database()
      try db.enableExtensionLoading(true)
      #expect(try db.isEnabled(.loadExtension))
      let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-extension-\(UUID())").path
      let error = expectSQLiteError { try db.loadExtension(path: path) }
      #expect(error?.code == .error)
      #expect(error?.message.contains(path) == true)
      #if os(Linux)
        #expect(error?.message.contains("cannot open shared object file") == true)
      #endif
      try db.enableExtensionLoading(false)
      #expect(try db.isEnabled(.loadExtension) == false)
    }

    @Test func enablingTheCInterfaceLeavesTheSQLFunctionDisabled() throws {
      let db = try Database()
      try db.enableExtensionLoading(true)
      let error = expectSQLiteError { _ = try db.prepare(sql: "SELECT load_extension('/nonexistent.so')").firstRow() }
      #expect(error?.message == "not authorized")
    }
  }
#endif
