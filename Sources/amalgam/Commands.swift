import Amalgam
import AmalgamRsync
import AmalgamSQLite
import AmalgamShell
import Foundation

/// The `amalgam` tool: parses the command line, runs the command, and reports errors.
enum CommandLineTool {
  /// Exit status for success.
  static let success: Int32 = 0
  /// Exit status when SQLite or a file fails.
  static let failure: Int32 = 1
  /// Exit status for a usage error.
  static let usageFailure: Int32 = 2

  /// Runs the tool with `arguments` (without the program name) and returns the exit status.
  /// Output goes to standard output, messages to standard error.
  static func run(arguments: [String]) -> Int32 {
    let output = OutputBuffer.standardOutput()
    let errors = OutputBuffer.standardError()
    defer {
      output.flush()
      errors.flush()
    }
    let invocation: Invocation
    do {
      invocation = try Invocation.parse(arguments)
    } catch {
      errors.write("amalgam: error: \(error.message)\n\n")
      errors.write(usageSynopsis)
      errors.write("\nRun \"amalgam help\" for the arguments, options and output formats.\n")
      return usageFailure
    }
    var status: Int32
    switch invocation {
    case .help:
      output.write(usageText)
      status = success
    case .info(let json):
      writeInfo(json: json, to: output)
      status = success
    case .sql(let options):
      status = runSQL(options, output: output, errors: errors)
    case .changeset(let invocation):
      status = runChangeset(invocation, output: output, errors: errors)
    case .backup(let options):
      status = runBackup(options, output: output, errors: errors)
    case .shell(let key, let arguments):
      if let message = key.missingTraitMessage {
        errors.write("amalgam: error: \(message)\n")
        return usageFailure
      }
      #if ENCRYPTION
        if key.source != nil || key.cipher != nil {
          do {
            try key.setAutomaticKey(scope: .firstFile)
          } catch {
            errors.write("amalgam: error: \(error.message)\n")
            return failure
          }
          amalgam_shell_set_automatic_extension(AutomaticKey.entryPoint)
          // Checking the cipher's name initialized SQLite; the shell configures it before it initializes it.
          sqlite3_shutdown()
        }
      #endif
      output.flush()
      errors.flush()
      // The shell numbers the arguments in its messages ("Parse error in 3rd command line argument"): an
      // option it ignores (-utf8 only matters on Windows) in place of each key option and value keeps the
      // numbers of the arguments as the user typed them.
      status = runShell(Array(repeating: "-utf8", count: key.argumentCount) + arguments)
    case .rsync(let arguments):
      output.flush()
      errors.flush()
      status = runRsync(arguments, errors: errors)
    }
    output.flush()
    if let writeError = output.writeError {
      errors.write("amalgam: error: cannot write the output: \(writeError.localizedDescription)\n")
      status = failure
    }
    return status
  }

  // MARK: - info

  /// Writes what `amalgam info` reports: as aligned `key: value` lines, or as a JSON object.
  static func writeInfo(json: Bool, to output: OutputBuffer) {
    let traits = SQLite.enabledTraits
    let options = SQLite.compileOptions
    if json {
      output.write("{\n  \"version\": ")
      JSONText.writeString(SQLite.version, to: output)
      output.write(",\n  \"sourceID\": ")
      JSONText.writeString(SQLite.sourceID, to: output)
      output.write(",\n  \"versionNumber\": \(SQLite.versionNumber),\n  \"threadingMode\": ")
      JSONText.writeString(SQLite.threadingMode.description, to: output)
      output.write(",\n  \"enabledTraits\": ")
      writeJSONArray(traits, to: output)
      output.write(",\n  \"compileOptions\": ")
      writeJSONArray(options, to: output)
      #if ENCRYPTION
        output.write(",\n  \"encryption\": ")
        JSONText.writeString(Database.encryptionLibraryVersion, to: output)
      #endif
      output.write("\n}\n")
      return
    }
    let entries: [(key: String, values: [String])] =
      [
        ("version", [SQLite.version]),
        ("source id", [SQLite.sourceID]),
        ("version number", [String(SQLite.versionNumber)]),
        ("threading mode", [SQLite.threadingMode.description]),
      ] + encryptionInfo + [
        ("enabled traits", traits.isEmpty ? ["(none)"] : traits),
        ("compile options", options.isEmpty ? ["(none)"] : options),
      ]
    // Values start one space after the longest "key:"; further values of a list line up below.
    let valueColumn = (entries.map(\.key.count).max() ?? 0) + 2
    for entry in entries {
      for (index, value) in entry.values.enumerated() {
        if index == 0 {
          output.write(entry.key + ":")
          output.writeSpaces(valueColumn - entry.key.count - 1)
        } else {
          output.writeSpaces(valueColumn)
        }
        output.write(value)
        output.write("\n")
      }
    }
  }

