// A VFS that simulates power loss for Amalgam's reliability tests. See AmalgamTestSupport.h.
//
// Each file opened under a plugged-in folder has a node (one per path, shared by every handle on it)
// that lists the changes made since the file's last sync: for a write, the bytes it replaced and the
// bytes it wrote; for a truncation, the bytes it cut off; and the file size before each. A cut undoes
// the changes on disk, newest first, which leaves each file as it was at its last sync; then it redoes
// the changes the random draw keeps, oldest first. One mutex guards all of it.
#include "AmalgamSQLite.h"
#include "AmalgamTestSupport.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Change {
  int isTruncation;
  sqlite3_int64 offset;      // where the write starts, or the size a truncation sets
  sqlite3_int64 sizeBefore;  // the file size before the change
  unsigned char *before;     // the bytes replaced or cut off, from `offset`, within sizeBefore
  int beforeLength;
  unsigned char *after;      // the bytes written (writes only)
  int afterLength;
} Change;

typedef struct Node {
  char *path;
  int handles;
  Change *changes;
  int count;
  int capacity;
  struct Node *next;
} Node;

typedef struct Domain {
  char *directory;  // the real path with a final '/'; NULL for a free slot
  size_t length;
  int64_t remaining;  // operations until the power goes out; 0 for never
  int64_t operations;
  int keepPercent;
  uint64_t random;
  int out;
} Domain;

typedef struct File {
  sqlite3_file base;
  sqlite3_file *real;  // the default VFS's file, allocated right after this struct
  Node *node;          // NULL for a file without a name (temporary files)
} File;

enum { domainCapacity = 64 };
static Domain domains[domainCapacity];
static Node *nodes;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *realVFS;
static sqlite3_vfs powerLossVFS;

// MARK: Nodes and domains (the mutex is held)

static Domain *domainOf(const char *path) {
  if (path == NULL) return NULL;
  for (int i = 0; i < domainCapacity; i++) {
    Domain *domain = &domains[i];
    if (domain->directory != NULL && strncmp(path, domain->directory, domain->length) == 0) return domain;
  }
  return NULL;
}

static Domain *domainNamed(const char *directory) {
  char resolved[PATH_MAX];
  if (realpath(directory, resolved) == NULL) return NULL;
  size_t length = strlen(resolved);
  for (int i = 0; i < domainCapacity; i++) {
    Domain *domain = &domains[i];
    if (domain->directory != NULL && domain->length == length + 1
        && strncmp(domain->directory, resolved, length) == 0) {
      return domain;
    }
  }
  return NULL;
}

static void forgetChanges(Node *node) {
  for (int i = 0; i < node->count; i++) {
    free(node->changes[i].before);
    free(node->changes[i].after);
  }
  node->count = 0;
}

static void removeNode(Node *node) {
  for (Node **link = &nodes; *link != NULL; link = &(*link)->next) {
    if (*link == node) {
      *link = node->next;
      break;
    }
  }
  forgetChanges(node);
  free(node->changes);
  free(node->path);
  free(node);
}

static Node *nodeNamed(const char *path) {
  for (Node *node = nodes; node != NULL; node = node->next) {
    if (strcmp(node->path, path) == 0) return node;
  }
  return NULL;
}

static int appendChange(Node *node, Change change) {
  if (node->count == node->capacity) {
    int capacity = node->capacity == 0 ? 16 : node->capacity * 2;
    Change *changes = realloc(node->changes, sizeof(Change) * (size_t)capacity);
    if (changes == NULL) return 0;
    node->changes = changes;
    node->capacity = capacity;
  }
  node->changes[node->count++] = change;
  return 1;
}

