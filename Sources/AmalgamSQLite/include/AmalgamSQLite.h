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

// SQLite3 Multiple Ciphers (Vendor/SQLite3MultipleCiphers), compiled in place of SQLite's amalgamation by the
// ENCRYPTION trait. Its amalgamation has no header of its own: these are its declarations, as in its
// sqlite3mc.h. They are declared in every build; Swift calls them only under `#if ENCRYPTION` (a missing
// guard is a link error in the builds without the trait).

/// Sets the key of schema `zDbName` ("main", or an attached schema) before its first page is read.
int sqlite3_key_v2(sqlite3 *db, const char *zDbName, const void *pKey, int nKey);
/// Encrypts, re-encrypts (new key) or decrypts (NULL key) schema `zDbName`.
int sqlite3_rekey_v2(sqlite3 *db, const char *zDbName, const void *pKey, int nKey);
/// The number of ciphers compiled in.
int sqlite3mc_cipher_count(void);
/// The index of the cipher named `cipherName` (1-based), or -1.
int sqlite3mc_cipher_index(const char *cipherName);
/// The name of the cipher at `cipherIndex` (1-based), or an empty string.
const char *sqlite3mc_cipher_name(int cipherIndex);
/// Reads (newValue -1) or sets a connection's encryption setting, such as "cipher"; returns the value.
int sqlite3mc_config(sqlite3 *db, const char *paramName, int newValue);
/// Reads (newValue -1) or sets a parameter of one cipher on a connection; returns the value, -1 if unknown.
int sqlite3mc_config_cipher(sqlite3 *db, const char *cipherName, const char *paramName, int newValue);
/// "SQLite3 Multiple Ciphers X.Y.Z".
const char *sqlite3mc_version(void);

/// Registers the extensions compiled into this build on `db`: the ext/misc ones (series, decimal, ieee754,
/// uuid, sha3; trait ENABLE_EXTENSIONS) and sqlite-vec (trait VECTOR). Does nothing and returns SQLITE_OK
/// when both traits are off.
int amalgam_register_extensions(sqlite3 *db, char **errorMessage);

/// A column's storage class and, when it is SQLITE_INTEGER, its value. Returned by value (in two
/// registers), so reading a column takes no address of a Swift local.
typedef struct amalgam_integer_column {
  sqlite3_int64 value;
  int type;
} amalgam_integer_column;

/// A column's storage class and, when it is SQLITE_FLOAT or SQLITE_INTEGER, its value as a double.
typedef struct amalgam_real_column {
  double value;
  int type;
} amalgam_real_column;

/// Reads a column of the current row in one call: its storage class (SQLITE_INTEGER, ...) and, when it is
/// INTEGER, its value. A column out of range reads as NULL.
amalgam_integer_column amalgam_column_integer(sqlite3_stmt *stmt, int column);
/// As amalgam_column_integer, for REAL (and INTEGER, converted) columns.
amalgam_real_column amalgam_column_real(sqlite3_stmt *stmt, int column);
/// As amalgam_column_integer, for TEXT and BLOB columns: their bytes (NULL when empty or out of memory)
/// and byte count.
int amalgam_column_bytes(sqlite3_stmt *stmt, int column, const void **bytes, int *count);

/// Sets (`on` 1) or clears (`on` 0) the flag of `PRAGMA query_only` on `db`, or only reads it (`on` -1), and
/// returns whether it was set. Unlike the pragma, which compiles to OP_Expire and so makes SQLite prepare
/// every statement of the connection again before its next run, this expires nothing: the flag is read
/// when a statement starts a write transaction (OP_Transaction), never while SQLite compiles one. A
/// statement or `sqlite3_blob_open` that would write fails with SQLITE_READONLY ("attempt to write a
/// readonly database"), whatever path it runs through, as under the pragma.
int amalgam_query_only(sqlite3 *db, int on);

/// Whether `db`'s databases (main, temp and attached) are those whose schema-name and btree pointers
/// `key[0 ..< *count]` holds, two per database; then writes the current ones there (and their number to
/// `*count`). ATTACH and DETACH change them, so a caller that looks after each of its closures allocates
/// and compares nothing more when they did not (a database detached and another attached at the same
/// addresses looks unchanged: callers also look in full now and then). Returns 0, with `*count` -1, when
/// `capacity` pointers cannot hold them.
int amalgam_databases_unchanged(sqlite3 *db, const void **key, int capacity, int *count);

