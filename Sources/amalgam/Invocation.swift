import Amalgam
import Foundation

/// What the command line asks for, once parsed.
enum Invocation: Equatable {
  /// `amalgam help`, `--help` or `-h`: print the usage to standard output.
  case help
  /// `amalgam info [--json]`.
  case info(json: Bool)
  /// `amalgam sql [DATABASE] SQL [--json | --csv] [--read-only]`.
  case sql(SQLOptions)
  /// `amalgam changeset diff|show|apply|invert|concat ...` (ChangesetCommand.swift).
  case changeset(ChangesetInvocation)
  /// `amalgam backup SOURCE DESTINATION [--pages N]`.
  case backup(BackupOptions)
  /// `amalgam shell [KEY OPTIONS] [ARGUMENTS...]`: SQLite's own shell, given the arguments as they are,
  /// after the key options (KeyOptions.swift).
  case shell(KeyOptions, [String])
  /// `amalgam rsync ORIGIN REPLICA [OPTIONS...]`: SQLite's sqlite3_rsync, given the arguments as they are.
  /// Also `amalgam --replica ...` and `amalgam --origin ...`: the other side, which sqlite3_rsync starts
  /// as a second process of this executable.
  case rsync([String])
}

/// The arguments of `amalgam backup`.
struct BackupOptions: Equatable {
  /// The database to copy; it must exist.
  var source: String
  /// The database file to replace with the copy (created if missing).
  var destination: String
  /// Pages copied per step; the source is unlocked between steps.
  var pagesPerStep = 256
}

/// The arguments of `amalgam sql`.
struct SQLOptions: Equatable {
  /// The database path; `:memory:` (the default) is a private in-memory database.
  var database = ":memory:"
  /// The SQL to run; `-` means: read it from standard input.
  var sql: String
  /// How rows are printed.
  var format: OutputFormat = .table
  /// Open the database read-only.
  var readOnly = false
  /// After each statement, print what each loop of its query plan did (`--scanstatus`).
  var scanStatus = false
  /// The key of an encrypted database (`--key-env`, `--key-file`, `--key`, `--cipher`).
  var key = KeyOptions()
}

/// How `amalgam sql` prints rows.
enum OutputFormat: Equatable {
  /// An aligned text table with a header row and a separator line.
  case table
  /// One JSON array of objects per result set.
  case json
  /// RFC 4180 CSV with a header line.
  case csv
}

/// A mistake in the command line: reported with the usage, exit status 2.
struct UsageError: Error, Equatable {
  /// What is wrong, in one sentence.
  let message: String
}

extension Invocation {
  /// Parses the arguments that follow the program name. Options may come before or after the
  /// positional arguments; after `--`, every argument is positional (for SQL that begins with `-`).
  ///
  /// `standardInputIsTerminal` decides whether `amalgam sql DATABASE` may read its SQL from standard input.
  static func parse(
    _ arguments: [String], standardInputIsTerminal: Bool = isatty(STDIN_FILENO) != 0
  ) throws(UsageError) -> Invocation {
    // Everything after `shell` belongs to SQLite's shell, options included.
    if arguments.first == "shell" {
      var shellArguments = Array(arguments.dropFirst())
      let key = try KeyOptions.extractLeading(from: &shellArguments)
      return .shell(key, shellArguments)
    }
    // Likewise after `rsync`. sqlite3_rsync runs its other side as `PROGRAM --replica ORIGIN REPLICA`
    // (or `--origin`), PROGRAM being this executable: those arguments go to sqlite3_rsync as they are.
    if arguments.first == "rsync" { return .rsync(Array(arguments.dropFirst())) }
    if arguments.first == "--replica" || arguments.first == "--origin" { return .rsync(arguments) }
    if arguments.first == "changeset" && !arguments.contains("--help") && !arguments.contains("-h") {
      return .changeset(try ChangesetInvocation.parse(Array(arguments.dropFirst())))
    }
    var flags: [String] = []
    var positionals: [String] = []
    var onlyPositionals = false
    var pages: String?
    var key = KeyOptions()
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      if !onlyPositionals && KeyOptions.flags.contains(argument) {
        try key.take(argument, value: arguments.popFirst())
        flags.append(argument)
      } else if !onlyPositionals && argument == "--pages" {
        guard let value = arguments.popFirst() else { throw UsageError(message: "--pages needs a number") }
        pages = value
        flags.append(argument)
      } else if onlyPositionals || argument == "-" || !argument.hasPrefix("-") {
        positionals.append(argument)
      } else if argument == "--" {
        onlyPositionals = true
      } else {
        flags.append(argument)
      }
    }
    if flags.contains("--help") || flags.contains("-h") { return .help }