static uint64_t nextRandom(Domain *domain) {
  // xorshift64*: repeatable for a seed, good enough to pick which writes survive.
  uint64_t x = domain->random;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  domain->random = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static int writeAll(int descriptor, const unsigned char *bytes, int length, sqlite3_int64 offset) {
  while (length > 0) {
    ssize_t written = pwrite(descriptor, bytes, (size_t)length, (off_t)offset);
    if (written <= 0) return 0;
    bytes += written;
    length -= (int)written;
    offset += written;
  }
  return 1;
}

// Reverts every file of `domain` to its last sync, keeping some writes; returns the writes dropped.
// Works on the files by path with POSIX calls, because their handles may be closed already. (Closing
// that descriptor drops the process's POSIX locks on the file: harmless, since the connections that
// held them can only fail from now on and must be closed before the folder is unplugged.)
static int64_t cut(Domain *domain) {
  int64_t dropped = 0;
  domain->out = 1;
  for (Node *node = nodes, *next; node != NULL; node = next) {
    next = node->next;
    if (domainOf(node->path) != domain) continue;
    int descriptor = node->count > 0 ? open(node->path, O_RDWR) : -1;
    if (descriptor >= 0) {
      for (int i = node->count - 1; i >= 0; i--) {
        Change *change = &node->changes[i];
        if (change->beforeLength > 0) writeAll(descriptor, change->before, change->beforeLength, change->offset);
        if (ftruncate(descriptor, (off_t)change->sizeBefore) != 0) break;
      }
      for (int i = 0; i < node->count; i++) {
        Change *change = &node->changes[i];
        int kept = domain->keepPercent > 0 && (int)(nextRandom(domain) % 100) < domain->keepPercent;
        if (!kept) {
          if (!change->isTruncation) dropped++;
        } else if (change->isTruncation) {
          if (ftruncate(descriptor, (off_t)change->offset) != 0) break;
        } else {
          writeAll(descriptor, change->after, change->afterLength, change->offset);
        }
      }
      close(descriptor);
    }
    forgetChanges(node);
    if (node->handles == 0) removeNode(node);
  }
  return dropped;
}

// Counts one operation on `node`'s file; returns 0 if it may go ahead, or 1 if the power is out (then
// the operation must fail without touching the file).
static int powerIsOut(Node *node) {
  Domain *domain = node == NULL ? NULL : domainOf(node->path);
  if (domain == NULL) return 0;
  if (domain->out) return 1;
  domain->operations++;
  if (domain->remaining > 0 && --domain->remaining == 0) {
    cut(domain);
    return 1;
  }
  return 0;
}

static int isPlugged(Node *node) { return node != NULL && domainOf(node->path) != NULL; }

// Reads `length` bytes at `offset` of `file`, or fewer at the end of the file, into a new buffer.
static int readRange(sqlite3_file *file, sqlite3_int64 size, sqlite3_int64 offset, sqlite3_int64 end,
                     unsigned char **bytes, int *length) {
  *bytes = NULL;
  *length = 0;
  if (end > size) end = size;
  if (offset >= end) return SQLITE_OK;
  int count = (int)(end - offset);
  unsigned char *buffer = malloc((size_t)count);
  if (buffer == NULL) return SQLITE_NOMEM;
  int rc = file->pMethods->xRead(file, buffer, count, offset);
  if (rc != SQLITE_OK) {
    free(buffer);
    return rc;
  }
  *bytes = buffer;
  *length = count;
  return SQLITE_OK;
}

// MARK: File methods

static int fileClose(sqlite3_file *file) {
  File *p = (File *)file;
  pthread_mutex_lock(&mutex);
  if (p->node != NULL) {
    p->node->handles--;
    if (p->node->handles == 0 && (p->node->count == 0 || !isPlugged(p->node))) removeNode(p->node);
    p->node = NULL;
  }
  pthread_mutex_unlock(&mutex);
  return p->real->pMethods->xClose(p->real);
}

static int fileRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
  File *p = (File *)file;
  return p->real->pMethods->xRead(p->real, buffer, amount, offset);
}

static int fileWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
  File *p = (File *)file;
  pthread_mutex_lock(&mutex);
  if (powerIsOut(p->node)) {
    pthread_mutex_unlock(&mutex);
    return SQLITE_IOERR_WRITE;
  }
  if (!isPlugged(p->node)) {
    pthread_mutex_unlock(&mutex);
    return p->real->pMethods->xWrite(p->real, buffer, amount, offset);
  }
  Change change = {0};
  change.offset = offset;
  int rc = p->real->pMethods->xFileSize(p->real, &change.sizeBefore);
  if (rc == SQLITE_OK) {
    rc = readRange(p->real, change.sizeBefore, offset, offset + amount, &change.before, &change.beforeLength);
  }
  if (rc == SQLITE_OK) {
    change.after = malloc((size_t)amount);
    change.afterLength = amount;
    if (change.after == NULL) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) {
    memcpy(change.after, buffer, (size_t)amount);
    rc = p->real->pMethods->xWrite(p->real, buffer, amount, offset);
  }
  if (rc == SQLITE_OK && !appendChange(p->node, change)) rc = SQLITE_NOMEM;
  if (rc != SQLITE_OK) {
    free(change.before);
    free(change.after);
  }
  pthread_mutex_unlock(&mutex);
  return rc;
}

