// SQLite's command-line shell, compiled from Vendor/SQLite/shell.c with Amalgam's compile options.
#ifndef AMALGAM_SHELL_H
#define AMALGAM_SHELL_H

/// Runs SQLite's shell as its main() would, with the given arguments (argv[0] is the program name), on
/// the process's standard input, output and error. Returns the shell's exit status.
int amalgam_shell_main(int argc, char **argv);

#endif