// ---- Rowid-level regions (Sources/AmalgamSQLite/sqlite3.c) ----
// What a statement's bytecode reads, table by table: which tables it reads only at rowids pinned by a
// bound parameter or an integer constant (`SELECT ... FROM t WHERE id = ?`, `WHERE rowid = 5`), and which
// at all rows. The analysis errs one way only: a table is pinned only when every instruction that uses
// one of its cursors is understood and every row it reads is found by OP_SeekRowid with a key loaded,
// right before, from a parameter or a constant that control cannot skip. Rows found through an index, a
// scan, a key computed or read from another table, a WITHOUT ROWID table and a table opened for writing
// are all rows. A statement with an instruction the analysis does not follow (a trigger's subprogram,
// nested SQL, schema and btree operations, an opcode it does not know) is opaque.

/// One pinned rowid of a table: bound parameter `parameter` (1-based), or `constant` when `parameter`
/// is 0.
typedef struct amalgam_rowid_pin {
  int table;
  int parameter;
  sqlite3_int64 constant;
} amalgam_rowid_pin;

/// A table a statement reads through a btree cursor.
typedef struct amalgam_read_table {
  /// The name of its schema ("main", "temp" or an attached database's name) and its name, as the
  /// schema spells them.
  char *schema;
  char *name;
  /// 1 when the statement reads it only at the rowids of its pins, 0 when at all rows.
  int isPinned;
  /// The schema's index in the connection, and SQLite's table object (an identity only, never read).
  int databaseIndex;
  const void *identity;
} amalgam_read_table;

/// The tables a statement's program reads. Free with amalgam_rowid_analysis_free.
typedef struct amalgam_rowid_analysis {
  /// 1 when what the program reads is not known table by table (then there are no tables and no pins).
  int isOpaque;
  int tableCount;
  amalgam_read_table *tables;
  int pinCount;
  amalgam_rowid_pin *pins;
  /// The program analysed (see amalgam_statement_program).
  const void *program;
  int instructionCount;
} amalgam_rowid_analysis;

/// Analyses the current program of `statement` (until SQLite prepares it again): see above. NULL when
/// memory runs out.
amalgam_rowid_analysis *amalgam_analyze_rowids(sqlite3_stmt *statement);
/// Frees an analysis.
void amalgam_rowid_analysis_free(amalgam_rowid_analysis *analysis);
/// The address and the length of the program `statement` runs now: they change when SQLite prepares it
/// again, and identify it (with the statement's SQL and re-prepare count) for an analysis kept in a cache.
const void *amalgam_statement_program(sqlite3_stmt *statement, int *instructionCount);
/// The rowid that bound parameter `parameter` (1-based) of `statement` makes OP_SeekRowid look for: 1 and
/// `*rowid` set for an integer, or for a value that NUMERIC affinity converts to an integer exactly
/// (text '5', real 5.0); 0 when the value is no rowid (NULL, 'x', 5.5), so the seek finds no row; -1 for a
/// parameter out of range.
int amalgam_bound_rowid(sqlite3_stmt *statement, int parameter, sqlite3_int64 *rowid);
/// A number that changes whenever the connection's schemas may have: it mixes each attached database's
/// schema object, schema cookie and generation (a reload after another connection changed the schema).
sqlite3_uint64 amalgam_schema_fingerprint(sqlite3 *db);

/// Tells `onStatement` of every statement execution that starts on a connection (SQLite's
/// SQLITE_TRACE_STMT event, at the start of each run, nested ones included), while passing every event
/// to the trace callback registered before, as it asked for them. Owned by the caller, and must live
/// while installed.
typedef struct amalgam_statement_relay {
  void (*onStatement)(void *context, sqlite3_stmt *statement);
  void *context;
  unsigned previousMask;
  int (*previousCallback)(unsigned, void *, void *, void *);
  void *previousContext;
} amalgam_statement_relay;

/// Installs `relay` as the trace callback of `db` (set onStatement and context first). Returns 1 when it
/// is installed (now or already), 0 when it cannot be (a legacy sqlite3_trace callback is registered).
int amalgam_statement_relay_install(sqlite3 *db, amalgam_statement_relay *relay);
/// Gives `db` its previous trace callback back. Returns 1 when `relay` was still installed, 0 when
/// someone registered another trace callback meanwhile (which stays): then some executions were missed.
int amalgam_statement_relay_remove(sqlite3 *db, amalgam_statement_relay *relay);

/// The trace events and the authorizer that amalgam_own_statements_begin took away from a connection, for
/// amalgam_own_statements_end to give back.
typedef struct amalgam_own_statements {
  unsigned traceMask;
  void (*authorizer)(void);
} amalgam_own_statements;

/// Stops `db`'s trace callback and authorizer while Amalgam runs statements of its own on the user's
/// connection (learning which tables are virtual, a table's columns, a file's data version), as SQLite
/// does for the statements it runs itself (OP_SqlExec, VACUUM): no trace event, no profile or row event
/// later, no authorizer call for them. The callbacks stay registered (a statement relay keeps its place);
/// only the events of this span are not delivered. Pairs nest.
amalgam_own_statements amalgam_own_statements_begin(sqlite3 *db);
/// Gives `db` back what amalgam_own_statements_begin took.
void amalgam_own_statements_end(sqlite3 *db, amalgam_own_statements taken);
// ---- End of rowid-level regions ----

