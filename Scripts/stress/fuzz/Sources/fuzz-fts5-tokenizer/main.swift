// Fuzzes the FTS5 tokenizer bridge: a Swift tokenizer, steered by the fuzzer's bytes, tokenizes
// fuzzer text as a document, as a query and for highlight()/snippet(). It emits ranges of the input,
// folded copies, colocated synonyms, sometimes invalid ranges or a colocated first token (which must
// throw), sometimes goes on after an emit threw, sometimes throws itself, and keeps the text and the
// sink after the call (which must then be empty and throw). A wrapped built-in tokenizer (unicode61)
// tokenizes the same text. Nothing may crash; SQLite's errors are fine.
import Amalgam
import Foundation
import FuzzSupport

/// How the tokenizer behaves in this run, set before each statement. The fuzzer calls the target on
/// one thread, and SQLite calls the tokenizer on that thread.
nonisolated(unsafe) var plan: [UInt8] = [0]
nonisolated(unsafe) var keptText: FTS5Text?
nonisolated(unsafe) var keptSink: FTS5TokenSink?

struct Misbehaving: Error {}

final class SteeredTokenizer: FTS5Tokenizer {
  let wrapped: FTS5TokenizerHandle?

  init(arguments: FTS5TokenizerArguments) throws {
    wrapped = arguments.isEmpty ? nil : try arguments.tokenizer(arguments[0])
  }

  func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
    keptText = text
    keptSink = tokens
    _ = text.reason
    _ = text.locale
    let count = text.count
    var step = 0
    var start: Int? = nil
    var emitted = 0
    for index in 0...count {
      let byte: UInt8 = index < count ? text[index] : 0x20
      let separator = byte == 0x20 || byte == 0x2C || byte == 0x2E || byte == 0x0A
      if !separator {
        if start == nil { start = index }
        continue
      }
      guard let first = start else { continue }
      start = nil
      let action = plan[step % plan.count]
      step += 1
      do {
        switch action % 8 {
        case 0, 1: try tokens.emit(first..<index)
        case 2:
          try tokens.emit(text.string.isEmpty ? "" : String(decoding: (first..<index).map { text[$0] | 0x20 }, as: UTF8.self), range: first..<index)
        case 3:
          try tokens.emit(first..<index)
          try tokens.emit("syn", range: first..<index, colocated: true)
        case 4: try tokens.emit(first..<(index + Int(action >> 3)))  // past the end for the last token
        case 5: try tokens.emit(first..<index, colocated: emitted == 0)  // a colocated first token throws
        case 6:
          let empty: [UInt8] = []
          try empty.withUnsafeBytes { try tokens.emit($0, range: first..<first) }
        default:
          if action & 0x80 != 0 { throw Misbehaving() }
          try tokens.emit(first..<index)
        }
        emitted += 1
      } catch let error as Misbehaving {
        throw error
      } catch {
        // FTS5 asked to stop or the range was refused: usually stop, sometimes go on regardless.
        if action & 0x40 == 0 { throw error }
      }
    }
    if let wrapped, step % 2 == 0 {
      // The wrapped tokenizer's tokens, passed on as synonyms of nothing: their own positions.
      try wrapped.tokenize(text) { token in
        _ = token.text
        try tokens.emit(token)
      }
    }
  }
}

nonisolated(unsafe) let database: Database = {
  let db = try! Database()
  try! db.addTokenizer("steered", type: SteeredTokenizer.self)
  try! db.batch(
    sql: """
      CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize = 'steered');
      CREATE VIRTUAL TABLE wrapped USING fts5(body, tokenize = 'steered unicode61');
      """)
  return db
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  var input = FuzzInput(data, size)
  let chosen = input.chunk(maxCount: 6)
  plan = chosen.isEmpty ? [0] : chosen
  let title = input.text(maxCount: 64)
  let query = input.text(maxCount: 64)
  let body = String(decoding: input.rest(), as: UTF8.self)
  let table = plan[0] & 1 == 0 ? "docs" : "wrapped"
  do {
    try database.execute(sql: "BEGIN")
    defer { try? database.execute(sql: "ROLLBACK") }
    if table == "docs" {
      try? database.execute(sql: "INSERT INTO docs(title, body) VALUES (?, ?)", parameterValues: [title, body])
    } else {
      try? database.execute(sql: "INSERT INTO wrapped(body) VALUES (?)", parameterValues: [body])
    }
    for pattern in [FTS5Pattern(matchingAllTokensIn: query), FTS5Pattern(matchingPhrase: query),
                    FTS5Pattern(matchingAllPrefixesIn: query), FTS5Pattern(rawPattern: query)] {
      guard let pattern else { continue }
      let sql = "SELECT rowid, highlight(\(table), 0, '[', ']'), snippet(\(table), -1, '<', '>', '…', 8) FROM \(table) WHERE \(table) MATCH ?"
      _ = try? database.prepare(sql: sql).bind(parameterValues: [pattern]).allRows()
    }
    _ = try? database.prepare(sql: "SELECT count(*) FROM \(table) WHERE \(table) MATCH ?").bind(parameterValues: [title]).allRows()
  } catch {
    fuzzCheck(false, "BEGIN failed: \(error)")
  }
  // The text and the sink of a finished call: empty, and emitting throws.
  if let text = keptText {
    fuzzCheck(!text.isValid && text.count == 0 && text.string.isEmpty && text[0] == 0, "a kept FTS5Text still reads")
    text.withUnsafeBytes { fuzzCheck($0.isEmpty, "a kept FTS5Text still has bytes") }
  }
  if let sink = keptSink {
    fuzzCheck((try? sink.emit(0..<0)) == nil, "a kept FTS5TokenSink still emits")
  }
  keptText = nil
  keptSink = nil
  return 0
}

/// The entry point SwiftPM links for this executable target: libFuzzer's driver on `fuzzOneInput`.
@_cdecl("fuzz_fts5_tokenizer_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
  runFuzzer(argc, argv, fuzzOneInput)
}