  /// The `encryption` line of `amalgam info`: the SQLite3 Multiple Ciphers version (never a key).
  private static var encryptionInfo: [(key: String, values: [String])] {
    #if ENCRYPTION
      return [("encryption", [Database.encryptionLibraryVersion])]
    #else
      return []
    #endif
  }

  /// Writes a JSON array of strings, one per line, indented under a key of the top-level object.
  private static func writeJSONArray(_ strings: [String], to output: OutputBuffer) {
    guard !strings.isEmpty else {
      output.write("[]")
      return
    }
    output.write("[")
    for (index, string) in strings.enumerated() {
      output.write(index == 0 ? "\n    " : ",\n    ")
      JSONText.writeString(string, to: output)
    }
    output.write("\n  ]")
  }

  // MARK: - sql

  /// Runs `amalgam sql`: opens the database, runs each statement of the SQL in order, and prints the
  /// rows of those that return rows. Stops at the first error, after printing the rows received so far.
  /// Returns the exit status.
  static func runSQL(_ options: SQLOptions, output: OutputBuffer, errors: OutputBuffer) -> Int32 {
    #if !ENABLE_STMT_SCANSTATUS
      if options.scanStatus {
        errors.write(
          "amalgam: error: --scanstatus needs SQLite's scan-status counters, which this build leaves out: build "
            + "amalgam with the ENABLE_STMT_SCANSTATUS trait (swift build --traits default,ENABLE_STMT_SCANSTATUS)\n")
        return usageFailure
      }
    #endif
    var sql = options.sql
    if sql == "-" {
      do {
        sql = try FileHandle.standardInput.readToEnd().map { String(decoding: $0, as: UTF8.self) } ?? ""
      } catch {
        errors.write("amalgam: error: cannot read SQL from standard input: \(error.localizedDescription)\n")
        return failure
      }
    }
    return runSQLText(sql, options: options, output: output, errors: errors)
  }

  /// Runs the SQL text `sql` with `options`; see ``runSQL(_:output:errors:)``.
  private static func runSQLText(
    _ sql: String, options: SQLOptions, output: OutputBuffer, errors: OutputBuffer
  ) -> Int32 {
    if let message = options.key.missingTraitMessage {
      errors.write("amalgam: error: \(message)\n")
      return usageFailure
    }
    let database: Database
    do {
      var openOptions: Database.OpenOptions = options.readOnly ? .readOnly : .default
      #if ENCRYPTION
        try options.key.apply(to: &openOptions)
      #endif
      database = try Database(path: options.database, options: openOptions)
    } catch let error as KeyOptions.KeyError {
      errors.write("amalgam: error: \(error.message)\n")
      return failure
    } catch {
      report(error, context: "cannot open the database \"\(options.database)\"", output: output, errors: errors)
      return failure
    }
    var formatter = makeFormatter(options.format, output: output)
    do {
      var splitter = try StatementSplitter(sql: sql)
      while let statementSQL = try splitter.nextStatement(in: database) {
        let statement = try database.prepare(sql: statementSQL)
        if statement.columnCount == 0 {
          try statement.execute()
        } else {
          formatter.begin(columns: statement.columnNames)
          // Print the rows received so far, even when a later row fails.
          defer { formatter.end() }
          while let row = try statement.step() {
            formatter.write(row: try values(of: row))
          }
        }
        if options.scanStatus {
          writeScanStatus(of: statement, to: options.format == .table ? output : errors)
        }
      }
    } catch {
      report(error, context: nil, output: output, errors: errors)
      return failure
    }
    do {
      try database.close()
    } catch {
      report(error, context: "cannot close the database", output: output, errors: errors)
      return failure
    }
    return success
  }

