#include <sqlite3.h>
#include "OtherLibrary.h"

const char *other_header_version(void) { return SQLITE_VERSION; }
const char *other_linked_version(void) { return sqlite3_libversion(); }
const void *other_open_function(void) { return (const void *)&sqlite3_open_v2; }
