/// What `Codable` keeps for one statement between encodes and decodes, so that encoding or decoding a
/// row allocates nothing: the encoder's sink, the decoders' lifetime, the last decoded type and the
/// reused keyed container. A `Statement` stores it inline (``Statement/coding``).
struct StatementCodingState {
  /// The sink ``StatementEncoder/encode(_:to:)`` reuses for this statement (made on the first encode,
  /// then never replaced), and the same unretained, which encodes use without a reference count while
  /// they hold the statement.
  private var encoderSink: StatementSink?
  /// Unretained: ``encoderSink`` keeps the sink for as long as the statement lives.
  private(set) var unretainedEncoderSink: Unretained<StatementSink>?

  /// Keeps `sink` as the encoder's sink if the statement has none yet.
  mutating func keepEncoderSink(_ sink: StatementSink) {
    guard encoderSink == nil else { return }
    encoderSink = sink
    unretainedEncoderSink = Unretained(sink)
  }

  /// The lifetime of the decoders and containers ``RowDecoder`` makes for this statement's rows (made on
  /// the first decode): they hold the statement without a reference count and check their token first.
  var decodingScope: CallbackScope?
  /// The type ``RowDecoder/decode(_:from:)`` last decoded from this statement's rows, and whether it
  /// is ``ColumnConvertible``.
  var decodedTypeMemo: (type: ObjectIdentifier, isColumnConvertible: Bool)?
  /// The options of the decode running now (see ``RowDecoder/decode(_:from:)``).
  var decodingOptions = RowDecoder()
  /// The keyed container ``RowDecoder`` last handed out for this statement's rows, reused for the next
  /// row of the same `CodingKeys` (see ``ReusedContainer``).
  var reusedDecodingContainer: ReusedContainer?
}

/// A `KeyedDecodingContainer` or `KeyedEncodingContainer` kept for reuse, with the `CodingKey` type it
/// was made for.
///
/// The standard library wraps each keyed container in a box class generic over the container, so making
/// one costs two runtime lookups of generic type metadata (our container for the record's keys, then the
/// box for it) and an allocation: a large share of decoding or encoding a small record. A container that
/// holds only values constant for its statement (the statement unretained and a ``CallbackScopeMark``)
/// can be made once and handed out again for every row with the same keys.
struct ReusedContainer {
  let key: ObjectIdentifier
  /// The container's only stored property, its box.
  let box: AnyObject

  /// `container`'s box, kept for `Key`; nil where the standard library's container is not one reference
  /// (never so far; then nothing is reused).
  static func keep<Container>(_ container: Container, for key: Any.Type) -> ReusedContainer? {
    guard MemoryLayout<Container>.size == MemoryLayout<AnyObject>.size else { return nil }
    return ReusedContainer(key: ObjectIdentifier(key), box: unsafeBitCast(container, to: AnyObject.self))
  }

  /// The kept container, when it was made for `key`.
  @inline(__always)
  func container<Container>(_ type: Container.Type, for key: Any.Type) -> Container? {
    guard self.key == ObjectIdentifier(key), MemoryLayout<Container>.size == MemoryLayout<AnyObject>.size else {
      return nil
    }
    return unsafeBitCast(box, to: Container.self)
  }
}
