// Compiles SQLite's own command-line shell (Vendor/SQLite/shell.c, kept byte-for-byte) against the
// trait-configured SQLite of AmalgamSQLite, for `amalgam shell`. Package.swift gives this target the same
// SQLite compile options as AmalgamSQLite, so the shell's optional commands follow the traits.
//
// shell.c is SQLite's code, compiled as SQLite ships it: its warnings are not ours to fix, so they are
// silenced here rather than by a compiler flag (which a package used as a dependency may not set).
#pragma clang diagnostic ignored "-Weverything"
#pragma GCC diagnostic ignored "-Wall"

// The shell's entry point, called by the amalgam tool instead of being the program's main().
#define main amalgam_shell_main

// The shell calls this in place of sqlite3_initialize(), once it has read its arguments and before it opens
// a database (shell.c's hook for programs that embed it). Defined below.
#define SQLITE_SHELL_INIT_PROC amalgam_shell_initialize

// shell.c compiles its own copies of some ext/misc extensions with external linkage; AmalgamSQLite
// compiles the same files (trait ENABLE_EXTENSIONS). Rename the shell's copies so both can link.
#define sqlite3_series_init amalgam_shell_series_init
#define sqlite3_decimal_init amalgam_shell_decimal_init
#define sqlite3_ieee_init amalgam_shell_ieee_init
#define sqlite3_shathree_init amalgam_shell_shathree_init
#define sqlite3_uuid_init amalgam_shell_uuid_init

#include "../../Vendor/SQLite/shell.c"

#include "AmalgamShell.h"

// See AmalgamShell.h. Written before amalgam_shell_main runs, on the only thread that uses the shell.
static int (*amalgamShellAutomaticExtension)(struct sqlite3 *, char **, const struct sqlite3_api_routines *);

void amalgam_shell_set_automatic_extension(
    int (*entryPoint)(struct sqlite3 *, char **, const struct sqlite3_api_routines *)) {
  amalgamShellAutomaticExtension = entryPoint;
}

// While it reads its arguments, the shell may initialize SQLite and shut it down again (to tell a script
// from a database), which forgets every automatic extension: register it here, after the last shutdown.
void amalgam_shell_initialize(void) {
  sqlite3_initialize();
  if (amalgamShellAutomaticExtension != 0) {
    sqlite3_auto_extension((void (*)(void))amalgamShellAutomaticExtension);
  }
}
