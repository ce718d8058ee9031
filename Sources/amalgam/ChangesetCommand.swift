// `amalgam changeset diff|show|apply|invert|concat`: SQLite's session extension from the command line.

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import Amalgam

/// The arguments of `amalgam changeset ...`.
enum ChangesetInvocation: Equatable {
  /// `diff FROM TO [-o FILE] [--patchset] [--table T]...`: the changes that turn FROM into TO.
  case diff(from: String, to: String, output: String?, patchset: Bool, tables: [String])
  /// `show FILE [--json]`: one line (or JSON object) per operation.
  case show(file: String, json: Bool)
  /// `apply DB FILE [--on-conflict omit|replace|abort]`.
  case apply(database: String, file: String, onConflict: ConflictAnswer)
  /// `invert FILE [-o OUT]`.
  case invert(file: String, output: String?)
  /// `concat FILE... [-o OUT]`.
  case concat(files: [String], output: String?)

  /// The answer `apply` gives to every conflict.
  enum ConflictAnswer: String, Equatable {
    case omit, replace, abort
  }

  /// Parses the arguments after `changeset`. Options that take a value (`-o`, `--table`,
  /// `--on-conflict`) take the next argument.
  static func parse(_ arguments: [String]) throws(UsageError) -> ChangesetInvocation {
    var positionals: [String] = []
    var output: String?
    var tables: [String] = []
    var onConflict: ConflictAnswer?
    var flags: Set<String> = []
    var index = 0
    func value(of option: String) throws(UsageError) -> String {
      index += 1
      guard index < arguments.count else { throw UsageError(message: "\(option) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "-o", "--output": output = try value(of: argument)
      case "--table": tables.append(try value(of: argument))
      case "--on-conflict":
        let text = try value(of: argument)
        guard let answer = ConflictAnswer(rawValue: text) else {
          throw UsageError(message: "--on-conflict takes omit, replace or abort, not \"\(text)\"")
        }
        onConflict = answer
      case "--patchset", "--json": flags.insert(argument)
      default:
        if argument.hasPrefix("-") && argument != "-" {
          throw UsageError(message: "unknown option \"\(argument)\" for changeset")
        }
        positionals.append(argument)
      }
      index += 1
    }
    guard let command = positionals.first else {
      throw UsageError(message: "changeset needs a command: diff, show, apply, invert or concat")
    }
    let operands = Array(positionals.dropFirst())
    func allow(_ allowed: Set<String>, output allowsOutput: Bool = false) throws(UsageError) {
      if let flag = flags.subtracting(allowed).first {
        throw UsageError(message: "unknown option \"\(flag)\" for changeset \(command)")
      }
      if output != nil && !allowsOutput { throw UsageError(message: "changeset \(command) takes no -o") }
      if !tables.isEmpty && command != "diff" { throw UsageError(message: "only changeset diff takes --table") }
      if onConflict != nil && command != "apply" {
        throw UsageError(message: "only changeset apply takes --on-conflict")
      }
    }
    func expect(_ count: Int, _ names: String) throws(UsageError) {
      guard operands.count == count else {
        throw UsageError(message: "changeset \(command) takes \(names), but was given \(operands.count) argument(s)")
      }
    }
    switch command {
    case "diff":
      try allow(["--patchset"], output: true)
      try expect(2, "FROM and TO")
      return .diff(
        from: operands[0], to: operands[1], output: output, patchset: flags.contains("--patchset"), tables: tables)
    case "show":
      try allow(["--json"])
      try expect(1, "FILE")
      return .show(file: operands[0], json: flags.contains("--json"))
    case "apply":
      try allow([])
      try expect(2, "DATABASE and FILE")
      return .apply(database: operands[0], file: operands[1], onConflict: onConflict ?? .abort)
    case "invert":
      try allow([], output: true)
      try expect(1, "FILE")
      return .invert(file: operands[0], output: output)
    case "concat":
      try allow([], output: true)
      guard !operands.isEmpty else { throw UsageError(message: "changeset concat needs at least one FILE") }
      return .concat(files: operands, output: output)
    default:
      throw UsageError(message: "unknown changeset command \"\(command)\"")
    }
  }
}

extension CommandLineTool {
  /// Runs `amalgam changeset ...` and returns the exit status.
  static func runChangeset(_ invocation: ChangesetInvocation, output: OutputBuffer, errors: OutputBuffer) -> Int32 {
    #if ENABLE_SESSION
      do {
        return try ChangesetCommand(output: output, errors: errors).run(invocation)
      } catch {
        report(error, context: nil, output: output, errors: errors)
        return failure
      }
    #else
      errors.write("amalgam: error: this build has no sessions (the ENABLE_SESSION trait is off)\n")
      return failure
    #endif
  }
}

#if ENABLE_SESSION
  /// The work of `amalgam changeset`.
  struct ChangesetCommand {
    let output: OutputBuffer
    let errors: OutputBuffer

