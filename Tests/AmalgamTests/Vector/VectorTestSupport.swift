#if VECTOR
  import Amalgam
  import Foundation

  /// Distances computed in Swift the way sqlite-vec's portable C computes them (float accumulation, in order).
  enum BruteForce {
    static func l2(_ a: [Float], _ b: [Float]) -> Float {
      var sum: Float = 0
      for i in a.indices {
        let t = a[i] - b[i]
        sum += t * t
      }
      return Float(Double(sum).squareRoot())
    }

    static func l1(_ a: [Float], _ b: [Float]) -> Float {
      var sum: Double = 0
      for i in a.indices { sum += abs(Double(a[i]) - Double(b[i])) }
      return Float(sum)
    }

    static func cosine(_ a: [Float], _ b: [Float]) -> Float {
      var dot: Float = 0
      var aMagnitude: Float = 0
      var bMagnitude: Float = 0
      for i in a.indices {
        dot += a[i] * b[i]
        aMagnitude += a[i] * a[i]
        bMagnitude += b[i] * b[i]
      }
      return Float(1 - Double(dot) / (Double(aMagnitude).squareRoot() * Double(bMagnitude).squareRoot()))
    }

    static func hamming(_ a: [UInt8], _ b: [UInt8]) -> Float {
      Float(zip(a, b).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount })
    }

    static func int8(_ a: [Int8], _ b: [Int8], _ metric: VectorTableDefinition.DistanceMetric) -> Float {
      let (x, y) = (a.map(Float.init), b.map(Float.init))
      switch metric {
      case .l2: return l2(x, y)
      case .cosine: return cosine(x, y)
      case .l1: return Float(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) })
      }
    }

    static func float(_ a: [Float], _ b: [Float], _ metric: VectorTableDefinition.DistanceMetric) -> Float {
      switch metric {
      case .l2: l2(a, b)
      case .l1: l1(a, b)
      case .cosine: cosine(a, b)
      }
    }
  }

  /// Whether sqlite-vec's KNN `matches` are the `k` nearest of `distances` (rowid -> brute-force distance):
  /// the same sorted distances as the brute force's first k, each rowid at its own distance, no rowid twice,
  /// and every row strictly nearer than the k-th included. Ties at the k-th distance may be any of the tied
  /// rows. Returns a description of the first difference, or nil.
  func knnDifference(
    _ matches: [VectorMatch], _ distances: [Int64: Float], k: Int, tolerance: Float = 1e-5
  ) -> String? {
    func close(_ a: Float, _ b: Float) -> Bool { abs(a - b) <= tolerance * max(1, abs(b)) }
    let expected = distances.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(k)
    guard matches.count == expected.count else { return "\(matches.count) matches, expected \(expected.count)" }
    guard Set(matches.map(\.rowid)).count == matches.count else { return "a rowid appears twice: \(matches)" }
    for (match, want) in zip(matches, expected) {
      guard close(Float(match.distance), want.value) else {
        return "distance \(match.distance) of rowid \(match.rowid), expected \(want.value) (rowid \(want.key))"
      }
      guard let own = distances[match.rowid], close(Float(match.distance), own) else {
        return "rowid \(match.rowid) reported at \(match.distance), its distance is \(distances[match.rowid] ?? .nan)"
      }
    }
    if let last = expected.last?.value {
      let found = Set(matches.map(\.rowid))
      for (rowid, distance) in distances where distance < last && !close(distance, last) && !found.contains(rowid) {
        return "rowid \(rowid) at \(distance) is nearer than the k-th distance \(last) but missing"
      }
    }
    return nil
  }
#endif