static int fileTruncate(sqlite3_file *file, sqlite3_int64 size) {
  File *p = (File *)file;
  pthread_mutex_lock(&mutex);
  if (powerIsOut(p->node)) {
    pthread_mutex_unlock(&mutex);
    return SQLITE_IOERR_TRUNCATE;
  }
  if (!isPlugged(p->node)) {
    pthread_mutex_unlock(&mutex);
    return p->real->pMethods->xTruncate(p->real, size);
  }
  Change change = {0};
  change.isTruncation = 1;
  change.offset = size;
  int rc = p->real->pMethods->xFileSize(p->real, &change.sizeBefore);
  if (rc == SQLITE_OK) {
    rc = readRange(p->real, change.sizeBefore, size, change.sizeBefore, &change.before, &change.beforeLength);
  }
  if (rc == SQLITE_OK) rc = p->real->pMethods->xTruncate(p->real, size);
  if (rc == SQLITE_OK && !appendChange(p->node, change)) rc = SQLITE_NOMEM;
  if (rc != SQLITE_OK) free(change.before);
  pthread_mutex_unlock(&mutex);
  return rc;
}

static int fileSync(sqlite3_file *file, int flags) {
  File *p = (File *)file;
  pthread_mutex_lock(&mutex);
  if (powerIsOut(p->node)) {
    pthread_mutex_unlock(&mutex);
    return SQLITE_IOERR_FSYNC;
  }
  if (isPlugged(p->node)) {
    // Durable from now on. The model needs no real fsync, which keeps the tests fast.
    forgetChanges(p->node);
    pthread_mutex_unlock(&mutex);
    return SQLITE_OK;
  }
  pthread_mutex_unlock(&mutex);
  return p->real->pMethods->xSync(p->real, flags);
}

static int fileSize(sqlite3_file *file, sqlite3_int64 *size) {
  File *p = (File *)file;
  return p->real->pMethods->xFileSize(p->real, size);
}

static int fileLock(sqlite3_file *file, int level) {
  File *p = (File *)file;
  return p->real->pMethods->xLock(p->real, level);
}

static int fileUnlock(sqlite3_file *file, int level) {
  File *p = (File *)file;
  return p->real->pMethods->xUnlock(p->real, level);
}

static int fileCheckReservedLock(sqlite3_file *file, int *reserved) {
  File *p = (File *)file;
  return p->real->pMethods->xCheckReservedLock(p->real, reserved);
}

static int fileControl(sqlite3_file *file, int operation, void *argument) {
  File *p = (File *)file;
  return p->real->pMethods->xFileControl(p->real, operation, argument);
}

static int fileSectorSize(sqlite3_file *file) {
  File *p = (File *)file;
  return p->real->pMethods->xSectorSize(p->real);
}

static int fileDeviceCharacteristics(sqlite3_file *file) {
  File *p = (File *)file;
  return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int fileShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **memory) {
  File *p = (File *)file;
  return p->real->pMethods->xShmMap(p->real, region, size, extend, memory);
}

static int fileShmLock(sqlite3_file *file, int offset, int count, int flags) {
  File *p = (File *)file;
  return p->real->pMethods->xShmLock(p->real, offset, count, flags);
}

static void fileShmBarrier(sqlite3_file *file) {
  File *p = (File *)file;
  p->real->pMethods->xShmBarrier(p->real);
}

static int fileShmUnmap(sqlite3_file *file, int deleteFlag) {
  File *p = (File *)file;
  return p->real->pMethods->xShmUnmap(p->real, deleteFlag);
}

