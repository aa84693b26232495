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

/*
 * The limits a recording meets at scale, checked before any event is
 * opened, so that a recording that cannot fit stops with the figures
 * instead of failing half-way through many CPUs:
 *
 *  - RLIMIT_NOFILE: one file descriptor per event, CPU and thread (-p:
 *    every thread on every CPU), plus SCALE_FD_RESERVE for the output,
 *    io_uring and the cgroup files, and SCALE_FD_PER_SYNTH for each
 *    synthesis thread.  When the soft limit is
 *    short and the hard one is not, the soft limit is raised to the hard
 *    one (as perf does on EMFILE); with CAP_SYS_RESOURCE the hard limit is
 *    raised too, up to fs.nr_open.
 *  - RLIMIT_MEMLOCK and perf_event_mlock_kb: without CAP_IPC_LOCK, and at
 *    perf_event_paranoid above -1, the kernel lets a user lock
 *    perf_event_mlock_kb times the online CPUs for ring buffers, and each
 *    process RLIMIT_MEMLOCK more; each buffer locks its pages and one more.
 *    Other recordings of the same user count too: the check fails only
 *    where the recording cannot fit on its own.
 *  - vm.max_map_count: one mapping per buffer, beside those in use.
 */
#define SCALE_FD_RESERVE 32
#define SCALE_FD_PER_SYNTH 3	/* a synthesis thread's task dir, comm and maps */
#define SCALE_MAP_RESERVE 256

struct scale_need {
	int ncpu, nthr, nev;		/* file descriptors: ncpu x nthr x nev */
	int nsynth;			/* synthesis threads */
	int nrings;			/* data buffers of ring_bytes */
	u64 ring_bytes;
	int nsb, ntrig;			/* side-band and trigger buffers */
	u32 sb_bytes, trig_bytes;
};

/* The system's figures (scale_sys_read()); the tests make their own. */
struct scale_sys {
	long page;
	long open_fds;
	u64 nofile_cur, nofile_max, nr_open;	/* RLIM_INFINITY: UINT64_MAX */
	bool sys_resource, ipc_lock;		/* capabilities */
	int paranoid;
	u64 mlock_kb;				/* perf_event_mlock_kb */
	int online_cpus;
	u64 memlock_cur;			/* bytes; UINT64_MAX: unlimited */
	long maps_now, max_map_count;
};

int scale_sys_read(struct scale_sys *s);
/*
 * Each: 0 when it fits, else a negative errno and the message in buf.
 * scale_fds() sets *want to the RLIMIT_NOFILE needed, and returns 1 when
 * raising the soft limit to the hard one is enough, 2 when the hard limit
 * must be raised as well (and can be: CAP_SYS_RESOURCE).
 */
int scale_fds(const struct scale_sys *s, const struct scale_need *n, u64 *want,
	      char *buf, size_t len);
int scale_mlock(const struct scale_sys *s, const struct scale_need *n, char *buf, size_t len);
int scale_maps(const struct scale_sys *s, const struct scale_need *n, char *buf, size_t len);
/* What an mmap that failed with EPERM met: " (...)" */
const char *scale_mlock_hint(void);
/* All three on this system, raising RLIMIT_NOFILE if needed: 0 or fail_set(). */
int scale_check(const struct scale_need *n, bool verbose);

#endif
