// Compiles SQLite's ext/misc/decimal.c into the library (not as a loadable extension) when the
// ENABLE_EXTENSIONS trait is on. Registered on every connection by amalgam_register_extensions().
#ifdef AMALGAM_ENABLE_EXTENSIONS
#define SQLITE_CORE 1
#include "../../Vendor/SQLite/ext/misc/decimal.c"
#endif
