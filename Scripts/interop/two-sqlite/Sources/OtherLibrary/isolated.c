// The system SQLite in a link namespace of its own (glibc's dlmopen), the only way this program found
// to reach a second, independent copy: a plain dlopen returns the already loaded libsqlite3, whose
// sqlite3_* calls the executable's definitions (Amalgam's) take over.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include "OtherLibrary.h"

typedef struct sqlite3 sqlite3;
static void *isolated;

static void *isolated_function(const char *name) {
  if (isolated == NULL) isolated = dlmopen(LM_ID_NEWLM, "libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
  return isolated == NULL ? NULL : dlsym(isolated, name);
}

const char *other_isolated_version(void) {
  const char *(*version)(void) = (const char *(*)(void))isolated_function("sqlite3_libversion");
  return version == NULL ? "(dlmopen failed)" : version();
}

int other_isolated_read(const char *path) {
  int (*open)(const char *, sqlite3 **, int, const char *) =
      (int (*)(const char *, sqlite3 **, int, const char *))isolated_function("sqlite3_open_v2");
  int (*exec)(sqlite3 *, const char *, void *, void *, char **) =
      (int (*)(sqlite3 *, const char *, void *, void *, char **))isolated_function("sqlite3_exec");
  int (*close)(sqlite3 *) = (int (*)(sqlite3 *))isolated_function("sqlite3_close");
  if (open == NULL || exec == NULL || close == NULL) return -1;
  sqlite3 *db = NULL;
  int rc = open(path, &db, 0x02 /* SQLITE_OPEN_READWRITE */, NULL);
  if (rc != 0) return rc;
  rc = exec(db, "SELECT count(*) FROM t", NULL, NULL, NULL);
  int closed = close(db);
  return rc != 0 ? rc : closed;
}
