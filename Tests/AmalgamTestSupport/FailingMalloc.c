// An allocator for SQLite that fails the N-th allocation, for the out-of-memory runs of Amalgam's
// reliability tests (Tests/OOMRunner). See AmalgamTestSupport.h.
#include "AmalgamSQLite.h"
#include "AmalgamTestSupport.h"

#include <stdatomic.h>

static sqlite3_mem_methods defaultMethods;
static _Atomic int64_t counted;
static _Atomic int64_t failed;
static _Atomic int64_t failAt;
static _Atomic int failAfter;

// Whether the allocation being counted now must fail.
static int shouldFail(void) {
  int64_t number = atomic_fetch_add(&counted, 1) + 1;
  int64_t target = atomic_load(&failAt);
  if (target <= 0) return 0;
  if (number == target || (number > target && atomic_load(&failAfter))) {
    atomic_fetch_add(&failed, 1);
    return 1;
  }
  return 0;
}

static void *failingMalloc(int size) {
  if (shouldFail()) return 0;
  return defaultMethods.xMalloc(size);
}

static void failingFree(void *pointer) { defaultMethods.xFree(pointer); }

static void *failingRealloc(void *pointer, int size) {
  if (shouldFail()) return 0;
  return defaultMethods.xRealloc(pointer, size);
}

static int failingSize(void *pointer) { return defaultMethods.xSize(pointer); }

static int failingRoundup(int size) { return defaultMethods.xRoundup(size); }

static int failingInit(void *data) { return defaultMethods.xInit(data); }

static void failingShutdown(void *data) { defaultMethods.xShutdown(data); }

int amalgam_failing_malloc_install(void) {
  int rc = sqlite3_config(SQLITE_CONFIG_GETMALLOC, &defaultMethods);
  if (rc != SQLITE_OK) return rc;
  static sqlite3_mem_methods methods;
  methods = defaultMethods;
  methods.xMalloc = failingMalloc;
  methods.xFree = failingFree;
  methods.xRealloc = failingRealloc;
  methods.xSize = failingSize;
  methods.xRoundup = failingRoundup;
  methods.xInit = failingInit;
  methods.xShutdown = failingShutdown;
  return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}

void amalgam_failing_malloc_arm(int64_t allocation, int persistent) {
  atomic_store(&failAt, 0);
  atomic_store(&counted, 0);
  atomic_store(&failed, 0);
  atomic_store(&failAfter, persistent != 0);
  atomic_store(&failAt, allocation);
}

int64_t amalgam_failing_malloc_count(void) { return atomic_load(&counted); }

int64_t amalgam_failing_malloc_failures(void) { return atomic_load(&failed); }
