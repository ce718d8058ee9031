// SQLite's command-line shell, compiled from Vendor/SQLite/shell.c with Amalgam's compile options.
#ifndef AMALGAM_SHELL_H
#define AMALGAM_SHELL_H

/// Runs SQLite's shell as its main() would, with the given arguments (argv[0] is the program name), on
/// the process's standard input, output and error. Returns the shell's exit status.
int amalgam_shell_main(int argc, char **argv);

struct sqlite3;
struct sqlite3_api_routines;

/// Makes the next amalgam_shell_main register `entryPoint` as an automatic extension (sqlite3_auto_extension)
/// before the shell opens any database, so that it runs on every connection the shell opens; NULL for none.
/// Registering it before calling amalgam_shell_main does not work: the shell may shut SQLite down while it
/// reads its arguments, which forgets automatic extensions.
void amalgam_shell_set_automatic_extension(
    int (*entryPoint)(struct sqlite3 *, char **, const struct sqlite3_api_routines *));

#endif
