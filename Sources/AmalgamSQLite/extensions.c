// Registers the compiled-in extensions on one connection: the ext/misc ones (trait ENABLE_EXTENSIONS) and
// sqlite-vec (trait VECTOR).
#include "include/AmalgamSQLite.h"

#if defined(AMALGAM_ENABLE_EXTENSIONS) || defined(AMALGAM_ENABLE_VECTOR)
#define SQLITE_CORE 1
#include "../../Vendor/SQLite/sqlite3ext.h"
#endif

#ifdef AMALGAM_ENABLE_EXTENSIONS
int sqlite3_series_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_decimal_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_ieee_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_uuid_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
int sqlite3_shathree_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
#endif
#ifdef AMALGAM_ENABLE_VECTOR
int sqlite3_vec_init(sqlite3 *db, char **errorMessage, const sqlite3_api_routines *api);
#endif

int amalgam_register_extensions(sqlite3 *db, char **errorMessage) {
  int (*const initializers[])(sqlite3 *, char **, const sqlite3_api_routines *) = {
#ifdef AMALGAM_ENABLE_EXTENSIONS
    sqlite3_series_init, sqlite3_decimal_init, sqlite3_ieee_init, sqlite3_uuid_init, sqlite3_shathree_init,
#endif
#ifdef AMALGAM_ENABLE_VECTOR
    sqlite3_vec_init,
#endif
    0,
  };
  for (unsigned i = 0; initializers[i] != 0; i++) {
    int rc = initializers[i](db, errorMessage, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

int amalgam_extensions_enabled(void) {
#ifdef AMALGAM_ENABLE_EXTENSIONS
  return 1;
#else
  return 0;
#endif
}

int amalgam_vector_enabled(void) {
#ifdef AMALGAM_ENABLE_VECTOR
  return 1;
#else
  return 0;
#endif
}
