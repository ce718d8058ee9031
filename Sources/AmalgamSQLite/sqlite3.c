// Compiles the vendored SQLite amalgamation (kept byte-for-byte in Vendor/SQLite) with the options that
// Package.swift derives from the enabled traits. Only choices that traits cannot express live here.

// Threading mode. Traits are additive, so both THREADSAFE_0 and THREADSAFE_1 may be on (for example with
// --enable-all-traits); serialized mode, the safest, wins. Neither trait means multi-thread mode, in which
// the Swift layer confines each connection to one thread at a time.
#if defined(AMALGAM_THREADSAFE_1)
#define SQLITE_THREADSAFE 1
#elif defined(AMALGAM_THREADSAFE_0)
#define SQLITE_THREADSAFE 0
#else
#define SQLITE_THREADSAFE 2
#endif

#include "../../Vendor/SQLite/sqlite3.c"
