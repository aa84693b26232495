/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory cgroup's limit, seen from inside.  Under a memory.max (cgroup
 * v2) or memory.limit_in_bytes (v1), a recorder that allocates past the
 * limit is OOM-killed with no word and a file cut short.  perf-ring checks
 * instead, before each step that allocates (the start, each output file,
 * each chunk written to a memory-backed file system) and every loop turn,
 * that what it is about to take fits, and stops with a message naming the
 * cgroup and the figures while it still can.
 *
 * The room at one level of the hierarchy is its limit less its usage, plus
 * the file pages that reclaim can free (active_file + inactive_file of its
 * memory.stat: page cache, not tmpfs).  The room is the least over every
 * level that has a limit.  MEMLIMIT_RESERVE stays free for what perf-ring
 * does not count: the kernel's allocations on its behalf (page tables,
 * io_uring, slab), its stacks, libc's own.
 *
 * The limits are read at each check, so a limit set or lowered while
 * perf-ring records is seen at the next one.  With no memory controller
 * every call is a no-op.
 */
#ifndef PERF_RING_MEMLIMIT_H
#define PERF_RING_MEMLIMIT_H

#include <stdbool.h>
#include "util.h"

#define MEMLIMIT_RESERVE (512u << 10)

/* Find the limits of this process's memory cgroup.  0, or negative errno. */
int memlimit_init(void);
bool memlimit_on(void);
/* The room now (see above); INT64_MAX when there is no limit. */
int64_t memlimit_room(void);
/*
 * Fail (fail_set(), -ENOMEM) unless need bytes plus the reserve fit in the
 * room now; what names the step in the message.
 */
int memlimit_check(u64 need, const char *what);
/* Is path on a file system whose pages are memory (tmpfs, ramfs)? */
bool memlimit_memfs(const char *path);
/* "cgroup /a/b: memory.max 2.4 MB, 2.1 MB in use" for -v; "" without a limit */
const char *memlimit_describe(void);

#endif
