// Test-only C support for Amalgam's reliability tests (Tests/AmalgamTests/Reliability): a VFS that
// simulates power loss, and an allocator that fails on demand. Never part of the Amalgam library.
#ifndef AMALGAM_TEST_SUPPORT_H
#define AMALGAM_TEST_SUPPORT_H

#include <stdint.h>

// MARK: Power loss

/// The name under which amalgam_power_loss_register() registers the power-loss VFS.
#define AMALGAM_POWER_LOSS_VFS "amalgam-power-loss"

/// Registers the power-loss VFS (not as the default) under AMALGAM_POWER_LOSS_VFS, wrapping the default
/// VFS. Safe to call more than once and from several threads. Returns an SQLite result code.
///
/// The VFS passes every call to the default VFS, and remembers, per file, each write and truncation made
/// since that file's last xSync (with the bytes it replaced). A power cut reverts the files on disk to
/// their content at their last xSync: as if the operating system lost its cache. It never calls the real
/// fsync (durability is what it models, so it need not wait for the disk).
///
/// Simplifications, all in the direction of a kinder disk: file creation and deletion are durable at
/// once (a real system needs a directory sync), each xWrite is all or nothing (no torn sectors), and the
/// shared-memory (-shm) file is not modelled (SQLite rebuilds it after a crash).
int amalgam_power_loss_register(void);

/// Plugs the files under `directory` (an existing folder) into the simulated power supply. After
/// `operations` more writes, truncations or syncs of those files (0: never), the power goes out: that
/// operation is not done, and the cut happens as in amalgam_power_loss_cut(). `keepPercent` (0-100) is
/// the chance that each unsynced write survives the cut anyway (a disk writes its cache back in any
/// order); `seed` makes that choice repeatable. Returns 0, or -1 if the folder is already plugged in or
/// too many are.
int amalgam_power_loss_plug(const char *directory, int64_t operations, int keepPercent, uint64_t seed);

/// Cuts the power of `directory` now: every file under it reverts on disk to its content at its last
/// sync (except the writes that keepPercent keeps), and from now on every write, truncation, sync,
/// deletion or open under it fails with an I/O error, until amalgam_power_loss_unplug(). Returns the
/// number of unsynced writes dropped, or -1 if the folder is not plugged in or the power is already out.
int64_t amalgam_power_loss_cut(const char *directory);

/// Whether the power of `directory` is out (1), on (0), or the folder is not plugged in (-1).
int amalgam_power_loss_is_out(const char *directory);

/// The number of writes, truncations and syncs counted under `directory` since it was plugged in, or
/// -1 if it is not plugged in.
int64_t amalgam_power_loss_operations(const char *directory);

/// Unplugs `directory`: the power is back on for its files, and the VFS forgets them. Close every
/// connection to them first. Returns 0, or -1 if the folder was not plugged in.
int amalgam_power_loss_unplug(const char *directory);

// MARK: Out of memory

/// Installs an allocator, wrapping SQLite's default one, that can fail on demand
/// (sqlite3_config(SQLITE_CONFIG_MALLOC)). Call it before anything else uses SQLite: sqlite3_config works
/// only while SQLite is not initialised, and the allocator is the whole process's, so only a process of
/// its own (amalgam-oom-runner) may install it. Returns an SQLite result code.
int amalgam_failing_malloc_install(void);

/// From now on, the `allocation`-th allocation (xMalloc or xRealloc, counting from 1) fails, and when
/// `persistent` is non-zero every one after it too. 0 counts allocations without failing any. Resets
/// the counts.
void amalgam_failing_malloc_arm(int64_t allocation, int persistent);

/// Allocations counted since the last amalgam_failing_malloc_arm().
int64_t amalgam_failing_malloc_count(void);

/// Allocations that failed since the last amalgam_failing_malloc_arm().
int64_t amalgam_failing_malloc_failures(void);

#endif
