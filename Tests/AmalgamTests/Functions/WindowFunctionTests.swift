import Amalgam
import Testing

/// A sum over the window frame.
private struct MovingSum: SQLAggregateWindowFunction {
  var sum: Int64 = 0
  mutating func step(_ arguments: FunctionArguments) throws { sum += arguments.int64(at: 0) }
  mutating func inverse(_ arguments: FunctionArguments) throws { sum -= arguments.int64(at: 0) }
  func value() throws -> DatabaseValue { .integer(sum) }
}

/// The frame's values in order, as text: checks that inverse always removes the oldest row.
private struct FrameList: SQLAggregateWindowFunction {
  var values: [Int64] = []
  var token: StateToken?
  mutating func step(_ arguments: FunctionArguments) throws {
    let value = arguments.int64(at: 0)
    if value < 0 { throw FunctionTestError(reason: "negative step") }
    values.append(value)
  }
  mutating func inverse(_ arguments: FunctionArguments) throws {
    guard values.first == arguments.int64(at: 0) else {
      throw FunctionTestError(reason: "inverse of \(arguments.int64(at: 0)) but the oldest is \(values.first ?? -1)")
    }
    values.removeFirst()
  }
  func value() throws -> DatabaseValue {
    if values.contains(13) { throw FunctionTestError(reason: "unlucky frame") }
    return values.isEmpty ? .null : .text(values.map(String.init).joined(separator: ","))
  }
}

@Suite("Window functions")
struct WindowFunctionTests {
  private func database() throws -> Database {
    let db = try Database()
    try db.batch(
      sql: """
        CREATE TABLE samples(g TEXT, t INTEGER, x INTEGER);
        INSERT INTO samples VALUES
          ('a', 1, 1), ('a', 2, 2), ('a', 3, 3), ('a', 4, 4), ('a', 5, 5),
          ('b', 1, 10), ('b', 2, 20), ('b', 3, 30);
        """)
    try db.addWindowFunction("moving_sum", arity: 1, MovingSum.self)
    try db.addWindowFunction("frame_list", arity: 1, FrameList.self)
    return db
  }

  @Test func slidingFrameSumsEachRowWithItsNeighbours() throws {
    let db = try database()
    let window = "OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)"
    let sums = try db.prepare(sql: "SELECT moving_sum(x) \(window) FROM samples WHERE g = 'a' ORDER BY t")
      .column(0, as: Int.self)
    #expect(sums == [3, 6, 9, 12, 9])
    let builtIn = try db.prepare(sql: "SELECT sum(x) \(window) FROM samples WHERE g = 'a' ORDER BY t")
      .column(0, as: Int.self)
    #expect(sums == builtIn)
  }

  @Test func frameContentsFollowStepAndInverse() throws {
    let db = try database()
    let frames = try db.prepare(
      sql: """
        SELECT frame_list(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)
        FROM samples WHERE g = 'a' ORDER BY t
        """
    ).column(0, as: String.self)
    #expect(frames == ["1,2", "1,2,3", "2,3,4", "3,4,5", "4,5"])
  }