  /// Writes what each loop of `statement`'s plan did, as a table: `amalgam sql --scanstatus`.
  private static func writeScanStatus(of statement: Statement, to output: OutputBuffer) {
    #if ENABLE_STMT_SCANSTATUS
      output.flush()
      let loops = statement.scanStatus()
      // A statement that neither returns rows nor loops (CREATE, a plain INSERT) is not worth a line.
      if loops.isEmpty && statement.columnCount == 0 { return }
      output.write(loops.isEmpty ? "scan status: no loops\n" : "scan status:\n")
      guard !loops.isEmpty else { return }
      var table = TableFormatter(output: output)
      table.begin(columns: ["id", "parent", "loops", "rows visited", "rows estimated", "plan"])
      for loop in loops {
        table.write(row: [
          .integer(Int64(loop.id)), .integer(Int64(loop.parentID)), loop.loopCount.map { .integer($0) } ?? .null,
          loop.visitedRowCount.map { .integer($0) } ?? .null, loop.estimatedRowCount.map { .real($0) } ?? .null,
          loop.explanation.map { .text($0) } ?? .null,
        ])
      }
      table.end()
    #endif
  }

  /// The values of a row. Text that is not valid UTF-8 is shown with U+FFFD for the invalid bytes
  /// rather than stopping the output.
  private static func values(of row: Row) throws -> [DatabaseValue] {
    var values: [DatabaseValue] = []
    values.reserveCapacity(row.count)
    for index in 0..<row.count {
      do {
        values.append(try row[index])
      } catch DatabaseError.conversionFailed {
        let bytes: Data = try row.value(at: index)
        values.append(.text(String(decoding: bytes, as: UTF8.self)))
      }
    }
    return values
  }

  // MARK: - backup

  /// Runs `amalgam backup`: copies the source database into the destination in steps, drawing a progress
  /// bar on standard error when it is a terminal, and prints what was copied. Returns the exit status.
  static func runBackup(_ options: BackupOptions, output: OutputBuffer, errors: OutputBuffer) -> Int32 {
    let source: Database
    let destination: Database
    do {
      source = try Database(path: options.source, options: .readOnly)
    } catch {
      report(error, context: "cannot open the source database \"\(options.source)\"", output: output, errors: errors)
      return failure
    }
    do {
      destination = try Database(path: options.destination)
    } catch {
      report(
        error, context: "cannot open the destination database \"\(options.destination)\"", output: output,
        errors: errors)
      return failure
    }
    let showsProgress = isatty(STDERR_FILENO) != 0
    var last = BackupProgress(remainingPageCount: 0, totalPageCount: 0)
    do {
      // A lock another program holds for a moment is waited for; one that stays ends the backup.
      try source.setBusyTimeout(5)
      try destination.setBusyTimeout(5)
      try source.backup(to: destination, pagesPerStep: options.pagesPerStep, busyPause: 0.05) { progress in
        last = progress
        if showsProgress {
          errors.write("\r" + progressBar(progress))
          errors.flush()
        }
        return true
      }
      if showsProgress { errors.write("\n") }
      try destination.close()
      try source.close()
    } catch {
      if showsProgress { errors.write("\n") }
      report(
        error, context: "backup of \"\(options.source)\" to \"\(options.destination)\" failed", output: output,
        errors: errors)
      return failure
    }
    output.write("Copied \(last.totalPageCount) pages from \(options.source) to \(options.destination)\n")
    return success
  }

  /// A one-line progress bar: `[#########...........]  45%  123/270 pages`.
  static func progressBar(_ progress: BackupProgress, width: Int = 30) -> String {
    let filled = Int((progress.fractionCompleted * Double(width)).rounded(.down))
    let percent = Int((progress.fractionCompleted * 100).rounded(.down))
    let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    let percentText = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
    return "[\(bar)] \(percentText)  \(progress.completedPageCount)/\(progress.totalPageCount) pages"
  }

  // MARK: - shell

  /// Runs SQLite's shell with `arguments` on the process's standard streams; returns its exit status.
  static func runShell(_ arguments: [String]) -> Int32 {
    let argv = (["amalgam shell"] + arguments).map { strdup($0) }
    defer { argv.forEach { free($0) } }
    var pointers = argv + [nil]
    return pointers.withUnsafeMutableBufferPointer { buffer in
      amalgam_shell_main(Int32(arguments.count + 1), buffer.baseAddress)
    }
  }

  // MARK: - rsync

