// The system's SQLite header (Debian's libsqlite3-dev: /usr/include/sqlite3.h), as an application that
// uses the system SQLite includes it.
#include <sqlite3.h>
