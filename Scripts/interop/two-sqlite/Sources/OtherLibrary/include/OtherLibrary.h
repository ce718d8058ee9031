// A C library that uses the system's SQLite, as a third-party library linked into an application
// beside Amalgam would: it is compiled against /usr/include/sqlite3.h and linked with -lsqlite3. Its
// public header does not include sqlite3.h (a Swift target cannot import the system's sqlite3.h and
// Amalgam's at once: Clang refuses the two different definitions of sqlite3_module).
#ifndef OTHER_LIBRARY_H
#define OTHER_LIBRARY_H

/// The SQLITE_VERSION of the header the library was compiled against.
const char *other_header_version(void);
/// What the library's call to sqlite3_libversion() returns: the version of the copy it reached.
const char *other_linked_version(void);
/// The address of sqlite3_open_v2 as the library's code calls it.
const void *other_open_function(void);

/// sqlite3_libversion() of a second copy of the system SQLite, loaded with dlmopen(LM_ID_NEWLM).
const char *other_isolated_version(void);
/// Opens `path` with that copy, reads table t, closes it; returns SQLite's result code (-1: not loaded).
int other_isolated_read(const char *path);

#endif