  @Test func eachPartitionStartsWithAFreshState() throws {
    let db = try database()
    let rows = try db.prepare(
      sql: """
        SELECT g, t,
          moving_sum(x) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
          moving_sum(x) OVER (PARTITION BY g ORDER BY t ROWS UNBOUNDED PRECEDING)
        FROM samples ORDER BY g, t
        """
    ).allRows()
    #expect(
      rows == [
        ["a", 1, 3, 1], ["a", 2, 6, 3], ["a", 3, 9, 6], ["a", 4, 12, 10], ["a", 5, 9, 15],
        ["b", 1, 30, 10], ["b", 2, 60, 30], ["b", 3, 50, 60],
      ])
  }

  @Test func emptyFramesHaveTheResultOfNoRows() throws {
    let db = try database()
    let frames = try db.prepare(
      sql: """
        SELECT frame_list(x) OVER (ORDER BY t ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING),
               moving_sum(x) OVER (ORDER BY t ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING)
        FROM samples WHERE g = 'a' ORDER BY t
        """
    ).allRows()
    #expect(frames == [["3,4", 7], ["4,5", 9], ["5", 5], [.null, 0], [.null, 0]])
  }

  @Test func excludedRowsAreLeftOutOfTheFrame() throws {
    // With EXCLUDE, SQLite recomputes each frame from a fresh state instead of calling inverse.
    let db = try database()
    let frames = try db.prepare(
      sql: """
        SELECT frame_list(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)
        FROM samples WHERE g = 'a' ORDER BY t
        """
    ).column(0, as: String.self)
    #expect(frames == ["2", "1,3", "2,4", "3,5", "4"])
  }

  @Test func rangeAndGroupsFramesWork() throws {
    let db = try database()
    try db.execute(sql: "INSERT INTO samples VALUES ('a', 3, 100)")
    let range = try db.prepare(
      sql: """
        SELECT moving_sum(x) OVER (ORDER BY t RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)
        FROM samples WHERE g = 'a' ORDER BY t, x
        """
    ).column(0, as: Int.self)
    #expect(range == [1, 3, 105, 105, 107, 9])
    let groups = try db.prepare(
      sql: """
        SELECT moving_sum(x) OVER (ORDER BY t GROUPS BETWEEN CURRENT ROW AND 1 FOLLOWING)
        FROM samples WHERE g = 'a' ORDER BY t, x
        """
    ).column(0, as: Int.self)
    #expect(groups == [3, 105, 107, 107, 9, 5])
  }

  @Test func sameWindowFunctionInTwoWindowsOfOneQuery() throws {
    let db = try database()
    let rows = try db.prepare(
      sql: """
        SELECT frame_list(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW),
               frame_list(x) OVER (ORDER BY t DESC ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING)
        FROM samples WHERE g = 'b' ORDER BY t
        """
    ).allRows()
    #expect(rows == [["10", "10"], ["10,20", "20,10"], ["20,30", "30,20"]])
  }

  @Test func windowFunctionAlsoWorksAsAPlainAggregate() throws {
    let db = try database()
    #expect(
      try db.prepare(sql: "SELECT g, moving_sum(x), frame_list(x) FROM samples GROUP BY g ORDER BY g").allRows()
        == [["a", 15, "1,2,3,4,5"], ["b", 60, "10,20,30"]])
    #expect(try db.prepare(sql: "SELECT moving_sum(x), frame_list(x) FROM samples WHERE 0").allRows() == [[0, .null]])
  }

  @Test func twoInterleavedStatementsEachKeepTheirOwnRunningState() throws {
    let db = try database()
    let window = "OVER (ORDER BY g, t ROWS UNBOUNDED PRECEDING)"
    let first = try db.prepare(sql: "SELECT moving_sum(x) \(window) FROM samples ORDER BY g, t")
    let second = try db.prepare(sql: "SELECT moving_sum(x * 100) \(window) FROM samples ORDER BY g, t")
    // Statement A stops halfway through with a running sum in progress; B runs to the end; A finishes.
    var firstSums: [Int] = []
    for _ in 0..<3 {
      let row = try #require(try first.step())
      firstSums.append(try row.value(at: 0))
    }
    #expect(try second.column(0, as: Int.self) == [100, 300, 600, 1000, 1500, 2500, 4500, 7500])
    while let row = try first.step() { firstSums.append(try row.value(at: 0)) }
    #expect(firstSums == [1, 3, 6, 10, 15, 25, 45, 75])
  }

  @Test func errorsInStepInverseAndValueFailTheStatement() throws {
    let db = try database()
    try db.execute(sql: "INSERT INTO samples VALUES ('c', 1, 13), ('d', 1, -1)")
    let valueError = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "SELECT frame_list(x) OVER (ORDER BY t) FROM samples WHERE g = 'c'")
    }
    #expect(valueError?.message == "test failure: unlucky frame")
    let stepError = #expect(throws: SQLiteError.self) {
      try db.execute(sql: "SELECT frame_list(x) OVER (ORDER BY t) FROM samples WHERE g = 'd'")
    }
    #expect(stepError?.message == "test failure: negative step")
    struct GrowOnly: SQLAggregateWindowFunction {
      var count: Int64 = 0
      mutating func step(_ arguments: FunctionArguments) throws { count += 1 }
      mutating func inverse(_ arguments: FunctionArguments) throws {
        throw SQLiteError(code: .constraint, message: "rows cannot leave this frame")
      }
      func value() throws -> DatabaseValue { .integer(count) }
    }
    try db.addWindowFunction("grow_only", arity: 1, GrowOnly.self)
    #expect(
      try db.prepare(sql: "SELECT grow_only(x) OVER (ORDER BY t) FROM samples WHERE g = 'b'").allRows() == [
        [1], [2], [3],
      ])
    let inverseError = #expect(throws: SQLiteError.self) {
      try db.execute(
        sql: "SELECT grow_only(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM samples")
    }
    #expect(inverseError?.code == .constraint)
    #expect(inverseError?.message == "rows cannot leave this frame")
  }

  @Test func everyWindowStateIsDestroyed() throws {
    let db = try database()
    let counter = StateCounter()
    try db.addWindowFunction("counted_frames", arity: 1) { FrameList(token: counter.token()) }
    _ = try db.prepare(
      sql: """
        SELECT counted_frames(x) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
               counted_frames(x) OVER (ORDER BY t ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING),
               counted_frames(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)
        FROM samples
        """
    ).allRows()
    _ = try db.prepare(sql: "SELECT g, counted_frames(x) FROM samples GROUP BY g").allRows()
    try db.execute(sql: "INSERT INTO samples VALUES ('c', 1, 13)")
    #expect(throws: SQLiteError.self) {
      try db.execute(sql: "SELECT counted_frames(x) OVER (ORDER BY t) FROM samples WHERE g = 'c'")
    }
    do {
      let abandoned = try db.prepare(sql: "SELECT counted_frames(x) OVER (ORDER BY g, t) FROM samples")
      _ = try abandoned.step()
    }
    #expect(counter.created > 5)
    #expect(counter.destroyed == counter.created)
  }
}
