// Compiles SQLite's sqlite3_rsync tool (Vendor/SQLite/tool/sqlite3_rsync.c, kept byte-for-byte) against the
// trait-configured SQLite of AmalgamSQLite, for `amalgam rsync`. Package.swift gives this target the same
// SQLite compile options as AmalgamSQLite. The tool reads and writes pages through the sqlite_dbpage
// virtual table, so it works only when SQLite is compiled with the ENABLE_DBPAGE_VTAB trait.
//
// sqlite3_rsync.c is SQLite's code, compiled as SQLite ships it: its warnings are not ours to fix, so they
// are silenced here rather than by a compiler flag (which a package used as a dependency may not set).
#pragma clang diagnostic ignored "-Weverything"
#pragma GCC diagnostic ignored "-Wall"

// The tool's entry point, called by the amalgam tool instead of being the program's main().
#define main amalgam_rsync_main

// The tool's helpers with external linkage get names of their own, so that they cannot collide with the
// shell's or an application's symbols of the same name in one executable.
#define append_escaped_arg amalgam_rsync_append_escaped_arg
#define add_path_argument amalgam_rsync_add_path_argument
#define file_tail amalgam_rsync_file_tail
#define readByte amalgam_rsync_readByte
#define writeByte amalgam_rsync_writeByte
#define readPow2 amalgam_rsync_readPow2
#define writePow2 amalgam_rsync_writePow2
#define readBytes amalgam_rsync_readBytes
#define writeBytes amalgam_rsync_writeBytes
#define currentTime amalgam_rsync_currentTime
#define win32_utf8_to_unicode amalgam_rsync_win32_utf8_to_unicode

#include "../../Vendor/SQLite/tool/sqlite3_rsync.c"
