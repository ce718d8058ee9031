// Registers the compiled-in ext/misc extensions on one connection.
#include "include/AmalgamSQLite.h"

#ifdef AMALGAM_ENABLE_EXTENSIONS
#define SQLITE_CORE 1
#include "../../Vendor/SQLite/sqlite3ext.h"

int sqlite3_series_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_decimal_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_ieee_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_uuid_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_shathree_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
#endif

int amalgam_register_extensions(sqlite3 *db, char **errorMessage) {
#ifdef AMALGAM_ENABLE_EXTENSIONS
  int (*const initializers[])(sqlite3 *, char **, const sqlite3_api_routines *) = {
    sqlite3_series_init, sqlite3_decimal_init, sqlite3_ieee_init, sqlite3_uuid_init, sqlite3_shathree_init,
  };
  for (unsigned i = 0; i < sizeof(initializers) / sizeof(initializers[0]); i++) {
    int rc = initializers[i](db, errorMessage, 0);
    if (rc != SQLITE_OK) return rc;
  }
#else
  (void)db;
  (void)errorMessage;
#endif
  return SQLITE_OK;
}

int amalgam_extensions_enabled(void) {
#ifdef AMALGAM_ENABLE_EXTENSIONS
  return 1;
#else
  return 0;
#endif
}
