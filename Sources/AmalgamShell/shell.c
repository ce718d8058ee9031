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

// shell.c compiles its own copies of some ext/misc extensions with external linkage; AmalgamSQLite
// compiles the same files (trait ENABLE_EXTENSIONS). Rename the shell's copies so both can link.
#define sqlite3_series_init amalgam_shell_series_init
#define sqlite3_decimal_init amalgam_shell_decimal_init
#define sqlite3_ieee_init amalgam_shell_ieee_init
#define sqlite3_shathree_init amalgam_shell_shathree_init
#define sqlite3_uuid_init amalgam_shell_uuid_init

#include "../../Vendor/SQLite/shell.c"