static int fileFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
  File *p = (File *)file;
  if (p->real->pMethods->iVersion < 3) {
    *pointer = NULL;
    return SQLITE_OK;
  }
  return p->real->pMethods->xFetch(p->real, offset, amount, pointer);
}

static int fileUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
  File *p = (File *)file;
  if (p->real->pMethods->iVersion < 3) return SQLITE_OK;
  return p->real->pMethods->xUnfetch(p->real, offset, pointer);
}

static const sqlite3_io_methods fileMethods = {
  3,
  fileClose,
  fileRead,
  fileWrite,
  fileTruncate,
  fileSync,
  fileSize,
  fileLock,
  fileUnlock,
  fileCheckReservedLock,
  fileControl,
  fileSectorSize,
  fileDeviceCharacteristics,
  fileShmMap,
  fileShmLock,
  fileShmBarrier,
  fileShmUnmap,
  fileFetch,
  fileUnfetch,
};

// MARK: VFS methods

static int vfsOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
  (void)vfs;
  File *p = (File *)file;
  memset(p, 0, sizeof(File));
  p->real = (sqlite3_file *)&p[1];
  if (name != NULL) {
    pthread_mutex_lock(&mutex);
    Domain *domain = domainOf(name);
    if (domain != NULL && domain->out) {
      pthread_mutex_unlock(&mutex);
      return SQLITE_CANTOPEN;
    }
    Node *node = nodeNamed(name);
    if (node == NULL) {
      node = calloc(1, sizeof(Node));
      if (node != NULL) node->path = strdup(name);
      if (node == NULL || node->path == NULL) {
        free(node);
        pthread_mutex_unlock(&mutex);
        return SQLITE_NOMEM;
      }
      node->next = nodes;
      nodes = node;
    }
    node->handles++;
    p->node = node;
    pthread_mutex_unlock(&mutex);
  }
  int rc = realVFS->xOpen(realVFS, name, p->real, flags, outFlags);
  if (p->real->pMethods != NULL) {
    p->base.pMethods = &fileMethods;
  } else if (p->node != NULL) {
    pthread_mutex_lock(&mutex);
    p->node->handles--;
    if (p->node->handles == 0 && p->node->count == 0) removeNode(p->node);
    p->node = NULL;
    pthread_mutex_unlock(&mutex);
  }
  return rc;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
  (void)vfs;
  pthread_mutex_lock(&mutex);
  Node *node = nodeNamed(name);
  Domain *domain = domainOf(name);
  if (domain != NULL) {
    if (domain->out) {
      pthread_mutex_unlock(&mutex);
      return SQLITE_IOERR_DELETE;
    }
    domain->operations++;
    if (domain->remaining > 0 && --domain->remaining == 0) {
      cut(domain);
      pthread_mutex_unlock(&mutex);
      return SQLITE_IOERR_DELETE;
    }
  }
  // A deletion is durable at once (see the header); the file's unsynced changes go with it.
  if (node != NULL) {
    forgetChanges(node);
    if (node->handles == 0) removeNode(node);
  }
  pthread_mutex_unlock(&mutex);
  return realVFS->xDelete(realVFS, name, syncDirectory);
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
  (void)vfs;
  return realVFS->xAccess(realVFS, name, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
  (void)vfs;
  return realVFS->xFullPathname(realVFS, name, size, output);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *path) {
  (void)vfs;
  return realVFS->xDlOpen(realVFS, path);
}

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
  (void)vfs;
  realVFS->xDlError(realVFS, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
  (void)vfs;
  return realVFS->xDlSym(realVFS, library, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *library) {
  (void)vfs;
  realVFS->xDlClose(realVFS, library);
}

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *output) {
  (void)vfs;
  return realVFS->xRandomness(realVFS, size, output);
}

static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
  (void)vfs;
  return realVFS->xSleep(realVFS, microseconds);
}

static int vfsCurrentTime(sqlite3_vfs *vfs, double *time) {
  (void)vfs;
  return realVFS->xCurrentTime(realVFS, time);
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *message) {
  (void)vfs;
  return realVFS->xGetLastError(realVFS, size, message);
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
  (void)vfs;
  return realVFS->xCurrentTimeInt64(realVFS, time);
}

static int registration = SQLITE_OK;

