// A small SQLite extension written in C and compiled against Amalgam's SQLite (the AmalgamSQLite
// target), the way an application adds its own: see the "Writing extensions in C" article.
#ifndef AMALGAM_EXAMPLE_EXTENSION_H
#define AMALGAM_EXAMPLE_EXTENSION_H

#include "AmalgamSQLite.h"

/// The extension's entry point: registers example_half(x) and the collation example_reverse on `db`.
/// `api` is unused: the extension is compiled into the program (it includes sqlite3.h through
/// AmalgamSQLite.h, not sqlite3ext.h), so it calls SQLite's functions directly.
int amalgam_example_extension_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);

/// An entry point that always fails with SQLITE_ERROR and the message "example extension refused".
int amalgam_example_failing_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);

#endif
