#if VECTOR
  /// One result of a nearest-neighbour search: a row of the `vec0` table and its distance to the query.
  ///
  /// Related sqlite-vec documentation: <https://alexgarcia.xyz/sqlite-vec/features/knn.html>
  public struct VectorMatch: Sendable, Hashable {
    /// The row's rowid in the `vec0` table (the value of its integer primary key, if it has one).
    public var rowid: Int64
    /// The distance to the query, in the column's metric.
    public var distance: Double

    /// A match of `rowid` at `distance`.
    public init(rowid: Int64, distance: Double) {
      self.rowid = rowid
      self.distance = distance
    }
  }

  /// One result of ``Database/nearestNeighbors(_:from:to:in:column:k:filter:schema:decoder:)``: a record of
  /// the table that holds the rows' data, and its distance to the query.
  public struct VectorNeighbor<Record> {
    /// The record, decoded from the row of the same rowid.
    public var record: Record
    /// The rowid shared by the record and its vector.
    public var rowid: Int64
    /// The distance to the query, in the column's metric.
    public var distance: Double
  }

  extension VectorNeighbor: Sendable where Record: Sendable {}
  extension VectorNeighbor: Equatable where Record: Equatable {}
  extension VectorNeighbor: Hashable where Record: Hashable {}
#endif