    guard let command = positionals.first else {
      throw UsageError(message: flags.isEmpty ? "missing command" : "missing command before \(flags[0])")
    }
    let operands = Array(positionals.dropFirst())
    switch command {
    case "help":
      guard operands.isEmpty, flags.isEmpty else {
        throw UsageError(message: "help takes no arguments")
      }
      return .help
    case "info":
      try checkFlags(flags, allowed: ["--json"], command: command)
      guard operands.isEmpty else {
        throw UsageError(message: "info takes no arguments, but was given \(quoted(operands[0]))")
      }
      return .info(json: flags.contains("--json"))
    case "sql":
      try checkFlags(
        flags, allowed: Set(["--json", "--csv", "--read-only", "--scanstatus"]).union(KeyOptions.flags),
        command: command)
      var options: SQLOptions
      switch operands.count {
      case 0: throw UsageError(message: "sql needs the SQL to run")
      case 1 where isDatabaseOperand(operands[0]):
        // `amalgam sql DATABASE < script.sql`, as with the sqlite3 shell.
        guard !standardInputIsTerminal else {
          throw UsageError(message: "sql needs the SQL to run, as an argument or on standard input")
        }
        options = SQLOptions(database: operands[0], sql: "-")
      case 1: options = SQLOptions(sql: operands[0])
      case 2: options = SQLOptions(database: operands[0], sql: operands[1])
      default:
        throw UsageError(
          message: "sql takes at most two arguments (DATABASE and SQL), but was given \(operands.count)")
      }
      if flags.contains("--json") && flags.contains("--csv") {
        throw UsageError(message: "--json and --csv cannot be used together")
      }
      if flags.contains("--json") { options.format = .json }
      if flags.contains("--csv") { options.format = .csv }
      options.readOnly = flags.contains("--read-only")
      options.scanStatus = flags.contains("--scanstatus")
      options.key = key
      return .sql(options)
    case "backup":
      try checkFlags(flags, allowed: ["--pages"], command: command)
      guard operands.count == 2 else {
        throw UsageError(
          message: "backup takes two arguments (SOURCE and DESTINATION), but was given \(operands.count)")
      }
      var options = BackupOptions(source: operands[0], destination: operands[1])
      if let pages {
        guard let count = Int(pages), count > 0 else {
          throw UsageError(message: "--pages needs a positive number, not \(quoted(pages))")
        }
        options.pagesPerStep = count
      }
      return .backup(options)
    default:
      throw UsageError(message: "unknown command \(quoted(command))")
    }
  }

  /// Whether the only operand of `amalgam sql` names a database rather than SQL: an existing file or
  /// `:memory:`, or a single word that is not one of the SQL statements made of one word.
  private static func isDatabaseOperand(_ operand: String) -> Bool {
    if operand == ":memory:" || FileManager.default.fileExists(atPath: operand) { return true }
    if operand == "-" || operand.contains(where: { $0.isWhitespace || $0 == ";" }) { return false }
    let oneWordStatements: Set<String> = ["ANALYZE", "BEGIN", "COMMIT", "END", "REINDEX", "ROLLBACK", "VACUUM"]
    return !oneWordStatements.contains(operand.uppercased())
  }

  /// Throws for the first flag that `command` does not accept.
  private static func checkFlags(_ flags: [String], allowed: Set<String>, command: String) throws(UsageError) {
    if let unknown = flags.first(where: { !allowed.contains($0) }) {
      throw UsageError(message: "unknown option \(quoted(unknown)) for \(command)")
    }
  }

  /// `text` in double quotes, for messages.
  private static func quoted(_ text: String) -> String { "\"\(text)\"" }
}

/// The synopsis, printed after a usage error and at the top of ``usageText``.
let usageSynopsis = """
  USAGE:
    amalgam info [--json]
    amalgam sql [DATABASE] SQL [--json | --csv] [--read-only] [--scanstatus]
    amalgam changeset diff FROM TO [-o FILE] [--patchset] [--table TABLE]...
    amalgam changeset show FILE [--json]
    amalgam changeset apply DATABASE FILE [--on-conflict omit|replace|abort]
    amalgam changeset invert FILE [-o FILE]
    amalgam changeset concat FILE... [-o FILE]
    amalgam sql DATABASE [--json | --csv] [--read-only] < script.sql
    amalgam sql DATABASE SQL (--key-env NAME | --key-file PATH | --key TEXT) [--cipher NAME]
    amalgam backup SOURCE DESTINATION [--pages N]
    amalgam shell [--key-env NAME | --key-file PATH | --key TEXT] [--cipher NAME]
                  [SHELL OPTIONS] [DATABASE [SQL...]]
    amalgam rsync ORIGIN REPLICA [-v] [--wal-only] [--exe PATH] [--ssh PATH]
    amalgam rsync (--key-env NAME | --key-file PATH | --key TEXT) [--cipher NAME] ORIGIN REPLICA
    amalgam help

  """

