#if ENABLE_FTS5
  import Amalgam

  /// What a recording tokenizer saw: its arguments and, per call, the reason, the locale and the text.
  final class TokenizerLog {
    var arguments: [[String]] = []
    var calls: [(reason: FTS5TokenizeReason, locale: String?, text: String)] = []
  }

  /// Splits like FTS5's `ascii` tokenizer: runs of ASCII letters and digits and of non-ASCII bytes are
  /// tokens, ASCII letters fold to lower case. Builds folded tokens in a reused buffer.
  final class ASCIIWords: FTS5Tokenizer {
    let log: TokenizerLog?
    var buffer: [UInt8] = []

    init(arguments: FTS5TokenizerArguments) throws {
      log = nil
    }

    init(arguments: FTS5TokenizerArguments, log: TokenizerLog) {
      self.log = log
      log.arguments.append(arguments.values)
    }

    func tokenize(_ text: FTS5Text, into tokens: FTS5TokenSink) throws {
      log?.calls.append((text.reason, text.locale, text.string))
      try text.withUnsafeBytes { bytes in
        var start = -1
        for index in 0...bytes.count {
          let byte: UInt8 = index < bytes.count ? bytes[index] : 0x20
          let isTokenByte =
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a)
            || (byte >= 0x61 && byte <= 0x7a)
          if isTokenByte {
            if start < 0 { start = index }
          } else if start >= 0 {
            buffer.removeAll(keepingCapacity: true)
            for byte in bytes[start..<index] { buffer.append(byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte) }
            try buffer.withUnsafeBytes { try tokens.emit($0, range: start..<index) }
            start = -1
          }
        }
      }
    }
  }
#endif