static void registerOnce(void) {
  registration = sqlite3_initialize();
  if (registration != SQLITE_OK) return;
  realVFS = sqlite3_vfs_find(NULL);
  if (realVFS == NULL || realVFS->iVersion < 2) {
    registration = SQLITE_ERROR;
    return;
  }
  powerLossVFS.iVersion = 2;
  powerLossVFS.szOsFile = (int)sizeof(File) + realVFS->szOsFile;
  powerLossVFS.mxPathname = realVFS->mxPathname;
  powerLossVFS.zName = AMALGAM_POWER_LOSS_VFS;
  powerLossVFS.xOpen = vfsOpen;
  powerLossVFS.xDelete = vfsDelete;
  powerLossVFS.xAccess = vfsAccess;
  powerLossVFS.xFullPathname = vfsFullPathname;
  powerLossVFS.xDlOpen = vfsDlOpen;
  powerLossVFS.xDlError = vfsDlError;
  powerLossVFS.xDlSym = vfsDlSym;
  powerLossVFS.xDlClose = vfsDlClose;
  powerLossVFS.xRandomness = vfsRandomness;
  powerLossVFS.xSleep = vfsSleep;
  powerLossVFS.xCurrentTime = vfsCurrentTime;
  powerLossVFS.xGetLastError = vfsGetLastError;
  powerLossVFS.xCurrentTimeInt64 = vfsCurrentTimeInt64;
  registration = sqlite3_vfs_register(&powerLossVFS, 0);
}

// MARK: Public functions

int amalgam_power_loss_register(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, registerOnce);
  return registration;
}

int amalgam_power_loss_plug(const char *directory, int64_t operations, int keepPercent, uint64_t seed) {
  char resolved[PATH_MAX];
  if (realpath(directory, resolved) == NULL) return -1;
  pthread_mutex_lock(&mutex);
  int result = -1;
  if (domainNamed(directory) == NULL) {
    for (int i = 0; i < domainCapacity; i++) {
      Domain *domain = &domains[i];
      if (domain->directory != NULL) continue;
      size_t length = strlen(resolved);
      domain->directory = malloc(length + 2);
      if (domain->directory == NULL) break;
      memcpy(domain->directory, resolved, length);
      domain->directory[length] = '/';
      domain->directory[length + 1] = 0;
      domain->length = length + 1;
      domain->remaining = operations > 0 ? operations : 0;
      domain->operations = 0;
      domain->keepPercent = keepPercent < 0 ? 0 : keepPercent > 100 ? 100 : keepPercent;
      domain->random = seed == 0 ? 0x9E3779B97F4A7C15ULL : seed;
      domain->out = 0;
      result = 0;
      break;
    }
  }
  pthread_mutex_unlock(&mutex);
  return result;
}

int64_t amalgam_power_loss_cut(const char *directory) {
  pthread_mutex_lock(&mutex);
  Domain *domain = domainNamed(directory);
  int64_t dropped = domain == NULL || domain->out ? -1 : cut(domain);
  pthread_mutex_unlock(&mutex);
  return dropped;
}

int amalgam_power_loss_is_out(const char *directory) {
  pthread_mutex_lock(&mutex);
  Domain *domain = domainNamed(directory);
  int out = domain == NULL ? -1 : domain->out;
  pthread_mutex_unlock(&mutex);
  return out;
}

int64_t amalgam_power_loss_operations(const char *directory) {
  pthread_mutex_lock(&mutex);
  Domain *domain = domainNamed(directory);
  int64_t operations = domain == NULL ? -1 : domain->operations;
  pthread_mutex_unlock(&mutex);
  return operations;
}

int amalgam_power_loss_unplug(const char *directory) {
  pthread_mutex_lock(&mutex);
  Domain *domain = domainNamed(directory);
  if (domain == NULL) {
    pthread_mutex_unlock(&mutex);
    return -1;
  }
  for (Node *node = nodes, *next; node != NULL; node = next) {
    next = node->next;
    if (domainOf(node->path) != domain) continue;
    forgetChanges(node);
    if (node->handles == 0) removeNode(node);
  }
  free(domain->directory);
  memset(domain, 0, sizeof(Domain));
  pthread_mutex_unlock(&mutex);
  return 0;
}
