// Compiles sqlite-vec into the library, not as a loadable extension, when the VECTOR trait is on. Registered
// on every connection by amalgam_register_extensions(). The file compiled is Vendor/sqlite-vec/patched/
// sqlite-vec.c: the release kept byte for byte beside it, with the fixes in Vendor/sqlite-vec/patches applied
// by Scripts/update-sqlite (Vendor/README.md says what each fixes).
#ifdef AMALGAM_ENABLE_VECTOR
#define SQLITE_CORE 1
#define SQLITE_VEC_STATIC 1
// vec_npy_file() reads files; sqlite3_vec_init() never registers it, so leave its code out.
#define SQLITE_VEC_OMIT_FS 1
// SQLITE_THREADSAFE is chosen in sqlite3.c and not defined here, so sqlite-vec leaves out its own locking of
// the connection's mutex around its internal statements. Nothing is lost: in multi-thread mode (the default)
// a connection has no mutex and is used by one thread at a time, and in serialized mode SQLite already holds
// that (recursive) mutex whenever it calls into a vec0 table.

// SIMD is chosen at compile time, from what the compiler targets, never from the machine that builds:
// a binary then never executes an instruction its CPU lacks. AVX only when the target has it (-mavx,
// -march=x86-64-v3, an Apple x86_64 target that implies it); the x86_64 baseline has none. NEON is part of
// every arm64 CPU.
#if defined(__x86_64__) && defined(__AVX__)
#define SQLITE_VEC_ENABLE_AVX 1
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define SQLITE_VEC_ENABLE_NEON 1
#endif

#include "../../Vendor/sqlite-vec/patched/sqlite-vec.c"
#endif