  /// Runs SQLite's sqlite3_rsync with `arguments` on the process's standard streams; returns its exit
  /// status. Its program name is the path of this executable, which it runs again (as
  /// `amalgam --replica ORIGIN REPLICA`) for the replica side when both databases are local.
  static func runRsync(_ arguments: [String], errors: OutputBuffer) -> Int32 {
    #if ENABLE_DBPAGE_VTAB
      var arguments = arguments
      if arguments.first == "--replica" || arguments.first == "--origin" {
        #if ENCRYPTION
          RsyncKey.prepareOtherSide(&arguments)
        #endif
      } else {
        // The key options come first.
        let keyed = arguments.first.map(KeyOptions.flags.contains) ?? false
        if let problem = RsyncKey.prepareOriginSide(&arguments) {
          errors.write("amalgam: error: rsync: \(problem.message)\n")
          return problem.usage ? usageFailure : failure
        }
        if let (origin, replica) = RsyncCheck.databases(in: arguments),
          let problem = RsyncCheck.problem(origin: origin, replica: replica, keyed: keyed)
        {
          errors.write("amalgam: error: rsync: \(problem)\n")
          return failure
        }
      }
      let program =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? Bundle.main.executablePath ?? CommandLine.arguments.first ?? "amalgam"
      let argv = ([program] + arguments).map { strdup($0) }
      defer { argv.forEach { free($0) } }
      var pointers = argv.map { UnsafePointer($0) } + [nil]
      return pointers.withUnsafeMutableBufferPointer { buffer in
        amalgam_rsync_main(Int32(arguments.count + 1), buffer.baseAddress)
      }
    #else
      errors.write(
        "amalgam: error: rsync reads and writes pages through SQLite's sqlite_dbpage virtual table, "
          + "which this build leaves out: build amalgam with the ENABLE_DBPAGE_VTAB trait, one of the "
          + "defaults (swift build --traits default)\n")
      return failure
    #endif
  }

  // MARK: - Errors

  /// SQL longer than this is shortened in error messages.
  private static let longSQL = 300

  /// Writes an error to standard error: a line with SQLite's message (after `context`, if any), the line
  /// of SQL where the error is with a caret under it when SQLite knows the offset, and the error's full
  /// description, which includes the result code. Pending output is written first, so that the
  /// message follows it.
  static func report(_ error: any Error, context: String?, output: OutputBuffer, errors: OutputBuffer) {
    output.flush()
    let prefix = context.map { "amalgam: error: \($0): " } ?? "amalgam: error: "
    switch error {
    case let error as SQLiteError:
      errors.write(prefix + error.message + "\n")
      if let sql = error.sql, let offset = error.offset, let pointer = caretLines(sql: sql, offset: offset) {
        errors.write(pointer)
      }
      var shown = error
      if let sql = error.sql, sql.count > longSQL {
        shown = SQLiteError(
          code: error.extendedCode, message: error.message, sql: String(sql.prefix(longSQL)) + "…",
          offset: error.offset)
      }
      errors.write("  (\(shown.description))\n")
    case let error as DatabaseError:
      errors.write(prefix + error.description + "\n")
    case let error as LocalizedError where error.errorDescription != nil:
      errors.write(prefix + (error.errorDescription ?? "") + "\n")
    default:
      errors.write(prefix + String(describing: error) + "\n")
    }
  }

  /// Two lines showing where byte `offset` of `sql` is: the line of SQL that holds it, and a caret
  /// below. `nil` when the offset is outside the SQL or the line is too long to be useful.
  static func caretLines(sql: String, offset: Int) -> String? {
    let utf8 = sql.utf8
    guard offset >= 0, offset <= utf8.count else { return nil }
    let position = utf8.index(utf8.startIndex, offsetBy: offset)
    let lineStart =
      utf8[..<position].lastIndex(of: UInt8(ascii: "\n")).map { utf8.index(after: $0) } ?? utf8.startIndex
    let lineEnd = utf8[position...].firstIndex(of: UInt8(ascii: "\n")) ?? utf8.endIndex
    guard let before = String(utf8[lineStart..<position]), let line = String(utf8[lineStart..<lineEnd]) else {
      return nil
    }
    let shownLine = ValueText.singleLine(line.replacing("\r", with: ""))
    let column = ValueText.displayWidth(ValueText.singleLine(before))
    guard ValueText.displayWidth(shownLine) <= 200 else { return nil }
    return "  " + shownLine + "\n  " + String(repeating: " ", count: column) + "^\n"
  }
}
