#if VECTOR
  /// The definition of a sqlite-vec `vec0` virtual table: its vector columns and the columns beside them,
  /// for ``Database/create(vectorTable:schema:ifNotExists:_:)``.
  ///
  /// ```swift
  /// try db.create(vectorTable: "note_embedding") { t in
  ///   t.vector("embedding", dimensions: 384, distance: .cosine)
  ///   t.partitionKey("author_id", .integer)  // KNN searches one author's notes at a time, fast
  ///   t.metadata("category", .text)          // filters a KNN search: WHERE category = 'work'
  ///   t.auxiliary("title", .text)            // stored beside the vector, returned, never filtered on
  /// }
  /// // CREATE VIRTUAL TABLE "note_embedding" USING vec0(embedding float[384] distance_metric=cosine,
  /// //   author_id integer partition key, category text, +title text)
  /// ```
  ///
  /// sqlite-vec reads column names as plain identifiers: letters, digits and `_`, not starting with a
  /// digit. Anything else, an impossible type or metric, or a table without a vector column throws
  /// ``SchemaError/invalidDefinition(_:)`` before SQLite sees the statement.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/vec0.html>
  public struct VectorTableDefinition: Sendable, Hashable {
    /// The type of a column beside the vectors.
    public enum ValueType: String, Sendable, Hashable {
      /// 64-bit integers (primary key, partition key, metadata, auxiliary).
      case integer
      /// 64-bit floats (metadata, auxiliary).
      case float
      /// Text (primary key, partition key, metadata, auxiliary).
      case text
      /// Booleans (metadata).
      case boolean
      /// BLOBs (auxiliary).
      case blob
    }

    /// A distance metric of a float32 or int8 vector column. Bit columns always use the Hamming distance.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/vec0.html#distance-metrics>
    public enum DistanceMetric: String, Sendable, Hashable, CaseIterable {
      /// Euclidean distance, the default.
      case l2 = "L2"
      /// Manhattan distance (the sum of absolute differences).
      case l1 = "L1"
      /// One minus the cosine similarity: 0 for the same direction, 2 for opposite ones.
      case cosine
    }

    /// One column of a `vec0` table.
    public enum Column: Sendable, Hashable {
      /// The primary key (`integer` or `text`); without one, rows are identified by their rowid.
      case primaryKey(name: String, type: ValueType)
      /// A vector column: its dimensions (bits for a bit vector), element type and distance metric
      /// (`nil`: sqlite-vec's default, L2; always Hamming for bits).
      case vector(name: String, dimensions: Int, elementType: VectorElementType, distance: DistanceMetric?)
      /// A partition key (`integer` or `text`): sqlite-vec stores each value's rows apart, and a KNN search
      /// constrained to one value reads only those.
      case partitionKey(name: String, type: ValueType)
      /// A metadata column (`integer`, `float`, `text` or `boolean`) that a KNN search can filter on.
      case metadata(name: String, type: ValueType)
      /// An auxiliary column (`integer`, `float`, `text` or `blob`) stored beside the vector, returned by
      /// queries, never filtered on in a KNN search.
      case auxiliary(name: String, type: ValueType)
    }

    /// The table's name.
    public var name: String
    /// The schema (`"main"`, `"temp"`, an attached one); `nil` for the default.
    public var schema: String?
    /// Adds `IF NOT EXISTS`.
    public var ifNotExists: Bool
    /// The columns, in order.
    public var columns: [Column] = []
    /// Rows per chunk of sqlite-vec's storage (`chunk_size`, a multiple of 8); `nil` for its default, 1024.
    public var chunkSize: Int?

    /// A definition without columns; add them with the methods below.
    public init(_ name: String, schema: String? = nil, ifNotExists: Bool = false) {
      self.name = name
      self.schema = schema
      self.ifNotExists = ifNotExists
    }

    /// A definition built by `body`.
    public init(
      _ name: String, schema: String? = nil, ifNotExists: Bool = false,
      _ body: (inout VectorTableDefinition) throws -> Void
    ) rethrows {
      self.init(name, schema: schema, ifNotExists: ifNotExists)
      try body(&self)
    }

    /// Adds a vector column of `dimensions` elements (bits for ``VectorElementType/bit``).
    public mutating func vector(
      _ name: String, dimensions: Int, elementType: VectorElementType = .float32, distance: DistanceMetric? = nil
    ) {
      columns.append(.vector(name: name, dimensions: dimensions, elementType: elementType, distance: distance))
    }

    /// Sets the primary key (`integer` or `text`).
    public mutating func primaryKey(_ name: String, _ type: ValueType = .integer) {
      columns.append(.primaryKey(name: name, type: type))
    }

    /// Adds a partition key (`integer` or `text`).
    public mutating func partitionKey(_ name: String, _ type: ValueType) {
      columns.append(.partitionKey(name: name, type: type))
    }

    /// Adds a metadata column (`integer`, `float`, `text` or `boolean`), which KNN searches can filter on.
    public mutating func metadata(_ name: String, _ type: ValueType) {
      columns.append(.metadata(name: name, type: type))
    }

    /// Adds an auxiliary column (`integer`, `float`, `text` or `blob`).
    public mutating func auxiliary(_ name: String, _ type: ValueType) {
      columns.append(.auxiliary(name: name, type: type))
    }

    /// The `CREATE VIRTUAL TABLE ... USING vec0(...)` statement.
    ///
    /// - Throws: ``SchemaError/invalidDefinition(_:)`` for a definition sqlite-vec would refuse: no vector
    ///   column, a name that is not a plain identifier, a type or metric the column kind does not take,
    ///   dimensions that are not positive (or not a multiple of 8 for bits), a bad chunk size.
    public var sql: String {
      get throws {
        func invalid(_ message: String) -> SchemaError {
          .invalidDefinition("vec0 table \(name.debugDescription): \(message)")
        }
        func check(_ column: String, _ type: ValueType, _ allowed: [ValueType], _ kind: String) throws {
          try checkIdentifier(column)
          guard allowed.contains(type) else {
            throw invalid(
              "a \(kind) is \(allowed.map(\.rawValue).joined(separator: ", ")), not \(type.rawValue) (\(column))")
          }
        }
        func checkIdentifier(_ column: String) throws {
          let isPlain =
            column.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && column.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
          guard isPlain else {
            throw invalid("column name \(column.debugDescription) is not a plain identifier (letters, digits, _)")
          }
        }
        var parts: [String] = []
        var hasVector = false
        var hasPrimaryKey = false
        for column in columns {
          switch column {
          case let .primaryKey(column, type):
            guard !hasPrimaryKey else { throw invalid("more than one primary key") }
            hasPrimaryKey = true
            try check(column, type, [.integer, .text], "primary key")
            parts.append("\(column) \(type.rawValue) primary key")
          case let .vector(column, dimensions, elementType, distance):
            try checkIdentifier(column)
            hasVector = true
            guard dimensions > 0 else { throw invalid("vector column \(column) has \(dimensions) dimensions") }
            var part = "\(column) \(elementType.rawValue)[\(dimensions)]"
            if elementType == .bit {
              guard dimensions % 8 == 0 else {
                throw invalid("bit vector column \(column) has \(dimensions) dimensions, not a multiple of 8")
              }
              if let distance {
                throw invalid("bit vector column \(column) always uses the Hamming distance, not \(distance.rawValue)")
              }
            } else if let distance {
              part += " distance_metric=\(distance.rawValue)"
            }
            parts.append(part)
          case let .partitionKey(column, type):
            try check(column, type, [.integer, .text], "partition key")
            parts.append("\(column) \(type.rawValue) partition key")
          case let .metadata(column, type):
            try check(column, type, [.integer, .float, .text, .boolean], "metadata column")
            parts.append("\(column) \(type.rawValue)")
          case let .auxiliary(column, type):
            try check(column, type, [.integer, .float, .text, .blob], "auxiliary column")
            parts.append("+\(column) \(type.rawValue)")
          }
        }
        guard hasVector else { throw invalid("a vec0 table needs at least one vector column") }
        if let chunkSize {
          guard chunkSize > 0, chunkSize % 8 == 0 else {
            throw invalid("chunk size \(chunkSize) is not a positive multiple of 8")
          }
          parts.append("chunk_size=\(chunkSize)")
        }
        return "CREATE VIRTUAL TABLE " + (ifNotExists ? "IF NOT EXISTS " : "") + qualifiedName(name, schema: schema)
          + " USING vec0(" + parts.joined(separator: ", ") + ")"
      }
    }
  }

  extension Database {
    /// Creates a sqlite-vec `vec0` table; `body` adds its columns (see ``VectorTableDefinition``). Works in
    /// a migration as ``create(table:schema:options:_:)`` does.
    ///
    /// ```swift
    /// try db.create(vectorTable: "note_embedding") { t in
    ///   t.vector("embedding", dimensions: 384, distance: .cosine)
    ///   t.metadata("category", .text)
    /// }
    /// ```
    ///
    /// - Throws: ``SchemaError/invalidDefinition(_:)`` for a definition sqlite-vec would refuse, and
    ///   ``SQLiteError`` when SQLite or sqlite-vec refuses the statement.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/vec0.html>
    public func create(
      vectorTable name: String, schema: String? = nil, ifNotExists: Bool = false,
      _ body: (inout VectorTableDefinition) throws -> Void
    ) throws {
      try create(VectorTableDefinition(name, schema: schema, ifNotExists: ifNotExists, body))
    }

    /// Creates the `vec0` table `definition` describes.
    ///
    /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/vec0.html>
    public func create(_ definition: VectorTableDefinition) throws {
      try execute(sql: try definition.sql)
    }
  }
#endif