/// The text printed by `amalgam help`.
let usageText = """
  OVERVIEW: Run SQL with SQLite \(SQLite.version), built into the Amalgam Swift library.

  \(usageSynopsis)
  COMMANDS:
    info         Print the SQLite version, source id, version number, threading mode,
                 the enabled package traits and SQLite's compile options.
    sql          Run SQL and print the rows of each statement that returns rows. Several
                 statements separated by semicolons run in order.
    changeset    SQLite's session extension (needs the ENABLE_SESSION trait):
                 diff    the changes that turn database FROM into TO (tables of TO that are
                         in FROM, or the --table ones), as a changeset (--patchset: a patchset)
                         written to -o FILE or standard output; a table only in TO is skipped
                         with a note on standard error (one named with --table is an error);
                 show    one line per operation: INSERT/DELETE table (values), UPDATE table
                         (old) -> (new), where - is a column not recorded; --json prints
                         objects whose old/new map column numbers to recorded values;
                 apply   apply FILE to DATABASE, printing each conflict and the answer given
                         (--on-conflict, default abort; replace omits what cannot be replaced);
                         an abort leaves DATABASE unchanged and exits with status 1, as do
                         tables of FILE that DATABASE lacks or has with other columns;
                 invert  the changeset that undoes FILE;  concat  FILEs merged into one.
    backup       Copy SOURCE into DESTINATION with SQLite's online backup, N pages (256 by
                 default) at a time, while other programs go on using SOURCE. DESTINATION
                 is replaced. A progress bar shows on standard error when it is a terminal.
                 A lock held by another program is waited for up to 5 seconds; SOURCE and
                 DESTINATION must be different files.
    shell        Run SQLite's own sqlite3 shell (.dump, .import, .schema, .mode, ...),
                 built with this SQLite and its compile options. Every argument after
                 "shell" goes to the shell: "amalgam shell -help" lists its options.
    rsync        Make REPLICA a copy of ORIGIN with SQLite's sqlite3_rsync, sending only
                 the pages that differ, while ORIGIN keeps taking writes; REPLICA may be
                 read meanwhile. Either may be USER@HOST:PATH, reached over ssh, where
                 --exe names the program to run (sqlite3_rsync, or amalgam, which runs
                 the remote side as "amalgam --replica" or "amalgam --origin"). Needs the
                 ENABLE_DBPAGE_VTAB trait (a default). "amalgam rsync --help" lists its
                 options. Key options (ENCRYPTION trait) open both databases with the same
                 key; both must then be local.
    help         Print this help.

  ARGUMENTS:
    DATABASE     A database file, created if missing (unless --read-only). The default,
                 :memory:, is a new in-memory database that is gone when amalgam exits.
    SQL          The SQL to run; - reads it from standard input. Without SQL, a DATABASE
                 reads it from standard input when that is not a terminal.
    SOURCE       backup: the database to copy; it must exist.
    DESTINATION  backup: the database file to replace with the copy.

  OPTIONS:
    --json       info: print a JSON object.
                 sql: print each result as a JSON array of objects (column name: value).
                 Integers and reals are numbers (infinities are the strings "Infinity" and
                 "-Infinity"), text is a string, NULL is null, and a blob is a string of
                 upper-case hex digits, as SQL's hex() writes it.
    --csv        sql: print RFC 4180 CSV with a header line and CRLF line ends. NULL is an
                 empty field; a blob is upper-case hex digits.
    --read-only  sql: open DATABASE read-only; it must exist.
    --scanstatus sql: after each statement, print each loop of its query plan with the
                 times it ran, the rows it visited and the planner's estimate (needs the
                 ENABLE_STMT_SCANSTATUS trait; on standard error with --json or --csv).
    --pages N    backup: copy N pages per step (default 256).
    --key-env NAME, --key-file PATH, --key TEXT
                 sql, shell (before the shell's own options): the passphrase of an
                 encrypted DATABASE, from an environment variable, from a file's first
                 line, or from the command line (which the process list shows to other
                 users). Needs the ENCRYPTION trait.
    --cipher NAME
                 sql, shell: the cipher of the encrypted DATABASE: chacha20 (the default),
                 aes128cbc, aes256cbc, ascon128, aegis, sqlcipher (SQLCipher 4) or
                 sqlcipher-v1 ... sqlcipher-v4.
    --           Treat every later argument as positional (for SQL that starts with -).
    -h, --help   Print this help.

  Without --json or --csv, rows print as an aligned table: NULL shows as NULL, a blob as
  x'ABCD' (cut short after 16 bytes when longer than 32, with its size), and tabs,
  line breaks and other control characters in text as \\t, \\n, \\r or \\xHH.

  EXIT STATUS: 0 on success, 1 when SQLite or a file fails, 2 for a usage error.

  """
