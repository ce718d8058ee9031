// Non-variadic wrappers for the SQLite interfaces that take C variable arguments (sqlite3_db_config,
// sqlite3_config, sqlite3_log), which Swift cannot call, and the lock that guards Amalgam's error-log
// handler. Declared at the end of include/AmalgamSQLite.h.
#include "include/AmalgamSQLite.h"
#include <stdlib.h>
#include <string.h>

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

// ---- Virtual table shadow-table names (xShadowName) ----
// SQLite calls a module's xShadowName with the suffix alone and no module pointer, so each set of names
// needs a function of its own. A fixed number of functions below each read one slot of a table of name
// lists; a module type that declares shadow tables gets a slot for the life of the process (registering
// the same names again reuses it). Slots and lists are never freed: SQLite may call xShadowName for as
// long as any connection holds the module.

#define AMALGAM_SHADOW_SLOTS 64

static char **amalgam_shadow_names[AMALGAM_SHADOW_SLOTS];
static int amalgam_shadow_counts[AMALGAM_SHADOW_SLOTS];
static int amalgam_shadow_used;
static pthread_mutex_t amalgam_shadow_mutex = PTHREAD_MUTEX_INITIALIZER;

static int amalgam_shadow_check(int slot, const char *name) {
  if (name == 0) return 0;
  for (int i = 0; i < amalgam_shadow_counts[slot]; i++) {
    if (sqlite3_stricmp(amalgam_shadow_names[slot][i], name) == 0) return 1;
  }
  return 0;
}

#define AMALGAM_SHADOW(n) \
  static int amalgam_shadow_##n(const char *name) { return amalgam_shadow_check(n, name); }
#define AMALGAM_SHADOW8(n) \
  AMALGAM_SHADOW(n##0) AMALGAM_SHADOW(n##1) AMALGAM_SHADOW(n##2) AMALGAM_SHADOW(n##3) \
  AMALGAM_SHADOW(n##4) AMALGAM_SHADOW(n##5) AMALGAM_SHADOW(n##6) AMALGAM_SHADOW(n##7)
AMALGAM_SHADOW8(0) AMALGAM_SHADOW8(1) AMALGAM_SHADOW8(2) AMALGAM_SHADOW8(3)
AMALGAM_SHADOW8(4) AMALGAM_SHADOW8(5) AMALGAM_SHADOW8(6) AMALGAM_SHADOW8(7)
#define AMALGAM_SHADOW_REF8(n) \
  amalgam_shadow_##n##0, amalgam_shadow_##n##1, amalgam_shadow_##n##2, amalgam_shadow_##n##3, \
  amalgam_shadow_##n##4, amalgam_shadow_##n##5, amalgam_shadow_##n##6, amalgam_shadow_##n##7
static int (*const amalgam_shadow_functions[AMALGAM_SHADOW_SLOTS])(const char *) = {
  AMALGAM_SHADOW_REF8(0), AMALGAM_SHADOW_REF8(1), AMALGAM_SHADOW_REF8(2), AMALGAM_SHADOW_REF8(3),
  AMALGAM_SHADOW_REF8(4), AMALGAM_SHADOW_REF8(5), AMALGAM_SHADOW_REF8(6), AMALGAM_SHADOW_REF8(7)};

/// True when slot `slot` holds exactly `names` (in order).
static int amalgam_shadow_same(int slot, const char *const *names, int count) {
  if (amalgam_shadow_counts[slot] != count) return 0;
  for (int i = 0; i < count; i++) {
    if (strcmp(amalgam_shadow_names[slot][i], names[i]) != 0) return 0;
  }
  return 1;
}

amalgam_shadow_name_function amalgam_shadow_name(const char *const *names, int count) {
  if (names == 0 || count <= 0) return 0;
  amalgam_shadow_name_function found = 0;
  pthread_mutex_lock(&amalgam_shadow_mutex);
  for (int slot = 0; slot < amalgam_shadow_used && found == 0; slot++) {
    if (amalgam_shadow_same(slot, names, count)) found = amalgam_shadow_functions[slot];
  }
  if (found == 0 && amalgam_shadow_used < AMALGAM_SHADOW_SLOTS) {
    char **copies = malloc(sizeof(char *) * (size_t)count);
    int copied = 0;
    while (copies != 0 && copied < count) {
      size_t length = strlen(names[copied]) + 1;
      char *copy = malloc(length);
      if (copy == 0) break;
      memcpy(copy, names[copied], length);
      copies[copied++] = copy;
    }
    if (copies != 0 && copied == count) {
      int slot = amalgam_shadow_used++;
      amalgam_shadow_names[slot] = copies;
      amalgam_shadow_counts[slot] = count;
      found = amalgam_shadow_functions[slot];
    } else {
      for (int i = 0; i < copied; i++) free(copies[i]);
      free(copies);
    }
  }
  pthread_mutex_unlock(&amalgam_shadow_mutex);
  return found;
}
