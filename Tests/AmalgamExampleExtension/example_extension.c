// A small SQLite extension compiled into the test program against Amalgam's SQLite.
#include "include/AmalgamExampleExtension.h"

#include <string.h>

/// example_half(x): x / 2.0 for a number, NULL for NULL.
static void example_half(sqlite3_context *context, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  sqlite3_result_double(context, sqlite3_value_double(argv[0]) / 2.0);
}

/// example_reverse: orders text backwards (the reverse of BINARY).
static int example_reverse(void *unused, int leftCount, const void *left, int rightCount, const void *right) {
  (void)unused;
  int common = leftCount < rightCount ? leftCount : rightCount;
  int order = memcmp(left, right, (size_t)common);
  if (order == 0) order = leftCount - rightCount;
  return -order;
}

int amalgam_example_extension_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api) {
  (void)api;
  int rc = sqlite3_create_function(
    db, "example_half", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, example_half, 0, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_collation(db, "example_reverse", SQLITE_UTF8, 0, example_reverse);
  if (rc != SQLITE_OK && errorMessage) *errorMessage = sqlite3_mprintf("example extension: %s", sqlite3_errmsg(db));
  return rc;
}

int amalgam_example_failing_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api) {
  (void)db;
  (void)api;
  if (errorMessage) *errorMessage = sqlite3_mprintf("example extension refused");
  return SQLITE_ERROR;
}
