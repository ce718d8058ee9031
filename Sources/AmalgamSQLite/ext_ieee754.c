// Compiles SQLite's ext/misc/ieee754.c into the library (not as a loadable extension) when the
// ENABLE_EXTENSIONS trait is on. Registered on every connection by amalgam_register_extensions().
#ifdef AMALGAM_ENABLE_EXTENSIONS
#define SQLITE_CORE 1
#include "../../Vendor/SQLite/ext/misc/ieee754.c"
#endif
