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

// The ENCRYPTION trait compiles SQLite3 Multiple Ciphers, SQLite 3.53.4 with its ciphers in one amalgamation
// (Vendor/SQLite3MultipleCiphers), in place of SQLite's own; every other option applies to it alike. The
// file compiled is the vendored one with the fixes in Vendor/SQLite3MultipleCiphers/patches applied, as
// Scripts/update-sqlite makes it.
#if defined(AMALGAM_ENABLE_ENCRYPTION)
#include "../../Vendor/SQLite3MultipleCiphers/patched/sqlite3mc_amalgamation.c"
#else
#include "../../Vendor/SQLite/sqlite3.c"
#endif
#include "AmalgamSQLite.h"

// Column readers for Amalgam's hot paths. Compiled in the amalgamation's translation unit, so each reads
// the storage class and the value in one call where the C API takes two (sqlite3_column_type, then
// sqlite3_column_int64). They skip the connection mutex that sqlite3_column_* take: Amalgam confines a
// connection to one thread at a time, and these run only between steps on that thread.

// The current row's value of `column`, or NULL for a statement without a row or a column out of range.
static Mem *amalgamColumn(sqlite3_stmt *stmt, int column) {
  Vdbe *vm = (Vdbe *)stmt;
  if (vm == 0 || vm->pResultRow == 0 || column < 0 || column >= vm->nResColumn) return 0;
  return &vm->pResultRow[column];
}

amalgam_integer_column amalgam_column_integer(sqlite3_stmt *stmt, int column) {
  amalgam_integer_column result = {0, SQLITE_NULL};
  Mem *mem = amalgamColumn(stmt, column);
  if (mem == 0) return result;
  result.type = sqlite3_value_type(mem);
  if (result.type == SQLITE_INTEGER) result.value = mem->u.i;
  return result;
}

amalgam_real_column amalgam_column_real(sqlite3_stmt *stmt, int column) {
  amalgam_real_column result = {0.0, SQLITE_NULL};
  Mem *mem = amalgamColumn(stmt, column);
  if (mem == 0) return result;
  result.type = sqlite3_value_type(mem);
  if (result.type == SQLITE_FLOAT || result.type == SQLITE_INTEGER) result.value = sqlite3_value_double(mem);
  return result;
}

int amalgam_column_bytes(sqlite3_stmt *stmt, int column, const void **bytes, int *count) {
  Mem *mem = amalgamColumn(stmt, column);
  if (mem == 0) return SQLITE_NULL;
  int type = sqlite3_value_type(mem);
  if (type == SQLITE_TEXT) {
    *bytes = sqlite3_value_text(mem);
    *count = sqlite3_value_bytes(mem);
  } else if (type == SQLITE_BLOB) {
    *bytes = sqlite3_value_blob(mem);
    *count = sqlite3_value_bytes(mem);
  }
  return type;
}

// The flag of PRAGMA query_only, without the pragma's OP_Expire (see include/AmalgamSQLite.h). Compiled here
// because the flag lives in the connection's struct, which only the amalgamation's translation unit knows.
int amalgam_query_only(sqlite3 *db, int on) {
  if (db == 0) return 0;
  sqlite3_mutex_enter(db->mutex);
  int was = (db->flags & SQLITE_QueryOnly) != 0;
  if (on > 0) {
    db->flags |= SQLITE_QueryOnly;
  } else if (on == 0) {
    db->flags &= ~(u64)SQLITE_QueryOnly;
  }
  sqlite3_mutex_leave(db->mutex);
  return was;
}
