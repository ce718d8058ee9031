// The C module that Swift imports: SQLite's own header with every optional API declared, plus the few
// helpers Amalgam adds.
//
// The C target's -D options do not reach Swift's Clang importer, and sqlite3.h hides some APIs unless
// their option is defined. Defining the gating macros here (only while including sqlite3.h) gives every
// importer one identical module; the compiled library still follows the traits, because the amalgamation
// carries its own copy of the header. Swift code guards each optional API with `#if TRAIT`; a missing
// guard shows up as a link error in the --disable-default-traits build.
#ifndef AMALGAM_SQLITE_H
#define AMALGAM_SQLITE_H

#ifndef SQLITE_ENABLE_PREUPDATE_HOOK
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#define AMALGAM_UNDEFINE_PREUPDATE_HOOK
#endif
#ifndef SQLITE_ENABLE_SESSION
#define SQLITE_ENABLE_SESSION 1
#define AMALGAM_UNDEFINE_SESSION
#endif
#ifndef SQLITE_ENABLE_NORMALIZE
#define SQLITE_ENABLE_NORMALIZE 1
#define AMALGAM_UNDEFINE_NORMALIZE
#endif

#include "../../../Vendor/SQLite/sqlite3.h"
#include <pthread.h>
#include <stdint.h>

#ifdef AMALGAM_UNDEFINE_PREUPDATE_HOOK
#undef SQLITE_ENABLE_PREUPDATE_HOOK
#undef AMALGAM_UNDEFINE_PREUPDATE_HOOK
#endif
#ifdef AMALGAM_UNDEFINE_SESSION
#undef SQLITE_ENABLE_SESSION
#undef AMALGAM_UNDEFINE_SESSION
#endif
#ifdef AMALGAM_UNDEFINE_NORMALIZE
#undef SQLITE_ENABLE_NORMALIZE
#undef AMALGAM_UNDEFINE_NORMALIZE
#endif

/// Registers the ext/misc extensions compiled into this build (series, decimal, ieee754, uuid, sha3) on
/// `db`. Does nothing and returns SQLITE_OK when the ENABLE_EXTENSIONS trait is off.
int amalgam_register_extensions(sqlite3 *db, char **errorMessage);

/// Connection ownership, for detecting a connection used by two threads at once. `owner` holds the
/// claiming thread's id, or 0 when the connection is idle.
///
/// Returns 1 when this call claimed the connection (release it afterwards), 0 when the calling thread
/// already holds it (a nested call, such as a query run from inside a row callback), and -1 when another
/// thread holds it.
static inline int amalgam_claim(uintptr_t *owner) {
  uintptr_t me = (uintptr_t)pthread_self();
  uintptr_t expected = 0;
  if (__atomic_compare_exchange_n(owner, &expected, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 1;
  return expected == me ? 0 : -1;
}

/// Releases a connection claimed by amalgam_claim.
static inline void amalgam_release(uintptr_t *owner) {
  __atomic_store_n(owner, (uintptr_t)0, __ATOMIC_RELEASE);
}

/// 1 when the ext/misc extensions are compiled in (trait ENABLE_EXTENSIONS), else 0.
int amalgam_extensions_enabled(void);

#endif