/// Connection ownership, for detecting a connection used by two threads at once. `owner` holds the
/// claiming thread's id, or 0 when the connection is idle.
///
/// Returns 1 when this call claimed the connection (release it afterwards), 0 when the calling thread
/// already holds it (a nested call, such as a query run from inside a row callback), and -1 when another
/// thread holds it.
static inline __attribute__((always_inline)) int amalgam_claim(uintptr_t *owner) {
  uintptr_t me = (uintptr_t)pthread_self();
  uintptr_t expected = 0;
  if (__atomic_compare_exchange_n(owner, &expected, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 1;
  return expected == me ? 0 : -1;
}

/// Releases a connection claimed by amalgam_claim.
static inline __attribute__((always_inline)) void amalgam_release(uintptr_t *owner) {
  __atomic_store_n(owner, (uintptr_t)0, __ATOMIC_RELEASE);
}

/// Reads and writes a callback's call counter (Sources/Amalgam/Core/CallbackScope.swift). Relaxed atomics
/// compile to plain loads and stores; they only make a kept value's check from another thread well
/// defined (it then sees a stale number, never a torn one). These helpers run on every callback and
/// every row; `always_inline` keeps Swift's optimizer from calling them out of line.
static inline __attribute__((always_inline)) uint64_t amalgam_load_relaxed(const uint64_t *cell) {
  return __atomic_load_n(cell, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) void amalgam_store_relaxed(uint64_t *cell, uint64_t value) {
  __atomic_store_n(cell, value, __ATOMIC_RELAXED);
}

/// A release store and an acquire load, and a full fence: how the writer publishes that a commit hook
/// compared its connection's data versions, and how the watcher of other connections' commits orders
/// that read after its look at the files (Sources/Amalgam/Observation/ForeignCommitWatcher.swift).
static inline __attribute__((always_inline)) void amalgam_store_release(uint64_t *cell, uint64_t value) {
  __atomic_store_n(cell, value, __ATOMIC_RELEASE);
}

static inline __attribute__((always_inline)) uint64_t amalgam_load_acquire(const uint64_t *cell) {
  return __atomic_load_n(cell, __ATOMIC_ACQUIRE);
}

static inline __attribute__((always_inline)) void amalgam_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/// 1 when the ext/misc extensions are compiled in (trait ENABLE_EXTENSIONS), else 0.
int amalgam_extensions_enabled(void);

/// 1 when sqlite-vec is compiled in (trait VECTOR), else 0.
int amalgam_vector_enabled(void);

// ---- Hooks, limits and configuration (Sources/AmalgamSQLite/shims.c) ----
// Swift cannot call C functions that take variable arguments; these take fixed ones.

/// sqlite3_db_config(db, op, value, result) for the options that take an int and an int*
/// (SQLITE_DBCONFIG_ENABLE_FKEY, ..., SQLITE_DBCONFIG_FP_DIGITS).
int amalgam_db_config_int(sqlite3 *db, int op, int value, int *result);

/// sqlite3_config(SQLITE_CONFIG_LOG, callback, context). SQLite accepts it at any time.
int amalgam_config_log(void (*callback)(void *, int, const char *), void *context);

/// sqlite3_log(code, "%s", message): writes `message` to SQLite's error log verbatim.
void amalgam_log(int code, const char *message);

/// A process-wide lock guarding the Swift error-log handler (SQLiteLog).
void amalgam_log_lock(void);
void amalgam_log_unlock(void);

/// sqlite3_vtab_config(db, op, value) for SQLITE_VTAB_CONSTRAINT_SUPPORT, sqlite3_vtab_config(db, op) for
/// the options that take no argument (SQLITE_VTAB_INNOCUOUS, _DIRECTONLY, _USES_ALL_SCHEMAS). Call it only
/// from a virtual table's xCreate or xConnect.
int amalgam_vtab_config(sqlite3 *db, int op, int value);
// ---- End of hooks, limits and configuration ----

/// A virtual table module's xShadowName.
typedef int (*amalgam_shadow_name_function)(const char *);

/// An xShadowName function that answers true for each of `names` (compared as SQLite compares
/// identifiers, ignoring ASCII case), for a module that keeps its data in shadow tables named
/// `<table>_<name>`. The same names give the same function. Returns NULL when `count` is not positive,
/// when memory runs out, or when 64 different name lists are registered already (the functions and
/// their lists live as long as the process).
amalgam_shadow_name_function amalgam_shadow_name(const char *const *names, int count);

#endif