    func run(_ invocation: ChangesetInvocation) throws -> Int32 {
      switch invocation {
      case let .diff(from, to, file, patchset, tables):
        try diff(from: from, to: to, file: file, patchset: patchset, tables: tables)
      case let .show(file, json):
        try show(try read(file), json: json)
      case let .apply(database, file, onConflict):
        return try apply(file: file, to: database, onConflict: onConflict)
      case let .invert(file, destination):
        try write(try Changeset(data: read(file)).inverted().data, to: destination)
      case let .concat(files, destination):
        let group = try Changegroup()
        for file in files { try group.add(try Changeset(data: try read(file))) }
        try write(group.producesPatchset ? group.patchset().data : group.changeset().data, to: destination)
      }
      return CommandLineTool.success
    }

    private func read(_ path: String) throws -> Data {
      guard FileManager.default.fileExists(atPath: path) else {
        throw SQLiteError(code: .cannotOpen, message: "No such file: \(path)")
      }
      return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Writes bytes to a file, or to standard output when no file is given.
    private func write(_ data: Data, to path: String?) throws {
      if let path {
        try data.write(to: URL(fileURLWithPath: path))
      } else {
        output.write(bytes: data)
      }
    }

    private func diff(from: String, to: String, file: String?, patchset: Bool, tables: [String]) throws {
      for path in [from, to] where !FileManager.default.fileExists(atPath: path) {
        throw SQLiteError(code: .cannotOpen, message: "No such database: \(path)")
      }
      let db = try Database(path: to, options: .readOnly)
      try db.execute(sql: "ATTACH ? AS amalgam_from", parameterValues: [from])
      // SQLite compares table names without regard to ASCII case.
      let fromTables = Set(try tableNames(db, schema: "amalgam_from").map { $0.lowercased() })
      let toTables = try tableNames(db, schema: "main")
      let toTableKeys = Set(toTables.map { $0.lowercased() })
      for table in tables where !toTableKeys.contains(table.lowercased()) {
        throw SQLiteError(code: .error, message: "No table \(table) in \(to)")
      }
      let session = try Session(database: db)
      for table in tables.isEmpty ? toTables : tables {
        guard fromTables.contains(table.lowercased()) else {
          // A table named with --table must be in both; of all the tables, those only in TO are skipped.
          if !tables.isEmpty { throw SQLiteError(code: .schema, message: "Table \(table) of \(to) is not in \(from)") }
          errors.write("amalgam: note: table \(table) of \(to) is not in \(from); skipped\n")
          continue
        }
        try session.diff(fromSchema: "amalgam_from", table: table)
      }
      try write(patchset ? session.patchset().data : session.changeset().data, to: file)
    }

    private func tableNames(_ db: Database, schema: String) throws -> [String] {
      try db.prepare(
        sql:
          "SELECT name FROM \"\(schema)\".sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
      ).column(0, as: String.self)
    }

    private func show(_ data: Data, json: Bool) throws {
      // Both formats share the reader; a patchset reads the same way.
      let reader = try ChangesetReader(try Changeset(data: data))
      if json { output.write("[") }
      var count = 0
      while let operation = try reader.next() {
        if json {
          output.write(count == 0 ? "\n  " : ",\n  ")
          writeJSON(operation)
        } else {
          output.write(Self.line(operation) + "\n")
        }
        count += 1
      }
      if json { output.write(count == 0 ? "]\n" : "\n]\n") }
    }

    /// One operation on one line: `UPDATE item (2, -, 4.0, 'blue') -> (-, -, 5.0, NULL)`, where `-` is a
    /// column the changeset does not record.
    static func line(_ operation: ChangesetOperation) -> String {
      var line: String
      let old = values(operation.oldValues, nonUTF8Text: operation.oldNonUTF8TextColumns)
      let new = values(operation.newValues, nonUTF8Text: operation.newNonUTF8TextColumns)
      switch operation.operation {
      case .insert: line = "INSERT \(operation.table) " + new
      case .delete: line = "DELETE \(operation.table) " + old
      case .update: line = "UPDATE \(operation.table) " + old + " -> " + new
      }
      if operation.isIndirect { line += " (indirect)" }
      return line
    }

    /// Values in parentheses; `nonUTF8Text` lists the BLOBs that hold TEXT which is not valid UTF-8.
    static func values(_ values: [DatabaseValue?], nonUTF8Text: [Int]) -> String {
      let shown = values.enumerated().map { column, value in
        value.map { text($0, isNonUTF8Text: nonUTF8Text.contains(column)) } ?? "-"
      }
      return "(" + shown.joined(separator: ", ") + ")"
    }

    /// A value as SQL spells it; TEXT that is not valid UTF-8 shows its invalid bytes as `\xHH`.
    private static func text(_ value: DatabaseValue, isNonUTF8Text: Bool) -> String {
      switch value {
      case .real(let real): return ValueText.real(real)
      case .blob(let data) where isNonUTF8Text:
        return "'" + ValueText.escapingInvalidUTF8(data).replacing("'", with: "''") + "'"
      case .blob(let data): return ValueText.blobLiteral(data)
      case .text: return ValueText.singleLine(value.description)
      default: return value.description
      }
    }

    /// One operation as a JSON object; `old` and `new` map column indices to the recorded values, so a
    /// column that is not recorded is absent while SQL NULL is `null`.
    private func writeJSON(_ operation: ChangesetOperation) {
      output.write("{\"table\": ")
      JSONText.writeString(operation.table, to: output)
      let name =
        switch operation.operation {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
      output.write(", \"operation\": \"\(name)\", \"indirect\": \(operation.isIndirect)")
      output.write(", \"primaryKey\": [" + operation.primaryKeyColumns.map(String.init).joined(separator: ", ") + "]")
      let records = [
        ("old", operation.oldValues, operation.oldNonUTF8TextColumns),
        ("new", operation.newValues, operation.newNonUTF8TextColumns),
      ]
      for (key, values, nonUTF8Text) in records where !values.isEmpty {
        output.write(", \"\(key)\": {")
        var first = true
        for (column, value) in values.enumerated() {
          guard let value else { continue }
          output.write(first ? "\"\(column)\": " : ", \"\(column)\": ")
          first = false
          writeJSON(value, isNonUTF8Text: nonUTF8Text.contains(column))
        }
        output.write("}")
      }
      output.write("}")
    }

    /// A value in JSON; TEXT that is not valid UTF-8 becomes a string with U+FFFD for the invalid bytes,
    /// since a JSON string holds only Unicode.
    private func writeJSON(_ value: DatabaseValue, isNonUTF8Text: Bool) {
      if isNonUTF8Text, case .blob(let data) = value {
        JSONText.writeString(String(decoding: data, as: UTF8.self), to: output)
      } else {
        JSONText.writeValue(value, to: output)
      }
    }

    private func apply(file: String, to path: String, onConflict: ChangesetInvocation.ConflictAnswer) throws -> Int32 {
      let changeset = try Changeset(data: try read(file))
      let total = try changeset.operations().count
      guard FileManager.default.fileExists(atPath: path) else {
        throw SQLiteError(code: .cannotOpen, message: "No such database: \(path)")
      }
      let db = try Database(path: path)
      var omitted = 0
      var aborted = false
      // A line per conflict, written once the outcome is known: an apply that is refused afterwards (a
      // table that does not fit) is undone, and its conflicts were never resolved.
      var conflictLines = ""
      do {
        try db.apply(changeset, tableFilter: nil) { conflict in
          let change = conflict.change.map(Self.line) ?? "the changeset"
          var answer: ChangesetConflictResolution
          switch onConflict {
          case .omit: answer = .omit
          case .abort: answer = .abort
          case .replace: answer = conflict.kind == .data || conflict.kind == .conflict ? .replace : .omit
          }
          var message = "conflict (\(Self.kindName(conflict.kind))): \(change)"
          if let row = conflict.conflictingValues {
            message += "; row in the database: " + Self.values(row, nonUTF8Text: conflict.conflictingNonUTF8TextColumns)
          }
          if conflict.kind == .foreignKey { message += ": \(conflict.foreignKeyViolationCount) violation(s)" }
          switch answer {
          case .omit:
            omitted += conflict.kind == .foreignKey ? 0 : 1
            message += " -> omitted"
          case .replace: message += " -> replaced"
          case .abort:
            aborted = true
            message += " -> abort"
          }
          conflictLines += message + "\n"
          return answer
        }
      } catch let error as SQLiteError where aborted && error.code == .abort {
        output.write(conflictLines)
        output.flush()
        errors.write("amalgam: error: aborted at a conflict; \(path) is unchanged\n")
        return CommandLineTool.failure
      } catch let mismatch as ChangesetSchemaMismatch {
        output.flush()
        let skipped = mismatch.tables.reduce(0) { $0 + $1.changeCount }
        errors.write(
          "amalgam: error: \(skipped) of \(total) change(s) do not fit the schema of \(path); "
            + "nothing was applied, \(path) is unchanged\n")
        for table in mismatch.tables {
          errors.write("  table \(table.name): \(table.changeCount) change(s); \(table.reason)\n")
        }
        return CommandLineTool.failure
      }
      output.write(conflictLines)
      output.write("applied \(total - omitted) of \(total) change(s) to \(path)\n")
      return CommandLineTool.success
    }

    private static func kindName(_ kind: ChangesetConflict.Kind) -> String {
      switch kind {
      case .data: "data"
      case .notFound: "not found"
      case .conflict: "conflict"
      case .constraint: "constraint"
      case .foreignKey: "foreign key"
      }
    }
  }
#endif
