// The `amalgam` command-line tool: `amalgam info` and `amalgam sql [DATABASE] SQL`.
// Run `amalgam help` for the usage. The work is done in Commands.swift; this file only wires it up.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

let status = CommandLineTool.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
