// SQLite's sqlite3_rsync tool, compiled from Vendor/SQLite/tool/sqlite3_rsync.c with Amalgam's compile options.
#ifndef AMALGAM_RSYNC_H
#define AMALGAM_RSYNC_H

/// Runs sqlite3_rsync as its main() would, with the given arguments, on the process's standard input,
/// output and error. argv[0] must be a command that runs the replica side (`ARGV0 --replica ORIGIN
/// REPLICA`) when both databases are local: the tool starts it through /bin/sh. Returns the exit status.
int amalgam_rsync_main(int argc, char const * const *argv);

#endif
