// Non-variadic wrappers for the SQLite interfaces that take C variable arguments (sqlite3_db_config,
// sqlite3_config, sqlite3_log), which Swift cannot call, and the lock that guards Amalgam's error-log
// handler. Declared at the end of include/AmalgamSQLite.h.
#include "include/AmalgamSQLite.h"

int amalgam_db_config_int(sqlite3 *db, int op, int value, int *result) {
  return sqlite3_db_config(db, op, value, result);
}

int amalgam_config_log(void (*callback)(void *, int, const char *), void *context) {
  return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}

void amalgam_log(int code, const char *message) {
  sqlite3_log(code, "%s", message);
}

static pthread_mutex_t amalgam_log_mutex = PTHREAD_MUTEX_INITIALIZER;

void amalgam_log_lock(void) {
  pthread_mutex_lock(&amalgam_log_mutex);
}

void amalgam_log_unlock(void) {
  pthread_mutex_unlock(&amalgam_log_mutex);
}

int amalgam_vtab_config(sqlite3 *db, int op, int value) {
  if (op == SQLITE_VTAB_CONSTRAINT_SUPPORT) return sqlite3_vtab_config(db, op, value);
  return sqlite3_vtab_config(db, op);
}
