@testable import Amalgam
import AmalgamSQLite
import Foundation
import Testing

@Suite struct CallbackErrorTests {
  struct PlainError: Error {}

  struct DescribedError: LocalizedError {
    var errorDescription: String? { "the quota is used up" }
  }

  @Test func anSQLiteErrorKeepsItsExtendedCode() {
    let error = SQLiteError(code: .constraintUnique, message: "duplicate")
    #expect(callbackResultCode(error) == ResultCode.constraintUnique.rawValue)
    #expect(callbackResultCode(SQLiteError(code: .busy)) == SQLITE_BUSY)
  }

  @Test func anSQLiteErrorWhoseCodeIsNotAnErrorBecomesSQLITE_ERROR() {
    for code in [ResultCode.ok, .row, .done] {
      let error = SQLiteError(code: code, message: "not a failure")
      #expect(error.callbackResultCode == nil)
      #expect(callbackResultCode(error) == SQLITE_ERROR)
    }
  }

  @Test func anyOtherErrorIsSQLITE_ERROR() {
    #expect(callbackResultCode(PlainError()) == SQLITE_ERROR)
    #expect(callbackResultCode(DescribedError()) == SQLITE_ERROR)
  }

  @Test func theMessageIsTheSQLiteErrorsOwnThenTheLocalizedDescriptionThenTheDescription() {
    #expect(callbackErrorMessage(SQLiteError(code: .busy, message: "try later")) == "try later")
    #expect(callbackErrorMessage(DescribedError()) == "the quota is used up")
    #expect(callbackErrorMessage(PlainError()) == "PlainError()")
  }
}

@Suite struct SQLiteTextTests {
  @Test func textIsReadFromAPointerAndALengthWithoutATerminator() {
    let bytes: [UInt8] = Array("héllo, world".utf8)
    bytes.withUnsafeBufferPointer { buffer in
      #expect(String(utf8: buffer.baseAddress, count: 6) == "héllo")
      #expect(String(utf8: buffer.baseAddress, count: buffer.count) == "héllo, world")
      buffer.withMemoryRebound(to: CChar.self) { chars in
        #expect(String(utf8: chars.baseAddress, count: 6) == "héllo")
      }
    }
  }

  @Test func noPointerOrNoPositiveLengthIsEmptyText() {
    let bytes: [UInt8] = Array("abc".utf8)
    bytes.withUnsafeBufferPointer { buffer in
      #expect(String(utf8: buffer.baseAddress, count: 0) == "")
      #expect(String(utf8: buffer.baseAddress, count: -3) == "")
    }
    #expect(String(utf8: UnsafePointer<UInt8>?.none, count: 5) == "")
    #expect(String(utf8: UnsafePointer<CChar>?.none, count: 5) == "")
  }

  @Test func illFormedUTF8BecomesTheReplacementCharacter() {
    let bytes: [UInt8] = [0x61, 0xFF, 0x62]
    bytes.withUnsafeBufferPointer { buffer in
      #expect(String(utf8: buffer.baseAddress, count: 3) == "a\u{FFFD}b")
    }
  }

  @Test func aStringThatSQLiteAllocatedIsCopiedAndFreed() throws {
    let message = Array("no such table: t".utf8CString)
    let memory = try #require(sqlite3_malloc(Int32(message.count)))
    let text = memory.bindMemory(to: CChar.self, capacity: message.count)
    text.initialize(from: message, count: message.count)
    #expect(takeSQLiteString(text) == "no such table: t")
    #expect(takeSQLiteString(nil) == nil)
  }
}
